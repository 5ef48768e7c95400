package combine

import "math/bits"

const (
	// feistelRounds is the number of rounds of the keyed permutation.
	feistelRounds = 8
	// tableMax is the largest set of values permuted through an explicit
	// table; larger ones use a keyed permutation in constant memory.
	tableMax = 1 << 20
)

// feistel is a keyed permutation of [0, n): a balanced Feistel network over
// the smallest power-of-four domain holding n, whose round function is
// splitmix64's mixer under a round key, restricted to [0, n) by cycle
// walking — re-applying the network until the result falls below n (Black
// and Rogaway, "Ciphers with arbitrary finite domains", CT-RSA 2002). The
// domain is less than four times n, so a value takes under four passes on
// average.
type feistel struct {
	n    uint64
	half uint
	mask uint64
	keys [feistelRounds]uint64
}

// init keys the permutation of [0, n), n >= 1, from r.
func (f *feistel) init(n uint64, r *rng) {
	f.n = n
	f.half = uint(bits.Len64(n-1)+1) / 2
	f.mask = 1<<f.half - 1
	f.rekey(r)
}

// rekey draws new round keys from r: a new permutation of the same domain.
func (f *feistel) rekey(r *rng) {
	for i := range f.keys {
		f.keys[i] = r.next()
	}
}

// permute is one pass of the network over [0, 4^half).
func (f *feistel) permute(x uint64) uint64 {
	l, r := x>>f.half, x&f.mask
	for _, k := range f.keys {
		l, r = r, l^(mix64(r^k)&f.mask)
	}
	return l<<f.half | r
}

// at returns the image of x < n.
func (f *feistel) at(x uint64) uint64 {
	y := f.permute(x)
	for y >= f.n {
		y = f.permute(y)
	}
	return y
}

// shuffler is a seeded permutation of the values 0..n-1 of one slot: a
// shuffled table up to tableMax values, a keyed Feistel permutation beyond,
// so that a slot of any size costs bounded memory.
type shuffler struct {
	table []int
	f     feistel
}

// newShuffler returns a shuffler for n values; call reshuffle before at.
func newShuffler(n int) *shuffler {
	s := &shuffler{}
	if n <= tableMax {
		s.table = make([]int, n)
		for i := range s.table {
			s.table[i] = i
		}
	} else {
		s.f.init(uint64(n), &rng{})
	}
	return s
}

// reshuffle draws a new permutation from r.
func (s *shuffler) reshuffle(r *rng) {
	if s.table != nil {
		r.shuffle(s.table)
	} else {
		s.f.rekey(r)
	}
}

// at returns the image of i.
func (s *shuffler) at(i int) int {
	if s.table != nil {
		return s.table[i]
	}
	return int(s.f.at(uint64(i)))
}
