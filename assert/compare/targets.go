package compare

import (
	"slices"

	"github.com/nlutest/nlutest/schema"
)

// Target is one target's finished run in a run against several targets:
// its name, run directory and report, and the significance of its
// differences with the first target's run (nil for the first, or when
// not computed).
type Target struct {
	Name         string
	Dir          string
	Report       *schema.Report
	Significance *schema.Significance
}

// Targets sets the finished runs of one suite against several targets side
// by side: each target's verdict and headline metrics (with, after the
// first, the significance of its differences with the first, the
// baseline), every threshold's outcome per target, and every case's
// outcome per target, the cases whose outcome differs first (in the first
// target's order within each part). The comparison fails when any
// target's verdict fails.
func Targets(dir string, runs []Target) *schema.Comparison {
	c := &schema.Comparison{Tool: "nlutest", Kind: "comparison", Dir: dir, Outcome: schema.Pass}
	if len(runs) > 0 {
		c.Version, c.Suite = runs[0].Report.Version, runs[0].Report.Suite
		c.Baseline = runs[0].Name
	}
	for _, tr := range runs {
		c.Targets = append(c.Targets, comparedTarget(tr))
		if tr.Report.Verdict.Outcome != schema.Pass {
			c.Outcome = schema.Fail
		}
	}
	c.Thresholds = compareThresholds(runs)
	c.Cases = compareCases(runs)
	for _, cc := range c.Cases {
		if cc.Differs {
			c.Differing++
		}
	}
	return c
}

func comparedTarget(tr Target) schema.ComparedTarget {
	r := tr.Report
	t := schema.ComparedTarget{Name: tr.Name, Dir: tr.Dir, Verdict: r.Verdict, Seconds: r.Run.Seconds, Warnings: r.Warnings,
		Significance: tr.Significance}
	if m := r.Metrics; m != nil {
		t.Total, t.Passed, t.Failed, t.Errored = m.Total, m.Passed, m.Failed, m.Errored
		t.Accuracy, t.ErrorRate = m.Accuracy, m.ErrorRate
		if m.Latency != nil && m.Latency.Count > 0 {
			p := m.Latency.P95MS
			t.P95MS = &p
		}
	}
	return t
}

// compareThresholds lists the thresholds of the first target's report (the
// suite's, the same for every target) with every target's result.
func compareThresholds(runs []Target) []schema.ComparedThreshold {
	if len(runs) == 0 {
		return nil
	}
	var out []schema.ComparedThreshold
	for _, th := range runs[0].Report.Thresholds {
		ct := schema.ComparedThreshold{Name: th.Name, Condition: th.Condition, Severity: th.Severity}
		for _, tr := range runs {
			o, obs := schema.Skip, []schema.Observed(nil)
			for _, x := range tr.Report.Thresholds {
				if x.Name == th.Name {
					o, obs = x.Outcome, x.Observed
					break
				}
			}
			ct.Outcomes = append(ct.Outcomes, o)
			ct.Observed = append(ct.Observed, obs)
		}
		out = append(out, ct)
	}
	return out
}

// caseKey identifies a case (a conversation's turn by its turn and
// repetition) across the targets' reports.
type caseKey struct {
	id           string
	turn, repeat int
}

// compareCases joins the targets' cases by id, differing ones first.
func compareCases(runs []Target) []schema.ComparedCase {
	index := map[caseKey]int{}
	var out []schema.ComparedCase
	for ti, tr := range runs {
		for cr := range tr.Report.ListedCases() {
			k := caseKey{cr.ID, cr.Turn, cr.Repeat}
			j, ok := index[k]
			if !ok {
				j = len(out)
				index[k] = j
				src := cr.Source
				if src == "" {
					src = cr.Template
				}
				cc := schema.ComparedCase{ID: cr.ID, Source: src, SourceKind: cr.SourceKind, Text: cr.Text, Turn: cr.Turn,
					Outcomes: make([]schema.Outcome, len(runs))}
				for x := range cc.Outcomes {
					cc.Outcomes[x] = schema.Skip
				}
				out = append(out, cc)
			}
			out[j].Outcomes[ti] = cr.Outcome
		}
	}
	for i := range out {
		out[i].Differs = slices.ContainsFunc(out[i].Outcomes, func(o schema.Outcome) bool { return o != out[i].Outcomes[0] })
	}
	slices.SortStableFunc(out, func(a, b schema.ComparedCase) int {
		switch {
		case a.Differs == b.Differs:
			return 0
		case a.Differs:
			return -1
		}
		return 1
	})
	return out
}
