package combine

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// Strategy names as written in suites (SPEC §5).
const (
	// StrategyUniq names [Uniq], the default strategy.
	StrategyUniq = "uniq"
	// StrategyProduct names [Product].
	StrategyProduct = "product"
	// StrategyPairwise names [Pairwise].
	StrategyPairwise = "pairwise"
	// StrategyRandom names [Random].
	StrategyRandom = "random"
	// DefaultStrategy is the strategy a template uses when it names none.
	DefaultStrategy = StrategyUniq
)

// Strategies lists the strategy names [Count] accepts, in documentation order.
func Strategies() []string {
	return []string{StrategyUniq, StrategyProduct, StrategyPairwise, StrategyRandom}
}

// Errors returned by the strategies; test them with errors.Is.
var (
	// ErrInvalidSize reports a slot with fewer than one candidate value.
	ErrInvalidSize = errors.New("a slot needs at least one value")
	// ErrInvalidCount reports a negative random draw count.
	ErrInvalidCount = errors.New("count must not be negative")
	// ErrUnknownStrategy reports a strategy name [Count] does not know.
	ErrUnknownStrategy = errors.New("unknown combination strategy")
	// ErrTooLarge reports a pairwise array too large to build: its size is
	// at least the product of the two largest slots.
	ErrTooLarge = errors.New("pairwise covering array too large to build")
)

// validate checks that every slot offers at least one value.
func validate(sizes []int) error {
	for i, s := range sizes {
		if s < 1 {
			return fmt.Errorf("combine: slot %d has %d values: %w", i, s, ErrInvalidSize)
		}
	}
	return nil
}

// total returns the product of sizes and whether it fits in a uint64 (when it
// does not, the first result is math.MaxUint64).
func total(sizes []int) (uint64, bool) {
	t := uint64(1)
	for _, s := range sizes {
		hi, lo := bits.Mul64(t, uint64(s))
		if hi != 0 {
			return math.MaxUint64, false
		}
		t = lo
	}
	return t, true
}

// bigTotal returns the exact product of sizes.
func bigTotal(sizes []int) *big.Int {
	t := big.NewInt(1)
	var f big.Int
	for _, s := range sizes {
		t.Mul(t, f.SetInt64(int64(s)))
	}
	return t
}

// saturatingSub returns the exact product of sizes minus n, or
// math.MaxUint64 when that does not fit.
func saturatingSub(sizes []int, n uint64) uint64 {
	if t, ok := total(sizes); ok {
		return t - n
	}
	d := bigTotal(sizes)
	d.Sub(d, new(big.Int).SetUint64(n))
	if !d.IsUint64() {
		return math.MaxUint64
	}
	return d.Uint64()
}

// maxSize returns the largest size and the index of its first slot.
func maxSize(sizes []int) (largest, at int) {
	largest, at = 0, -1
	for i, s := range sizes {
		if s > largest {
			largest, at = s, i
		}
	}
	return largest, at
}

// Count returns how many tuples strategy yields for sizes without generating
// them, for statistics and warnings. limit applies to "product" (<= 0: no
// cap) and count to "random"; the other strategies ignore them. Counts that
// do not fit in a uint64 saturate at math.MaxUint64. For "pairwise" Count
// builds the covering array, whose size does not depend on the seed.
func Count(strategy string, sizes []int, limit, count int) (uint64, error) {
	if err := validate(sizes); err != nil {
		return 0, err
	}
	switch strategy {
	case StrategyUniq:
		if len(sizes) == 0 {
			return 1, nil
		}
		m, _ := maxSize(sizes)
		return uint64(m), nil
	case StrategyProduct:
		t, _ := total(sizes)
		if limit > 0 && t > uint64(limit) {
			return uint64(limit), nil
		}
		return t, nil
	case StrategyPairwise:
		return pairwiseCount(sizes)
	case StrategyRandom:
		if count < 0 {
			return 0, fmt.Errorf("combine: random count %d: %w", count, ErrInvalidCount)
		}
		t, _ := total(sizes)
		return min(uint64(count), t), nil
	default:
		return 0, fmt.Errorf("combine: %q (want one of %q): %w", strategy, Strategies(), ErrUnknownStrategy)
	}
}
