package infer

import "math"

// Wilson returns the Wilson score interval (Wilson 1927, "Probable
// inference, the law of succession, and statistical inference") of a
// proportion successes/n at confidence conf (0.95 for 95 %), without
// continuity correction: with z the normal (1+conf)/2 quantile and
// p̂ = successes/n,
//
//	centre = (p̂ + z²/2n) / (1 + z²/n)
//	half   = z·√(p̂(1−p̂)/n + z²/4n²) / (1 + z²/n)
//
// and the interval is centre ± half, exactly statsmodels'
// proportion_confint(successes, n, alpha=1−conf, method="wilson"). It is
// never empty, stays inside [0, 1] and is not centred on p̂ (it leans
// towards ½), which is why it behaves at 0 and n successes where the
// normal (Wald) interval collapses. ok is false, and lo and hi NaN, when n
// is not positive, successes is outside [0, n], conf is outside (0, 1) or
// an argument is NaN.
func Wilson(successes, n, conf float64) (lo, hi float64, ok bool) {
	if !(n > 0) || !(successes >= 0) || successes > n || !(conf > 0 && conf < 1) || math.IsInf(n, 0) {
		return math.NaN(), math.NaN(), false
	}
	z := z95
	if conf != DefaultConf {
		z = -NormalQuantile((1 - conf) / 2)
	}
	z2 := z * z
	p := successes / n
	denom := 1 + z2/n
	centre := (p + z2/(2*n)) / denom
	half := z * math.Sqrt(p*(1-p)/n+z2/(4*n*n)) / denom
	return centre - half, centre + half, true
}

// z95 is the normal quantile of the default 95 % interval, worked out once.
var z95 = -NormalQuantile((1 - DefaultConf) / 2)
