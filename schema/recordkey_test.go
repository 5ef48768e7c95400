package schema

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// hasRepeatMember finds `"repeat":` wherever bytes.Contains does: at the
// start and the end of the text, overlapping near-misses, in Chinese text.
func TestHasRepeatMemberMatchesContains(t *testing.T) {
	texts := []string{
		``, `p`, `"repeat":`, `"repeat"`, `repeat":`, `x"repeat":`, `"repeat":x`,
		`"re"repeat":`, `"repeat"repeat":`, `"rep"repeat":1`, `ppp"repeat":ppp`,
		`{"id":"a","repeat":2,"target":"t"}`, `{"id":"a","text":"重复 \"repeat\": 好","target":"t"}`,
		`{"id":"a","response":{"app_op_seq":[],"phone_number":"133","repeat":3}}`,
		`{"id":"酒店","scene":["酒店同宿"],"expect":{"$.p":"p"},"target":"iao"}`,
	}
	rng := rand.New(rand.NewPCG(27, 1))
	alphabet := []byte(`"repat:p{}酒`)
	for range 20000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		if got, want := hasRepeatMember([]byte(s)), bytes.Contains([]byte(s), []byte(`"repeat":`)); got != want {
			t.Errorf("hasRepeatMember(%q) = %v, want %v", s, got, want)
		}
	}
}

// RecordKey reads a repetition where the record's case fields give one.
func TestRecordKeyRepeat(t *testing.T) {
	for line, want := range map[string]string{
		`{"id":"a1","text":"北京","repeat":2,"target":"t","response":{"p":1}}`:                     "a1#2",
		`{"id":"a1","text":"北京","target":"t","response":{"repeat":3}}`:                           "a1",
		`{"id":"a1","text":"\"repeat\":4","target":"t"}`:                                         "a1",
		`{"id":"a1","text":"北京","target":"t","repeat":5}`:                                        "a1",
		`{"id":"0123456789abcdef","suite":"s","template":"hotel","scene":["酒店"],"target":"iao"}`: "0123456789abcdef",
	} {
		if got, err := RecordKey([]byte(line)); err != nil || got != want {
			t.Errorf("RecordKey(%s) = %q, %v; want %q", line, got, err, want)
		}
	}
}
