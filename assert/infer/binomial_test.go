package infer

import (
	"math"
	"testing"
)

// chiSquareP is the upper tail probability of a chi-square statistic x
// on df degrees of freedom by the Wilson–Hilferty cube-root
// approximation (good to a few percent of p at the levels used here).
func chiSquareP(x float64, df int) float64 {
	k := float64(df)
	z := (math.Cbrt(x/k) - (1 - 2/(9*k))) / math.Sqrt(2/(9*k))
	return 1 - NormalCDF(z)
}

// goodnessOfFit is Pearson's chi-square test of observed counts against
// expected probabilities, pooling neighbouring cells until each expects at
// least 5: the statistic, its degrees of freedom and p-value.
func goodnessOfFit(observed []int64, prob []float64, draws int) (x2 float64, df int, p float64) {
	var o, e float64
	cells := 0
	for k := range prob {
		o += float64(observed[k])
		e += prob[k] * float64(draws)
		if e >= 5 || k == len(prob)-1 {
			if e > 0 {
				x2 += (o - e) * (o - e) / e
				cells++
			}
			o, e = 0, 0
		}
	}
	df = cells - 1
	return x2, df, chiSquareP(x2, df)
}

// binomialFit draws Binomial(n, p) numbers and tests them against the
// binomial probabilities of (n, pmfP).
func binomialFit(t *testing.T, n int64, p, pmfP float64, draws int, seed uint64) (float64, int, float64) {
	t.Helper()
	s := NewStream(seed, "binomial-test")
	mean := float64(n) * pmfP
	sd := math.Sqrt(mean * (1 - pmfP))
	lo := max(0, int64(mean-12*sd-10))
	hi := min(n, int64(mean+12*sd+10))
	obs := make([]int64, hi-lo+1)
	for range draws {
		k := s.Binomial(n, p)
		if k < lo || k > hi {
			t.Fatalf("Binomial(%d, %v) = %d, more than 12 sd from the mean", n, p, k)
		}
		obs[k-lo]++
	}
	prob := make([]float64, len(obs))
	for k := range prob {
		prob[k] = BinomialPMF(lo+int64(k), n, pmfP)
	}
	return goodnessOfFit(obs, prob, draws)
}

// TestBinomialSamplerFitsPMF checks every path of the sampler against the
// binomial probabilities with Pearson's chi-square at fixed seeds: the
// p-value must exceed 0.001 (a right sampler fails 1 seed in 1,000; these
// seeds pass), and the same test must reject a sampler off by 3 % in p,
// so it can tell.
func TestBinomialSamplerFitsPMF(t *testing.T) {
	const draws = 200000
	for _, c := range []struct {
		n    int64
		p    float64
		path string
	}{
		{10, 0.3, "inversion"},
		{1000000, 5e-6, "inversion, large n"},
		{3000, 0.999, "inversion of 1−p"},
		{40, 0.5, "fair coins"},
		{1024, 0.5, "fair coins, 16 words"},
		{2000, 0.5, "BTRS at ½"},
		{100, 0.1, "BTRS at n·p = 10"},
		{1000, 0.03, "BTRS"},
		{50, 0.9, "BTRS of 1−p"},
		{1000000, 0.3, "BTRS, large n"},
		{123456789, 0.0123, "BTRS, very large n"},
	} {
		for _, seed := range []uint64{1, 2} {
			x2, df, p := binomialFit(t, c.n, c.p, c.p, draws, seed)
			t.Logf("%s: Binomial(%d, %v), seed %d: chi-square %.1f on %d df, p = %.3f", c.path, c.n, c.p, seed, x2, df, p)
			if p < 0.001 {
				t.Errorf("%s: Binomial(%d, %v), seed %d: chi-square %.1f on %d df, p = %.2g", c.path, c.n, c.p, seed, x2, df, p)
			}
		}
	}
	for _, c := range []struct {
		n    int64
		p, q float64
	}{{1000, 0.03, 0.0309}, {10, 0.3, 0.309}, {1000000, 0.3, 0.3009}} {
		if x2, df, p := binomialFit(t, c.n, c.p, c.q, draws, 1); p > 1e-6 {
			t.Errorf("Binomial(%d, %v) against the probabilities of p = %v: chi-square %.1f on %d df, p = %.2g; the test cannot tell", c.n, c.p, c.q, x2, df, p)
		}
	}
}

