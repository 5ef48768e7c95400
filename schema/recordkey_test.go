package schema

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/nlutest/nlutest/jsondoc"
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

// refRecordKey is RecordKey as it was before AppendRecordKey: RecordID,
// then the repetition read up to the case's last field.
func refRecordKey(b []byte) (string, error) {
	id, err := RecordID(b)
	if err != nil || !bytes.Contains(b, []byte(`"repeat":`)) {
		return id, err
	}
	rep := 0
	err = jsondoc.Members(b, func(key []byte, val []byte) error {
		switch string(key) {
		case "repeat":
			rep, _ = strconv.Atoi(string(val))
			return jsondoc.ErrStop
		case "target":
			return jsondoc.ErrStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, jsondoc.ErrStop) {
		return "", err
	}
	return KeyOf(id, rep), nil
}

// RecordKey and AppendRecordKey give the key and the error refRecordKey
// gives: escaped and Chinese ids, repetitions, records with no id or a bad
// one.
func TestRecordKeyMatchesReference(t *testing.T) {
	for _, line := range []string{
		`{"id":"a1","repeat":2,"target":"t"}`, `{"id":"a1","target":"t"}`, `{"id":"订票-001","repeat":12}`,
		`{"id":"\u8ba2\u7968","repeat":3}`, `{"id":"a\"b"}`, "{\"id\":\"\xff\"}", `{"id":"a1","repeat":0}`,
		`{"text":"北京"}`, `{"id":5}`, `{"id":"a1`, `[]`, `{"id":"a\x"}`, `{"id":"a1","repeat":"x"}`,
	} {
		want, werr := refRecordKey([]byte(line))
		if k, err := RecordKey([]byte(line)); k != want || (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Errorf("%s: RecordKey %q, %v; want %q, %v", line, k, err, want, werr)
		}
		got, gerr := AppendRecordKey([]byte("前缀"), []byte(line))
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Errorf("%s: AppendRecordKey error %v, RecordKey's %v", line, gerr, werr)
		} else if werr == nil && string(got) != "前缀"+want {
			t.Errorf("%s: AppendRecordKey %q, RecordKey %q", line, got, want)
		}
	}
}
