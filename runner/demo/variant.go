package demo

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"net/url"
	"strconv"
)

// Variant is a quality setting of /model/parse, read from its query
// (/model/parse?degrade=0.2&seed=v3&flaky=true), so one demo service can
// play a model and its worse or noisier versions: a release candidate
// that lost some of what it knew, one retrained with a new seed, one that
// samples its answers. The zero Variant is the demo NLU as it is. Both
// knobs are deterministic: the same text, settings and repetition always
// get the same answer.
type Variant struct {
	// Degrade is the share of inputs (0 to 1) answered as if nothing
	// matched: intent nlu_fallback, no entities. An input is degraded
	// when DegradeKey(Seed, text) is below Degrade × 10000, so the inputs
	// degraded at one share are among those degraded at any larger one
	// (with the same seed).
	Degrade float64
	// Seed picks which inputs Degrade hits: another seed, another set of
	// about the same size, as a model retrained with another seed errs
	// on other inputs.
	Seed string
	// Flaky makes close calls unstable, as a model sampling its answer
	// would be: when the runner-up intent's confidence is within
	// FlakyMargin of the top one's, repetitions 2, 4, 6 … (the request's
	// "repeat") answer the runner-up. Repetition 0 (a request without
	// "repeat") and the odd ones answer the top intent.
	Flaky bool
}

// FlakyMargin is the confidence gap under which a Flaky variant's answer
// changes with the repetition: "订票" (book_flight and book_train tie at
// 0.1954) is a close call, "查一下航班" (0.2850 against 0.2042) is not.
const FlakyMargin = 0.05

// degradeScale is the resolution of Degrade: DegradeKey is in [0, 10000).
const degradeScale = 10000

// DegradeKey is the number (0 to 9999) that decides whether a Variant
// with this seed degrades text: the FNV-1a 64-bit hash of the seed's
// length (8 bytes, big-endian), the seed and the text, modulo 10000.
func DegradeKey(seed, text string) int {
	h := fnv.New64a()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(seed)))
	_, _ = h.Write(n[:])
	_, _ = h.Write([]byte(seed))
	_, _ = h.Write([]byte(text))
	return int(h.Sum64() % degradeScale)
}

// Parse is Parse(s) as the variant answers it in repetition repeat.
func (v Variant) Parse(s string, repeat int) ParseResult {
	if v.Degrade > 0 && float64(DegradeKey(v.Seed, s)) < math.Round(v.Degrade*degradeScale) {
		r := Parse("")
		r.Text = s
		return r
	}
	r := Parse(s)
	rk := r.IntentRanking
	if v.Flaky && repeat > 0 && repeat%2 == 0 && len(rk) > 1 && rk[0].Confidence-rk[1].Confidence < FlakyMargin {
		rk = append([]IntentScore{rk[1], rk[0]}, rk[2:]...)
		r.IntentRanking, r.Intent = rk, rk[0]
	}
	return r
}

// ParseVariant reads a Variant from the query of a /model/parse request:
// degrade (a number from 0 to 1), seed (any text) and flaky (true or
// false, 1 or 0). An unknown parameter, a parameter given twice or a bad
// value is an error saying which.
func ParseVariant(q url.Values) (Variant, error) {
	var v Variant
	for name, vals := range q {
		if len(vals) != 1 {
			return v, fmt.Errorf("query parameter %q is given %d times; give it once", name, len(vals))
		}
		val := vals[0]
		switch name {
		case "degrade":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil || !(f >= 0 && f <= 1) {
				return v, fmt.Errorf("query parameter degrade=%q must be a number from 0 to 1 (the share of inputs answered nlu_fallback)", val)
			}
			v.Degrade = f
		case "seed":
			v.Seed = val
		case "flaky":
			b, err := strconv.ParseBool(val)
			if err != nil {
				return v, fmt.Errorf("query parameter flaky=%q must be true or false", val)
			}
			v.Flaky = b
		default:
			return v, fmt.Errorf("unknown query parameter %q: /model/parse takes degrade, seed and flaky", name)
		}
	}
	return v, nil
}

// Query is the query string that ParseVariant reads back as v ("" for
// the zero Variant).
func (v Variant) Query() string {
	q := url.Values{}
	if v.Degrade > 0 {
		q.Set("degrade", strconv.FormatFloat(v.Degrade, 'g', -1, 64))
	}
	if v.Seed != "" {
		q.Set("seed", v.Seed)
	}
	if v.Flaky {
		q.Set("flaky", "true")
	}
	return q.Encode()
}
