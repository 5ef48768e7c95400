package infer

import (
	"fmt"
	"math"
)

// Direction says which way a metric improves.
type Direction int

// The directions of a metric.
const (
	HigherIsBetter Direction = iota // accuracy, F1, BLEU…
	LowerIsBetter                   // error rate, latency, ECE…
)

// Verdict is the word a comparison of a candidate with a baseline ends in.
type Verdict string

// The verdicts.
const (
	Better       Verdict = "better"
	Worse        Verdict = "worse"
	NoDifference Verdict = "no detectable difference"
)

// Decide turns a difference (candidate − baseline) and its p-value into a
// verdict at level alpha: better or worse when p < alpha, by the sign of
// diff and the metric's direction; no detectable difference otherwise
// (and whenever p or diff is NaN or diff is 0). Pass a p-value adjusted
// for multiple comparisons (Holm, BenjaminiHochberg) when several
// comparisons are read together.
func Decide(diff, p, alpha float64, dir Direction) Verdict {
	if !(p < alpha) || diff == 0 || math.IsNaN(diff) {
		return NoDifference
	}
	if (diff > 0) == (dir == HigherIsBetter) {
		return Better
	}
	return Worse
}

// Test names how a comparison's p-value was obtained.
type Test string

// The tests of Comparison.
const (
	TestMcNemar         Test = "McNemar exact"
	TestPairedBootstrap Test = "paired bootstrap"
	TestSignFlip        Test = "sign-flip permutation"
	TestSignFlipExact   Test = "sign-flip permutation (exact)"
	TestPairedT         Test = "paired t"
	TestNone            Test = "none"
	defaultCompareAlpha      = 0.05
)

// Comparison is a paired comparison of a candidate with a baseline over
// the cases both ran.
type Comparison struct {
	Baseline, Candidate float64  // the statistic of each on the paired cases
	Diff                float64  // Candidate − Baseline
	Interval            Interval // of Diff
	P                   float64  // two-sided p-value of "no difference"
	Test                Test
	Alpha               float64 // 1 − Interval's confidence
	Verdict             Verdict
}

// CompareOptions set a comparison: the resampling options (the interval's
// confidence sets alpha = 1 − Conf, 0.05 by default) and the metric's
// direction.
type CompareOptions struct {
	Options
	Direction Direction
}

func (c *Comparison) decide(dir Direction) {
	c.Alpha = 1 - c.Interval.Conf
	c.Verdict = Decide(c.Diff, c.P, c.Alpha, dir)
}

// McNemarExact is the two-sided p-value of McNemar's test (McNemar 1947,
// "Note on the sampling error of the difference between correlated
// proportions or percentages") in its exact form: of b cases only the
// baseline passed and c only the candidate passed, under "no difference"
// min(b, c) is Binomial(b+c, ½), and p = min(1, 2·P(X ≤ min(b, c))) —
// statsmodels' mcnemar(table, exact=True).pvalue. It is 1 when b+c = 0.
func McNemarExact(b, c int64) float64 {
	if b < 0 || c < 0 {
		return math.NaN()
	}
	return math.Min(1, 2*BinomialCDF(min(b, c), b+c, 0.5))
}

// PairCounts are paired pass/fail outcomes over the cases both ran.
type PairCounts struct {
	Both, BaselineOnly, CandidateOnly, Neither int64
}

// ComparePassFail compares the pass rates (accuracy) of two runs over the
// cases both ran: the difference in accuracy, its paired percentile
// bootstrap interval (resampling the cases, so the four kinds of pair
// keep their correlation) and McNemar's exact p-value on the discordant
// pairs, which decides the verdict.
func ComparePassFail(pc PairCounts, o CompareOptions) Comparison {
	o.Options = o.withDefaults()
	counts := []int64{pc.Both, pc.BaselineOnly, pc.CandidateOnly, pc.Neither}
	n := float64(pc.Both + pc.BaselineOnly + pc.CandidateOnly + pc.Neither)
	c := Comparison{
		Baseline:  float64(pc.Both+pc.BaselineOnly) / n,
		Candidate: float64(pc.Both+pc.CandidateOnly) / n,
		Test:      TestMcNemar,
	}
	c.Interval = Bootstrap(counts, func(w []int64) float64 { return float64(w[2]-w[1]) / n }, o.Options)
	c.Diff = c.Interval.Estimate
	c.P = McNemarExact(pc.BaselineOnly, pc.CandidateOnly)
	c.decide(o.Direction)
	return c
}

