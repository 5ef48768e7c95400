package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// turnLine is a recorded turn of script in session; stamp is the
// ScriptTurns it carries (0: a record from before the stamp existed).
func turnLine(t *testing.T, script string, turn int, session string, errored bool, stamp int) string {
	t.Helper()
	r := schema.Result{Case: schema.Case{ID: script + "/" + strconv.Itoa(turn), Script: script, Turn: turn, Conversation: session, Text: "话",
		Source: "记忆", SourceKind: "memory"}, ScriptTurns: stamp}
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

// Resume drops the turns of every session that was not recorded whole and
// nothing else: a script cut short anywhere in the file (older versions
// recorded memory turns one by one, interleaved with other scripts), torn
// at the end, or given another number of turns since; a script that ran
// all its turns, or ended at a turn whose call errored, stays, and so do
// single cases.
func TestDropCutScripts(t *testing.T) {
	single := `{"id":"c1","suite":"s","template":"t","text":"x","core":false,"target":"n","response":{"turn":2},"latency_ms":1,"attempts":1,"started":"2026-12-01T00:00:00Z","outcome":"pass"}` + "\n"
	line := func(script string, turn int, errored bool, stamp int) string {
		return turnLine(t, script, turn, script+"-1", errored, stamp)
	}
	whole := line("a", 1, false, 3) + line("a", 2, false, 3) + line("a", 3, false, 3)
	cut := line("b", 1, false, 3) + line("b", 2, false, 3) // torn: stamped 3, 2 lines
	ended := line("c", 1, false, 2) + line("c", 2, true, 2)
	oldWhole := line("d", 1, false, 0) + line("d", 2, false, 0) + line("d", 3, false, 0)
	oldCut1, oldCut2 := line("e", 1, false, 0), line("e", 2, false, 0) // the memory bug: recorded turn by turn
	oldEnded := line("f", 1, false, 0) + line("f", 2, true, 0)
	gap := line("g", 1, false, 3) + line("g", 3, false, 3) + line("g", 3, false, 3)
	for _, tc := range []struct {
		name, file, keep string
		expect           int // the suite's turns per script now
		dropped          []string
	}{
		{"torn at the end", single + whole + cut, single + whole, 3, []string{"b-1"}},
		{"only a torn one", cut, "", 3, []string{"b-1"}},
		{"whole", single + whole, single + whole, 3, nil},
		{"ended by an error", whole + ended, whole + ended, 3, nil},
		{"single case last", whole + single, whole + single, 3, nil},
		{"older records, whole or ended by an error", oldWhole + oldEnded, oldWhole + oldEnded, 3, nil},
		{"older records cut short mid-file, interleaved", oldCut1 + oldWhole + single + oldCut2 + whole, oldWhole + single + whole, 3, []string{"e-1"}},
		{"the suite now gives 4 turns", single + whole + ended, single + ended, 4, []string{"a-1"}},
		{"a turn missing in the middle", gap + whole, whole, 3, []string{"g-1"}},
		{"the length not known: the stamp decides", whole + cut, whole, 0, []string{"b-1"}},
		{"empty", "", "", 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "results.jsonl")
			if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			n, sessions, err := dropCutScripts(path, func(*schema.Case) int { return tc.expect })
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.keep || !slices.Equal(sessions, tc.dropped) {
				t.Errorf("dropped %d turns of sessions %q, want sessions %q; file now:\n%s", n, sessions, tc.dropped, got)
			}
		})
	}
	if _, _, err := dropCutScripts(filepath.Join(t.TempDir(), "none.jsonl"), nil); err != nil {
		t.Errorf("a run killed before its first result has no results file: %v", err)
	}
}
