package infer

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// Binomial returns a Binomial(n, p) random integer, exactly distributed
// up to floating-point rounding. p > ½ draws n − Binomial(n, 1−p); p = ½
// with n ≤ 1024 counts the set bits of n random bits; n·p < 10 inverts
// the distribution function from 0 upwards (Kachitvichyanukul & Schmeiser
// 1988's BINV: about n·p + 1 steps); otherwise it uses Hörmann's BTRS
// ("The generation of binomial random variates", 1993), a transformed
// rejection with squeeze whose acceptance test compares logarithms of the
// binomial probabilities written with Stirling's series (about 1.1 tries
// per number whatever n).
func (s *Stream) Binomial(n int64, p float64) int64 {
	switch {
	case n <= 0 || !(p > 0):
		return 0
	case p >= 1:
		return n
	case p > 0.5:
		return n - s.Binomial(n, 1-p)
	case p == 0.5 && n <= 1024:
		return s.fairCoins(n)
	case float64(n)*p < 10:
		return s.binomialInversion(n, p)
	}
	return s.btrs(n, p)
}

// fairCoins counts the heads among n fair coins.
func (s *Stream) fairCoins(n int64) int64 {
	var k int
	for ; n >= 64; n -= 64 {
		k += bits.OnesCount64(s.Uint64())
	}
	if n > 0 {
		k += bits.OnesCount64(s.Uint64() >> (64 - n))
	}
	return int64(k)
}

// binomialInversion walks the distribution function from 0 until it
// passes a uniform number; a walk that rounding carries past the
// representable probabilities starts again with a new number.
func (s *Stream) binomialInversion(n int64, p float64) int64 {
	ratio := p / (1 - p)
	a := float64(n+1) * ratio
	r0 := math.Exp(float64(n) * math.Log1p(-p))
	for {
		u := s.Float64()
		r := r0
		var x int64
		for u > r {
			u -= r
			x++
			r *= a/float64(x) - ratio
			if x > n || r <= 0 {
				break
			}
		}
		if x <= n && u <= r {
			return x
		}
	}
}

// btrs is Hörmann's algorithm BTRS for p ≤ ½ and n·p ≥ 10. The
// constants of the exact acceptance test are worked out only when a
// number falls outside the squeeze (about one call in five).
func (s *Stream) btrs(n int64, p float64) int64 {
	fn := float64(n)
	spq := math.Sqrt(fn * p * (1 - p))
	b := 1.15 + 2.53*spq
	a := -0.0873 + 0.0248*b + 0.01*p
	c := fn*p + 0.5
	vr := 0.92 - 4.2/b
	var slow *btrsTail
	for {
		u := s.Float64() - 0.5
		v := s.Float64()
		us := 0.5 - math.Abs(u)
		kf := math.Floor((2*a/us+b)*u + c)
		if !(kf >= 0 && kf <= fn) {
			continue
		}
		if us >= 0.07 && v <= vr {
			return int64(kf)
		}
		if slow == nil {
			slow = newBTRSTail(fn, p, spq, b)
		}
		if slow.accept(kf, math.Log(v*slow.alpha/(a/(us*us)+b))) {
			return int64(kf)
		}
	}
}

// btrsTail holds the constants of BTRS's exact acceptance test.
type btrsTail struct {
	fn, alpha, r, m, hm float64
}

func newBTRSTail(fn, p, spq, b float64) *btrsTail {
	r := p / (1 - p)
	m := math.Floor((fn + 1) * p)
	return &btrsTail{
		fn: fn, r: r, m: m,
		alpha: (2.83 + 5.1/b) * spq,
		// log f(m) up to the terms that cancel in the ratio f(k)/f(m).
		hm: (m+0.5)*math.Log((m+1)/(r*(fn-m+1))) + fc(m) + fc(fn-m),
	}
}

// accept reports whether log v ≤ log(f(k)/f(m)), with the log factorials
// written with Stirling's series (fc).
func (t *btrsTail) accept(k, logv float64) bool {
	fn, m := t.fn, t.m
	bound := t.hm + (fn+1)*math.Log((fn-m+1)/(fn-k+1)) +
		(k+0.5)*math.Log(t.r*(fn-k+1)/(k+1)) - fc(k) - fc(fn-k)
	return logv <= bound
}

// fcTable holds fc(k) for k < 10, from math.Lgamma.
var fcTable = func() [10]float64 {
	var t [10]float64
	for k := range t {
		x := float64(k)
		lg, _ := math.Lgamma(x + 1)
		t[k] = lg - (x+0.5)*math.Log(x+1) + (x + 1) - 0.5*math.Log(2*math.Pi)
	}
	return t
}()

// fc(k) = log k! − [(k+½)·log(k+1) − (k+1) + ½·log 2π], the tail of
// Stirling's series for log k! written around k+1 (Hörmann 1993).
func fc(k float64) float64 {
	if k < 10 {
		return fcTable[int(k)]
	}
	const (
		s0 = 1.0 / 12
		s1 = 1.0 / 360
		s2 = 1.0 / 1260
		s3 = 1.0 / 1680
	)
	k1 := k + 1
	kk := k1 * k1
	return (s0 - (s1-(s2-s3/kk)/kk)/kk) / k1
}

// tailCount is the largest count a multinomial draws ball by ball rather
// than by a binomial: a binomial costs about as much as 8 uniform
// integers.
const tailCount = 8

// multinomial draws the multiplicities of n = Σ counts balls thrown into
// the items with probabilities counts/n: how often each distinct case
// contribution appears in a bootstrap resample of the n cases. Items with
// more than tailCount cases take their share by sequential conditional
// binomials (largest first): item k gets Binomial(rest, counts[k]/restCount),
// where rest is the number of balls and restCount the number of cases not
// yet assigned. The balls left for the small items are then thrown one by
// one, each onto a uniformly chosen one of their cases. Both steps are
// exact, so the result is exactly the multinomial that resampling n cases
// with replacement gives, at a cost of O(items) a draw, not O(cases).
type multinomial struct {
	counts []int64
	big    []int   // items with more than tailCount cases, largest first
	owner  []int32 // the small items' cases: item index, once per case
	total  int64
}

func newMultinomial(counts []int64) *multinomial {
	m := &multinomial{counts: counts}
	for k, c := range counts {
		m.total += c
		if c > tailCount {
			m.big = append(m.big, k)
			continue
		}
		for range c {
			m.owner = append(m.owner, int32(k))
		}
	}
	slices.SortStableFunc(m.big, func(i, j int) int { return cmp.Compare(counts[j], counts[i]) })
	return m
}

// draw fills w (len(counts)) with one multinomial draw.
func (m *multinomial) draw(s *Stream, w []int64) {
	clear(w)
	rest, restCount := m.total, m.total
	for _, k := range m.big {
		if rest == 0 {
			return
		}
		c := m.counts[k]
		if c == restCount {
			w[k] = rest
			return
		}
		x := s.Binomial(rest, float64(c)/float64(restCount))
		w[k] = x
		rest -= x
		restCount -= c
	}
	nOwner := uint64(len(m.owner))
	for ; rest > 0; rest-- {
		w[m.owner[s.Below(nOwner)]]++
	}
}
