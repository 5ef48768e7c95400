package assert

import (
	"strconv"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// dialogueFamily is metrics.dialogue: the conversations of a node, each
// completed when every one of its turns ran and passed, and the turns by
// index (up to schema.MaxTurnIndices). Turns of one conversation run are
// told apart by their session id (case.conversation); a conversation's
// expected number of turns is its source's (spec.SourceInfo.Turns).
type dialogueFamily struct{}

func (dialogueFamily) Shape() *schema.Family { return schema.DialogueFamily }
func (dialogueFamily) NewAcc(s *spec.Suite) Acc {
	return &dialogueAcc{suite: s}
}

// convRun is one conversation run as recorded so far.
type convRun struct {
	source string
	ran    int
	passed int
}

type dialogueAcc struct {
	suite *spec.Suite
	runs  map[string]*convRun
	// byTurn[i] counts the turns of index i+1: ran, passed.
	byTurn [][2]int
}

// runKey identifies a conversation run: its session id, or for a record
// without one, its script and repetition.
func runKey(r *schema.Result) string {
	if r.Conversation != "" {
		return r.Conversation
	}
	return r.Script + "#" + strconv.Itoa(r.Repeat)
}

func (d *dialogueAcc) Add(o *Observation) {
	r := o.Result
	if r.Turn < 1 || r.SourceKind == spec.KindScenario { // metrics.scenario's
		return
	}
	if d.runs == nil {
		d.runs = map[string]*convRun{}
	}
	k := runKey(r)
	cr := d.runs[k]
	if cr == nil {
		cr = &convRun{source: r.Source}
		d.runs[k] = cr
	}
	cr.ran++
	if r.Outcome == schema.Pass {
		cr.passed++
	}
	if r.Turn > schema.MaxTurnIndices {
		return
	}
	for len(d.byTurn) < r.Turn {
		d.byTurn = append(d.byTurn, [2]int{})
	}
	d.byTurn[r.Turn-1][0]++
	if r.Outcome == schema.Pass {
		d.byTurn[r.Turn-1][1]++
	}
}

func (d *dialogueAcc) Merge(o Acc) {
	od := o.(*dialogueAcc)
	if len(od.runs) > 0 && d.runs == nil {
		d.runs = map[string]*convRun{}
	}
	for k, r := range od.runs {
		cr := d.runs[k]
		if cr == nil {
			cr = &convRun{source: r.source}
			d.runs[k] = cr
		}
		cr.ran += r.ran
		cr.passed += r.passed
	}
	for len(d.byTurn) < len(od.byTurn) {
		d.byTurn = append(d.byTurn, [2]int{})
	}
	for i, t := range od.byTurn {
		d.byTurn[i][0] += t[0]
		d.byTurn[i][1] += t[1]
	}
}

// turnsOf is the number of turns of the conversation source named name
// (0 when the suite no longer declares it).
func turnsOf(s *spec.Suite, kind, name string) int {
	if src := s.SourceByKind(kind, name); src != nil {
		return src.Info().Turns
	}
	return 0
}

func (d *dialogueAcc) Fill(n *schema.Node) {
	if len(d.runs) == 0 {
		return
	}
	out := &schema.Dialogue{Conversations: len(d.runs), Turn: make(map[string]*schema.TurnStats, len(d.byTurn))}
	want := map[string]int{}
	for _, cr := range d.runs {
		w, ok := want[cr.source]
		if !ok {
			w = turnsOf(d.suite, spec.KindConversation, cr.source)
			want[cr.source] = w
		}
		w = max(w, cr.ran)
		if cr.passed == w {
			out.Completed++
		}
		out.Turns += cr.ran
		out.TurnsPassed += cr.passed
		out.NotRun += w - cr.ran
	}
	out.TaskCompletion = schema.R(out.Completed, out.Conversations)
	out.TurnAccuracy = schema.R(out.TurnsPassed, out.Turns)
	for i, t := range d.byTurn {
		if t[0] > 0 {
			out.Turn[strconv.Itoa(i+1)] = &schema.TurnStats{Total: t[0], Passed: t[1], Accuracy: schema.R(t[1], t[0])}
		}
	}
	SetFamily(n, "dialogue", out)
}
