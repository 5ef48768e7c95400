package combine

// Uniq streams the default strategy of SPEC §5 and the IAO corpus-factory write-up §4.1.3: every
// value of every slot appears at least once, no two tuples are alike, and
// there are exactly max(sizes) tuples.
//
// The first slot with the most values walks its values in order
// 0..max(sizes)-1; every other slot cycles through a shuffle of its values,
// drawn anew from seed at the start of each cycle, so pairings vary between
// cycles. Tuples are distinct because the walking slot's value differs in
// every tuple; each other slot has at most max(sizes) values, so its first
// cycle, a permutation, shows all of them.
//
// yield receives a slice of len(sizes) that is reused between calls; copy it
// to keep it. Streaming stops when yield returns false. A slot with fewer
// than one value is an error (wrapping [ErrInvalidSize]); no slots at all
// yield exactly one empty tuple.
func Uniq(sizes []int, seed uint64, yield func([]int) bool) error {
	if err := validate(sizes); err != nil {
		return err
	}
	n := len(sizes)
	if n == 0 {
		yield([]int{})
		return nil
	}
	largest, walker := maxSize(sizes)

	perms := make([]*shuffler, n)
	rngs := make([]rng, n)
	pos := make([]int, n)
	for i, s := range sizes {
		if i != walker && s > 1 {
			perms[i] = newShuffler(s)
			rngs[i] = *newRNG(seed, tagUniq, uint64(i))
		}
	}

	out := make([]int, n)
	for t := range largest {
		for i, p := range perms {
			switch {
			case i == walker:
				out[i] = t
			case p == nil: // a one-value slot
				out[i] = 0
			default:
				if pos[i] == 0 {
					p.reshuffle(&rngs[i])
				}
				out[i] = p.at(pos[i])
				if pos[i]++; pos[i] == sizes[i] {
					pos[i] = 0
				}
			}
		}
		if !yield(out) {
			return nil
		}
	}
	return nil
}
