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

// A script past SpillTurns keeps its turns in a file of the run directory
// until it ends; one the run stopped in the middle of leaves no file.
func TestTurnBufferSpillsAndCleansUp(t *testing.T) {
	dir := t.TempDir()
	old := SpillTurns
	SpillTurns = 2
	defer func() { SpillTurns = old }()
	b := newTurnBuffer(dir)
	add := func(session string, turn, stamp int) *openScript {
		t.Helper()
		r := schema.Result{Case: schema.Case{ID: "s/" + strconv.Itoa(turn), Script: "s", Turn: turn, Conversation: session, Text: "第" + strconv.Itoa(turn) + "句"},
			Outcome: schema.Pass, ScriptTurns: stamp}
		o, err := b.add(&r, nil)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	for turn := 1; turn <= 4; turn++ {
		add("cut", turn, 0)
		add("whole", turn, 0)
	}
	spills, _ := filepath.Glob(filepath.Join(dir, spillPattern))
	if len(spills) != 2 {
		t.Fatalf("%d spill files for two scripts past 2 turns", len(spills))
	}
	o := add("whole", 5, 5)
	if o == nil || o.spill == nil || o.stamp != 5 {
		t.Fatalf("the ended script: %+v", o)
	}
	var got []string
	if err := o.spill.each(func(r *schema.Result) error { got = append(got, r.Text); return nil }); err != nil {
		t.Fatal(err)
	}
	o.spill.remove()
	if want := []string{"第1句", "第2句", "第3句", "第4句", "第5句"}; !slices.Equal(got, want) {
		t.Errorf("read back %q, want %q", got, want)
	}
	b.release()
	if left, _ := filepath.Glob(filepath.Join(dir, spillPattern)); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	// a killed run's file goes when the directory's next run starts
	stale := filepath.Join(dir, ".turns-123.jsonl")
	if err := os.WriteFile(stale, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	removeSpills(dir)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a stale spill file stays: %v", err)
	}
}
