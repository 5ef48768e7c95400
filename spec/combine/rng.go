package combine

import "math/bits"

// rng is a splitmix64 generator (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014). Its sequence is fixed by its
// definition, so seeded output is the same on every machine and Go version.
type rng struct{ state uint64 }

const golden = 0x9e3779b97f4a7c15

// mix64 is splitmix64's output function, a bijective 64-bit mixer.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Stream tags keep the generators of different strategies and uses apart, so
// that e.g. Uniq and Random with the same seed do not share a sequence.
const (
	tagUniq uint64 = iota + 1
	tagRandom
	tagPairwise
	tagPairwiseSearch
)

// newRNG derives an independent generator for (seed, tag, index): each slot of
// each strategy gets its own stream, so one slot's size never shifts another
// slot's choices.
func newRNG(seed, tag, index uint64) *rng {
	s := mix64(seed ^ mix64(tag*golden+mix64(index+golden)))
	return &rng{state: s}
}

func (r *rng) next() uint64 {
	r.state += golden
	return mix64(r.state)
}

// intn returns a uniform value in [0, n) for n >= 1 with Lemire's multiply
// and reject method ("Fast random integer generation in an interval", 2019),
// which has no modulo bias.
func (r *rng) intn(n uint64) uint64 {
	hi, lo := bits.Mul64(r.next(), n)
	if lo < n {
		threshold := -n % n
		for lo < threshold {
			hi, lo = bits.Mul64(r.next(), n)
		}
	}
	return hi
}

// shuffle permutes p in place (Fisher–Yates, uniform over permutations).
func (r *rng) shuffle(p []int) {
	for i := len(p) - 1; i > 0; i-- {
		j := int(r.intn(uint64(i + 1)))
		p[i], p[j] = p[j], p[i]
	}
}
