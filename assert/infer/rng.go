package infer

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
)

// DefaultSeed is the seed every resampling uses unless told otherwise: the
// ASCII bytes of "nlutest" read as a big-endian number.
const DefaultSeed uint64 = 0x6e6c7574657374

// Stream is the deterministic random number stream of one statistic: the
// PCG-DXSM generator of math/rand/v2 (O'Neill's permuted congruential
// generator, 128-bit state) whose two seed words are the first 16 bytes,
// read as little-endian numbers, of SHA-256 of the 8 little-endian bytes
// of the seed followed by the statistic's address (for example
// "metrics.split.smoke.dimension.slots.f1"). The same seed and address
// give the same numbers bit for bit on every platform and Go version
// (PCG-DXSM is a fixed algorithm); two addresses start at unrelated
// points of the generator's 2¹²⁸-long cycle. Uniform and normal numbers
// are derived from the 64-bit outputs by this package's own conversions,
// so nothing depends on how math/rand/v2 maps bits to floats. (PCG rather
// than ChaCha8: half the cost a number, which the bootstrap feels.)
//
// A Stream is not safe for concurrent use.
type Stream struct {
	src *rand.PCG
}

// NewStream returns the stream of the statistic at address under seed (0
// selects DefaultSeed).
func NewStream(seed uint64, address string) *Stream {
	if seed == 0 {
		seed = DefaultSeed
	}
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(address))
	sum := h.Sum(nil)
	return &Stream{src: rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16]))}
}

// Uint64 returns the next 64 random bits.
func (s *Stream) Uint64() uint64 { return s.src.Uint64() }

// Float64 returns a uniform number in [0, 1): the top 53 bits of the next
// output times 2⁻⁵³.
func (s *Stream) Float64() float64 { return float64(s.src.Uint64()>>11) * 0x1p-53 }

// Below returns a uniform integer in [0, n), n > 0, without bias
// (Lemire's multiply-and-reject method).
func (s *Stream) Below(n uint64) uint64 {
	hi, lo := bits.Mul64(s.src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(s.src.Uint64(), n)
		}
	}
	return hi
}

// Normal returns a standard normal number (Marsaglia's polar method; the
// second number of each pair is dropped so the stream's position does not
// depend on earlier calls' parity).
func (s *Stream) Normal() float64 {
	for {
		u := 2*s.Float64() - 1
		v := 2*s.Float64() - 1
		r := u*u + v*v
		if r > 0 && r < 1 {
			return u * math.Sqrt(-2*math.Log(r)/r)
		}
	}
}
