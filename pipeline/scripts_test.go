package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

func turnLine(t *testing.T, script string, turn int, session string, errored bool) string {
	t.Helper()
	r := schema.Result{Case: schema.Case{ID: script + "/" + string(rune('0'+turn)), Script: script, Turn: turn, Conversation: session, Text: "话"}}
	if errored {
		r.Error = &schema.CallError{Type: schema.ErrHTTP, Message: "boom"}
		r.Outcome = schema.Error
	}
	b, err := schema.EncodeLine(&r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Resume drops the turns of a conversation cut short at the end of the
// results file (a run killed while writing them) and nothing else: a
// conversation that ran all its turns, or ended at a turn whose call
// errored, stays; so do single cases.
func TestDropCutConversation(t *testing.T) {
	single := `{"id":"c1","suite":"s","template":"t","text":"x","core":false,"target":"n","latency_ms":1,"attempts":1,"started":"2026-12-01T00:00:00Z","outcome":"pass"}` + "\n"
	whole := turnLine(t, "a", 1, "a-1", false) + turnLine(t, "a", 2, "a-1", false) + turnLine(t, "a", 3, "a-1", false)
	cut := turnLine(t, "b", 1, "b-1", false) + turnLine(t, "b", 2, "b-1", false)
	ended := turnLine(t, "c", 1, "c-1", false) + turnLine(t, "c", 2, "c-1", true)
	for _, tc := range []struct {
		name, file, keep string
		dropped          int
	}{
		{"cut at the end", single + whole + cut, single + whole, 2},
		{"only a cut one", cut, "", 2},
		{"whole", single + whole, single + whole, 0},
		{"ended by an error", whole + ended, whole + ended, 0},
		{"single case last", cut + single, cut + single, 0},
		{"empty", "", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "results.jsonl")
			if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			n, session, err := dropCutConversation(path, func(*schema.Result) int { return 3 })
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if n != tc.dropped || string(got) != tc.keep {
				t.Errorf("dropped %d turns (session %q), want %d; file now:\n%s", n, session, tc.dropped, got)
			}
			if n > 0 && !strings.HasPrefix(session, "b-") {
				t.Errorf("dropped session %q, want b-1", session)
			}
		})
	}
}