// Compare compares two statistics of the same paired cases: the tally's
// vectors hold each case's contribution to both (for example the
// baseline's (correct, recognised, expected) followed by the
// candidate's), base and cand compute each statistic from the sums. The
// interval is the paired percentile bootstrap of cand − base (Koehn 2004,
// "Statistical Significance Tests for Machine Translation Evaluation";
// Efron & Tibshirani §16) and the p-value inverts it:
//
//	p = min(1, 2·min(#{δ* ≤ 0} + 1, #{δ* ≥ 0} + 1) / (B′ + 1))
//
// over the B′ defined replicates δ*: the smallest alpha at which the
// two-sided percentile interval would just exclude 0, with the usual +1
// so that a p-value is never 0. Over the budget there is no interval, P is
// NaN and the verdict is no detectable difference.
func (t *Tally) Compare(base, cand func(sums []float64) float64, o CompareOptions) Comparison {
	o.Options = o.withDefaults()
	c := Comparison{Test: TestPairedBootstrap}
	sums := t.Sums()
	c.Baseline, c.Candidate = base(sums), cand(sums)
	diff := func(s []float64) float64 { return cand(s) - base(s) }
	c.Diff = diff(sums)
	counts := t.Counts()
	if int64(len(counts))*int64(o.Resamples) > o.Budget {
		c.Interval = Bootstrap(counts, t.sumsStat(diff), o.Options) // no draws: the note
		c.P, c.Test = math.NaN(), TestNone
		c.decide(o.Direction)
		return c
	}
	reps := Replicates(counts, t.sumsStat(diff), o.Options)
	c.P = bootstrapP(reps)
	c.Interval = Interval{Estimate: c.Diff, Conf: o.Conf, Method: MethodPercentile, Resamples: len(reps)}
	c.Interval.Lo, c.Interval.Hi, c.Interval.Undefined = Percentile(reps, o.Conf)
	c.Interval.OK = !math.IsNaN(c.Interval.Lo)
	c.decide(o.Direction)
	return c
}

// ComparePaired is Tally.Compare for statistics that are not functions of
// summed vectors (a label dimension's macro F1 is one of its confusion
// cells' counts): counts are the multiplicities of the sample's distinct
// joined contributions (baseline ‖ candidate), as Replicates takes them,
// and base and cand compute each run's statistic from multiplicities w
// (the sample's own: counts). The interval is the paired percentile
// bootstrap of cand − base and the p-value inverts it, as Tally.Compare's.
// Over the budget (len(counts) × resamples) there is no interval, P is
// NaN and the test TestNone.
func ComparePaired(counts []int64, base, cand func(w []int64) float64, o CompareOptions) Comparison {
	o.Options = o.withDefaults()
	c := Comparison{Test: TestPairedBootstrap, Baseline: base(counts), Candidate: cand(counts)}
	c.Diff = c.Candidate - c.Baseline
	diff := func(w []int64) float64 { return cand(w) - base(w) }
	if int64(len(counts))*int64(o.Resamples) > o.Budget {
		c.Interval = Bootstrap(counts, diff, o.Options) // no draws: the note
		c.P, c.Test = math.NaN(), TestNone
		c.decide(o.Direction)
		return c
	}
	reps := Replicates(counts, diff, o.Options)
	c.P = bootstrapP(reps)
	c.Interval = Interval{Estimate: c.Diff, Conf: o.Conf, Method: MethodPercentile, Resamples: len(reps)}
	c.Interval.Lo, c.Interval.Hi, c.Interval.Undefined = Percentile(reps, o.Conf)
	c.Interval.OK = !math.IsNaN(c.Interval.Lo)
	c.decide(o.Direction)
	return c
}

