package pipeline

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// This file holds what a run does for scripts of several turns
// (conversations, memory tests) and for --repeat: a script's results are
// recorded together once it ends, a script not recorded whole is dropped
// on resume (it runs again from turn 1 in a new session), and --repeat
// runs every script N times.

// pendingTurn is a turn result waiting for the rest of its conversation.
type pendingTurn struct {
	r  *schema.Result
	ev *assert.Evaluation
}

// SpillTurns is how many turns of one script a run holds in memory, with
// their evaluations, until the script ends; from the next turn on, its
// results go to a file of their own in the run directory (spillPattern)
// and are read back into results.jsonl and the collector when the script
// ends, one at a time. So memory does not grow with a conversation's
// length (issue 35: 100,000 turns held 600 MB), while the script is still
// recorded together, after the results of other scripts finished before
// it.
var SpillTurns = 256

// spillPattern names the files of scripts whose turns are held on disk;
// Execute removes those a killed run left behind.
const spillPattern = ".turns-*.jsonl"

// turnBuffer holds the results of scripts of several turns in flight, by
// session, until the runner says the script ended.
type turnBuffer struct {
	dir  string // the run directory, for spill files
	open map[string]*openScript
}

// openScript is a script in flight: its turns so far, in memory or, past
// SpillTurns, in its spill file.
type openScript struct {
	turns []pendingTurn
	spill *turnSpill
	// stamp is the ScriptTurns its turns are recorded with, once it ended.
	stamp int
}

func newTurnBuffer(dir string) *turnBuffer {
	return &turnBuffer{dir: dir, open: map[string]*openScript{}}
}

// add keeps a turn's result; when it ends its script (the runner marks
// the turn that does with ScriptTurns: the last turn, or a turn whose call
// errored) it returns the script, its turns to be recorded with that
// count. A script the run stopped in the middle of never ends here and is
// never recorded: resume runs it again.
func (b *turnBuffer) add(r *schema.Result, ev *assert.Evaluation) (*openScript, error) {
	k := r.Conversation
	o := b.open[k]
	if o == nil {
		o = &openScript{}
		b.open[k] = o
	}
	switch {
	case o.spill != nil:
		err := o.spill.add(r)
		ev.Release()
		if err != nil {
			return nil, err
		}
	case len(o.turns) == SpillTurns && r.ScriptTurns == 0:
		sp, err := newTurnSpill(b.dir)
		if err != nil {
			ev.Release()
			return nil, err
		}
		o.spill = sp
		for _, p := range append(o.turns, pendingTurn{r, ev}) {
			if err == nil {
				err = sp.add(p.r)
			}
			p.ev.Release()
		}
		o.turns = nil
		if err != nil {
			return nil, err
		}
	default:
		o.turns = append(o.turns, pendingTurn{r, ev})
	}
	if r.ScriptTurns == 0 {
		return nil, nil
	}
	delete(b.open, k)
	o.stamp = r.ScriptTurns
	for _, p := range o.turns {
		p.r.ScriptTurns = r.ScriptTurns
	}
	return o, nil
}

// release frees the evaluations and removes the spill files of scripts
// that never ended (the run stopped); they are not recorded.
func (b *turnBuffer) release() {
	for _, o := range b.open {
		o.discard()
	}
	clear(b.open)
}

// discard frees what the script holds.
func (o *openScript) discard() {
	for _, p := range o.turns {
		p.ev.Release()
	}
	if o.spill != nil {
		o.spill.remove()
	}
}

// turnSpill is the file of a script's turns past SpillTurns: their
// result records, evaluated, without ScriptTurns (not known yet).
type turnSpill struct {
	f   *os.File
	buf []byte
}

func newTurnSpill(dir string) (*turnSpill, error) {
	f, err := os.CreateTemp(dir, spillPattern)
	if err != nil {
		return nil, err
	}
	return &turnSpill{f: f}, nil
}

func (sp *turnSpill) add(r *schema.Result) error {
	b, err := schema.AppendResultLine(sp.buf, r)
	if err != nil {
		return fmt.Errorf("encoding result %s: %w", r.ID, err)
	}
	sp.buf = b
	if len(sp.buf) >= runner.GroupBytes {
		return sp.flush()
	}
	return nil
}

func (sp *turnSpill) flush() error {
	_, err := sp.f.Write(sp.buf)
	sp.buf = sp.buf[:0]
	return err
}

