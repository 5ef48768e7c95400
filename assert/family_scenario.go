package assert

import (
	"math"
	"slices"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// scenarioFamily is metrics.scenario (SPEC §14.6): the scenario runs of a
// node, each succeeded when its success condition held after some turn
// (and its final_state check, if it has one, passed),
// with its turns to success, stuck at max_turns, or ended by an error;
// and per inform slot, how often the simulated user answered an ask for
// it and gave it. Runs are told apart by session id as conversations are.
type scenarioFamily struct{}

func (scenarioFamily) Shape() *schema.Family { return schema.ScenarioFamily }
func (scenarioFamily) NewAcc(s *spec.Suite) Acc {
	for _, src := range s.CaseSources {
		if src.Kind() == spec.KindScenario {
			return &scenarioAcc{suite: s}
		}
	}
	return nil
}

// scenarioRun is one scenario run as recorded so far.
type scenarioRun struct {
	source  string
	turns   int // the highest turn recorded
	success int // the first turn the success condition held on (0: none)
	errored bool
	// finalFailed: the scenario's final_state check failed (on its last
	// turn), so it did not succeed whatever its success condition says.
	finalFailed bool
}

type scenarioAcc struct {
	suite *spec.Suite
	runs  map[string]*scenarioRun
	slots map[string]*schema.SlotCounts
	infos map[string]*spec.SourceInfo
}

// info is the scenario source named name's info (nil when the suite no
// longer declares it).
func (a *scenarioAcc) info(name string) *spec.SourceInfo {
	if i, ok := a.infos[name]; ok {
		return i
	}
	if a.infos == nil {
		a.infos = map[string]*spec.SourceInfo{}
	}
	var info *spec.SourceInfo
	if src := a.suite.SourceByKind(spec.KindScenario, name); src != nil {
		info = src.Info()
	}
	a.infos[name] = info
	return info
}

func (a *scenarioAcc) Add(o *Observation) {
	r := o.Result
	if r.Turn < 1 || r.SourceKind != spec.KindScenario {
		return
	}
	if a.runs == nil {
		a.runs = map[string]*scenarioRun{}
		a.slots = map[string]*schema.SlotCounts{}
	}
	k := runKey(r)
	run := a.runs[k]
	if run == nil {
		run = &scenarioRun{source: r.Source}
		a.runs[k] = run
	}
	run.turns = max(run.turns, r.Turn)
	run.errored = run.errored || r.Error != nil
	run.finalFailed = run.finalFailed || (r.Tools != nil && r.Tools.FinalChecked && !r.Tools.FinalPassed)
	ok := o.Memo(scenarioFamily{}, func() any {
		info := a.info(r.Source)
		return info != nil && info.Success(r)
	}).(bool)
	if ok && (run.success == 0 || r.Turn < run.success) {
		run.success = r.Turn
	}
	if slot, asked := spec.ReasonSlot(r.Reason); slot != "" {
		sc := a.slots[slot]
		if sc == nil {
			sc = &schema.SlotCounts{}
			a.slots[slot] = sc
		}
		sc.Given++
		if asked {
			sc.Asked++
		}
	}
}

func (a *scenarioAcc) Merge(o Acc) {
	oa := o.(*scenarioAcc)
	if len(oa.runs) > 0 && a.runs == nil {
		a.runs = map[string]*scenarioRun{}
		a.slots = map[string]*schema.SlotCounts{}
	}
	for k, r := range oa.runs {
		run := a.runs[k]
		if run == nil {
			run = &scenarioRun{source: r.source}
			a.runs[k] = run
		}
		run.turns = max(run.turns, r.turns)
		run.errored = run.errored || r.errored
		run.finalFailed = run.finalFailed || r.finalFailed
		if r.success > 0 && (run.success == 0 || r.success < run.success) {
			run.success = r.success
		}
	}
	for k, s := range oa.slots {
		sc := a.slots[k]
		if sc == nil {
			sc = &schema.SlotCounts{}
			a.slots[k] = sc
		}
		sc.Asked += s.Asked
		sc.Given += s.Given
	}
}

func (a *scenarioAcc) Fill(n *schema.Node) {
	if len(a.runs) == 0 {
		return
	}
	out := &schema.Scenario{Scenarios: len(a.runs), BySlot: make(map[string]*schema.SlotCounts, len(a.slots))}
	var turns []int
	for _, run := range a.runs {
		switch {
		case run.success > 0 && !run.finalFailed:
			out.Succeeded++
			turns = append(turns, run.success)
		case run.errored:
			out.Errored++
		default:
			if info := a.info(run.source); info == nil || run.turns >= info.MaxTurns {
				out.Stuck++
			}
		}
	}
	out.SuccessRate = schema.R(out.Succeeded, out.Scenarios)
	if len(turns) > 0 {
		slices.Sort(turns)
		sum := 0
		for _, t := range turns {
			sum += t
		}
		mean := float64(sum) / float64(len(turns))
		out.TurnsMean = &mean
		out.TurnsP50, out.TurnsP90 = nearestRank(turns, 0.5), nearestRank(turns, 0.9)
	}
	for k, s := range a.slots {
		c := *s
		out.BySlot[k] = &c
	}
	SetFamily(n, "scenario", out)
}

// nearestRank is the p-th percentile of the sorted xs by the nearest-rank
// method: the ⌈p·n⌉-th smallest.
func nearestRank(xs []int, p float64) *float64 {
	i := max(int(math.Ceil(p*float64(len(xs))))-1, 0)
	v := float64(xs[i])
	return &v
}
