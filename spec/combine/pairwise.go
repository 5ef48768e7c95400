package combine

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
)

// Limits on the covering arrays Pairwise builds. A pairwise array has at
// least as many rows as the product of the two largest slots, so a template
// that exceeds these is better served by Product with a limit or by Random.
const (
	// maxPairwiseCells bounds the product of the two largest slots times
	// the number of columns (the least number of cells the array can
	// have), and the number of value pairs to cover.
	maxPairwiseCells = 1 << 24
	// maxPairwiseWork bounds the estimated work of one IPOG run (row ×
	// value × column comparisons of horizontal growth, a few seconds at the
	// bound); above it only the orthogonal array is tried.
	maxPairwiseWork = 5e8
	// searchWork is the work budget spent on repeated constructions with
	// different tie-breaking; small arrays get up to maxSearchRuns runs.
	searchWork    = 2e7
	maxSearchRuns = 12
	// maxCompactWork bounds the row-merging pass.
	maxCompactWork = 1e8
)

// Pairwise streams an all-pairs covering array: for any two slots, every
// combination of a value of one with a value of the other appears in at
// least one tuple, and no two tuples are alike. It needs far fewer tuples
// than [Product] — at least the product of the two largest slots, and
// usually not much more.
//
// The array is built without the seed, so its size (see [Count]) depends on
// sizes alone; seed then relabels each slot's values with a seeded
// permutation, which keeps coverage, distinctness and size but changes which
// values meet. Construction takes the smallest of several candidates, all
// deterministic:
//
//   - an orthogonal array OA(q²; q+1, q, 2) over the finite field GF(q),
//     q the smallest suitable prime power at least the largest slot, when
//     there are at most q+1 slots (optimal when every slot has q values);
//   - IPOG (Lei et al., "IPOG: A General Strategy for T-Way Software
//     Testing", ECBS 2007): the product of the two largest slots grown one
//     slot at a time, horizontally (each row takes the value covering most
//     new pairs) and vertically (rows added for the pairs still missing),
//     with don't-care cells left open for later slots, repeated with
//     fixed-seed tie-breaking while the work stays small;
//   - IPOG grown from that orthogonal array when there are more slots.
//
// Each candidate then merges compatible rows, drops rows whose pairs other
// rows cover, and fills the remaining don't-care cells with each slot's
// least-used values. The smallest one is shrunk further by the tabu search
// of Nurmela (2004), which removes a row and re-covers the pairs it leaves
// open one cell change at a time. Every budget is counted work, never time,
// so the result is the same on any machine: 4 slots of 5 values give 25
// tuples, 13 slots of 3 give 15, 10 slots of 10 give 116.
//
// With one slot every value appears once; slots with one value are
// constant. With at most two slots of more than one value the result is
// their full product, and with three it is a Latin rectangle of the two
// largest (x, y, (x+y) mod the third's size) — both optimal and streamed
// without building an array. Larger arrays are held in memory (their size
// is small by construction) and kept in a small cache, so [Count] followed
// by Pairwise builds once; one whose construction would exceed fixed size
// and work limits is refused with [ErrTooLarge].
//
// yield receives a slice of len(sizes) that is reused between calls; copy it
// to keep it. A slot with fewer than one value is an error (wrapping
// [ErrInvalidSize]); no slots at all yield exactly one empty tuple.
func Pairwise(sizes []int, seed uint64, yield func([]int) bool) error {
	if err := validate(sizes); err != nil {
		return err
	}
	n := len(sizes)
	out := make([]int, n) // cleared before each tuple: one-value slots are 0
	relabel := make([]*shuffler, n)
	for i, s := range sizes {
		if s > 1 {
			relabel[i] = newShuffler(s)
			relabel[i].reshuffle(newRNG(seed, tagPairwise, uint64(i)))
		}
	}
	cols, sz := columns(sizes)
	switch len(cols) {
	case 0:
		yield(out)
		return nil
	case 1, 2: // all pairs of two slots are their product
		eff := slices.Sorted(slices.Values(cols))
		effSizes := make([]int, len(eff))
		for x, i := range eff {
			effSizes[x] = sizes[i]
		}
		_, err := Product(effSizes, 0, func(t []int) bool {
			clear(out)
			for x, i := range eff {
				out[i] = relabel[i].at(t[x])
			}
			return yield(out)
		})
		return err
	case 3: // a Latin rectangle: optimal, streamed
		for x := range sz[0] {
			for y := range sz[1] {
				clear(out)
				out[cols[0]] = relabel[cols[0]].at(x)
				out[cols[1]] = relabel[cols[1]].at(y)
				out[cols[2]] = relabel[cols[2]].at((x + y) % sz[2])
				if !yield(out) {
					return nil
				}
			}
		}
		return nil
	}
	rows, err := pairwiseArray(sz)
	if err != nil {
		return err
	}
	m := len(cols)
	for r := 0; r < len(rows); r += m {
		clear(out)
		for c, i := range cols {
			out[i] = relabel[i].at(int(rows[r+c]))
		}
		if !yield(out) {
			return nil
		}
	}
	return nil
}

