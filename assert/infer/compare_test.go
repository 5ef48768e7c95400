package infer

import (
	"math"
	"testing"
)

func TestDecide(t *testing.T) {
	for _, c := range []struct {
		diff, p, alpha float64
		dir            Direction
		want           Verdict
	}{
		{0.02, 0.01, 0.05, HigherIsBetter, Better},
		{-0.02, 0.01, 0.05, HigherIsBetter, Worse},
		{0.02, 0.01, 0.05, LowerIsBetter, Worse},
		{-30, 0.001, 0.05, LowerIsBetter, Better},
		{0.02, 0.05, 0.05, HigherIsBetter, NoDifference}, // p must be below alpha
		{0.02, 0.2, 0.05, HigherIsBetter, NoDifference},
		{0, 0.0001, 0.05, HigherIsBetter, NoDifference},
		{0.02, math.NaN(), 0.05, HigherIsBetter, NoDifference},
		{math.NaN(), 0.01, 0.05, HigherIsBetter, NoDifference},
	} {
		if got := Decide(c.diff, c.p, c.alpha, c.dir); got != c.want {
			t.Errorf("Decide(%v, %v, %v, %v) = %q; want %q", c.diff, c.p, c.alpha, c.dir, got, c.want)
		}
	}
}

func TestComparePassFail(t *testing.T) {
	pc := PairCounts{Both: 700, BaselineOnly: 60, CandidateOnly: 100, Neither: 140}
	c := ComparePassFail(pc, CompareOptions{Options: Options{Address: "metrics.accuracy"}})
	if c.Baseline != 0.76 || c.Candidate != 0.8 || !near(c.Diff, 0.04, 1e-15) || c.Test != TestMcNemar || c.Alpha > 0.05+1e-15 {
		t.Errorf("comparison %+v; want 0.76 → 0.8, diff 0.04 by McNemar", c)
	}
	// statsmodels mcnemar([[700, 60], [100, 140]], exact=True).pvalue.
	if !near(c.P, 0.001953728034064355, 1e-12) || c.Verdict != Better {
		t.Errorf("p = %.17g, verdict %q; want statsmodels' 0.001953728034064355 and better", c.P, c.Verdict)
	}
	if !c.Interval.OK || !(c.Interval.Lo > 0 && c.Interval.Lo < 0.04 && c.Interval.Hi > 0.04) {
		t.Errorf("interval %+v does not hold 0.04 above 0", c.Interval)
	}
	// The paired interval is the normal one's size: sd of the difference
	// √((b+c)/n − diff²)/√n = 0.01226, so the 95 % half-width ≈ 0.024.
	if half := (c.Interval.Hi - c.Interval.Lo) / 2; math.Abs(half-0.024) > 0.003 {
		t.Errorf("half-width %v; want about 0.024", half)
	}
	if c := ComparePassFail(pc, CompareOptions{Direction: LowerIsBetter}); c.Verdict != Worse {
		t.Errorf("a higher failure count is %q; want worse", c.Verdict)
	}
}

// runs simulates the A/A set-up: a bot whose cases pass with
// probability 0.85, run twice with 10 % of its answers flipped at random in
// each run; drop turns a further share of the candidate's passes into
// failures.
func runs(seed uint64, n int, drop float64) (base, cand []bool) {
	s := NewStream(seed, "a/a")
	base, cand = make([]bool, n), make([]bool, n)
	for i := range n {
		truth := s.Float64() < 0.85
		base[i] = truth != (s.Float64() < 0.1)
		cand[i] = truth != (s.Float64() < 0.1)
		if cand[i] && s.Float64() < drop {
			cand[i] = false
		}
	}
	return base, cand
}

