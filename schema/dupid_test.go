package schema

import (
	"strings"
	"testing"
)

// A record with two "id" members was counted twice: once under the
// first id (the replay's dedupe reads it) and once under the last.
func TestRecordWithTwoIDsIsRejected(t *testing.T) {
	line := []byte(`{"id":"a","template":"t","text":"x","id":"b","outcome":"pass"}`)
	var r Result
	var d Deferred
	if err := r.DecodeForEval(line, &d); err == nil || !strings.Contains(err.Error(), `"id" appears twice`) {
		t.Errorf("DecodeForEval: %v, want the duplicate id refused", err)
	}
	if err := r.UnmarshalJSON(line); err == nil || !strings.Contains(err.Error(), `"id" appears twice`) {
		t.Errorf("UnmarshalJSON: %v, want the duplicate id refused", err)
	}
	if err := r.DecodeForEval([]byte(`{"id":"a","text":"x"}`), &d); err != nil || r.ID != "a" {
		t.Errorf("one id: %v %q", err, r.ID)
	}
}
