package combine

import "fmt"

// Thresholds between Random's three ways of drawing without repeats.
const (
	// explicitShuffleMax is the largest product shuffled in an explicit
	// table (4 bytes per tuple index).
	explicitShuffleMax = 1 << 16
	// permutationMax bounds the products drawn through a keyed permutation
	// of their index space; larger ones use rejection with a seen-set.
	permutationMax = 1 << 62
)

// Random streams min(count, total) distinct tuples drawn with seed, total
// being the product of sizes: the tuples are a seeded sample without
// replacement of the cartesian product, in random order. count == 0 yields
// nothing; a negative count is an error (wrapping [ErrInvalidCount]).
//
// How it draws depends on the size of the product:
//   - up to 65,536 tuples it shuffles the product's indices (Fisher–Yates,
//     performed lazily, so only the drawn prefix is shuffled);
//   - up to 2^62 tuples it walks a keyed pseudorandom permutation of the
//     index space (an 8-round Feistel network with cycle walking), which takes
//     constant memory however many tuples are drawn;
//   - beyond that each slot is drawn independently and a seen-set of 64-bit
//     tuple fingerprints rejects repeats; a fingerprint collision only costs
//     a redraw, never a repeat. This set grows with the tuples emitted.
//
// emitted is the number of tuples handed to yield, including one for which
// yield returned false. yield receives a slice of len(sizes) that is reused
// between calls; copy it to keep it. No slots at all is a product of one
// empty tuple.
func Random(sizes []int, count int, seed uint64, yield func([]int) bool) (emitted int, err error) {
	if err := validate(sizes); err != nil {
		return 0, err
	}
	if count < 0 {
		return 0, fmt.Errorf("combine: random count %d: %w", count, ErrInvalidCount)
	}
	if count == 0 {
		return 0, nil
	}
	out := make([]int, len(sizes))
	t, fits := total(sizes)
	switch {
	case fits && t <= explicitShuffleMax:
		return randomShuffle(sizes, int(t), count, seed, out, yield), nil
	case fits && t <= permutationMax:
		return randomPermutation(sizes, t, count, seed, out, yield), nil
	default:
		return randomRejection(sizes, count, seed, out, yield), nil
	}
}

// decode writes the tuple with mixed-radix index x (last slot fastest, the
// order of [Product]) into out.
func decode(sizes []int, x uint64, out []int) {
	for i := len(sizes) - 1; i >= 0; i-- {
		s := uint64(sizes[i])
		out[i] = int(x % s)
		x /= s
	}
}

// randomShuffle draws from a lazily Fisher–Yates-shuffled table of indices.
func randomShuffle(sizes []int, t, count int, seed uint64, out []int, yield func([]int) bool) int {
	r := newRNG(seed, tagRandom, 0)
	idx := make([]uint32, t)
	for i := range idx {
		idx[i] = uint32(i)
	}
	n := min(count, t)
	for i := range n {
		j := i + int(r.intn(uint64(t-i)))
		idx[i], idx[j] = idx[j], idx[i]
		decode(sizes, uint64(idx[i]), out)
		if !yield(out) {
			return i + 1
		}
	}
	return n
}

// randomPermutation walks a keyed permutation of [0, t): the Feistel network
// permutes a power-of-four domain at most four times larger than t, and
// cycle walking (re-applying it until the result falls below t) restricts it
// to a permutation of [0, t) (Black and Rogaway, "Ciphers with arbitrary
// finite domains", CT-RSA 2002).
func randomPermutation(sizes []int, t uint64, count int, seed uint64, out []int, yield func([]int) bool) int {
	var f feistel
	f.init(t, newRNG(seed, tagRandom, 1))
	n := min(uint64(count), t)
	for i := range n {
		decode(sizes, f.at(i), out)
		if !yield(out) {
			return int(i + 1)
		}
	}
	return int(n)
}

// randomRejection draws every slot independently and rejects tuples whose
// fingerprint it has seen. It serves products above 2^62, where a repeat is
// so unlikely that the loop almost never redraws.
func randomRejection(sizes []int, count int, seed uint64, out []int, yield func([]int) bool) int {
	rngs := make([]rng, len(sizes))
	for i := range sizes {
		rngs[i] = *newRNG(seed, tagRandom, uint64(i)+2)
	}
	seen := make(map[uint64]struct{}, min(count, 1<<16))
	for emitted := 0; emitted < count; {
		h := uint64(golden)
		for i, s := range sizes {
			out[i] = int(rngs[i].intn(uint64(s)))
			h = mix64(h ^ uint64(out[i]))
		}
		if _, dup := seen[h]; dup {
			continue
		}
		seen[h] = struct{}{}
		emitted++
		if !yield(out) {
			return emitted
		}
	}
	return count
}
