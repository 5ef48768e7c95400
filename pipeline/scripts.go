package pipeline

import (
	"bytes"
	"io"
	"os"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// This file holds what a run does for scripts of several turns
// (conversations) and for --repeat: a conversation's results are recorded
// together once it ends, a conversation cut short at the end of the
// results file is dropped on resume (it runs again from turn 1 in a new
// session), and --repeat runs every script N times.

// pendingTurn is a turn result waiting for the rest of its conversation.
type pendingTurn struct {
	r  *schema.Result
	ev *assert.Evaluation
}

// turnBuffer holds the results of conversations in flight, by session.
type turnBuffer struct {
	suite *spec.Suite
	turns map[string]int // turns per conversation source
	open  map[string][]pendingTurn
}

func newTurnBuffer(s *spec.Suite) *turnBuffer {
	return &turnBuffer{suite: s, turns: map[string]int{}, open: map[string][]pendingTurn{}}
}

// turnsOf is the number of turns of r's source.
func (b *turnBuffer) turnsOf(r *schema.Result) int {
	n, ok := b.turns[r.Source]
	if !ok {
		if src := b.suite.SourceByKind(r.SourceKind, r.Source); src != nil {
			n = src.Info().Turns
		}
		b.turns[r.Source] = n
	}
	return n
}

// add keeps a turn's result; when it ends its conversation (the last
// turn, or a turn whose call errored) it returns the conversation's
// results, in turn order, to record.
func (b *turnBuffer) add(r *schema.Result, ev *assert.Evaluation) []pendingTurn {
	k := r.Conversation
	done := append(b.open[k], pendingTurn{r, ev})
	if r.Error == nil && r.Turn < b.turnsOf(r) {
		b.open[k] = done
		return nil
	}
	delete(b.open, k)
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

// tailWindow is how much of the end of a results file resume reads to find
// a conversation cut short.
const tailWindow = 4 << 20

// dropCutConversation truncates the results file before a conversation
// whose turns end it without the conversation having ended (a run killed
// while writing them): resume then runs it again from turn 1, in a new
// session, instead of going on in another one. It returns the number of
// turns dropped and the session they had.
func dropCutConversation(path string, turnsOf func(*schema.Result) int) (int, string, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if os.IsNotExist(err) {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, "", err
	}
	start := max(st.Size()-tailWindow, 0)
	buf := make([]byte, st.Size()-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return 0, "", err
	}
	cut, n, session := cutPoint(buf, turnsOf)
	if n == 0 {
		return 0, "", nil
	}
	return n, session, f.Truncate(start + int64(cut))
}

// cutPoint finds, in the tail of a results file, the start of the last
// lines when they are the turns of one conversation that had not ended.
func cutPoint(buf []byte, turnsOf func(*schema.Result) int) (cut, n int, session string) {
	end := len(buf)
	var last schema.Result
	for end > 0 {
		i := bytes.LastIndexByte(buf[:end-1], '\n') + 1
		var r schema.Result
		if i == 0 && end == len(buf) && len(buf) == tailWindow {
			return 0, 0, "" // a line longer than the window: leave it
		}
		if r.UnmarshalJSON(buf[i:end]) != nil || r.Turn == 0 || r.Conversation == "" {
			break
		}
		if n > 0 && r.Conversation != last.Conversation {
			break
		}
		if r.Error != nil || (n == 0 && r.Turn >= turnsOf(&r)) {
			return 0, 0, "" // the conversation ended
		}
		last = r
		n++
		end = i
	}
	if n == 0 || last.Turn != 1 {
		return 0, 0, ""
	}
	return end, n, last.Conversation
}

// noticeDropped tells what resume dropped.
func (r *Run) noticeDropped(n int, session string) {
	if n > 0 {
		r.notice("dropped %d turn(s) of conversation session %s, cut short when the run stopped; it runs again from turn 1 in a new session", n, session)
	}
}
