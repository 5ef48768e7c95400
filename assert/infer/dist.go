package infer

import "math"

// NormalQuantile returns the p quantile of the standard normal
// distribution (scipy.stats.norm.ppf): Go's math.Erfcinv, which uses
// Wichura's AS 241 rational approximations, polished by one Newton step on
// math.Erfc; below 10⁻⁸ (and above 1 − 10⁻⁸), where 1 − 2p no longer
// holds p's digits, Newton's method on log Φ from the asymptotic
// −√(−2 log p) start. NaN outside [0, 1]; ±Inf at 0 and 1.
func NormalQuantile(p float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	case p < 1e-8:
		return normalTail(p)
	case p > 1-1e-8:
		return -normalTail(1 - p)
	}
	x := -math.Sqrt2 * math.Erfcinv(2*p)
	return x - (NormalCDF(x)-p)/normalPDF(x)
}

// normalTail is the p quantile for small p: Newton's method on
// log Φ(x) = log p.
func normalTail(p float64) float64 {
	lp := math.Log(p)
	t := -2 * lp
	x := -math.Sqrt(t - math.Log(t) - math.Log(2*math.Pi))
	for range 100 {
		// d/dx log Φ(x) = φ(x)/Φ(x) = exp(log φ(x) − log Φ(x)).
		lphi := logNormalCDF(x)
		step := (lphi - lp) / math.Exp(-0.5*x*x-0.5*math.Log(2*math.Pi)-lphi)
		x -= step
		if math.Abs(step) <= 1e-16*math.Abs(x) {
			break
		}
	}
	return x
}

// logNormalCDF is log Φ(x) for x < 0, from the asymptotic series of
// Mills' ratio where Φ(x) would underflow.
func logNormalCDF(x float64) float64 {
	if x > -35 {
		return math.Log(NormalCDF(x))
	}
	x2 := x * x
	// Φ(x) ≈ φ(x)/|x| · (1 − 1/x² + 3/x⁴ − 15/x⁶ + 105/x⁸).
	series := 1 - (1-(3-(15-105/x2)/x2)/x2)/x2
	return -0.5*x2 - math.Log(-x) - 0.5*math.Log(2*math.Pi) + math.Log(series)
}

// NormalCDF is the standard normal distribution function.
func NormalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

func normalPDF(x float64) float64 { return math.Exp(-0.5*x*x) / math.Sqrt(2*math.Pi) }

// incBetaY is the regularized incomplete beta function I_x(a, b), by the
// continued fraction of Abramowitz & Stegun 26.5.8 evaluated with Lentz's
// method on the side of x where it converges fast, given y = 1 − x and the
// logarithms of both: callers know them more exactly than 1 − x (a·log x
// loses a·ε when x is rounded near 1).
func incBetaY(x, y, lx, ly, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case y <= 0:
		return 1
	}
	if x > (a+1)/(a+b+2) {
		return 1 - incBetaY(y, x, ly, lx, b, a)
	}
	front := math.Exp(a*lx+b*ly-lnBeta(a, b)) / a
	return front * betaFraction(x, a, b)
}

// lnBeta is log B(a, b). When the larger argument passes 15,
// log Γ(big) − log Γ(big+small) is written with Stirling's series
// (stirlerr) so that the two large logarithms do not cancel:
// −(big−½)·log1p(small/big) − small·log(big+small) + small
// + stirlerr(big) − stirlerr(big+small).
func lnBeta(a, b float64) float64 {
	small, big := min(a, b), max(a, b)
	ls, _ := math.Lgamma(small)
	if big <= 15 {
		lb, _ := math.Lgamma(big)
		lab, _ := math.Lgamma(a + b)
		return ls + lb - lab
	}
	return ls - (big-0.5)*math.Log1p(small/big) - small*math.Log(big+small) + small +
		stirlerr(big) - stirlerr(big+small)
}

// betaFraction evaluates the continued fraction of incBetaY.
func betaFraction(x, a, b float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	f := d
	for m := 1; m <= 100000; m++ {
		fm := float64(m)
		// Even step: d_{2m}.
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d, c = lentz(d, c, num)
		f *= d * c
		// Odd step: d_{2m+1}.
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d, c = lentz(d, c, num)
		delta := d * c
		f *= delta
		if math.Abs(delta-1) < 1e-16 {
			break
		}
	}
	return f
}

// lentz is one step of Lentz's method: the new D (inverted) and C.
func lentz(d, c, num float64) (float64, float64) {
	const tiny = 1e-300
	d = 1 + num*d
	if math.Abs(d) < tiny {
		d = tiny
	}
	c = 1 + num/c
	if math.Abs(c) < tiny {
		c = tiny
	}
	return 1 / d, c
}

// StudentCDF is the distribution function of Student's t with df degrees
// of freedom (scipy.stats.t.cdf), through the incomplete beta function
// (Abramowitz & Stegun 26.7.1).
func StudentCDF(t, df float64) float64 {
	if math.IsNaN(t) || !(df > 0) {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		if t > 0 {
			return 1
		}
		return 0
	}
	tail := 0.5 * studentTwoSided(t, df)
	if t > 0 {
		return 1 - tail
	}
	return tail
}

// studentTwoSided is P(|T| ≥ |t|) for Student's t with df degrees of
// freedom, without the cancellation of 1 − CDF.
func studentTwoSided(t, df float64) float64 {
	t2 := t * t
	return incBetaY(df/(df+t2), t2/(df+t2), -math.Log1p(t2/df), math.Log(t2/(df+t2)), df/2, 0.5)
}

