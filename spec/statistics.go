package spec

import (
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/assert/infer"
	"github.com/zclconf/go-cty/cty"
)

// Statistics is the suite's statistics block: the settings of the
// metrics' confidence intervals (docs/statistics.md). The zero value is
// not valid; Load always sets it, to the defaults without a block.
type Statistics struct {
	// Confidence is the level of every interval, in (0, 1): 0.95.
	Confidence float64
	// Resamples is the number of bootstrap resamples (B): 1,000.
	Resamples int
	// Seed seeds every bootstrap (infer.DefaultSeed, "nlutest" in ASCII,
	// unless set).
	Seed uint64
	// DeclRange is the block's, or the zero range without one.
	DeclRange hcl.Range
}

// DefaultStatistics are the settings without a statistics block.
func DefaultStatistics() Statistics {
	return Statistics{Confidence: infer.DefaultConf, Resamples: infer.DefaultResamples, Seed: infer.DefaultSeed}
}

// The bounds of a statistics block's resamples: fewer than 100 resamples
// put a 95 % interval's ends on the 2nd and 97th of them; more than
// 100,000 buy nothing a reader can see and cost a hundred times the
// default.
const (
	minResamples = 100
	maxResamples = 100_000
)

var statisticsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "confidence"}, {Name: "resamples"}, {Name: "seed"},
}}

// decodeStatistics reads the statistics block (at most one).
func (l *loader) decodeStatistics(blocks []*hcl.Block) {
	l.suite.Statistics = DefaultStatistics()
	if len(blocks) == 0 {
		return
	}
	for _, extra := range blocks[1:] {
		l.errorf(extra.DefRange.Ptr(), "Duplicate statistics block", "A suite has one statistics block; the first is at %s.", rangeString(blocks[0].DefRange))
	}
	c, ok := l.content(blocks[0].Body, statisticsSchema)
	if !ok {
		return
	}
	st := &l.suite.Statistics
	st.DeclRange = blocks[0].DefRange
	if a, ok := c.Attributes["confidence"]; ok {
		f := l.number(c.Attributes, "confidence", st.Confidence, 0, 1)
		if f <= 0 || f >= 1 {
			l.errorf(a.Expr.Range().Ptr(), "Value out of range", "The \"confidence\" attribute is a level strictly between 0 and 1, such as 0.95 for 95 %% intervals; it is %g.", f)
		} else {
			st.Confidence = f
		}
	}
	if a, ok := c.Attributes["resamples"]; ok {
		n := l.integer(c.Attributes, "resamples", st.Resamples, minResamples)
		if n > maxResamples {
			l.errorf(a.Expr.Range().Ptr(), "Value out of range", "The \"resamples\" attribute must be between %d and %d; it is %d. The default, %d, moves a 95 %% interval's ends by about 0.085 standard errors from one seed to another.", minResamples, maxResamples, n, infer.DefaultResamples)
		} else {
			st.Resamples = n
		}
	}
	if a, ok := c.Attributes["seed"]; ok {
		if seed, ok := l.seed(a); ok {
			st.Seed = seed
		}
	}
}

// seed reads a seed: a whole number from 1 to 2⁶⁴ − 1.
func (l *loader) seed(a *hcl.Attribute) (uint64, bool) {
	v, ok := l.static(a, cty.Number, `"seed" attribute`)
	if !ok || v.IsNull() {
		return 0, false
	}
	bf := v.AsBigFloat()
	i, acc := bf.Int(nil)
	if acc != big.Exact || i.Sign() <= 0 || !i.IsUint64() {
		l.errorf(a.Expr.Range().Ptr(), "Invalid seed", "The \"seed\" attribute is a whole number from 1 to 18446744073709551615; it is %s. Any seed gives valid intervals; the same seed gives the same ones.", bf.Text('g', 20))
		return 0, false
	}
	return i.Uint64(), true
}
