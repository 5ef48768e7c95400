package assert

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// repeatFamily is metrics.repeat: under --repeat N, how the N runs of each
// script (a case, a conversation, a scenario) agree. A repetition passes
// when every turn of it ran and passed, fails when a turn failed, and
// errors otherwise (a call or its evaluation errored, turns not run);
// docs/metrics.md, "Repeat".
type repeatFamily struct{}

func (repeatFamily) Shape() *schema.Family { return schema.RepeatFamily }
func (repeatFamily) NewAcc(s *spec.Suite) Acc {
	return &repeatAcc{suite: s}
}

// repTally counts the turns of one repetition: ran, passed, failed.
type repTally struct{ ran, passed, failed int32 }

type scriptRuns struct {
	kind, source string
	// text is the user's text of the script's earliest turn seen (the
	// lowest repetition, then the lowest turn), read at textRep, textTurn.
	text              string
	textRep, textTurn int
	// reps holds per repetition (index Repeat-1) its turns' tally.
	reps []repTally
}

// noteText keeps text when (rep, turn) comes before the text kept so far,
// so every order of adding and merging keeps the same text.
func (sr *scriptRuns) noteText(rep, turn int, text string) {
	if sr.textRep == 0 || rep < sr.textRep || rep == sr.textRep && turn < sr.textTurn {
		sr.text, sr.textRep, sr.textTurn = clipText(text), rep, turn
	}
}

type repeatAcc struct {
	suite   *spec.Suite
	scripts map[string]*scriptRuns
}

func (a *repeatAcc) Add(o *Observation) {
	r := o.Result
	if r.Repeat < 1 {
		return
	}
	if a.scripts == nil {
		a.scripts = map[string]*scriptRuns{}
	}
	id := r.ScriptID()
	sr := a.scripts[id]
	if sr == nil {
		kind, name := r.SourceOf()
		sr = &scriptRuns{kind: kind, source: name}
		a.scripts[id] = sr
	}
	sr.noteText(r.Repeat, r.Turn, r.Text)
	for len(sr.reps) < r.Repeat {
		sr.reps = append(sr.reps, repTally{})
	}
	t := &sr.reps[r.Repeat-1]
	t.ran++
	switch r.Outcome {
	case schema.Pass:
		t.passed++
	case schema.Fail:
		t.failed++
	}
}

func (a *repeatAcc) Merge(o Acc) {
	oa := o.(*repeatAcc)
	if len(oa.scripts) > 0 && a.scripts == nil {
		a.scripts = map[string]*scriptRuns{}
	}
	for id, s := range oa.scripts {
		sr := a.scripts[id]
		if sr == nil {
			sr = &scriptRuns{kind: s.kind, source: s.source}
			a.scripts[id] = sr
		}
		if s.textRep > 0 {
			sr.noteText(s.textRep, s.textTurn, s.text)
		}
		for len(sr.reps) < len(s.reps) {
			sr.reps = append(sr.reps, repTally{})
		}
		for i, rp := range s.reps {
			sr.reps[i].ran += rp.ran
			sr.reps[i].passed += rp.passed
			sr.reps[i].failed += rp.failed
		}
	}
}

// repOutcome is one repetition's letter in RepeatCase.Outcomes: P passed
// (every turn ran and passed; want is the script's number of turns), F
// failed (a turn failed), E errored (no turn failed, but a turn errored or
// was not run), - not recorded.
func repOutcome(t repTally, want int) byte {
	switch {
	case t.ran == 0:
		return '-'
	case t.failed > 0:
		return 'F'
	case int(t.passed) == max(want, int(t.ran)):
		return 'P'
	}
	return 'E'
}