// StudentQuantile returns the p quantile of Student's t with df degrees of
// freedom (scipy.stats.t.ppf). Below 1000 degrees of freedom it solves
// StudentCDF(t) = p by Newton's method kept inside a bracket; from 1000 on
// it uses the Cornish–Fisher expansion in 1/df to the fourth order
// (Abramowitz & Stegun 26.7.5), whose error there is below 1e-15 for the
// levels confidence intervals use.
func StudentQuantile(p, df float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1 || !(df > 0):
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	case p == 0.5:
		return 0
	case p < 0.5:
		return -StudentQuantile(1-p, df)
	}
	z := NormalQuantile(p)
	if df >= 1000 {
		return cornishFisher(z, df)
	}
	if df == 1 {
		return math.Tan(math.Pi * (p - 0.5))
	}
	lo, hi := 0.0, math.Max(2*z, 1)
	for StudentCDF(hi, df) < p {
		lo, hi = hi, 2*hi
	}
	t := math.Min(math.Max(cornishFisher(z, df), lo), hi)
	for range 200 {
		f := StudentCDF(t, df) - p
		if f < 0 {
			lo = t
		} else {
			hi = t
		}
		next := t - f/studentPDF(t, df)
		if !(next > lo && next < hi) {
			next = (lo + hi) / 2
		}
		if math.Abs(next-t) <= 1e-15*math.Abs(t) {
			return next
		}
		t = next
	}
	return t
}

func studentPDF(t, df float64) float64 {
	a, _ := math.Lgamma((df + 1) / 2)
	b, _ := math.Lgamma(df / 2)
	return math.Exp(a - b - 0.5*math.Log(df*math.Pi) - (df+1)/2*math.Log1p(t*t/df))
}

// cornishFisher is the expansion of Student's t quantile around the normal
// quantile z (Abramowitz & Stegun 26.7.5).
func cornishFisher(z, df float64) float64 {
	z2 := z * z
	g1 := (z2 + 1) * z / 4
	g2 := ((5*z2+16)*z2 + 3) * z / 96
	g3 := (((3*z2+19)*z2+17)*z2 - 15) * z / 384
	g4 := ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) * z / 92160
	return z + (g1+(g2+(g3+g4/df)/df)/df)/df
}

// stirlerr(n) = log(n!) − log(√(2πn)·(n/e)^n), the error of Stirling's
// formula (Loader 2000, "Fast and Accurate Computation of Binomial
// Probabilities"): from math.Lgamma up to 15, where the difference loses
// nothing that matters, and from the asymptotic series beyond.
func stirlerr(n float64) float64 {
	if n <= 15 {
		lg, _ := math.Lgamma(n + 1)
		return lg - (n+0.5)*math.Log(n) + n - 0.5*math.Log(2*math.Pi)
	}
	const (
		s0 = 1.0 / 12
		s1 = 1.0 / 360
		s2 = 1.0 / 1260
		s3 = 1.0 / 1680
		s4 = 1.0 / 1188
	)
	nn := n * n
	return (s0 - (s1-(s2-(s3-s4/nn)/nn)/nn)/nn) / n
}

// bd0(x, np) = x·log(x/np) + np − x, the deviance term of Loader's binomial
// probability, by its series where x is near np.
func bd0(x, np float64) float64 {
	if math.Abs(x-np) < 0.1*(x+np) {
		v := (x - np) / (x + np)
		s := (x - np) * v
		ej := 2 * x * v
		v *= v
		for j := 3.0; j < 1000; j += 2 {
			ej *= v
			s1 := s + ej/j
			if s1 == s {
				return s1
			}
			s = s1
		}
		return s
	}
	return x*math.Log(x/np) + np - x
}

// BinomialPMF is P(X = k) for X ~ Binomial(n, p) (scipy.stats.binom.pmf),
// by Loader's saddle-point formula, accurate to a few units in the last
// place for any n.
func BinomialPMF(k, n int64, p float64) float64 {
	switch {
	case k < 0 || k > n || math.IsNaN(p) || p < 0 || p > 1:
		return 0
	case p == 0:
		if k == 0 {
			return 1
		}
		return 0
	case p == 1:
		if k == n {
			return 1
		}
		return 0
	}
	q := 1 - p
	fn, fk := float64(n), float64(k)
	if k == 0 {
		return math.Exp(fn * math.Log1p(-p))
	}
	if k == n {
		return math.Exp(fn * math.Log(p))
	}
	lc := stirlerr(fn) - stirlerr(fk) - stirlerr(fn-fk) - bd0(fk, fn*p) - bd0(fn-fk, fn*q)
	return math.Exp(lc) * math.Sqrt(fn/(2*math.Pi*fk*(fn-fk)))
}

// BinomialCDF is P(X ≤ k) for X ~ Binomial(n, p) (scipy.stats.binom.cdf):
// the probabilities of the tail on k's side of the mean summed from k
// outwards, each from the last by the ratio of consecutive terms, until
// they no longer change the sum.
func BinomialCDF(k, n int64, p float64) float64 {
	switch {
	case k < 0:
		return 0
	case k >= n:
		return 1
	}
	if float64(k) <= float64(n)*p {
		return binomialTail(k, n, p, -1)
	}
	return 1 - binomialTail(k+1, n, p, +1)
}

// binomialTail sums P(X = j) from j = k in direction step (−1 down to 0,
// +1 up to n).
func binomialTail(k, n int64, p float64, step int64) float64 {
	term := BinomialPMF(k, n, p)
	sum := term
	r := p / (1 - p)
	for j := k; ; {
		if step < 0 {
			if j == 0 {
				break
			}
			term *= float64(j) / (float64(n-j+1) * r)
		} else {
			if j == n {
				break
			}
			term *= float64(n-j) * r / float64(j+1)
		}
		j += step
		if term <= sum*1e-17 {
			break
		}
		sum += term
	}
	return sum
}
