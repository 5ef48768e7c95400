package infer

import "math"

// NewcombeDiff returns Newcombe's hybrid score interval (Newcombe 1998,
// "Interval estimation for the difference between independent
// proportions: comparison of eleven methods", method 10) of the
// difference p₁ − p₂ of two independent proportions x₁/n₁ and x₂/n₂ at
// confidence conf: with (l₁, u₁) and (l₂, u₂) their Wilson intervals
// (Wilson) and d = p₁ − p₂,
//
//	lower = d − √((p₁ − l₁)² + (u₂ − p₂)²)
//	upper = d + √((u₁ − p₁)² + (p₂ − l₂)²)
//
// — statsmodels' confint_proportions_2indep(x₁, n₁, x₂, n₂,
// method="newcomb", compare="diff"). It treats the two samples as
// independent, so for two runs of the same cases it is wider than a
// paired interval: what is left when only the two proportions are known.
// ok is false, and the bounds NaN, when either Wilson interval is not
// defined.
func NewcombeDiff(x1, n1, x2, n2, conf float64) (lo, hi float64, ok bool) {
	l1, u1, ok1 := Wilson(x1, n1, conf)
	l2, u2, ok2 := Wilson(x2, n2, conf)
	if !ok1 || !ok2 {
		return math.NaN(), math.NaN(), false
	}
	p1, p2 := x1/n1, x2/n2
	d := p1 - p2
	lo = d - math.Sqrt((p1-l1)*(p1-l1)+(u2-p2)*(u2-p2))
	hi = d + math.Sqrt((u1-p1)*(u1-p1)+(p2-l2)*(p2-l2))
	return lo, hi, true
}
