package demo

import (
	"net/http"
	"strings"
	"unicode"
)

// This file is the demo's toy judge (POST /nli) for memory tests: {"premise":
// the fact told, "hypothesis": the bot's answer, "expect": what a right
// answer states} → {"label": "entailment" | "neutral" | "contradiction"}.
// It is a stand-in for a real NLI model, good enough for the demo memory
// bot's answers and nothing more:
//
//   - entailment when the answer contains the expected value (case, width
//     and white space aside);
//   - contradiction when the answer restates the fact's frame in the second
//     person with another value: the premise "我叫张伟。" has the frame
//     "我叫…", so "你叫李雷。" contradicts it ("I live in Paris." → "you live in");
//   - neutral otherwise ("抱歉，我不记得了。").

// NLIRequest is the body of a /nli request.
type NLIRequest struct {
	Premise    string `json:"premise"`
	Hypothesis string `json:"hypothesis"`
	Expect     string `json:"expect"`
}

func handleNLI(w http.ResponseWriter, r *http.Request) {
	f, ok := decodeFields(w, r, "premise", "hypothesis", "expect")
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"label": JudgeNLI(f[0], f[1], f[2])})
}

// JudgeNLI is the toy judge's label for hypothesis given premise and the
// expected value.
func JudgeNLI(premise, hypothesis, expect string) string {
	h := foldNLI(hypothesis)
	if e := foldNLI(expect); e != "" && strings.Contains(h, e) {
		return "entailment"
	}
	at := strings.Index(premise, expect)
	if expect == "" || at < 0 {
		return "neutral"
	}
	frame := foldNLI(secondPerson(premise[:at]))
	if frame != "" && strings.Contains(h, frame) {
		return "contradiction"
	}
	return "neutral"
}

// secondPerson turns the start of a first-person sentence into the second
// person, as the bot would restate it: 我 → 你, I am / I / my → you are /
// you / your.
func secondPerson(s string) string {
	s = strings.ReplaceAll(s, "我", "你")
	words := strings.Fields(s)
	for i, w := range words {
		switch strings.ToLower(w) {
		case "i":
			words[i] = "you"
		case "am":
			words[i] = "are"
		case "my":
			words[i] = "your"
		}
	}
	if len(words) == 0 {
		return s
	}
	return strings.Join(words, " ")
}

// foldNLI lowers case, maps full-width ASCII forms to ASCII and drops white
// space and punctuation.
func foldNLI(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0xFF01 && r <= 0xFF5E {
			r -= 0xFEE0
		}
		if unicode.IsSpace(r) || unicode.IsPunct(r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
