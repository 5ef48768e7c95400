package infer

import (
	"math"
	"slices"
)

// LinearFit is an ordinary least squares line through a series.
type LinearFit struct {
	N                int
	Slope, Intercept float64
	SlopeSE          float64 // standard error of the slope
	Lo, Hi           float64 // the slope's interval: Slope ± t(N−2, (1+conf)/2)·SlopeSE
	P                float64 // two-sided p-value of "slope = 0" (t test, N−2 degrees of freedom)
	R                float64 // Pearson's correlation
}

// LinearTrend fits y = Intercept + Slope·x by least squares, as
// scipy.stats.linregress(x, y) (slope, intercept, rvalue, pvalue, stderr),
// and adds the slope's t interval at conf (0 selects 0.95). x nil means
// 0, 1, 2…. ok is false with fewer than 3 points, lengths that differ or
// x all equal.
func LinearTrend(x, y []float64, conf float64) (fit LinearFit, ok bool) {
	x, ok = abscissae(x, y)
	if !ok || len(y) < 3 {
		return fit, false
	}
	if !(conf > 0 && conf < 1) {
		conf = DefaultConf
	}
	n := float64(len(y))
	xm, ym := mean(x), mean(y)
	var sxx, sxy, syy float64
	for i := range x {
		dx, dy := x[i]-xm, y[i]-ym
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	sxx, sxy, syy = sxx/n, sxy/n, syy/n
	if sxx == 0 {
		return fit, false
	}
	fit = LinearFit{N: len(y), Slope: sxy / sxx}
	fit.Intercept = ym - fit.Slope*xm
	if syy != 0 {
		fit.R = math.Max(-1, math.Min(1, sxy/math.Sqrt(sxx*syy)))
	}
	df := n - 2
	const tiny = 1e-20
	t := fit.R * math.Sqrt(df/((1-fit.R+tiny)*(1+fit.R+tiny)))
	fit.P = studentTwoSided(t, df)
	fit.SlopeSE = math.Sqrt((1 - fit.R*fit.R) * syy / sxx / df)
	half := StudentQuantile((1+conf)/2, df) * fit.SlopeSE
	fit.Lo, fit.Hi = fit.Slope-half, fit.Slope+half
	return fit, true
}

// TheilSenFit is the Theil–Sen line through a series.
type TheilSenFit struct {
	Slope, Intercept float64
	Lo, Hi           float64 // Sen's interval of the slope
}

// TheilSen returns the Theil–Sen slope (Theil 1950; Sen 1968, "Estimates
// of the regression coefficient based on Kendall's tau"): the median of
// the slopes (yⱼ−yᵢ)/(xⱼ−xᵢ) over the pairs with xⱼ > xᵢ, robust to up to
// 29 % of outlying points; the intercept median(y) − slope·median(x); and
// Sen's confidence interval at conf (0 selects 0.95), the sorted slopes
// at the ranks round((N ∓ z·σ)/2) with σ² from Sen's equation 2.6
// (corrected for tied x and tied y) — scipy.stats.theilslopes(y, x,
// alpha=conf) with its default method "separate". x nil means 0, 1, 2….
// ok is false with fewer than 2 points, lengths that differ or x all
// equal.
func TheilSen(x, y []float64, conf float64) (fit TheilSenFit, ok bool) {
	x, ok = abscissae(x, y)
	if !ok || len(y) < 2 {
		return fit, false
	}
	if !(conf > 0 && conf < 1) {
		conf = DefaultConf
	}
	var slopes []float64
	for i := range x {
		for j := range x {
			if dx := x[i] - x[j]; dx > 0 {
				slopes = append(slopes, (y[i]-y[j])/dx)
			}
		}
	}
	if len(slopes) == 0 {
		return fit, false
	}
	slices.Sort(slopes)
	fit.Slope = median(slopes)
	fit.Intercept = median(slices.Sorted(slices.Values(y))) - fit.Slope*median(slices.Sorted(slices.Values(x)))
	z := NormalQuantile((1 - conf) / 2)
	ny := float64(len(y))
	sigsq := 1.0 / 18 * (ny*(ny-1)*(2*ny+5) - tieTerm(x) - tieTerm(y))
	sigma := math.Sqrt(sigsq)
	nt := float64(len(slopes))
	ru := min(int(math.RoundToEven((nt-z*sigma)/2)), len(slopes)-1)
	rl := max(int(math.RoundToEven((nt+z*sigma)/2))-1, 0)
	fit.Lo, fit.Hi = slopes[rl], slopes[ru]
	return fit, true
}

// tieTerm is Σ k(k−1)(2k+5) over the groups of k > 1 equal values.
func tieTerm(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	var sum float64
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if k := float64(j - i); k > 1 {
			sum += k * (k - 1) * (2*k + 5)
		}
		i = j
	}
	return sum
}

// abscissae returns x, or 0…len(y)−1 when x is nil; ok is false when the
// lengths differ.
func abscissae(x, y []float64) ([]float64, bool) {
	if x == nil {
		x = make([]float64, len(y))
		for i := range x {
			x[i] = float64(i)
		}
	}
	return x, len(x) == len(y)
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// median of sorted values (numpy's: the mean of the middle two when even).
func median(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