// columns returns the slots with more than one value sorted by decreasing
// size (stable), and their sizes: the columns of the covering array. Slots
// with one value take no part; they are constant.
func columns(sizes []int) (cols, sz []int) {
	for i, s := range sizes {
		if s > 1 {
			cols = append(cols, i)
		}
	}
	slices.SortStableFunc(cols, func(x, y int) int { return sizes[y] - sizes[x] })
	sz = make([]int, len(cols))
	for c, i := range cols {
		sz[c] = sizes[i]
	}
	return cols, sz
}

// pairwiseCount returns the number of tuples Pairwise yields for sizes.
func pairwiseCount(sizes []int) (uint64, error) {
	cols, sz := columns(sizes)
	switch len(cols) {
	case 0, 1, 2:
		t, _ := total(sizes)
		return t, nil
	case 3:
		t, _ := total(sz[:2])
		return t, nil
	}
	rows, err := pairwiseArray(sz)
	if err != nil {
		return 0, err
	}
	return uint64(len(rows) / len(sz)), nil
}

// pairwiseCache keeps recently built arrays by column sizes: suites often
// give many templates the same slot shapes, and Count followed by Pairwise
// builds the same array twice. Cached rows are never modified.
var pairwiseCache struct {
	sync.Mutex
	rows  map[string][]int32
	order []string // insertion order, for eviction
	cells int
}

// Bounds of pairwiseCache.
const (
	cacheEntries = 64
	cacheCells   = 1 << 22
)

func cacheKey(sz []int) string {
	b := make([]byte, 0, 4*len(sz))
	for _, x := range sz {
		b = strconv.AppendInt(b, int64(x), 10)
		b = append(b, ',')
	}
	return string(b)
}

// pairwiseArray returns the covering array for columns of sz values (sorted
// decreasing, at least four columns) as flat rows, building it if needed.
func pairwiseArray(sz []int) ([]int32, error) {
	key := cacheKey(sz)
	c := &pairwiseCache
	c.Lock()
	rows, ok := c.rows[key]
	c.Unlock()
	if ok {
		return rows, nil
	}
	a, err := buildArray(sz)
	if err != nil {
		return nil, err
	}
	rows = slices.Clone(a.rows)
	if len(rows) <= cacheCells {
		c.Lock()
		defer c.Unlock()
		if c.rows == nil {
			c.rows = make(map[string][]int32)
		}
		if _, dup := c.rows[key]; !dup {
			for len(c.order) > 0 && (len(c.order) >= cacheEntries || c.cells+len(rows) > cacheCells) {
				c.cells -= len(c.rows[c.order[0]])
				delete(c.rows, c.order[0])
				c.order = c.order[1:]
			}
			c.rows[key] = rows
			c.order = append(c.order, key)
			c.cells += len(rows)
		}
	}
	return rows, nil
}

// array is a covering array under construction: m columns with sz[c]
// values each, rows stored flat, -1 marking a don't-care cell.
type array struct {
	m    int
	sz   []int
	rows []int32
}

func (a *array) len() int { return len(a.rows) / a.m }

func (a *array) row(r int) []int32 { return a.rows[r*a.m : (r+1)*a.m : (r+1)*a.m] }