// each reads the spilled results back in order, each a new Result.
func (sp *turnSpill) each(fn func(*schema.Result) error) error {
	if err := sp.flush(); err != nil {
		return err
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return runner.ReadResultsFrom(sp.f, sp.f.Name(), fn)
}

func (sp *turnSpill) remove() {
	sp.f.Close()
	os.Remove(sp.f.Name())
}

// removeSpills removes the spill files a killed run left in dir.
func removeSpills(dir string) {
	old, _ := filepath.Glob(filepath.Join(dir, spillPattern))
	for _, f := range old {
		os.Remove(f)
	}
}

// repeated returns sc as repetition rep (from 1) of --repeat: a copy
// whose turns record rep.
func repeated(sc *schema.Script, rep int) *schema.Script {
	out := *sc
	if rest := sc.Rest; rest != nil {
		out.Rest = func(i int) *schema.Case {
			c := rest(i)
			c.Repeat = rep
			return c
		}
	}
	out.Turns = make([]*schema.Case, len(sc.Turns))
	cases := make([]schema.Case, len(sc.Turns))
	for i, c := range sc.Turns {
		cases[i] = *c
		cases[i].Repeat = rep
		out.Turns[i] = &cases[i]
	}
	return &out
}

// scriptKey is the key the first turn of sc is recorded under.
func scriptKey(sc *schema.Script) string {
	c := sc.Turns[0]
	return schema.KeyOf(c.ID, c.Repeat)
}

// session is what resume learns of the recorded turns of one session
// (one run of a script of several turns).
type session struct {
	first    schema.TurnRecord // its first recorded line
	n        int               // turns recorded
	stamped  int               // ScriptTurns the lines carry (0: an older record)
	errored  bool              // a turn's call errored: the script ended there
	lastTurn int               // the highest turn recorded
	gaps     int               // turns recorded out of order or missing between two
}

// whole reports whether the session's turns are its script recorded whole:
// as many lines as the count stamped on them, and — unless a turn's call
// errored, which ends a script early — as many as the suite now gives the
// script (expect; 0 when unknown). An older record without the stamp is
// whole when it ended at an error or reached the suite's count.
func (s *session) whole(expect int) bool {
	if s.gaps > 0 || s.first.Turn != 1 {
		return false
	}
	if s.stamped > 0 && s.n != s.stamped {
		return false
	}
	if s.errored {
		return true
	}
	if expect > 0 {
		return s.n == expect
	}
	return s.stamped > 0
}

// dropCutScripts rewrites the results file without the turns of every
// session that was not recorded whole: a script the run stopped in the
// middle of (written turn by turn by versions before ScriptTurns, or torn
// by a kill), or one the suite has since given more or fewer turns.
// Resume then runs those scripts again from turn 1, in a new session,
// instead of counting a truncated script as complete. expect gives the
// suite's turn count for a recorded turn (spec.Suite.ScriptTurns). It
// returns the turns dropped and the sessions they had.
func dropCutScripts(path string, expect func(*schema.Case) int) (turns int, sessions []string, err error) {
	seen := map[string]*session{}
	err = runner.ReadLines(path, func(line []byte, n int) error {
		t, ok, err := schema.DecodeTurn(line)
		if err != nil {
			return fmt.Errorf("%s:%d: not a result record: %v", path, n, err)
		}
		if !ok {
			return nil
		}
		s := seen[t.Conversation]
		if s == nil {
			s = &session{first: t}
			seen[t.Conversation] = s
		}
		if t.Turn != s.lastTurn+1 {
			s.gaps++
		}
		s.n++
		s.lastTurn = t.Turn
		s.stamped = max(s.stamped, t.ScriptTurns)
		s.errored = s.errored || t.Errored
		return nil
	})
	if os.IsNotExist(err) || len(seen) == 0 {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	cut := map[string]bool{}
	for id, s := range seen {
		f := s.first
		if !s.whole(expect(&schema.Case{ID: f.ID, Source: f.Source, SourceKind: f.SourceKind, Script: f.Script, Distance: f.Distance})) {
			cut[id] = true
			turns += s.n
			sessions = append(sessions, id)
		}
	}
	if len(cut) == 0 {
		return 0, nil, nil
	}
	slices.Sort(sessions)
	_, _, err = runner.FilterLines(path, func(line []byte, _ int) (bool, error) {
		t, ok, err := schema.DecodeTurn(line)
		return !ok || !cut[t.Conversation], err
	})
	return turns, sessions, err
}

// noticeDropped tells what resume dropped.
func (r *Run) noticeDropped(turns int, sessions []string) {
	switch len(sessions) {
	case 0:
	case 1:
		r.notice("dropped %d turn(s) of session %s, a script not recorded whole (cut short when the run stopped, or changed since); it runs again from turn 1 in a new session", turns, sessions[0])
	default:
		shown := sessions[:min(len(sessions), 5)]
		more := ""
		if len(sessions) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(sessions)-len(shown))
		}
		r.notice("dropped %d turns of %d scripts not recorded whole (cut short when the run stopped, or changed since; sessions %s%s); they run again from turn 1 in new sessions", turns, len(sessions), strings.Join(shown, ", "), more)
	}
}
