package metrics

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// BLEUOrder is the highest n-gram order of BLEU (sacrebleu's default 4).
const BLEUOrder = 4

// BLEUStats are the sufficient statistics of corpus BLEU (sacrebleu's
// segment statistics): hypothesis and closest reference lengths, and per
// n-gram order the clipped matches and the hypothesis n-grams. Corpus BLEU
// sums them over segments; Add is that sum.
type BLEUStats struct {
	SysLen, RefLen int
	Correct, Total [BLEUOrder]int
}

// Add adds o's counts.
func (s *BLEUStats) Add(o *BLEUStats) {
	s.SysLen += o.SysLen
	s.RefLen += o.RefLen
	for n := range s.Correct {
		s.Correct[n] += o.Correct[n]
		s.Total[n] += o.Total[n]
	}
}

// ngramKey is the map key of one n-gram: each token's byte length (a
// uvarint) followed by its bytes. The encoding is injective, so n-grams
// of any order and tokens holding any byte (U+0000 included) never share a
// key: the 1-gram "a\x00b" and the 2-gram (a, b) are told apart, as
// sacrebleu's tuples tell them apart.
func ngramKey(toks []string) string {
	n := 0
	for _, t := range toks {
		n += binary.MaxVarintLen64 + len(t)
	}
	var b strings.Builder
	b.Grow(n)
	var l [binary.MaxVarintLen64]byte
	for _, t := range toks {
		b.Write(binary.AppendUvarint(l[:0], uint64(len(t))))
		b.WriteString(t)
	}
	return b.String()
}

// countNgrams counts the 1- to 4-grams of toks.
func countNgrams(toks []string) map[string]int {
	m := make(map[string]int, len(toks)*BLEUOrder)
	for n := 1; n <= BLEUOrder; n++ {
		for i := 0; i+n <= len(toks); i++ {
			m[ngramKey(toks[i:i+n])]++
		}
	}
	return m
}

// SegmentBLEU returns the statistics of one hypothesis against its
// references, tokens already split (sacrebleu's
// _compute_segment_statistics): reference n-gram counts are the maximum
// over the references, matches are clipped by them, and the reference
// length is the one closest to the hypothesis length (the shorter on a tie).
func SegmentBLEU(hyp []string, refs [][]string) BLEUStats {
	var st BLEUStats
	st.SysLen = len(hyp)
	refMax := map[string]int{}
	closest, diff := -1, -1
	for _, r := range refs {
		d := len(hyp) - len(r)
		if d < 0 {
			d = -d
		}
		if diff == -1 || d < diff || (d == diff && len(r) < closest) {
			diff, closest = d, len(r)
		}
		for k, c := range countNgrams(r) {
			if c > refMax[k] {
				refMax[k] = c
			}
		}
	}
	if closest > 0 {
		st.RefLen = closest
	}
	for n := 1; n <= BLEUOrder; n++ {
		seen := map[string]int{}
		for i := 0; i+n <= len(hyp); i++ {
			seen[ngramKey(hyp[i:i+n])]++
		}
		for k, c := range seen {
			st.Total[n-1] += c
			st.Correct[n-1] += min(c, refMax[k])
		}
	}
	return st
}

// Smoothing names sacrebleu's BLEU smoothing methods (Chen and Cherry
// 2014).
type Smoothing string

// The smoothing methods.
const (
	SmoothExp   Smoothing = "exp"   // method 3, mteval-v13a's (the default)
	SmoothFloor Smoothing = "floor" // method 1, value 0.1 by default
	SmoothAddK  Smoothing = "add-k" // method 2, value 1 by default
	SmoothNone  Smoothing = "none"
)

// Smoothings lists the smoothing methods a suite may set.
var Smoothings = []Smoothing{SmoothExp, SmoothFloor, SmoothAddK, SmoothNone}

// DefaultSmoothValue is sacrebleu's BLEU.SMOOTH_DEFAULTS value of m (0 for
// methods without one).
func DefaultSmoothValue(m Smoothing) float64 {
	switch m {
	case SmoothFloor:
		return 0.1
	case SmoothAddK:
		return 1
	}
	return 0
}

// BLEUScore is sacrebleu's BLEU.compute_bleu on 0–100 (effective order
// off, four n-gram orders): the brevity penalty times the geometric mean of
// the smoothed precisions; 0 when nothing matched. value is the smoothing
// value of floor and add-k.
func BLEUScore(st BLEUStats, m Smoothing, value float64) float64 {
	bp := 1.0
	if st.SysLen < st.RefLen {
		bp = 0
		if st.SysLen > 0 {
			bp = math.Exp(1 - float64(st.RefLen)/float64(st.SysLen))
		}
	}
	any := false
	for _, c := range st.Correct {
		any = any || c != 0
	}
	if !any {
		return 0
	}
	var prec [BLEUOrder]float64
	correct, total := [BLEUOrder]float64{}, [BLEUOrder]float64{}
	for n := range correct {
		correct[n], total[n] = float64(st.Correct[n]), float64(st.Total[n])
	}
	smoothExp := 1.0
	for n := 0; n < BLEUOrder; n++ {
		if m == SmoothAddK && n > 0 {
			correct[n] += value
			total[n] += value
		}
		if total[n] == 0 {
			break
		}
		switch {
		case correct[n] != 0:
			prec[n] = 100 * correct[n] / total[n]
		case m == SmoothExp:
			smoothExp *= 2
			prec[n] = 100 / (smoothExp * total[n])
		case m == SmoothFloor:
			prec[n] = 100 * value / total[n]
		}
	}
	sum := 0.0
	for _, p := range prec {
		sum += myLog(p)
	}
	return bp * math.Exp(sum/BLEUOrder)
}

// myLog is sacrebleu's utils.my_log: log, floored at -9999999999 for 0.
func myLog(x float64) float64 {
	if x == 0 {
		return -9999999999
	}
	return math.Log(x)
}

// BLEUSignature is sacrebleu's short-form-free signature without the
// version: nrefs (or "var" when cases have different numbers of
// references), case, eff, tok and smooth (with its value for floor and
// add-k, two decimals).
func BLEUSignature(nrefs int, tok Tokenizer, m Smoothing, value float64) string {
	refs := fmt.Sprint(nrefs)
	if nrefs < 0 {
		refs = "var"
	}
	smooth := string(m)
	if m == SmoothFloor || m == SmoothAddK {
		smooth += fmt.Sprintf("[%.2f]", value)
	}
	return fmt.Sprintf("nrefs:%s|case:mixed|eff:no|tok:%s|smooth:%s", refs, tok, smooth)
}