// ComparePairedVec is ComparePaired for n statistics of the same sample
// compared over one set of resamples (a label dimension's averages, which
// share their work): base and cand set out[0:n] to each run's statistics
// of multiplicities w. out[i] of the result is statistic i's comparison,
// its interval and p-value from the shared replicates.
func ComparePairedVec(counts []int64, n int, base, cand func(w []int64, out []float64), o CompareOptions) []Comparison {
	o.Options = o.withDefaults()
	bs, cs := make([]float64, n), make([]float64, n)
	base(counts, bs)
	cand(counts, cs)
	out := make([]Comparison, n)
	for i := range out {
		out[i] = Comparison{Test: TestPairedBootstrap, Baseline: bs[i], Candidate: cs[i], Diff: cs[i] - bs[i]}
	}
	if int64(len(counts))*int64(o.Resamples) > o.Budget {
		for i := range out {
			out[i].P, out[i].Test = math.NaN(), TestNone
			out[i].Interval = Interval{Estimate: out[i].Diff, Conf: o.Conf, Method: MethodPercentile,
				Note: fmt.Sprintf("%d distinct contributions × %d resamples is over the bootstrap budget of %d", len(counts), o.Resamples, o.Budget)}
			out[i].decide(o.Direction)
		}
		return out
	}
	reps := ReplicatesVec(counts, n, func(w []int64, vals []float64) {
		base(w, bs)
		cand(w, cs)
		for i := range vals {
			vals[i] = cs[i] - bs[i]
		}
	}, o.Options)
	for i := range out {
		c := &out[i]
		c.P = bootstrapP(reps[i])
		c.Interval = Interval{Estimate: c.Diff, Conf: o.Conf, Method: MethodPercentile, Resamples: len(reps[i])}
		c.Interval.Lo, c.Interval.Hi, c.Interval.Undefined = Percentile(reps[i], o.Conf)
		c.Interval.OK = !math.IsNaN(c.Interval.Lo)
		c.decide(o.Direction)
	}
	return out
}

// bootstrapP is Compare's p-value of replicates of a difference.
func bootstrapP(reps []float64) float64 {
	var le, ge, defined int
	for _, r := range reps {
		if math.IsNaN(r) {
			continue
		}
		defined++
		if r <= 0 {
			le++
		}
		if r >= 0 {
			ge++
		}
	}
	if defined == 0 {
		return math.NaN()
	}
	return math.Min(1, 2*float64(min(le, ge)+1)/float64(defined+1))
}

// CompareMeans compares the means of two paired series of values (a tally
// of dimension 2: the baseline's value of a case, then the candidate's):
// the mean difference, its interval (the bootstrap mean of the
// differences, or the t interval over the budget; see Ratio) and the
// p-value of the paired sign-flip permutation test (SignFlip).
func (t *Tally) CompareMeans(o CompareOptions) Comparison {
	if t.dim != 2 {
		panic(fmt.Sprintf("infer.Tally.CompareMeans: tally of %d numbers, want 2 (baseline, candidate)", t.dim))
	}
	o.Options = o.withDefaults()
	d := NewTally(2)
	for k := range t.Len() {
		v, c := t.Item(k)
		d.AddN(c, v[1]-v[0], 1)
	}
	sums := t.Sums()
	n := float64(t.n)
	c := Comparison{Baseline: sums[0] / n, Candidate: sums[1] / n}
	c.Interval = d.Ratio(0, 1, o.Options)
	c.Diff = c.Interval.Estimate
	c.P, c.Test = d.signFlip(o.Options)
	c.decide(o.Direction)
	return c
}