// appendRow adds a row of don't-care cells and returns its index. It may
// move the rows, so callers re-fetch rows by index afterwards.
func (a *array) appendRow() int {
	for range a.m {
		a.rows = append(a.rows, -1)
	}
	return a.len() - 1
}

// keep drops the rows r with alive[r] == false.
func (a *array) keep(alive []bool) {
	w := 0
	for r, ok := range alive {
		if ok {
			copy(a.rows[w*a.m:(w+1)*a.m], a.row(r))
			w++
		}
	}
	a.rows = a.rows[:w*a.m]
}

// buildArray builds the covering array for columns of sz values (sorted
// decreasing, at least four columns).
func buildArray(sz []int) (*array, error) {
	m := len(sz)
	lower := float64(sz[0]) * float64(sz[1])
	pairCells, work := 0.0, 0.0
	for k := 1; k < m; k++ {
		for j := range k {
			pairCells += float64(sz[j]) * float64(sz[k])
		}
		if k >= 2 {
			work += float64(k) * float64(sz[k])
		}
	}
	work *= lower // one IPOG run's horizontal growth, at least
	tooLarge := fmt.Errorf("combine: pairwise over slots of %v values (at least %.0f tuples) is beyond the "+
		"limits of construction; use product with a limit, or random: %w", sz, lower, ErrTooLarge)
	if lower*float64(m) > maxPairwiseCells || pairCells > maxPairwiseCells {
		return nil, tooLarge
	}
	q := nextField(sz[0])
	oaCols := min(m, q+1)
	// The orthogonal array is a candidate when it covers all columns and is
	// not much larger than the least possible array, or when IPOG would be
	// too slow.
	oaFits := oaCols == m && float64(q)*float64(q)*float64(m) <= maxPairwiseCells &&
		(float64(q)*float64(q) <= 2*lower || work > maxPairwiseWork)
	if work > maxPairwiseWork && !oaFits {
		return nil, tooLarge
	}

	var best *array
	consider := func(a *array) bool {
		a.finish()
		if best == nil || a.len() < best.len() {
			best = a
		}
		return float64(best.len()) == lower // optimal: nothing can beat it
	}
	if oaFits {
		// The orthogonal array is optimal when all slots have q values, and
		// cheap to build; when IPOG would be slow, it is the answer.
		if consider(orthogonalArray(sz, q, oaCols)) || work > maxPairwiseWork {
			return best, nil
		}
	}

	// IPOG from the product of the two largest slots; the first run's size
	// sets how many more runs with other tie-breaking the budget allows.
	a := productArray(sz)
	a.extend(2, nil)
	runs := min(max(int(searchWork/runCost(sz, a.len())), 1), maxSearchRuns)
	if consider(a) {
		return best, nil
	}
	for v := 1; v < runs; v++ {
		a := productArray(sz)
		a.extend(2, tieBreaker(v))
		if consider(a) {
			return best, nil
		}
	}
	// IPOG from the orthogonal array, when it is not much larger than the
	// product it replaces.
	if oaCols < m && q*q <= 2*sz[0]*sz[1] {
		oa := orthogonalArray(sz, q, oaCols)
		for v := range runs {
			a := oa.clone()
			a.extend(oaCols, tieBreaker(v))
			if consider(a) {
				return best, nil
			}
		}
	}
	best.shrink(int(lower))
	best.prune()
	return best, nil
}

// runCost estimates the work of one IPOG run and its finishing passes that
// ends with rows rows: horizontal growth compares every row with every value
// of each new column against every earlier column; pruning visits every
// column pair of every row.
func runCost(sz []int, rows int) float64 {
	m := len(sz)
	per := float64(m * m)
	for k := 2; k < m; k++ {
		per += float64(k) * float64(sz[k])
	}
	return per * float64(rows)
}

// tieBreaker returns the generator for run v of the search: none for the
// first run (ties go to the least-used, then lowest value), a fixed-seed
// stream for the others.
func tieBreaker(v int) *rng {
	if v == 0 {
		return nil
	}
	return newRNG(0, tagPairwiseSearch, uint64(v))
}

func (a *array) clone() *array {
	return &array{m: a.m, sz: a.sz, rows: slices.Clone(a.rows)}
}

