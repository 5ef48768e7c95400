package infer

import (
	"math"
	"slices"
)

// signFlipExactLimit is the most sign configurations SignFlip enumerates
// (the product over distinct |difference| values of their count + 1); a
// sample with more is tested by Monte Carlo.
const signFlipExactLimit = 1 << 16

// SignFlip is the two-sided p-value of the paired sign-flip permutation
// test of "the mean difference is 0" (Fisher's randomisation test; scipy's
// permutation_test with permutation_type="samples" on the two paired
// series and the difference of their means as statistic): under the null
// hypothesis every difference is as likely to have either sign, so the
// mean of the differences with random signs is its null distribution. Let
// less and greater be the shares of that distribution ≤ and ≥ the
// observed mean (within scipy's tolerance of max(10⁻¹⁴, 10⁻¹⁴·|mean|));
// then p = min(1, 2·min(less, greater)).
//
// Differences with equal absolute value flip together as a binomial
// count, so the work is per distinct |difference|, not per case. When
// there are at most 65,536 sign configurations the distribution is
// enumerated exactly (scipy's exact test); otherwise it is sampled with
// o.Resamples Monte Carlo draws (stream NewStream(o.Seed, o.Address +
// "/sign-flip")) and less and greater are (count + 1)/(B + 1), as
// scipy's. Beyond the budget (distinct values × B) the paired t test
// stands in: t = mean/(s/√n) on n − 1 degrees of freedom.
func SignFlip(diffs []float64, o Options) (p float64, test Test) {
	t := NewTally(2)
	for _, d := range diffs {
		t.Add(d, 1)
	}
	return t.signFlip(o.withDefaults())
}

// flipGroup is the differences of one absolute value.
type flipGroup struct {
	abs  float64
	n    int64 // how many
	neg  int64 // how many are negative
	mass []float64
}

// signFlip runs SignFlip on a tally of (difference, 1).
func (t *Tally) signFlip(o Options) (float64, Test) {
	groups, n := t.flipGroups()
	if n == 0 {
		return math.NaN(), TestNone
	}
	obs := flipSum(groups, func(g flipGroup) int64 { return g.neg }) / float64(n)
	gamma := math.Max(1e-14, math.Abs(1e-14*obs))
	configs := 1.0
	for _, g := range groups {
		configs *= float64(g.n + 1)
	}
	if configs <= signFlipExactLimit {
		less, greater := flipExact(groups, float64(n), obs, gamma)
		return math.Min(1, 2*math.Min(less, greater)), TestSignFlipExact
	}
	if int64(len(groups))*int64(o.Resamples) > o.Budget {
		return t.pairedT(), TestPairedT
	}
	s := NewStream(o.Seed, o.Address+"/sign-flip")
	var le, ge int
	for range o.Resamples {
		m := flipSum(groups, func(g flipGroup) int64 { return s.Binomial(g.n, 0.5) }) / float64(n)
		if m <= obs+gamma {
			le++
		}
		if m >= obs-gamma {
			ge++
		}
	}
	b := float64(o.Resamples + 1)
	return math.Min(1, 2*math.Min(float64(le+1)/b, float64(ge+1)/b)), TestSignFlip
}

// flipGroups gathers the tally's nonzero differences by absolute value
// (ascending) and returns them with the number of cases, zeros included.
func (t *Tally) flipGroups() ([]flipGroup, int64) {
	var groups []flipGroup
	at := map[float64]int{}
	for k := range t.Len() {
		v, c := t.Item(k)
		if v[0] == 0 {
			continue
		}
		a := math.Abs(v[0])
		i, ok := at[a]
		if !ok {
			i = len(groups)
			at[a] = i
			groups = append(groups, flipGroup{abs: a})
		}
		groups[i].n += c
		if v[0] < 0 {
			groups[i].neg += c
		}
	}
	slices.SortFunc(groups, func(a, b flipGroup) int {
		if a.abs < b.abs {
			return -1
		}
		return 1
	})
	return groups, t.n
}

// flipSum is Σ |d|·(n − 2·negatives) over the groups, with the number of
// negatives of each group given by neg.
func flipSum(groups []flipGroup, neg func(flipGroup) int64) float64 {
	var s float64
	for _, g := range groups {
		s += g.abs * float64(g.n-2*neg(g))
	}
	return s
}

// flipExact enumerates every count of negatives in every group, weighted
// by its binomial probability, and returns the probabilities of a mean ≤
// obs+gamma and ≥ obs−gamma.
func flipExact(groups []flipGroup, n, obs, gamma float64) (less, greater float64) {
	for i := range groups {
		g := &groups[i]
		g.mass = make([]float64, g.n+1)
		for j := range g.mass {
			g.mass[j] = BinomialPMF(int64(j), g.n, 0.5)
		}
	}
	negs := make([]int64, len(groups))
	var walk func(i int, w float64)
	walk = func(i int, w float64) {
		if i == len(groups) {
			var s float64
			for k, g := range groups {
				s += g.abs * float64(g.n-2*negs[k])
			}
			m := s / n
			if m <= obs+gamma {
				less += w
			}
			if m >= obs-gamma {
				greater += w
			}
			return
		}
		for j := range groups[i].mass {
			negs[i] = int64(j)
			walk(i+1, w*groups[i].mass[j])
		}
	}
	walk(0, 1)
	return less, greater
}

// pairedT is the two-sided p-value of the paired t test on a tally of
// (difference, 1).
func (t *Tally) pairedT() float64 {
	n := float64(t.n)
	if t.n < 2 {
		return math.NaN()
	}
	mean := t.Sums()[0] / n
	var ss float64
	for k := range t.Len() {
		v, c := t.Item(k)
		e := v[0] - mean
		ss += float64(c) * e * e
	}
	se := math.Sqrt(ss / (n - 1) / n)
	if se == 0 {
		if mean == 0 {
			return 1
		}
		return 0
	}
	return studentTwoSided(mean/se, n-1)
}
