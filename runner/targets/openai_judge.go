package targets

import (
	"fmt"

	"github.com/nlutest/nlutest/schema"
)

// This file is how an openai target judges memory answers (SPEC §13): a
// target with a judge block, called with a case that carries
// schema.JudgeInput, sends JudgeSystemPrompt (or the target's own system
// message, when it sets one) and the fact, question, expected answer and
// answer in JudgeUserPrompt's layout, alone: no conversation history. Its
// judge block reads the verdict from the reply (the default), which
// spec.ParseVerdict accepts only when it is exactly one verdict word.
// docs/memory.md prints both texts; a test keeps them equal.

// JudgeSystemPrompt is the default instructions of an openai judge.
const JudgeSystemPrompt = `You judge whether a chatbot remembered a fact a user told it earlier in a conversation.
You are given the fact the user told the chatbot, the question the user asked about it later, what a correct answer states, and the chatbot's answer.
Decide whether the chatbot's answer:
- entailment: states the expected answer (in any wording or language);
- contradiction: states a different value than the fact;
- neutral: states neither (it does not know, asks back, or changes the subject).
Reply with exactly one word: entailment, neutral or contradiction. Do not write anything else.`

// JudgeUserPrompt is the layout of the message an openai judge is sent:
// the fact, the question, the expected answer and the chatbot's answer.
const JudgeUserPrompt = "Fact: %s\nQuestion: %s\nExpected answer: %s\nChatbot's answer: %s"

// judgeMessage is the user message of a judge request.
func judgeMessage(j *schema.JudgeInput) string {
	return fmt.Sprintf(JudgeUserPrompt, j.Fact, j.Question, j.Expect, j.Answer)
}