// productArray starts IPOG: the product of the first two columns, the
// others don't-care.
func productArray(sz []int) *array {
	a := &array{m: len(sz), sz: sz, rows: make([]int32, 0, 2*sz[0]*sz[1]*len(sz))}
	for x := range sz[0] {
		for y := range sz[1] {
			row := a.row(a.appendRow())
			row[0], row[1] = int32(x), int32(y)
		}
	}
	return a
}

// orthogonalArray fills the first k <= q+1 columns with the orthogonal array
// of strength 2 over GF(q): row (x, y) holds x in column 0 and x·c + y in
// column c+1, so any two columns show every pair of field elements exactly
// once. A column with s < q values deletes symbols 0..q-s-1 (don't-care) and
// shifts the rest down; since row (0, 0) is all zeros, it loses every cell
// and the finishing passes drop it.
func orthogonalArray(sz []int, q, k int) *array {
	f := newGF(q)
	a := &array{m: len(sz), sz: sz, rows: make([]int32, 0, q*q*len(sz))}
	for x := range q {
		for y := range q {
			row := a.row(a.appendRow())
			for c := range k {
				v := x
				if c > 0 {
					v = f.Add(f.Mul(x, c-1), y)
				}
				if d := q - sz[c]; v >= d {
					row[c] = int32(v - d)
				}
			}
		}
	}
	return a
}

// extend runs IPOG's horizontal and vertical growth for columns from..m-1.
// tie, when not nil, breaks ties between equally good values at random.
func (a *array) extend(from int, tie *rng) {
	m := a.m
	maxSz := slices.Max(a.sz)
	gain := make([]int, maxSz)
	usage := make([]int, maxSz)
	off := make([]int, m+1)
	var cov []uint64
	var flex, cand []int
	for k := from; k < m; k++ {
		sk := a.sz[k]
		// cov has one bit per pair (column j < k, value of j, value of k).
		for j := range k {
			off[j+1] = off[j] + a.sz[j]*sk
		}
		cov = slices.Grow(cov[:0], (off[k]+63)/64)[:(off[k]+63)/64]
		clear(cov)
		uncovered := off[k]
		cover := func(j int, vj, vk int32) {
			b := off[j] + int(vj)*sk + int(vk)
			if w, bit := b>>6, uint64(1)<<(b&63); cov[w]&bit == 0 {
				cov[w] |= bit
				uncovered--
			}
		}
		coverRow := func(row []int32) {
			for j := range k {
				if row[j] >= 0 {
					cover(j, row[j], row[k])
				}
			}
		}
		for r := range a.len() {
			if row := a.row(r); row[k] >= 0 {
				coverRow(row)
			}
		}

		// Horizontal growth: each row takes the value of column k that
		// covers the most missing pairs; a row that would cover none keeps
		// a don't-care cell for vertical growth to use.
		clear(usage[:sk])
		for r := range a.len() {
			if uncovered == 0 {
				break
			}
			row := a.row(r)
			if row[k] >= 0 {
				continue
			}
			g := gain[:sk]
			clear(g)
			for j := range k {
				if row[j] < 0 {
					continue
				}
				base := off[j] + int(row[j])*sk
				for v := range g {
					if b := base + v; cov[b>>6]&(1<<(b&63)) == 0 {
						g[v]++
					}
				}
			}
			best, bestGain, ties := -1, 0, 0
			for v, x := range g {
				switch {
				case x == 0:
				case x > bestGain || usage[v] < usage[best] && x == bestGain:
					best, bestGain, ties = v, x, 1
				case x == bestGain && usage[v] == usage[best]:
					ties++
					if tie != nil && tie.intn(uint64(ties)) == 0 {
						best = v
					}
				}
			}
			if best < 0 {
				continue
			}
			row[k] = int32(best)
			usage[best]++
			coverRow(row)
		}
		if uncovered == 0 {
			continue
		}

		// Vertical growth: each missing pair goes into the first row whose
		// cells allow it, preferring rows that already hold its value of
		// column k, or into a new row.
		flex = flex[:0]
		for r := range a.len() {
			if slices.Contains(a.row(r)[:k+1], -1) {
				flex = append(flex, r)
			}
		}
		for vk := range int32(sk) {
			cand = cand[:0] // the rows that can take a pair with vk
			for _, r := range flex {
				if v := a.row(r)[k]; v == vk || v < 0 {
					cand = append(cand, r)
				}
			}
			for j := range k {
				for vj := range int32(a.sz[j]) {
					if b := off[j] + int(vj)*sk + int(vk); cov[b>>6]&(1<<(b&63)) != 0 {
						continue
					}
					target := -1
					for _, r := range cand {
						row := a.row(r)
						if row[j] >= 0 && row[j] != vj {
							continue
						}
						if row[k] == vk {
							target = r
							break
						}
						if row[k] < 0 && target < 0 {
							target = r
						}
					}
					if target < 0 {
						target = a.appendRow()
						flex = append(flex, target)
						cand = append(cand, target)
					}
					row := a.row(target)
					row[j] = vj
					if row[k] < 0 {
						row[k] = vk
						coverRow(row)
					} else {
						cover(j, vj, vk)
					}
				}
			}
		}
	}
}

