package metrics

import (
	"github.com/nlutest/nlutest/assert/infer"
	"github.com/nlutest/nlutest/schema"
)

// Contribution is the one definition of how a family's statistics with
// bootstrap intervals come from its units (docs/architecture.md,
// "Contributions"): each unit — a case, a conversation, a script —
// contributes a small fixed-size vector of numbers (Coords), and each
// statistic (Stats) is a function of the vectors summed over the units.
// Resampling the units with replacement is then resampling the vectors,
// which an infer.Tally does over the distinct vectors alone; tallies of
// the same units merge by summing, whatever the order (forked
// collectors, shards).
//
// The same vectors serve a paired comparison of two runs: join each
// unit's vector in the baseline and in the candidate by the unit's key
// (UnitKey), tally the joined vectors (baseline ‖ candidate) and compare
// a statistic on either half (infer.Tally.Compare). The built-in
// contributions are DimContribution, LabelContribution,
// TurnContribution, MemoryContribution and PassAt1Contribution.
type Contribution struct {
	// Unit is what one vector is the contribution of, and so what the
	// bootstrap resamples (schema.UnitCases…).
	Unit string
	// Coords names the vector's numbers, in order.
	Coords []string
	// Stats are the statistics of the summed vectors, named as the
	// metrics they are in the object holding them.
	Stats []Stat
}

// Stat is one statistic of a contribution's summed vectors: Of, or when
// Of is nil the ratio sums[Num] / sums[Den] (a mean or a ratio of sums),
// which past the bootstrap's work budget gets the t interval
// (infer.Tally.Ratio). NaN is no value (a resample whose denominator is
// 0), left out of the percentiles.
type Stat struct {
	Name     string
	Num, Den int
	Of       func(sums []float64) float64
}

func (s Stat) fn() func(sums []float64) float64 {
	if s.Of != nil {
		return s.Of
	}
	num, den := s.Num, s.Den
	return func(sums []float64) float64 { return sums[num] / sums[den] }
}

// Intervals returns the intervals of c's statistics over the tally t,
// in the order of c.Stats, drawing one set of resamples for all of them
// from the stream of o.Address (the object's address: each statistic's
// interval is what it would get alone at that address). Past the work
// budget (distinct vectors × resamples), a ratio statistic gets the t
// interval and any other none.
func (c *Contribution) Intervals(t *infer.Tally, o infer.Options) []infer.Interval {
	fns := make([]func([]float64) float64, len(c.Stats))
	for i, s := range c.Stats {
		fns[i] = s.fn()
	}
	out := t.BootstrapAll(fns, o)
	for i, s := range c.Stats {
		if !out[i].OK && out[i].Resamples == 0 && s.Of == nil {
			out[i] = t.Ratio(s.Num, s.Den, o)
		}
	}
	return out
}

// Set stores c's intervals over t in the ratios of the object, one per
// statistic in c.Stats' order (nil: the object has no such ratio).
func (c *Contribution) Set(t *infer.Tally, o infer.Options, ratios ...*schema.Ratio) {
	if t == nil || t.N() == 0 {
		return
	}
	for i, iv := range c.Intervals(t, o) {
		SetCI(ratios[i], iv)
	}
}

// SetCI stores iv's bounds in r when iv is defined.
func SetCI(r *schema.Ratio, iv infer.Interval) {
	if r == nil || !iv.OK {
		return
	}
	r.SetCI(iv.Lo, iv.Hi)
}

// DimContribution is a leaf or items dimension's: a case counted in the
// dimension contributes its units (correct, recognized, expected), and
// the dimension's precision, recall, error rate and F1 are ratios of the
// sums. Its resamples are the cases, so units of one case move together.
var DimContribution = Contribution{
	Unit:   schema.UnitCases,
	Coords: []string{"correct", "recognized", "expected"},
	Stats: []Stat{
		{Name: "precision", Num: 0, Den: 1},
		{Name: "recall", Num: 0, Den: 2},
		{Name: "error_rate", Of: func(s []float64) float64 { return (s[1] - s[0]) / s[1] }},
		{Name: "f1", Of: func(s []float64) float64 { return 2 * s[0] / (s[1] + s[2]) }},
	},
}

// TurnContribution is a conversation run's (metrics.dialogue): its turns
// passed and turns run, whose sums give turn_accuracy. Its resamples are
// the conversations, since a conversation's turns are not independent.
var TurnContribution = Contribution{
	Unit:   schema.UnitConversations,
	Coords: []string{"turns_passed", "turns"},
	Stats:  []Stat{{Name: "turn_accuracy", Num: 0, Den: 1}},
}

// MemoryContribution is a memory case run's (metrics.memory): its
// questions answered with the fact and its questions asked, whose sums
// give the memory score. Its resamples are the memory cases, whose
// questions share one session.
var MemoryContribution = Contribution{
	Unit:   schema.UnitMemoryCases,
	Coords: []string{"entailed", "questions"},
	Stats:  []Stat{{Name: "score", Num: 0, Den: 1}},
}

// PassAt1Contribution is a repeated script's (metrics.repeat): the
// fraction of its recorded repetitions that passed, and 1, whose sums give
// pass@1, the mean over scripts of c/n (k["1"].pass_at). Its
// resamples are the scripts, whose repetitions are not independent.
var PassAt1Contribution = Contribution{
	Unit:   schema.UnitScripts,
	Coords: []string{"passing_fraction", "scripts"},
	Stats:  []Stat{{Name: "pass_at_1", Num: 0, Den: 1}},
}
