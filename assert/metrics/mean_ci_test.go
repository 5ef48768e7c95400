package metrics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nlutest/nlutest/assert/infer"
)

// A mean's interval: the percentile bootstrap over the cases while its
// distinct scores fit the budget, the t interval from exact sums past
// it — the textbook x̄ ± t·s/√n — and either is the same however the
// cases were split and merged.
func TestMeanAccInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 1))
	scores := make([]float64, 3000)
	for i := range scores {
		scores[i] = math.Min(1, rng.ExpFloat64()/3) // skewed, as token F1 over short answers
	}
	o := infer.Options{Address: "metrics.text.f1"}
	for _, c := range []struct {
		name   string
		n      int
		method infer.Method
	}{{"few distinct scores", 400, infer.MethodPercentile}, {"more than the cap", 3000, infer.MethodT}} {
		t.Run(c.name, func(t *testing.T) {
			xs := scores[:c.n]
			if c.n == 400 {
				xs = make([]float64, c.n)
				for i := range xs {
					xs[i] = math.Round(scores[i]*10) / 10 // eleven distinct scores
				}
			}
			whole := NewMeanAcc(1048)
			for _, x := range xs {
				whole.Add(x)
			}
			iv := whole.Interval(o)
			if !iv.OK || iv.Method != c.method {
				t.Fatalf("interval %+v, want %s", iv, c.method)
			}
			// Three parts, merged in another order.
			parts := [3]*MeanAcc{NewMeanAcc(1048), NewMeanAcc(1048), NewMeanAcc(1048)}
			for i := len(xs) - 1; i >= 0; i-- {
				parts[i%3].Add(xs[i])
			}
			merged := NewMeanAcc(1048)
			for _, k := range []int{2, 0, 1} {
				merged.Merge(parts[k])
			}
			if got := merged.Interval(o); got != iv {
				t.Errorf("merged parts give %+v, the whole %+v", got, iv)
			}
			if c.method != infer.MethodT {
				return
			}
			var sum, ss float64
			for _, x := range xs {
				sum += math.Round(x*1e9) / 1e9
			}
			mean := sum / float64(len(xs))
			for _, x := range xs {
				d := math.Round(x*1e9)/1e9 - mean
				ss += d * d
			}
			half := infer.StudentQuantile(0.975, float64(len(xs)-1)) * math.Sqrt(ss/float64(len(xs)-1)/float64(len(xs)))
			if math.Abs(iv.Lo-(mean-half)) > 1e-12 || math.Abs(iv.Hi-(mean+half)) > 1e-12 {
				t.Errorf("t interval [%v, %v], textbook [%v, %v]", iv.Lo, iv.Hi, mean-half, mean+half)
			}
		})
	}
}