// summarise is the script's line in the lists: its repetitions recorded,
// passed, failed and errored, and its flips (changes between passing and
// not passing from one recorded repetition to the next).
func (sr *scriptRuns) summarise(id string, want int) schema.RepeatCase {
	rc := schema.RepeatCase{ID: id, Source: sr.source, Kind: sr.kind, Text: sr.text}
	var outcomes strings.Builder
	prev := byte(0)
	for i, t := range sr.reps {
		o := repOutcome(t, want)
		if i < schema.MaxRepeatOutcomes {
			outcomes.WriteByte(o)
		} else if i == schema.MaxRepeatOutcomes {
			outcomes.WriteString("…")
		}
		if o == '-' {
			continue
		}
		rc.Runs++
		switch o {
		case 'P':
			rc.Passed++
		case 'F':
			rc.Failed++
		default:
			rc.Errored++
		}
		if prev != 0 && (prev == 'P') != (o == 'P') {
			rc.Flips++
		}
		prev = o
	}
	rc.Outcomes = outcomes.String()
	return rc
}

func (a *repeatAcc) Fill(n *schema.Node) {
	if len(a.scripts) == 0 {
		return
	}
	ids := slices.Sorted(maps.Keys(a.scripts))
	out := &schema.Repeat{Scripts: len(ids)}
	tasks := make([]metrics.Task, 0, len(ids))
	wants := map[[2]string]int{}
	for _, id := range ids {
		sr := a.scripts[id]
		key := [2]string{sr.kind, sr.source}
		want, ok := wants[key]
		if !ok {
			want = max(turnsOf(a.suite, sr.kind, sr.source), 1)
			wants[key] = want
		}
		rc := sr.summarise(id, want)
		out.N = max(out.N, rc.Runs)
		tasks = append(tasks, metrics.Task{N: rc.Runs, C: rc.Passed})
		switch {
		case rc.Passed == rc.Runs:
			out.Stable++
		case rc.Passed == 0:
			out.Stable++
			out.ConsistentFailures++
			out.FailingCases = append(out.FailingCases, rc)
		case rc.Failed > 0:
			out.Flaky++
			out.FlakyCases = append(out.FlakyCases, rc)
		default:
			out.FlakyErrors++
			out.FlakyErrorCases = append(out.FlakyErrorCases, rc)
		}
	}
	out.Stability = schema.R(out.Stable, out.Scripts)
	out.FlakyCases = worstRepeatCases(out.FlakyCases)
	out.FlakyErrorCases = worstRepeatCases(out.FlakyErrorCases)
	out.FailingCases = worstRepeatCases(out.FailingCases)
	fillPassK(out, tasks)
	SetFamily(n, "repeat", out)
}

// worstRepeatCases sorts a list most flips first, then by id, and caps it
// at schema.MaxFlaky.
func worstRepeatCases(l []schema.RepeatCase) []schema.RepeatCase {
	slices.SortFunc(l, func(x, y schema.RepeatCase) int {
		return cmp.Or(cmp.Compare(y.Flips, x.Flips), strings.Compare(x.ID, y.ID))
	})
	if len(l) > schema.MaxFlaky {
		l = l[:schema.MaxFlaky:schema.MaxFlaky]
	}
	return l
}

// fillPassK sets out.K (pass@k and pass^k for schema.RepeatKs(out.N)) and
// the older names that read its entries.
func fillPassK(out *schema.Repeat, tasks []metrics.Task) {
	out.K = map[string]*schema.RepeatK{}
	for _, pk := range metrics.PassKs(tasks, schema.RepeatKs(out.N)) {
		out.K[strconv.Itoa(pk.K)] = &schema.RepeatK{Scripts: pk.Tasks,
			PassAt:  schema.Ratio{Num: pk.AtNum, Den: pk.Den},
			PassAll: schema.Ratio{Num: pk.AllNum, Den: pk.Den}}
	}
	if k1 := out.K["1"]; k1 != nil {
		out.PassAt1 = k1.PassAt
	}
	if kn := out.K[strconv.Itoa(out.N)]; kn != nil {
		out.PassAtK, out.PassAllK = kn.PassAt, kn.PassAll
	}
}