func TestBinomialEdges(t *testing.T) {
	s := NewStream(1, "edges")
	for _, c := range []struct {
		n    int64
		p    float64
		want int64
	}{{0, 0.5, 0}, {-3, 0.5, 0}, {10, 0, 0}, {10, -1, 0}, {10, 1, 10}, {10, 2, 10}, {10, math.NaN(), 0}} {
		if got := s.Binomial(c.n, c.p); got != c.want {
			t.Errorf("Binomial(%d, %v) = %d; want %d", c.n, c.p, got, c.want)
		}
	}
}

// multinomialPMF is the probability of w under Multinomial(n, counts/n).
func multinomialPMF(w, counts []int64) float64 {
	var n int64
	for _, c := range counts {
		n += c
	}
	lg := func(x int64) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	l := lg(n)
	for k, c := range counts {
		l += float64(w[k])*math.Log(float64(c)/float64(n)) - lg(w[k])
	}
	return math.Exp(l)
}

// TestMultinomialJointFits draws resamples of 13 cases of three distinct
// contributions — one drawn by a binomial (10 cases), two ball by ball —
// and tests the joint distribution of the multiplicities against the
// multinomial probabilities: resampling the cases one by one would give
// exactly that distribution.
func TestMultinomialJointFits(t *testing.T) {
	counts := []int64{2, 10, 1}
	m := newMultinomial(counts)
	if len(m.big) != 1 || len(m.owner) != 3 {
		t.Fatalf("sampler splits %v into %d big items and %d tail cases; want 1 and 3", counts, len(m.big), len(m.owner))
	}
	const draws = 300000
	obs := make([]int64, 14*14)
	s := NewStream(5, "multinomial-test")
	w := make([]int64, 3)
	for range draws {
		m.draw(s, w)
		if w[0]+w[1]+w[2] != 13 {
			t.Fatalf("draw %v does not sum to 13", w)
		}
		obs[w[0]*14+w[1]]++
	}
	prob := make([]float64, len(obs))
	for a := range int64(14) {
		for b := range 14 - a {
			prob[a*14+b] = multinomialPMF([]int64{a, b, 13 - a - b}, counts)
		}
	}
	if x2, df, p := goodnessOfFit(obs, prob, draws); p < 0.001 {
		t.Errorf("multinomial joint: chi-square %.1f on %d df, p = %.2g", x2, df, p)
	}
}

// TestMultinomialMarginals checks a large sample (a million cases in
// 2,000 distinct contributions, most in the ball-by-ball tail): every
// item's multiplicity has mean counts[k] and the resample always has n
// cases, and one big and one tail item fit their binomial marginals.
func TestMultinomialMarginals(t *testing.T) {
	counts := make([]int64, 2000)
	var n int64
	for k := range counts {
		counts[k] = int64(1 + k%7)
		if k%100 == 0 {
			counts[k] = int64(20000 + 37*k)
		}
		n += counts[k]
	}
	m := newMultinomial(counts)
	s := NewStream(9, "marginals")
	w := make([]int64, len(counts))
	const draws = 20000
	sum := make([]float64, len(counts))
	big, tail := make([]int64, 0, draws), make([]int64, 0, draws)
	for range draws {
		m.draw(s, w)
		var tot int64
		for k, x := range w {
			tot += x
			sum[k] += float64(x)
		}
		if tot != n {
			t.Fatalf("resample of %d cases has %d", n, tot)
		}
		big, tail = append(big, w[100]), append(tail, w[3])
	}
	for k, c := range counts {
		p := float64(c) / float64(n)
		sd := math.Sqrt(float64(n)*p*(1-p)) / math.Sqrt(draws)
		if d := sum[k]/draws - float64(c); math.Abs(d) > 5*sd {
			t.Errorf("item %d (%d cases): mean multiplicity off by %.3g (%.1f sd)", k, c, d, d/sd)
		}
	}
	for _, c := range []struct {
		name string
		k    int
		obs  []int64
	}{{"big", 100, big}, {"tail", 3, tail}} {
		p := float64(counts[c.k]) / float64(n)
		hist := map[int64]int64{}
		for _, x := range c.obs {
			hist[x]++
		}
		mean := float64(n) * p
		lo := max(0, int64(mean-8*math.Sqrt(mean)-5))
		obs := make([]int64, int64(mean+8*math.Sqrt(mean)+5)-lo)
		prob := make([]float64, len(obs))
		for i := range obs {
			obs[i] = hist[lo+int64(i)]
			prob[i] = BinomialPMF(lo+int64(i), n, p)
		}
		if x2, df, pv := goodnessOfFit(obs, prob, draws); pv < 0.001 {
			t.Errorf("%s item marginal: chi-square %.1f on %d df, p = %.2g", c.name, x2, df, pv)
		}
	}
}
