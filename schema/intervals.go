package schema

import (
	"fmt"
	"reflect"
)

// Confidence intervals in the metrics tree (docs/statistics.md,
// docs/metrics.md). A ratio metric whose descriptor attribute has a CI
// method carries an interval in its Ratio (CILow, CIHigh); the report says
// once, in Intervals, how they were computed. Computing them is assert's
// (package assert/infer has the arithmetic); this file only describes and
// holds them.

// CIMethod says how a metric's confidence interval is computed (Attr.CI).
type CIMethod string

// The methods of Attr.CI.
const (
	// CINone: the metric has no interval (a count, a latency percentile,
	// a corpus figure such as BLEU); a threshold cannot read its ci_low.
	CINone CIMethod = ""
	// CIWilson is the Wilson score interval of the proportion Num/Den, the
	// Den units (Attr.CIUnit) being independent.
	CIWilson CIMethod = "wilson"
	// CIBootstrap is the percentile bootstrap over the metric's resampling
	// unit (Attr.CIUnit): each unit's contribution vector is resampled
	// with replacement and the statistic recomputed from the summed
	// vectors. A mean or ratio of sums whose distinct contributions
	// exceed the work budget gets the t interval instead.
	CIBootstrap CIMethod = "bootstrap"
)

// The resampling units of Attr.CIUnit.
const (
	UnitCases         = "cases"
	UnitConversations = "conversations"
	UnitScripts       = "scripts"
	UnitScenarios     = "scenarios"
	UnitQuestions     = "questions"
	UnitInputs        = "inputs"
	// UnitMemoryCases: a memory block's cases, each one session of facts,
	// fillers and questions.
	UnitMemoryCases = "memory cases"
)

// Intervals are the settings of a report's confidence intervals: one
// member of report.json ("intervals"), so a reader of a metric's ci_low
// and ci_high knows what they mean.
type Intervals struct {
	// Confidence is the level of every interval (0.95: 95 %).
	Confidence float64 `json:"confidence"`
	// Resamples is the number of bootstrap resamples (B).
	Resamples int `json:"resamples"`
	// Seed seeds every bootstrap; each metric draws its own stream from
	// the seed and its address, so an interval is reproducible bit for
	// bit from the same results and settings.
	Seed uint64 `json:"seed"`
	// Budget is the most distinct contributions × resamples a bootstrap
	// draws; a mean or ratio past it gets the t interval.
	Budget int64 `json:"budget"`
}

// NodeRatios calls fn with every ratio of node n that its shape (the
// descriptor's node shape) names, with its attribute and canonical
// address (addr is the node's own: "metrics", metrics.split["smoke"]),
// as a pointer into n that fn may change: how intervals are stored once
// the node is filled. Ratios the walk cannot reach for writing (a family
// value held by value in a map) are skipped.
func (t *Tree) NodeRatios(n *Node, addr string, fn func(addr string, a Attr, r *Ratio)) {
	walkRatios(t.NodeShape(), reflect.ValueOf(n), addr, fn)
}

func walkRatios(sh *Shape, v reflect.Value, addr string, fn func(string, Attr, *Ratio)) {
	for _, a := range sh.Attrs {
		if a.Kind != MetricRatio {
			continue
		}
		m := member(v, a.Name)
		if m.IsValid() && m.Type() == ratioType && m.CanAddr() {
			fn(addr+"."+a.Name, a, m.Addr().Interface().(*Ratio))
		}
	}
	for _, s := range sh.Subs {
		sv := member(v, s.Name)
		if !sv.IsValid() {
			continue
		}
		a := addr + "." + s.Name
		if !s.Keyed {
			walkRatios(s.Shape, sv, a, fn)
			continue
		}
		for _, k := range mapKeys(sv, nil) {
			e := member(sv, k)
			kind := ""
			if kv := member(e, "kind"); kv.IsValid() && kv.Kind() == reflect.String {
				kind = kv.String()
			}
			ea := fmt.Sprintf("%s[%q]", a, k)
			if s.NameKeys {
				ea = a + "." + k
			}
			walkRatios(s.ShapeOf(kind), e, ea, fn)
		}
	}
}
