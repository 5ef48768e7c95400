package assert

import (
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/assert/infer"
	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
)

// Statistics is the suite's statistics block: the settings of the
// metrics' confidence intervals (docs/statistics.md), which assert draws
// for every family's figures, so the block is assert's own rather than one
// family's (Families.SettingsBlocks gives it first). The zero value is not
// valid; StatisticsOf gives the defaults without a block.
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

// StatisticsBlock is the statistics block's type.
const StatisticsBlock = "statistics"

// DefaultStatistics are the settings without a statistics block.
func DefaultStatistics() Statistics {
	return Statistics{Confidence: infer.DefaultConf, Resamples: infer.DefaultResamples, Seed: infer.DefaultSeed}
}

// StatisticsOf returns the statistics settings s was loaded with (the
// defaults for a nil suite or one loaded without the block).
func StatisticsOf(s *spec.Suite) Statistics {
	if s != nil {
		if st, ok := s.Settings(StatisticsBlock).(Statistics); ok {
			return st
		}
	}
	return DefaultStatistics()
}

// statisticsSettings decodes the statistics block.
type statisticsSettings struct{}

func (statisticsSettings) Block() string { return StatisticsBlock }
func (statisticsSettings) Default() any  { return DefaultStatistics() }

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

// Decode reads the statistics block.
func (statisticsSettings) Decode(d *spec.Decoder, b *hcl.Block) any {
	c, ok := d.Content(b, statisticsSchema)
	if !ok {
		return nil
	}
	st := DefaultStatistics()
	st.DeclRange = b.DefRange
	if a, ok := c.Attributes["confidence"]; ok {
		f := d.Number(c.Attributes, "confidence", st.Confidence, 0, 1)
		if f <= 0 || f >= 1 {
			d.Errorf(a.Expr.Range().Ptr(), "Value out of range", "The \"confidence\" attribute is a level strictly between 0 and 1, such as 0.95 for 95 %% intervals; it is %g.", f)
		} else {
			st.Confidence = f
		}
	}
	if a, ok := c.Attributes["resamples"]; ok {
		n := d.Int(c.Attributes, "resamples", st.Resamples, minResamples)
		if n > maxResamples {
			d.Errorf(a.Expr.Range().Ptr(), "Value out of range", "The \"resamples\" attribute must be between %d and %d; it is %d. The default, %d, moves a 95 %% interval's ends by about 0.085 standard errors from one seed to another.", minResamples, maxResamples, n, infer.DefaultResamples)
		} else {
			st.Resamples = n
		}
	}
	if a, ok := c.Attributes["seed"]; ok {
		if seed, ok := decodeSeed(d, a); ok {
			st.Seed = seed
		}
	}
	return st
}

// decodeSeed reads a seed: a whole number from 1 to 2⁶⁴ − 1.
func decodeSeed(d *spec.Decoder, a *hcl.Attribute) (uint64, bool) {
	v, ok := d.Value(a, cty.Number, `"seed" attribute`)
	if !ok || v.IsNull() {
		return 0, false
	}
	bf := v.AsBigFloat()
	i, acc := bf.Int(nil)
	if acc != big.Exact || i.Sign() <= 0 || !i.IsUint64() {
		d.Errorf(a.Expr.Range().Ptr(), "Invalid seed", "The \"seed\" attribute is a whole number from 1 to 18446744073709551615; it is %s. Any seed gives valid intervals; the same seed gives the same ones.", bf.Text('g', 20))
		return 0, false
	}
	return i.Uint64(), true
}