func pairCounts(base, cand []bool) PairCounts {
	var pc PairCounts
	for i := range base {
		switch {
		case base[i] && cand[i]:
			pc.Both++
		case base[i]:
			pc.BaselineOnly++
		case cand[i]:
			pc.CandidateOnly++
		default:
			pc.Neither++
		}
	}
	return pc
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// maxFalseAlarms is the most flags 200 A/A trials at alpha 0.05 may raise:
// the expected 10 plus 3 binomial standard deviations (√(200·0.05·0.95) =
// 3.08), rounded down: 19.
const maxFalseAlarms = 19

// TestAATestPassFail is the A/A test on pass/fail outcomes of
// 2,000 cases, 200 seeded trials at alpha 0.05, for McNemar's exact test
// (ComparePassFail) and the paired bootstrap (Tally.Compare).
func TestAATestPassFail(t *testing.T) {
	var mcnemar, boot int
	for trial := range uint64(200) {
		base, cand := runs(trial+1, 2000, 0)
		if c := ComparePassFail(pairCounts(base, cand), CompareOptions{}); c.Verdict != NoDifference {
			mcnemar++
		}
		tl := NewTally(4)
		for i := range base {
			tl.Add(b2f(base[i]), 1, b2f(cand[i]), 1)
		}
		c := tl.Compare(func(s []float64) float64 { return s[0] / s[1] }, func(s []float64) float64 { return s[2] / s[3] }, CompareOptions{})
		if c.Verdict != NoDifference {
			boot++
		}
	}
	t.Logf("false alarms in 200 A/A trials: McNemar %d, paired bootstrap %d", mcnemar, boot)
	if mcnemar > maxFalseAlarms || boot > maxFalseAlarms {
		t.Errorf("false alarms in 200 A/A trials: McNemar %d, paired bootstrap %d; at most %d", mcnemar, boot, maxFalseAlarms)
	}
}

// slotRuns simulates two runs of a slot filler over n cases of 1 or 2
// expected slots, each slot right with probability 0.8, 10 % of slot
// answers flipped per run, and drop of the candidate's right slots made
// wrong: per case (correct, recognised, expected) for each run.
func slotRuns(seed uint64, n int, drop float64) *Tally {
	s := NewStream(seed, "slots")
	tl := NewTally(6)
	for i := range n {
		e := float64(1 + i%2)
		var cb, cc float64
		for range int(e) {
			truth := s.Float64() < 0.8
			cb += b2f(truth != (s.Float64() < 0.1))
			candRight := truth != (s.Float64() < 0.1)
			if candRight && s.Float64() < drop {
				candRight = false
			}
			cc += b2f(candRight)
		}
		tl.Add(cb, e, e, cc, e, e)
	}
	return tl
}

func f1Base(s []float64) float64 { return 2 * s[0] / (s[1] + s[2]) }
func f1Cand(s []float64) float64 { return 2 * s[3] / (s[4] + s[5]) }

// TestAATestF1 is the A/A test for a slot F1 by the paired bootstrap.
func TestAATestF1(t *testing.T) {
	flagged := 0
	for trial := range uint64(200) {
		if c := slotRuns(trial+1, 2000, 0).Compare(f1Base, f1Cand, CompareOptions{}); c.Verdict != NoDifference {
			flagged++
		}
	}
	t.Logf("false alarms in 200 A/A trials of a slot F1: %d", flagged)
	if flagged > maxFalseAlarms {
		t.Errorf("false alarms in 200 A/A trials of a slot F1: %d; at most %d", flagged, maxFalseAlarms)
	}
}

// scoreRuns simulates two runs of rubric scores (1–5) over n cases, 10 %
// of the scores redrawn per run, and the candidate's scores lowered by
// one with probability drop.
func scoreRuns(seed uint64, n int, drop float64) *Tally {
	s := NewStream(seed, "scores")
	tl := NewTally(2)
	for range n {
		truth := float64(1 + s.Below(5))
		b, c := truth, truth
		if s.Float64() < 0.1 {
			b = float64(1 + s.Below(5))
		}
		if s.Float64() < 0.1 {
			c = float64(1 + s.Below(5))
		}
		if c > 1 && s.Float64() < drop {
			c--
		}
		tl.Add(b, c)
	}
	return tl
}

// TestAATestMeans is the A/A test for a mean score by the sign-flip
// permutation test.
func TestAATestMeans(t *testing.T) {
	flagged := 0
	for trial := range uint64(200) {
		c := scoreRuns(trial+1, 2000, 0).CompareMeans(CompareOptions{})
		if c.Test != TestSignFlip {
			t.Fatalf("test %q; want the Monte Carlo sign-flip test", c.Test)
		}
		if c.Verdict != NoDifference {
			flagged++
		}
	}
	t.Logf("false alarms in 200 A/A trials of a mean score: %d", flagged)
	if flagged > maxFalseAlarms {
		t.Errorf("false alarms in 200 A/A trials of a mean score: %d; at most %d", flagged, maxFalseAlarms)
	}
}

// TestFivePointDropIsFlagged is the power check: a candidate that
// really passes 5 points fewer of 2,000 cases (0.78 → 0.73) is flagged
// worse. Over 200 seeded trials McNemar flags it in at least 190 (the
// power computed from the normal approximation is about 99.6 %), and
// never calls it better.
func TestFivePointDropIsFlagged(t *testing.T) {
	worse, better := 0, 0
	var meanDiff float64
	for trial := range uint64(200) {
		base, cand := runs(1000+trial, 2000, 0.05/0.78)
		c := ComparePassFail(pairCounts(base, cand), CompareOptions{})
		meanDiff += c.Diff / 200
		switch c.Verdict {
		case Worse:
			worse++
		case Better:
			better++
		}
	}
	t.Logf("5-point drop: flagged worse in %d of 200 trials (mean difference %.4f)", worse, meanDiff)
	if worse < 190 || better > 0 || math.Abs(meanDiff+0.05) > 0.005 {
		t.Errorf("5-point drop (mean difference %.4f) flagged worse %d and better %d times in 200; want ≥ 190 and 0", meanDiff, worse, better)
	}
	// The slot F1 and the mean score with real drops are flagged too.
	f1Worse, scoreWorse := 0, 0
	for trial := range uint64(50) {
		if c := slotRuns(2000+trial, 2000, 0.07).Compare(f1Base, f1Cand, CompareOptions{}); c.Verdict == Worse {
			f1Worse++
		}
		if c := scoreRuns(3000+trial, 2000, 0.1).CompareMeans(CompareOptions{}); c.Verdict == Worse {
			scoreWorse++
		}
	}
	t.Logf("F1 drop flagged worse %d/50, mean-score drop %d/50", f1Worse, scoreWorse)
	if f1Worse < 45 || scoreWorse < 45 {
		t.Errorf("F1 drop flagged worse %d/50, mean-score drop %d/50; want at least 45 each", f1Worse, scoreWorse)
	}
}

// TestCompareMeansFallsBackToPairedT: nearly all-distinct differences
// over the budget are tested by the paired t test.
func TestCompareMeansFallsBackToPairedT(t *testing.T) {
	s := NewStream(4, "latency")
	tl := NewTally(2)
	var diffs []float64
	for range 3000 {
		a := 100 * math.Exp(0.3*s.Normal())
		b := a*1.02 + 5*s.Normal()
		tl.Add(a, b)
		diffs = append(diffs, b-a)
	}
	c := tl.CompareMeans(CompareOptions{Direction: LowerIsBetter})
	m, sd := meanSD(diffs)
	tt := m / (sd / math.Sqrt(3000))
	if c.Test != TestPairedT || c.Interval.Method != MethodT || !near(c.P, 2*(1-StudentCDF(math.Abs(tt), 2999)), 1e-9) {
		t.Errorf("comparison %+v; want the paired t test (t = %v)", c, tt)
	}
	if c.Verdict != Worse {
		t.Errorf("latency 2 %% higher: %q; want worse", c.Verdict)
	}
}

// TestSignFlipMonteCarloAgreesWithExact: with more sign configurations
// than SignFlip enumerates, its Monte Carlo p-value is within Monte Carlo
// error of the exact one (enumerated here directly), and it is the
// Monte Carlo test that ran.
func TestSignFlipMonteCarloAgreesWithExact(t *testing.T) {
	d := []float64{0.8, -0.3, 1.1, 0.4, 0.05, -0.6, 0.9, 0.2, 0.7, -0.1, 0.35, 0.5, -0.45, 0.15, 0.25, 0.6, -0.2, 0.3}
	tl := NewTally(2)
	for _, x := range d {
		tl.Add(x, 1)
	}
	groups, n := tl.flipGroups()
	obs := flipSum(groups, func(g flipGroup) int64 { return g.neg }) / float64(n)
	less, greater := flipExact(groups, float64(n), obs, math.Max(1e-14, 1e-14*math.Abs(obs)))
	exact := math.Min(1, 2*math.Min(less, greater))
	p, test := SignFlip(d, Options{Resamples: 20000, Address: "mc"})
	sd := math.Sqrt(exact * (1 - exact) / 20000)
	if test != TestSignFlip || math.Abs(p-exact) > 4*sd+1e-4 {
		t.Errorf("SignFlip = %v (%s); exact %v (sd of the Monte Carlo figure %.2g)", p, test, exact, sd)
	}
}

// TestPairedBootstrapPMatchesMcNemar: on pass/fail pairs the paired
// bootstrap's p-value estimates the same thing as McNemar's test; with
// many discordant pairs both are close to the normal approximation
// 2Φ(−|b−c|/√(b+c)). With 20,000 resamples the bootstrap p must be
// within 4 Monte Carlo standard errors plus 10 % of it (the bootstrap
// counts resamples with no difference on both sides, which makes it a
// little larger).
func TestPairedBootstrapPMatchesMcNemar(t *testing.T) {
	for _, pc := range []PairCounts{
		{Both: 1500, BaselineOnly: 120, CandidateOnly: 150, Neither: 230},
		{Both: 1500, BaselineOnly: 130, CandidateOnly: 165, Neither: 205},
		{Both: 1500, BaselineOnly: 100, CandidateOnly: 140, Neither: 260},
		{Both: 1500, BaselineOnly: 140, CandidateOnly: 145, Neither: 215},
	} {
		tl := NewTally(4)
		tl.AddN(pc.Both, 1, 1, 1, 1)
		tl.AddN(pc.BaselineOnly, 1, 1, 0, 1)
		tl.AddN(pc.CandidateOnly, 0, 1, 1, 1)
		tl.AddN(pc.Neither, 0, 1, 0, 1)
		c := tl.Compare(func(s []float64) float64 { return s[0] / s[1] }, func(s []float64) float64 { return s[2] / s[3] },
			CompareOptions{Options: Options{Resamples: 20000, Address: "p-check"}})
		b, cc := float64(pc.BaselineOnly), float64(pc.CandidateOnly)
		z := 2 * NormalCDF(-math.Abs(b-cc)/math.Sqrt(b+cc))
		mc := McNemarExact(pc.BaselineOnly, pc.CandidateOnly)
		sd := math.Sqrt(z * (1 - z) / 20000)
		t.Logf("b=%d c=%d: bootstrap p %.4f, normal %.4f, McNemar exact %.4f", pc.BaselineOnly, pc.CandidateOnly, c.P, z, mc)
		if math.Abs(c.P-z) > 4*sd+0.1*z {
			t.Errorf("b=%d c=%d: bootstrap p %.4f; normal approximation %.4f (McNemar exact %.4f)", pc.BaselineOnly, pc.CandidateOnly, c.P, z, mc)
		}
	}
}

// TestComparePairedIsTallyCompare: ComparePaired on the tally's own
// multiplicities, with statistics that read the weighted sums, is
// Tally.Compare bit for bit (same stream, same items, same arithmetic),
// and past the budget it gives no test.
func TestComparePairedIsTallyCompare(t *testing.T) {
	tl := NewTally(6)
	for i := range 3000 {
		// (correct, recognised, expected) in the baseline, then the candidate.
		c := float64(i % 3)
		tl.Add(c, 2, 2, c-float64(i%7/6), 2, 2)
	}
	f1 := func(off int) func(s []float64) float64 {
		return func(s []float64) float64 { return 2 * s[off] / (s[off+1] + s[off+2]) }
	}
	o := CompareOptions{Options: Options{Address: "metrics.dimension.slots.f1"}}
	want := tl.Compare(f1(0), f1(3), o)
	sums := make([]float64, 6)
	w2 := func(stat func([]float64) float64) func(w []int64) float64 {
		return func(w []int64) float64 { tl.SumsOf(w, sums); return stat(sums) }
	}
	got := ComparePaired(tl.Counts(), w2(f1(0)), w2(f1(3)), o)
	if got.Diff != want.Diff || got.P != want.P || got.Interval.Lo != want.Interval.Lo || got.Interval.Hi != want.Interval.Hi || got.Verdict != want.Verdict {
		t.Errorf("ComparePaired %+v\nTally.Compare %+v", got, want)
	}
	if want.Verdict != Worse || !(want.P < 0.01) {
		t.Errorf("a drop of %.3f in F1 over 3000 cases: p %v, %q; want worse", want.Diff, want.P, want.Verdict)
	}
	vec := ComparePairedVec(tl.Counts(), 1, func(w []int64, out []float64) { out[0] = w2(f1(0))(w) },
		func(w []int64, out []float64) { out[0] = w2(f1(3))(w) }, o)[0]
	if vec.Diff != want.Diff || vec.P != want.P || vec.Interval.Lo != want.Interval.Lo || vec.Interval.Hi != want.Interval.Hi {
		t.Errorf("ComparePairedVec %+v\nTally.Compare %+v", vec, want)
	}
	o.Budget = 1
	if c := ComparePairedVec(tl.Counts(), 1, func(w []int64, out []float64) {}, func(w []int64, out []float64) {}, o)[0]; c.Test != TestNone || !math.IsNaN(c.P) {
		t.Errorf("ComparePairedVec past the budget: %+v; want no test", c)
	}
	if c := ComparePaired(tl.Counts(), w2(f1(0)), w2(f1(3)), o); c.Test != TestNone || !math.IsNaN(c.P) || c.Verdict != NoDifference {
		t.Errorf("past the budget: %+v; want no test", c)
	}
}
