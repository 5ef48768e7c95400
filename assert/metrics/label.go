package metrics

import (
	"slices"
	"sort"

	"github.com/nlutest/nlutest/schema"
)

// NoPrediction names the confusion-matrix column of cases that had no
// prediction at all (an empty ranking). It is not a label: it never gets
// per-label figures and never adds a false positive.
const NoPrediction = "(none)"

// labelPair is one cell of the confusion matrix.
type labelPair struct {
	expected, predicted string
}

// LabelAcc accumulates the classification metrics of one label dimension
// (intent name, domain), one case at a time. The zero value is ready to use
// and has no ranking (k = 1).
type LabelAcc struct {
	// k is the number of ranked labels top-k accuracy looks at; at least 1
	// once initialised (0 in the zero value means 1).
	k     int
	total int
	// pairs counts cases per (expected, predicted) label.
	pairs map[labelPair]int
	// none counts cases without a prediction per expected label.
	none map[string]int
	// hits[i] counts cases whose expected label was the (i+1)-th distinct
	// label of the ranking, for i < k. Keeping the position (not just "in
	// the top k") lets accumulators with different k merge.
	hits []int
	// fixed is the declared label set (scikit-learn's labels=), sorted;
	// nil: the labels seen.
	fixed []string
}

// SetLabels declares the label set the per-label figures and the averages
// run over, as scikit-learn's labels= argument: a label of the set never
// seen has zero counts (its ratios n/a, 0 in the averages); a prediction
// outside the set is a miss for the expected label and a false positive
// for no listed label; an expected label outside the set is left out of
// the averages. Accuracy and top-k still count every case. Nil keeps the
// default (the labels seen).
func (a *LabelAcc) SetLabels(labels []string) {
	if labels == nil {
		a.fixed = nil
		return
	}
	a.fixed = slices.Compact(slices.Sorted(slices.Values(labels)))
}

// NewLabelAcc returns an empty accumulator whose top-k accuracy and
// recognition rate look at the first k labels of each ranking. k ≤ 1 means
// the schema gives no ranking: only the prediction itself counts, and the
// result's K is 0.
func NewLabelAcc(k int) *LabelAcc {
	if k < 1 {
		k = 1
	}
	return &LabelAcc{k: k}
}

func (a *LabelAcc) init() {
	if a.k < 1 {
		a.k = 1
	}
	if a.pairs == nil {
		a.pairs = make(map[labelPair]int)
	}
	if a.none == nil {
		a.none = make(map[string]int)
	}
	if len(a.hits) < a.k {
		hits := make([]int, a.k)
		copy(hits, a.hits)
		a.hits = hits
	}
}

// K returns the k of the accumulator's top-k figures (1 when there is no
// ranking).
func (a *LabelAcc) K() int {
	if a.k < 1 {
		return 1
	}
	return a.k
}

// Add records one case: its expected label and the predicted labels, best
// first. ranked[0] is the prediction and ranked the order top-k looks at;
// an empty ranking means there was no prediction (no label in the
// response, or a confidence below min_confidence). Repeated labels in a
// ranking count once, at their first position, so the top k are k
// distinct labels.
func (a *LabelAcc) Add(expected string, ranked []string) {
	prediction := ""
	if len(ranked) > 0 {
		prediction = ranked[0]
	}
	a.AddRanked(expected, prediction, ranked)
}

// AddRanked records one case: its expected label, its prediction ("" for
// none: a miss for the expected label and no false positive) and topk, the
// labels top-k accuracy looks at, best first. The two are independent, as
// in scikit-learn, where accuracy reads the predictions and
// top_k_accuracy_score only the scores: a case without a prediction still
// counts in top-k when its ranking holds the expected label.
func (a *LabelAcc) AddRanked(expected, prediction string, topk []string) {
	a.init()
	a.total++
	if prediction == "" {
		a.none[expected]++
	} else {
		a.pairs[labelPair{expected, prediction}]++
	}
	a.hit(expected, topk)
}

// hit counts the position of expected among the first k distinct labels
// of ranked.
func (a *LabelAcc) hit(expected string, ranked []string) {
	pos := 0
	for i, r := range ranked {
		if pos >= a.k {
			break
		}
		if seenBefore(ranked[:i], r) {
			continue
		}
		if r == expected {
			a.hits[pos]++
			break
		}
		pos++
	}
}

// seenBefore reports whether s occurs in prefix. Rankings are short (k is a
// handful), so a scan beats a map.
func seenBefore(prefix []string, s string) bool {
	for _, p := range prefix {
		if p == s {
			return true
		}
	}
	return false
}

// Merge adds b's cases to a, as if a had been fed them too. When the two
// accumulators were made with different k, the result keeps the smaller k
// (a top-3 count can be cut down to top-2, not the other way). b is left
// unchanged; a nil b is a no-op.
func (a *LabelAcc) Merge(b *LabelAcc) {
	if b == nil {
		return
	}
	if b == a {
		c := &LabelAcc{}
		c.Merge(b)
		b = c
	}
	if a.total == 0 && len(a.pairs) == 0 && len(a.none) == 0 && a.k < 1 {
		// A zero-value a takes b's k.
		a.k = b.K()
	}
	a.init()
	if a.fixed == nil {
		a.fixed = b.fixed
	}
	if bk := b.K(); bk < a.k {
		a.k = bk
		a.hits = a.hits[:bk]
	}
	a.total += b.total
	for p, n := range b.pairs {
		a.pairs[p] += n
	}
	for l, n := range b.none {
		a.none[l] += n
	}
	for i := 0; i < a.k && i < len(b.hits); i++ {
		a.hits[i] += b.hits[i]
	}
}

