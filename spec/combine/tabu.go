package combine

import "slices"

// Budget of the tabu search that shrinks the chosen covering array. The
// search is bounded by counted work, never by time, so its result is the
// same on every machine.
const (
	// tabuWork bounds the cell comparisons of the whole search.
	tabuWork = 10_000_000
	// tabuTenure is how many steps a changed cell stays frozen.
	tabuTenure = 8
)

// shrinker holds the state of the tabu search of Nurmela ("Upper bounds for
// covering arrays by tabu search", Discrete Applied Mathematics 138, 2004)
// over a fixed number of complete rows: the cost is the number of pairs no
// row covers, and each step changes one cell to cover a random missing pair.
type shrinker struct {
	a     *array
	poff  []int   // cell offset of column pair (j, k), j < k, at j*m+k
	cnt   []int32 // rows covering each pair cell
	where []int32 // position of each uncovered cell in missing, or -1
	miss  []missing
	tabu  []int // step until which cell (row, column) stays frozen
	r     *rng
}

// missing is an uncovered pair: value vj of column j with value vk of column k.
type missing struct {
	cell   int32
	j, k   int32
	vj, vk int32
}

// shrink tries to remove rows from a complete covering array a: it drops the
// row that uniquely covers the fewest pairs and searches for a cell
// assignment covering everything again, repeating while it succeeds within
// the work budget. lower is a bound no array can beat.
func (a *array) shrink(lower int) {
	m := a.m
	// A step scans the rows for candidates (those holding one value of the
	// missing pair, about 2/s of them) and rates each by two pair-count
	// lookups per other column. Integer arithmetic keeps the budget, and so
	// the result, identical on every platform.
	sum := 0
	for _, x := range a.sz {
		sum += x
	}
	stepCost := a.len() * (1 + 4*m*m/sum)
	budget := tabuWork / stepCost
	if budget < 1000 {
		return
	}
	s := &shrinker{a: a, poff: make([]int, m*m), r: newRNG(0, tagPairwiseSearch, 1<<32)}
	cells := 0
	for j := range m {
		for k := j + 1; k < m; k++ {
			s.poff[j*m+k] = cells
			cells += a.sz[j] * a.sz[k]
		}
	}
	s.cnt = make([]int32, cells)
	s.where = make([]int32, cells)
	for i := range s.where {
		s.where[i] = -1
	}
	for r := range a.len() { // a covers every pair: nothing is missing yet
		row := a.row(r)
		for j := range row {
			for k := j + 1; k < m; k++ {
				s.cnt[s.cell(j, row[j], k, row[k])]++
			}
		}
	}
	best := slices.Clone(a.rows)
	for a.len() > lower && budget > 0 {
		s.dropRow()
		s.tabu = make([]int, len(a.rows))
		for i := range s.tabu {
			s.tabu[i] = -1
		}
		step := 0
		for ; step < budget && len(s.miss) > 0; step++ {
			s.step(step)
		}
		budget -= step
		if len(s.miss) > 0 {
			break
		}
		best = slices.Clone(a.rows)
	}
	a.rows = best
}

func (s *shrinker) cell(j int, vj int32, k int, vk int32) int {
	if j > k {
		j, k, vj, vk = k, j, vk, vj
	}
	return s.poff[j*s.a.m+k] + int(vj)*s.a.sz[k] + int(vk)
}

// inc adds d (±1) to the count of a pair cell, keeping the missing list.
func (s *shrinker) inc(j int, vj int32, k int, vk int32, d int32) {
	c := s.cell(j, vj, k, vk)
	s.cnt[c] += d
	switch {
	case s.cnt[c] == 0:
		if j > k {
			j, k, vj, vk = k, j, vk, vj
		}
		s.where[c] = int32(len(s.miss))
		s.miss = append(s.miss, missing{cell: int32(c), j: int32(j), k: int32(k), vj: vj, vk: vk})
	case s.cnt[c] == 1 && d > 0:
		i := s.where[c]
		last := s.miss[len(s.miss)-1]
		s.miss[i] = last
		s.where[last.cell] = i
		s.miss = s.miss[:len(s.miss)-1]
		s.where[c] = -1
	}
}

func (s *shrinker) addRow(row []int32, d int32) {
	for j := range row {
		for k := j + 1; k < len(row); k++ {
			s.inc(j, row[j], k, row[k], d)
		}
	}
}

// dropRow removes the row whose removal leaves the fewest pairs uncovered.
func (s *shrinker) dropRow() {
	a := s.a
	bestRow, bestLoss := 0, -1
	for r := range a.len() {
		row := a.row(r)
		loss := 0
		for j := range row {
			for k := j + 1; k < len(row); k++ {
				if s.cnt[s.cell(j, row[j], k, row[k])] == 1 {
					loss++
				}
			}
		}
		if bestLoss < 0 || loss < bestLoss {
			bestRow, bestLoss = r, loss
		}
	}
	s.addRow(a.row(bestRow), -1)
	last := a.len() - 1
	copy(a.row(bestRow), a.row(last))
	a.rows = a.rows[:last*a.m]
}

// delta is the change in uncovered pairs if cell (row, c) took value y.
func (s *shrinker) delta(row []int32, c int, y int32) int {
	x := row[c]
	d := 0
	for o, v := range row {
		if o == c {
			continue
		}
		if s.cnt[s.cell(c, x, o, v)] == 1 {
			d++
		}
		if s.cnt[s.cell(c, y, o, v)] == 0 {
			d--
		}
	}
	return d
}

// step covers a random missing pair by the best non-frozen single-cell
// change (a frozen change is allowed when it covers everything).
func (s *shrinker) step(step int) {
	a := s.a
	e := s.miss[s.r.intn(uint64(len(s.miss)))]
	bestR, bestC, bestV, bestD, ties := -1, 0, int32(0), 0, 0
	consider := func(r, c int, v int32) {
		d := s.delta(a.row(r), c, v)
		if s.tabu[r*a.m+c] > step && len(s.miss)+d > 0 {
			return
		}
		switch {
		case bestR < 0 || d < bestD:
			bestR, bestC, bestV, bestD, ties = r, c, v, d, 1
		case d == bestD:
			ties++
			if s.r.intn(uint64(ties)) == 0 {
				bestR, bestC, bestV = r, c, v
			}
		}
	}
	for r := range a.len() {
		row := a.row(r)
		if row[e.j] == e.vj {
			consider(r, int(e.k), e.vk)
		} else if row[e.k] == e.vk {
			consider(r, int(e.j), e.vj)
		}
	}
	if bestR < 0 { // every candidate frozen: cover the pair in a random row
		bestR, bestC, bestV = int(s.r.intn(uint64(a.len()))), int(e.j), e.vj
		if a.row(bestR)[e.k] != e.vk {
			s.set(bestR, int(e.k), e.vk)
		}
	}
	s.set(bestR, bestC, bestV)
	s.tabu[bestR*a.m+bestC] = step + tabuTenure
}

// set changes cell (r, c) to v, updating pair counts.
func (s *shrinker) set(r, c int, v int32) {
	row := s.a.row(r)
	if row[c] == v {
		return
	}
	for o, w := range row {
		if o != c {
			s.inc(c, row[c], o, w, -1)
			s.inc(c, v, o, w, 1)
		}
	}
	row[c] = v
}
