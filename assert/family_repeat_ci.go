package assert

import (
	"github.com/nlutest/nlutest/assert/infer"
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
)

// Intervals bootstraps pass@1 over the repeated scripts
// (metrics.PassAt1Contribution: a script's fraction of passing
// repetitions, and 1), since the repetitions of one script are not independent;
// stability, pass@k and pass^k are proportions of scripts (Wilson).
func (a *repeatAcc) Intervals(n *schema.Node, r *Resampler) {
	out, _ := n.Families["repeat"].(*schema.Repeat)
	if out == nil || len(a.scripts) == 0 {
		return
	}
	t := infer.NewTally(2)
	for _, sr := range a.scripts {
		want := max(turnsOf(a.suite, sr.kind, sr.source), 1)
		runs, passes := 0, 0
		for _, rp := range sr.reps {
			switch repOutcome(rp, want) {
			case 'P':
				passes++
				runs++
			case 'F', 'E':
				runs++
			}
		}
		if runs > 0 {
			// pass@1 is the mean over scripts of c/n (k["1"].pass_at), so
			// each script contributes its own fraction once.
			t.Add(float64(passes)/float64(runs), 1)
		}
	}
	metrics.PassAt1Contribution.Set(t, r.Options("repeat"), &out.PassAt1)
}
