package pipeline

import (
	"fmt"
	"os"
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

// turnBuffer holds the results of scripts of several turns in flight, by
// session, until the runner says the script ended.
type turnBuffer struct {
	open map[string][]pendingTurn
}

func newTurnBuffer() *turnBuffer {
	return &turnBuffer{open: map[string][]pendingTurn{}}
}

// add keeps a turn's result; when it ends its script (the runner marks
// the turn that does with ScriptTurns: the last turn, or a turn whose call
// errored) it stamps every turn with that count and returns the script's
// results, in turn order, to record. A script the run stopped in the
// middle of never ends here and is never recorded: resume runs it again.
func (b *turnBuffer) add(r *schema.Result, ev *assert.Evaluation) []pendingTurn {
	k := r.Conversation
	done := append(b.open[k], pendingTurn{r, ev})
	if r.ScriptTurns == 0 {
		b.open[k] = done
		return nil
	}
	delete(b.open, k)
	for _, p := range done {
		p.r.ScriptTurns = r.ScriptTurns
	}
	return done
}

// release frees the evaluations of conversations that never ended (the
// run stopped); they are not recorded.
func (b *turnBuffer) release() {
	for _, ps := range b.open {
		for _, p := range ps {
			p.ev.Release()
		}
	}
	clear(b.open)
}

// repeated returns sc as repetition rep (from 1) of --repeat: a copy
// whose turns record rep.
func repeated(sc *schema.Script, rep int) *schema.Script {
	out := *sc
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