// Result returns the classification report of the cases seen so far. With
// no cases every ratio has a zero denominator, Labels is empty and
// Confusion is nil.
func (a *LabelAcc) Result() *schema.Label {
	k := a.K()
	out := &schema.Label{
		Total:  a.total,
		Labels: make(map[string]*schema.LabelStats),
	}
	if k > 1 {
		out.K = k
	}
	c := a.counts()
	all := c.labels
	exact := 0
	for _, n := range c.tp {
		exact += n
	}
	out.Accuracy = schema.R(exact, a.total)
	if a.fixed != nil {
		c.labels = a.fixed
	}
	sumTP, sumPred, sumSup := c.perLabel(out)
	// Σfp = predictions of the labels that were wrong; Σfn = expected
	// labels not predicted (wrong predictions plus cases without one).
	sumFP := sumPred - sumTP
	sumFN := sumSup - sumTP
	out.MicroF1 = schema.Ratio{Num: 2 * sumTP, Den: 2*sumTP + sumFP + sumFN}
	c.labels = all

	hits := 0
	for i := 0; i < k && i < len(a.hits); i++ {
		hits += a.hits[i]
	}
	out.TopKAccuracy = schema.R(hits, a.total)
	out.RecognitionRate = schema.R(hits, a.total)

	if len(c.labels) > 0 {
		out.Confusion = a.confusion(c.labels, c.noneTotal > 0)
	}
	return out
}

// labelCounts are a LabelAcc's cases counted per label.
type labelCounts struct {
	// labels is the sorted union of expected and predicted labels.
	labels    []string
	predicted map[string]int // cases predicted as the label
	support   map[string]int // cases expecting the label
	tp        map[string]int
	noneTotal int // cases without a prediction
	total     int
}

func (a *LabelAcc) counts() *labelCounts {
	c := &labelCounts{predicted: map[string]int{}, support: map[string]int{}, tp: map[string]int{}, total: a.total}
	set := make(map[string]struct{})
	for p, n := range a.pairs {
		set[p.expected] = struct{}{}
		set[p.predicted] = struct{}{}
		c.predicted[p.predicted] += n
		c.support[p.expected] += n
		if p.expected == p.predicted {
			c.tp[p.expected] += n
		}
	}
	for l, n := range a.none {
		set[l] = struct{}{}
		c.support[l] += n
		c.noneTotal += n
	}
	c.labels = make([]string, 0, len(set))
	for l := range set {
		c.labels = append(c.labels, l)
	}
	sort.Strings(c.labels)
	return c
}

// perLabel sets out's per-label figures and averages over c.labels, and
// returns Σtp, Σpredicted and Σsupport over them.
func (c *labelCounts) perLabel(out *schema.Label) (sumTP, sumPred, sumSup float64) {
	var sumP, sumR, sumF, sumFW float64
	for _, l := range c.labels {
		t, pr, sup := c.tp[l], c.predicted[l], c.support[l]
		st := &schema.LabelStats{
			Precision: schema.R(t, pr),
			Recall:    schema.R(t, sup),
			// 2tp / (2tp + fp + fn) = 2tp / (predicted + support).
			F1:      schema.R(2*t, pr+sup),
			Support: sup,
		}
		out.Labels[l] = st
		sumTP += float64(t)
		sumPred += float64(pr)
		sumSup += float64(sup)
		// Undefined ratios count as 0 (sklearn's zero_division default).
		p, _ := st.Precision.Value()
		r, _ := st.Recall.Value()
		f, _ := st.F1.Value()
		sumP += p
		sumR += r
		sumF += f
		sumFW += f * float64(sup)
	}
	n := float64(len(c.labels))
	out.MacroPrecision = schema.Ratio{Num: sumP, Den: n}
	out.MacroRecall = schema.Ratio{Num: sumR, Den: n}
	out.MacroF1 = schema.Ratio{Num: sumF, Den: n}
	out.WeightedF1 = schema.Ratio{Num: sumFW, Den: sumSup}
	return sumTP, sumPred, sumSup
}

// confusion builds the matrix over the sorted labels. With cases lacking a
// prediction, NoPrediction is appended as a last column; a matching all-zero
// last row keeps the matrix square, so Counts[i][j] always reads as
// (Labels[i] expected, Labels[j] predicted).
func (a *LabelAcc) confusion(labels []string, withNone bool) *schema.Confusion {
	names := labels
	if withNone {
		names = append(append([]string(nil), labels...), NoPrediction)
	}
	idx := make(map[string]int, len(labels))
	for i, l := range labels {
		idx[l] = i
	}
	counts := make([][]int, len(names))
	for i := range counts {
		counts[i] = make([]int, len(names))
	}
	for p, n := range a.pairs {
		counts[idx[p.expected]][idx[p.predicted]] += n
	}
	if withNone {
		last := len(names) - 1
		for l, n := range a.none {
			counts[idx[l]][last] += n
		}
	}
	return &schema.Confusion{Labels: names, Counts: counts}
}
