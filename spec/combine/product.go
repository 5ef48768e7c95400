package combine

// Product streams the full cartesian product of the slots' values in
// mixed-radix order, the last slot changing fastest: for sizes [2 3] it
// yields 00 01 02 10 11 12.
//
// limit > 0 caps the number of tuples; limit <= 0 means no cap. Product
// streams with a counter, so it also works when the product overflows a
// uint64: it then yields until the limit (or until yield returns false).
//
// dropped is the size of the product minus the number of tuples handed to
// yield (a tuple for which yield returned false counts as handed over), so it
// counts both what the limit cut and what the caller declined; it saturates
// at math.MaxUint64.
//
// yield receives a slice of len(sizes) that is reused between calls; copy it
// to keep it. A slot with fewer than one value is an error (wrapping
// [ErrInvalidSize]); no slots at all yield exactly one empty tuple.
func Product(sizes []int, limit int, yield func([]int) bool) (dropped uint64, err error) {
	if err := validate(sizes); err != nil {
		return 0, err
	}
	n := len(sizes)
	counter := make([]int, n)
	out := make([]int, n)
	var emitted uint64
	for limit <= 0 || emitted < uint64(limit) {
		copy(out, counter)
		emitted++
		if !yield(out) {
			break
		}
		i := n - 1
		for ; i >= 0; i-- {
			if counter[i]++; counter[i] < sizes[i] {
				break
			}
			counter[i] = 0
		}
		if i < 0 { // the counter wrapped: the product is exhausted
			break
		}
	}
	return saturatingSub(sizes, emitted), nil
}
