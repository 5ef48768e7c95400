package assert

import (
	"slices"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// taskFamily is metrics.task (issue 37 part 3): task success of the runs
// of scenarios with a task block, as MultiWOZ evaluates a dialogue
// system. Per run (a dialogue; runs told apart by session id as
// scenarios are):
//
//   - informed: the last turn that offered (read an inform entry of the
//     offers) read every inform entry, each equal to the goal's value;
//     a task whose offers read no inform slot needs no offer (MultiWOZ's
//     taxi, police and hospital) and is informed;
//   - succeeded: informed, and every request item was read on some turn
//     (MultiWOZ_Evaluation's get_dialog_success, Nekvinda & Dušek 2021);
//   - book score: of the booked entries read on the last turn that
//     booked, the share equal to the goal's values; 0 when no turn booked
//     (ConvLab-2's MultiWozEvaluator.book_rate);
//   - TP, FP, FN: request items read, values read that are neither
//     requested nor informed, request items never read; precision,
//     recall and F1 from them (ConvLab-2's inform_F1).
//
// The node's rates are counts over runs; book rate and the inform
// precision, recall and F1 are means over the runs they apply to, as
// ConvLab-2's analyzer averages them. Everything kept per run is a
// maximum, a latest turn or a union, so forked collectors and shards
// merge to the unsharded figures, and Fill sums runs in key order.
type taskFamily struct{}

func (taskFamily) Shape() *schema.Family { return schema.TaskFamily }

// NewAcc applies to suites with a scenario that has a task block.
func (taskFamily) NewAcc(s *spec.Suite) Acc {
	for _, src := range s.CaseSources {
		if src.Kind() == spec.KindScenario && src.Info().Task != nil {
			return &taskAcc{suite: s}
		}
	}
	return nil
}

// taskRun is one scenario run as recorded so far.
type taskRun struct {
	source string
	// offerTurn is the last turn that offered (0: none); offerMet that its
	// offer met every inform entry.
	offerTurn int
	offerMet  bool
	// provided has bit i set when offers entry i read a value on a turn.
	provided uint64
	// bookTurn is the last turn that booked (0: none); bookMet its booked
	// entries equal to the goal's.
	bookTurn int
	bookMet  int
}

// merge adds what another part of the same run showed.
func (run *taskRun) merge(offerTurn int, offerMet bool, provided uint64, bookTurn, bookMet int) {
	if offerTurn > run.offerTurn {
		run.offerTurn, run.offerMet = offerTurn, offerMet
	}
	run.provided |= provided
	if bookTurn > run.bookTurn {
		run.bookTurn, run.bookMet = bookTurn, bookMet
	}
}

type taskAcc struct {
	suite *spec.Suite
	runs  map[string]*taskRun
	tasks map[string]*spec.TaskSpec
}

// task is the task block of the scenario named name (nil when the suite
// no longer declares it, or it has none).
func (a *taskAcc) task(name string) *spec.TaskSpec {
	if t, ok := a.tasks[name]; ok {
		return t
	}
	if a.tasks == nil {
		a.tasks = map[string]*spec.TaskSpec{}
	}
	var t *spec.TaskSpec
	if src := a.suite.SourceByKind(spec.KindScenario, name); src != nil {
		t = src.Info().Task
	}
	a.tasks[name] = t
	return t
}

func (a *taskAcc) runOf(key, source string) *taskRun {
	if a.runs == nil {
		a.runs = map[string]*taskRun{}
	}
	run := a.runs[key]
	if run == nil {
		run = &taskRun{source: source}
		a.runs[key] = run
	}
	return run
}

func (a *taskAcc) Add(o *Observation) {
	r := o.Result
	if r.Turn < 1 || r.SourceKind != spec.KindScenario {
		return
	}
	t := a.task(r.Source)
	if t == nil {
		return
	}
	tt := o.Memo(taskFamily{}, func() any { return ReadTaskTurn(t, r) }).(TaskTurn)
	run := a.runOf(runKey(r), r.Source)
	offerTurn, offerMet := 0, false
	if inform := t.Mask(spec.TaskInform); tt.Offered&inform != 0 {
		offerTurn, offerMet = r.Turn, tt.OfferMet&inform == inform
	}
	bookTurn := 0
	if tt.Booked {
		bookTurn = r.Turn
	}
	run.merge(offerTurn, offerMet, tt.Offered, bookTurn, tt.BookMet)
}

func (a *taskAcc) Merge(o Acc) {
	b := o.(*taskAcc)
	for k, r := range b.runs {
		a.runOf(k, r.source).merge(r.offerTurn, r.offerMet, r.provided, r.bookTurn, r.bookMet)
	}
}

// taskSums are the figures of a node or a domain being summed.
type taskSums struct {
	f                   schema.TaskFigures
	book, p, rec, f1sum float64
}

// add counts one run of task t.
func (s *taskSums) add(t *spec.TaskSpec, run *taskRun) {
	s.f.Dialogues++
	inform := t.Mask(spec.TaskInform)
	informed := inform == 0 || (run.offerTurn > 0 && run.offerMet)
	tp := ones(run.provided & t.Mask(spec.TaskRequest))
	fn := t.Requests - tp
	fp := ones(run.provided & t.Mask(spec.TaskOther))
	if informed {
		s.f.Informed++
		if fn == 0 {
			s.f.Succeeded++
		}
	}
	if len(t.Booked) > 0 {
		s.f.Bookings++
		if run.bookTurn > 0 {
			s.book += float64(run.bookMet) / float64(len(t.Booked))
		}
	}
	if t.Requests == 0 {
		return
	}
	s.f.Requesting++
	s.f.TP, s.f.FP, s.f.FN = s.f.TP+tp, s.f.FP+fp, s.f.FN+fn
	p, r := InformPR(tp, fp, fn)
	s.p += p
	s.rec += r
	if p+r > 0 {
		s.f1sum += 2 * p * r / (p + r)
	}
}

// InformPR is one dialogue's inform precision TP/(TP+FP) and recall
// TP/(TP+FN), each 0 when its denominator is (ConvLab-2's inform_F1).
func InformPR(tp, fp, fn int) (precision, recall float64) {
	if tp+fp > 0 {
		precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		recall = float64(tp) / float64(tp+fn)
	}
	return precision, recall
}

func (s *taskSums) figures() *schema.TaskFigures {
	f := s.f
	f.InformRate = schema.R(f.Informed, f.Dialogues)
	f.SuccessRate = schema.R(f.Succeeded, f.Dialogues)
	f.BookRate = schema.Ratio{Num: s.book, Den: float64(f.Bookings)}
	n := float64(f.Requesting)
	f.InformPrecision = schema.Ratio{Num: s.p, Den: n}
	f.InformRecall = schema.Ratio{Num: s.rec, Den: n}
	f.InformF1 = schema.Ratio{Num: s.f1sum, Den: n}
	return &f
}

func (a *taskAcc) Fill(n *schema.Node) {
	var all taskSums
	domains := map[string]*taskSums{}
	// Runs in key order: the sums of fractions are then the same bits
	// whatever order the turns and forks came in.
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range a.runs {
			if !yield(k) {
				return
			}
		}
	}) {
		run := a.runs[k]
		t := a.task(run.source)
		if t == nil {
			continue
		}
		all.add(t, run)
		if t.Domain != "" {
			d := domains[t.Domain]
			if d == nil {
				d = &taskSums{}
				domains[t.Domain] = d
			}
			d.add(t, run)
		}
	}
	if all.f.Dialogues == 0 {
		return
	}
	out := &schema.Task{TaskFigures: *all.figures(), Domain: make(map[string]*schema.TaskFigures, len(domains))}
	for k, d := range domains {
		out.Domain[k] = d.figures()
	}
	SetFamily(n, schema.TaskFamily.Name, out)
}
