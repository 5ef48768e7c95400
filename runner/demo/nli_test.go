package demo

import "testing"

// The toy judge tells the demo memory bot's three kinds of answer apart,
// in Chinese and English.
func TestJudgeNLI(t *testing.T) {
	for _, tc := range []struct{ premise, hypothesis, expect, want string }{
		{"我叫张伟。", "你叫张伟。", "张伟", "entailment"},
		{"我叫张伟。", "你叫李雷。", "张伟", "contradiction"},
		{"我叫张伟。", "抱歉，我不记得了。", "张伟", "neutral"},
		{"我住在成都。", "你住在上海。", "成都", "contradiction"},
		{"我住在成都。", "嗯，这个话题很有意思。", "成都", "neutral"},
		{"My name is Alice.", "Your name is ALICE.", "Alice", "entailment"},
		{"My name is Alice.", "Your name is Bob.", "Alice", "contradiction"},
		{"I live in Paris.", "You live in Rome.", "Paris", "contradiction"},
		{"I live in Paris.", "Sorry, I don't remember.", "Paris", "neutral"},
		{"我叫张伟。", "你叫张伟。", "", "neutral"},
	} {
		if got := JudgeNLI(tc.premise, tc.hypothesis, tc.expect); got != tc.want {
			t.Errorf("JudgeNLI(%q, %q, %q) = %q, want %q", tc.premise, tc.hypothesis, tc.expect, got, tc.want)
		}
	}
}
