package combine

// gf is arithmetic in the finite field GF(q), q = p^e. Elements are the
// integers 0..q-1 read as polynomials over GF(p) in base p (digit i is the
// coefficient of x^i). Prime fields compute directly; extension fields use
// tables built from an irreducible polynomial.
type gf struct {
	q, p     int
	add, mul []uint16 // q*q tables; nil for prime fields
}

// maxExtensionField bounds the extension fields gf builds tables for.
const maxExtensionField = 256

// primePower returns p and e with q = p^e, or ok == false.
func primePower(q int) (p, e int, ok bool) {
	if q < 2 {
		return 0, 0, false
	}
	p = q
	for d := 2; d*d <= q; d++ {
		if q%d == 0 {
			p = d
			break
		}
	}
	for q%p == 0 {
		q /= p
		e++
	}
	return p, e, q == 1
}

// nextField returns the smallest q >= n for which newGF succeeds.
func nextField(n int) int {
	for q := max(n, 2); ; q++ {
		if _, e, ok := primePower(q); ok && (e == 1 || q <= maxExtensionField) {
			return q
		}
	}
}

// newGF returns GF(q), or nil when q is not a prime power with tables in reach.
func newGF(q int) *gf {
	p, e, ok := primePower(q)
	if !ok {
		return nil
	}
	if e == 1 {
		return &gf{q: q, p: p}
	}
	if q > maxExtensionField {
		return nil
	}
	f := &gf{q: q, p: p, add: make([]uint16, q*q), mul: make([]uint16, q*q)}
	mod := irreducible(p, e)
	for x := range q {
		px := digits(x, p, e)
		for y := range q {
			py := digits(y, p, e)
			sum := make([]int, e)
			for i := range sum {
				sum[i] = (px[i] + py[i]) % p
			}
			f.add[x*q+y] = uint16(undigits(sum, p))
			f.mul[x*q+y] = uint16(undigits(polyMod(polyMul(px, py, p), mod, p)[:e], p))
		}
	}
	return f
}

func (f *gf) Add(x, y int) int {
	if f.add == nil {
		return (x + y) % f.q
	}
	return int(f.add[x*f.q+y])
}

func (f *gf) Mul(x, y int) int {
	if f.mul == nil {
		return x * y % f.q
	}
	return int(f.mul[x*f.q+y])
}

// digits returns the e base-p digits of x, least significant first.
func digits(x, p, e int) []int {
	d := make([]int, e)
	for i := range d {
		d[i] = x % p
		x /= p
	}
	return d
}

func undigits(d []int, p int) int {
	x := 0
	for i := len(d) - 1; i >= 0; i-- {
		x = x*p + d[i]
	}
	return x
}

// polyMul multiplies two polynomials over GF(p) (coefficients low first).
func polyMul(a, b []int, p int) []int {
	out := make([]int, len(a)+len(b)-1)
	for i, x := range a {
		for j, y := range b {
			out[i+j] = (out[i+j] + x*y) % p
		}
	}
	return out
}

// polyMod returns a mod m over GF(p) for monic m, padded to at least
// len(m)-1 coefficients.
func polyMod(a, m []int, p int) []int {
	r := append([]int(nil), a...)
	dm := len(m) - 1
	for i := len(r) - 1; i >= dm; i-- {
		c := r[i]
		if c == 0 {
			continue
		}
		for j := range m {
			r[i-dm+j] = ((r[i-dm+j]-c*m[j])%p + p) % p
		}
	}
	if len(r) < dm {
		r = append(r, make([]int, dm-len(r))...)
	}
	return r[:max(dm, 0)]
}

// irreducible returns the first monic irreducible polynomial of degree e
// over GF(p) in counting order (coefficients low first, length e+1).
func irreducible(p, e int) []int {
	pe := 1
	for range e {
		pe *= p
	}
	for c := range pe {
		f := append(digits(c, p, e), 1)
		if isIrreducible(f, p) {
			return f
		}
	}
	return nil // unreachable: irreducible polynomials exist in every degree
}

// isIrreducible reports whether monic f has no monic factor of degree
// 1..deg(f)/2.
func isIrreducible(f []int, p int) bool {
	e := len(f) - 1
	for d := 1; 2*d <= e; d++ {
		pd := 1
		for range d {
			pd *= p
		}
		for c := range pd {
			g := append(digits(c, p, d), 1)
			zero := true
			for _, x := range polyMod(f, g, p) {
				if x != 0 {
					zero = false
					break
				}
			}
			if zero {
				return false
			}
		}
	}
	return true
}
