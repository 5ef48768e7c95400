package runner

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nlutest/nlutest/schema"
)

// What is kept of a language model's answer when it is not the bot under
// test (SPEC §13, §14.5, §14.6). The target's max_response_bytes (10 MiB
// by default) caps every response body; these caps are far smaller,
// because such an answer is recorded with every turn that asks for one and
// an LLM user simulator's answer is also sent to the bot as the next user
// message. An answer over its cap is not recorded: the call's error is
// schema.ErrAnswerTooLong, so a judge's verdict is unparseable and a
// scenario stops with a SimulatorError.
const (
	// MaxSimulatedTurnBytes caps an LLM user simulator's answer, trimmed:
	// the next user turn. The prompt asks for "one short message"; 4 KiB
	// is some 1,300 Chinese characters or 700 English words.
	MaxSimulatedTurnBytes = 4 << 10
	// MaxJudgeAnswerBytes caps a judge's answer (a memory judge's or a
	// rubric's): its response, or its reply when that is longer. A judge
	// that reasons before its verdict stays well inside it.
	MaxJudgeAnswerBytes = 64 << 10
)

// capJudgeAnswer drops the answer of judge call j from the record when it
// is over MaxJudgeAnswerBytes, making that the call's error.
func capJudgeAnswer(j *schema.Judgement) {
	if n := max(len(j.Response), len(j.Reply), len(j.Body)); n > MaxJudgeAnswerBytes {
		dropAnswer(j, n, MaxJudgeAnswerBytes, "a judge's answer")
	}
}

// capSimulatedTurn drops the answer of simulator call j from the record
// when the user turn it would make is over MaxSimulatedTurnBytes, making
// that the call's error.
func capSimulatedTurn(j *schema.Judgement) {
	if n := len(strings.TrimSpace(j.Reply)); n > MaxSimulatedTurnBytes {
		dropAnswer(j, n, MaxSimulatedTurnBytes, "a simulated user turn")
	}
}

// dropAnswer replaces the n-byte answer of j, over limit, by an
// ErrAnswerTooLong error quoting its start.
func dropAnswer(j *schema.Judgement, n, limit int, what string) {
	start := j.Reply
	if start == "" {
		start = string(j.Response)
	}
	j.Error = &schema.CallError{Type: schema.ErrAnswerTooLong,
		Message: fmt.Sprintf("the answer of %d bytes is over the %d-byte limit of %s; it begins %s", n, limit, what, quoteStart(strings.TrimSpace(start), 80))}
	j.Response, j.Body, j.Reply = nil, "", ""
}

// quoteStart quotes at most n bytes of s, never splitting a UTF-8
// character, with "…" when s is longer.
func quoteStart(s string, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strconv.Quote(s[:n]) + "…"
}

// sharedPrefix is the length of the longest common prefix of a and b that
// ends on a UTF-8 character boundary of b, so b's rest is valid text.
func sharedPrefix(a, b string) int {
	n := min(len(a), len(b))
	k := 0
	for k < n && a[k] == b[k] {
		k++
	}
	for k > 0 && k < len(b) && !utf8.RuneStart(b[k]) {
		k--
	}
	return k
}
