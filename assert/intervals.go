package assert

import (
	"github.com/nlutest/nlutest/assert/infer"
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// Confidence intervals of the metrics tree (docs/statistics.md,
// docs/metrics.md#confidence-intervals). Once a node is filled, every
// ratio the descriptor marks schema.CIWilson gets the Wilson interval of
// its numerator over its denominator, here, for every family alike; a
// family whose figures are marked schema.CIBootstrap implements
// IntervalAcc and bootstraps them from the contributions it keeps
// (metrics.Contribution: the cases' (correct, recognized, expected) of a
// dimension, a label dimension's confusion cells, a conversation's turns
// passed and run).

// IntervalAcc is an Acc whose figures include statistics with bootstrap
// intervals. After Fill, the collector calls Intervals with the node Fill
// wrote and the node's Resampler.
type IntervalAcc interface {
	Acc
	Intervals(n *schema.Node, r *Resampler)
}

// Resampler gives the bootstrap options of one node's statistics: the
// suite's statistics settings, with each statistic's stream named by its
// address under the node (infer.Options.Address), so that an interval is
// the same whichever collector, fork or shard computed it.
type Resampler struct {
	// Node is the node's canonical address: metrics,
	// metrics.split["smoke"], metrics.dataset["faq"].
	Node string
	opts infer.Options
}

// Options returns the options of the statistics of the object at obj
// under the node ("dimension.slots", "dialogue"): its stream is the
// object's address, shared by the statistics drawn together.
func (r *Resampler) Options(obj string) infer.Options {
	o := r.opts
	o.Address = r.Node + "." + obj
	return o
}

// InferOptions are the suite's statistics settings as infer takes them
// (confidence, resamples, seed, and infer.DefaultBudget).
func InferOptions(st Statistics) infer.Options { return inferOptions(st) }

// inferOptions are the suite's statistics settings as infer takes them.
func inferOptions(st Statistics) infer.Options {
	if st.Resamples == 0 {
		st = DefaultStatistics()
	}
	return infer.Options{Resamples: st.Resamples, Conf: st.Confidence, Seed: st.Seed, Budget: infer.DefaultBudget}
}

// ReportIntervals returns the settings report.json states once for the
// intervals of a run of s.
func ReportIntervals(s *spec.Suite) *schema.Intervals {
	o := inferOptions(StatisticsOf(s))
	return &schema.Intervals{Confidence: o.Conf, Resamples: o.Resamples, Seed: o.Seed, Budget: o.Budget}
}

// setIntervals sets the intervals of node n, filled by the accumulators
// accs, whose address is addr.
func setIntervals(tree *schema.Tree, st Statistics, n *schema.Node, addr string, accs []Acc) {
	o := inferOptions(st)
	tree.NodeRatios(n, addr, func(_ string, a schema.Attr, r *schema.Ratio) {
		if a.CI != schema.CIWilson || r.Den <= 0 {
			return
		}
		if lo, hi, ok := infer.Wilson(r.Num, r.Den, o.Conf); ok {
			r.SetCI(lo, hi)
		}
	})
	rs := &Resampler{Node: addr, opts: o}
	for _, a := range accs {
		if ia, ok := a.(IntervalAcc); ok && a != nil {
			ia.Intervals(n, rs)
		}
	}
}

// The built-in families' bootstraps.

func (d *dimensionAcc) Intervals(n *schema.Node, r *Resampler) {
	for i, x := range d.dims {
		if x == nil {
			continue
		}
		name := d.sc.Dimensions[i].Name
		if out := n.Dimension[name]; out != nil {
			x.Intervals(out, r.Options("dimension."+name))
		}
	}
}

func (l *labelAcc) Intervals(n *schema.Node, r *Resampler) {
	for i, x := range l.labels {
		if x == nil {
			continue
		}
		name := l.sc.Dimensions[i].Name
		if out := n.Label[name]; out != nil {
			x.Intervals(out, r.Options("label."+name))
		}
	}
}

// Intervals bootstraps turn_accuracy over the conversation runs
// (metrics.TurnContribution).
func (d *dialogueAcc) Intervals(n *schema.Node, r *Resampler) {
	out, _ := n.Families["dialogue"].(*schema.Dialogue)
	if out == nil || len(d.runs) == 0 {
		return
	}
	t := infer.NewTally(2)
	for _, cr := range d.runs {
		t.Add(float64(cr.passed), float64(cr.ran))
	}
	metrics.TurnContribution.Set(t, r.Options("dialogue"), &out.TurnAccuracy)
}
