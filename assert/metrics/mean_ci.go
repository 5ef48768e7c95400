package metrics

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/nlutest/nlutest/assert/infer"
	"github.com/nlutest/nlutest/schema"
)

// MeanContribution is a per-case mean's (a text metric's token F1, ROUGE
// or METEOR): a case contributes (score, 1), the mean is Σ score / Σ 1,
// and its resamples are the cases.
var MeanContribution = Contribution{
	Unit:   schema.UnitCases,
	Coords: []string{"score", "case"},
	Stats:  []Stat{{Name: "mean", Num: 0, Den: 1}},
}

// meanScale is the grid scores are counted on: 1e-9, the precision
// report.json writes them to. Counting integers makes the sums exact, so
// they do not depend on the order the cases were added or merged in.
const meanScale = 1e9

// MeanAcc accumulates the scores of one mean in [0, 1] for its interval
// (MeanContribution): the distinct scores, while they are few enough to
// bootstrap within the work budget (cap), and always the exact sums in
// units of 1e-9 — n, Σq and Σq² (128 bits) — that the t interval needs
// past that. Its zero value is not ready; use NewMeanAcc. Scores are
// rounded to 1e-9 for the interval only: the mean the report shows is
// the family's own sum.
type MeanAcc struct {
	cap        int
	tally      *infer.Tally // nil once past cap
	n          int64
	sum        int64
	sqHi, sqLo uint64
}

// NewMeanAcc returns an empty accumulator that keeps the distinct scores
// up to cap of them: the budget over the resamples
// (infer.DefaultBudget / B).
func NewMeanAcc(cap int) *MeanAcc {
	return &MeanAcc{cap: cap, tally: infer.NewTally(2)}
}

func (m *MeanAcc) addQ(q int64, n int64) {
	m.n += n
	m.sum += q * n
	hi, lo := bits.Mul64(uint64(q*q), uint64(n))
	var c uint64
	m.sqLo, c = bits.Add64(m.sqLo, lo, 0)
	m.sqHi += hi + c
}

// Add counts one case scoring v (clamped to [0, 1]; NaN counts as 0).
func (m *MeanAcc) Add(v float64) {
	if !(v > 0) {
		v = 0
	}
	q := int64(math.Round(min(v, 1) * meanScale))
	m.addQ(q, 1)
	if m.tally != nil {
		m.tally.Add(float64(q)/meanScale, 1)
		m.trim()
	}
}

// trim drops the distinct scores once there are more than cap.
func (m *MeanAcc) trim() {
	if m.tally != nil && m.tally.Len() > m.cap {
		m.tally = nil
	}
}

// Merge adds o's cases to m.
func (m *MeanAcc) Merge(o *MeanAcc) {
	if o == nil || o.n == 0 {
		return
	}
	m.n += o.n
	m.sum += o.sum
	var c uint64
	m.sqLo, c = bits.Add64(m.sqLo, o.sqLo, 0)
	m.sqHi += o.sqHi + c
	switch {
	case m.tally == nil:
	case o.tally == nil:
		m.tally = nil
	default:
		m.tally.Merge(o.tally)
		m.trim()
	}
}

// Interval returns the mean's interval drawn with o: the percentile
// bootstrap over the distinct scores while they were kept, else the t
// interval x̄ ± t(n−1, (1+conf)/2)·s/√n from the exact sums.
func (m *MeanAcc) Interval(o infer.Options) infer.Interval {
	if m.n == 0 {
		return infer.Interval{}
	}
	if m.tally != nil {
		return MeanContribution.Intervals(m.tally, o)[0]
	}
	conf := o.Conf
	if !(conf > 0 && conf < 1) {
		conf = infer.DefaultConf
	}
	n := float64(m.n)
	mean := float64(m.sum) / n / meanScale
	iv := infer.Interval{Estimate: mean, Conf: conf, Method: infer.MethodT, Lo: math.NaN(), Hi: math.NaN(),
		Note: fmt.Sprintf("more than %d distinct scores: t interval", m.cap)}
	if m.n < 2 {
		return iv
	}
	// (n·Σq² − (Σq)²) exactly, then the variance of the scores.
	sq := new(big.Int).Lsh(new(big.Int).SetUint64(m.sqHi), 64)
	sq.Or(sq, new(big.Int).SetUint64(m.sqLo))
	num := new(big.Int).Mul(sq, big.NewInt(m.n))
	s := big.NewInt(m.sum)
	num.Sub(num, s.Mul(s, s))
	ss, _ := new(big.Float).SetInt(num).Float64()
	variance := ss / (n * (n - 1)) / (meanScale * meanScale)
	half := infer.StudentQuantile((1+conf)/2, n-1) * math.Sqrt(max(variance, 0)/n)
	iv.Lo, iv.Hi, iv.OK = mean-half, mean+half, true
	return iv
}