// finish turns a grown array into the final one: merge rows, drop rows
// whose pairs are covered elsewhere, fill don't-care cells, drop again.
func (a *array) finish() {
	a.compact()
	a.prune()
	a.fill()
	a.prune()
}

// compact merges each row that has don't-care cells into another row that
// agrees with it wherever both are defined.
func (a *array) compact() {
	n := a.len()
	var partial []int
	for r := range n {
		if slices.Contains(a.row(r), -1) {
			partial = append(partial, r)
		}
	}
	if float64(len(partial))*float64(n)*float64(a.m) > maxCompactWork {
		return
	}
	alive := make([]bool, n)
	for r := range alive {
		alive[r] = true
	}
	for i := len(partial) - 1; i >= 0; i-- {
		r := partial[i]
		src := a.row(r)
	rows:
		for s := range n {
			if s == r || !alive[s] {
				continue
			}
			dst := a.row(s)
			for c, v := range src {
				if v >= 0 && dst[c] >= 0 && dst[c] != v {
					continue rows
				}
			}
			for c, v := range src {
				if v >= 0 {
					dst[c] = v
				}
			}
			alive[r] = false
			break
		}
	}
	a.keep(alive)
}

// prune drops, from the last row back, every row whose defined pairs all
// appear in other rows too (this also removes duplicate rows).
func (a *array) prune() {
	m := a.m
	poff := make([]int, m*m)
	cells := 0
	for j := range m {
		for k := j + 1; k < m; k++ {
			poff[j*m+k] = cells
			cells += a.sz[j] * a.sz[k]
		}
	}
	cnt := make([]uint32, cells)
	each := func(row []int32, f func(cell int)) {
		for j := range m {
			if row[j] < 0 {
				continue
			}
			for k := j + 1; k < m; k++ {
				if row[k] >= 0 {
					f(poff[j*m+k] + int(row[j])*a.sz[k] + int(row[k]))
				}
			}
		}
	}
	n := a.len()
	for r := range n {
		each(a.row(r), func(cell int) { cnt[cell]++ })
	}
	alive := make([]bool, n)
	for r := n - 1; r >= 0; r-- {
		redundant := true
		each(a.row(r), func(cell int) { redundant = redundant && cnt[cell] >= 2 })
		if redundant {
			each(a.row(r), func(cell int) { cnt[cell]-- })
		} else {
			alive[r] = true
		}
	}
	a.keep(alive)
}

// fill gives every don't-care cell its column's least-used value (lowest
// value on ties).
func (a *array) fill() {
	usage := make([]int, slices.Max(a.sz))
	for c := range a.m {
		u := usage[:a.sz[c]]
		clear(u)
		for r := range a.len() {
			if v := a.row(r)[c]; v >= 0 {
				u[v]++
			}
		}
		for r := range a.len() {
			row := a.row(r)
			if row[c] >= 0 {
				continue
			}
			v := 0
			for x := range u {
				if u[x] < u[v] {
					v = x
				}
			}
			row[c] = int32(v)
			u[v]++
		}
	}
}
