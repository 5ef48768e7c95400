package metrics

import (
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func sorted(v ...float64) []float64 {
	out := append([]float64(nil), v...)
	sort.Float64s(out)
	return out
}

func TestPercentileReferences(t *testing.T) {
	tests := []struct {
		source string
		data   []float64
		p      float64
		want   float64
	}{
		// numpy.percentile docstring: a = [[10, 7, 4], [3, 2, 1]];
		// np.percentile(a, 50) → 3.5 (flattened);
		// axis=0 → [6.5, 4.5, 2.5]; axis=1 → [7., 2.].
		{"numpy docstring, flattened", []float64{10, 7, 4, 3, 2, 1}, 50, 3.5},
		{"numpy docstring, axis=0 col 0", []float64{10, 3}, 50, 6.5},
		{"numpy docstring, axis=0 col 1", []float64{7, 2}, 50, 4.5},
		{"numpy docstring, axis=0 col 2", []float64{4, 1}, 50, 2.5},
		{"numpy docstring, axis=1 row 0", []float64{10, 7, 4}, 50, 7},
		{"numpy docstring, axis=1 row 1", []float64{3, 2, 1}, 50, 2},
		// numpy docstring: np.percentile(a, [0, 100]) spans min..max.
		{"min", []float64{10, 7, 4, 3, 2, 1}, 0, 1},
		{"max", []float64{10, 7, 4, 3, 2, 1}, 100, 10},
		// Microsoft Excel PERCENTILE.INC / PERCENTILE help, example:
		// data 1, 3, 2, 4; =PERCENTILE.INC(A2:A5, 0.3) → 1.9.
		{"Excel PERCENTILE.INC", []float64{1, 3, 2, 4}, 30, 1.9},
		// NExS spreadsheet manual, @PERCENTILE: A1..A4 = 1, 2, 3, 4;
		// @PERCENTILE(A1..A4, 0.65) = 2.95.
		{"NExS @PERCENTILE", []float64{1, 2, 3, 4}, 65, 2.95},
		// programiz.com "NumPy percentile()": np.array([0..7]),
		// percentiles 25, 50, 75 → 1.75 3.5 5.25.
		{"programiz p25", []float64{0, 1, 2, 3, 4, 5, 6, 7}, 25, 1.75},
		{"programiz p50", []float64{0, 1, 2, 3, 4, 5, 6, 7}, 50, 3.5},
		{"programiz p75", []float64{0, 1, 2, 3, 4, 5, 6, 7}, 75, 5.25},
		// calcipedia.org percentile calculator (PERCENTILE.INC / numpy
		// default): [15, 20, 35, 40, 50] → P25 = 20, P30 = 23.
		{"calcipedia p25", []float64{15, 20, 35, 40, 50}, 25, 20},
		{"calcipedia p30", []float64{15, 20, 35, 40, 50}, 30, 23},
		// codearena.co "Percentile" (linear interpolation, p/100·(n−1)):
		// [10, 20, 30, 40], 90 → 37; [1, 2, 3, 4], 25 → 1.75.
		{"codearena p90", []float64{10, 20, 30, 40}, 90, 37},
		{"codearena p25", []float64{1, 2, 3, 4}, 25, 1.75},
		{"single sample", []float64{42}, 99, 42},
		{"clamped below", []float64{1, 2}, -5, 1},
		{"clamped above", []float64{1, 2}, 500, 2},
	}
	for _, tc := range tests {
		t.Run(tc.source, func(t *testing.T) {
			if got := Percentile(sorted(tc.data...), tc.p); !near(got, tc.want) {
				t.Errorf("p%v of %v = %v, want %v", tc.p, tc.data, got, tc.want)
			}
		})
	}
	if !math.IsNaN(Percentile(nil, 50)) {
		t.Error("percentile of nothing is not NaN")
	}
	if !math.IsNaN(Percentile([]float64{1}, math.NaN())) {
		t.Error("NaN percentile is not NaN")
	}
}

// With 101 samples 1..101 the virtual index (n−1)·q = 100·q is whole for
// every reported percentile, so each is a sample: p50 = 51, p90 = 91,
// p95 = 96, p99 = 100 (numpy "linear": index i → sorted[i]).
func TestLatencyResultWholeIndexes(t *testing.T) {
	var l LatencyAcc
	for i := 101; i >= 1; i-- {
		l.Add("明天北京天气怎么样", float64(i))
	}
	r := l.Result()
	want := schema.LatencyStats{Count: 101, MeanMS: 51, P50MS: 51, P90MS: 91, P95MS: 96, P99MS: 100, MaxMS: 101}
	if !near(r.MeanMS, want.MeanMS) || r.P50MS != want.P50MS || r.P90MS != want.P90MS ||
		r.P95MS != want.P95MS || r.P99MS != want.P99MS || r.MaxMS != want.MaxMS || r.Count != want.Count {
		t.Errorf("stats = %+v, want %+v", r.LatencyStats, want)
	}
	if len(r.Bucket) != 1 || !reflect.DeepEqual(*r.Bucket["<=20"], r.LatencyStats) {
		t.Errorf("buckets = %+v", r.Bucket)
	}
}

// repeatWords returns n space-separated English words.
func repeatWords(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = "book"
	}
	return strings.Join(w, " ")
}

// mixed returns text of exactly 3·reps + len(tail runes) units: each
// "北京 weather " is 2 characters + 1 word.
func mixed(reps int, tail string) string {
	return strings.Repeat("北京 weather ", reps) + tail
}

// YD/T 4394.2-2023 §响应时间: five length ranges (≤20, 20-50, 50-100, 100-200,
// ≥200), characters for Chinese, words for English. The boundaries go to
// the lower range: 20 → "<=20", 21 → "21-50", …, 200 → "101-200".
func TestLatencyBuckets(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		length int
		bucket string
	}{
		{"empty", "", 0, "<=20"},
		{"中文 20", strings.Repeat("查", 20), 20, "<=20"},
		{"中文 21", strings.Repeat("查", 21), 21, "21-50"},
		{"English 20", repeatWords(20), 20, "<=20"},
		{"English 21", repeatWords(21), 21, "21-50"},
		{"English 50", repeatWords(50), 50, "21-50"},
		{"English 51", repeatWords(51), 51, "51-100"},
		{"中文 50，标点不计", strings.Repeat("订票，", 25), 50, "21-50"},
		{"中文 51", strings.Repeat("订", 51), 51, "51-100"},
		{"mixed 100", mixed(33, "天"), 100, "51-100"},
		{"mixed 101", mixed(33, "天气"), 101, "101-200"},
		{"mixed 200", mixed(66, "天气"), 200, "101-200"},
		{"mixed 201", mixed(67, ""), 201, ">200"},
		{"中文 200", strings.Repeat("查", 200), 200, "101-200"},
		{"English 201", repeatWords(201), 201, ">200"},
	}
	var l LatencyAcc
	counts := map[string]int{}
	for i, tc := range tests {
		if n := InputLength(tc.text); n != tc.length {
			t.Errorf("%s: InputLength = %d, want %d", tc.name, n, tc.length)
		}
		if b := Bucket(tc.length); b != tc.bucket {
			t.Errorf("%s: Bucket(%d) = %q, want %q", tc.name, tc.length, b, tc.bucket)
		}
		l.Add(tc.text, float64(10*(i+1)))
		counts[tc.bucket]++
	}
	r := l.Result()
	if r.Count != len(tests) {
		t.Errorf("count = %d", r.Count)
	}
	for _, name := range schema.LatencyBuckets {
		got := 0
		if b := r.Bucket[name]; b != nil {
			got = b.Count
		}
		if got != counts[name] {
			t.Errorf("bucket %s count = %d, want %d", name, got, counts[name])
		}
	}
	// "<=20" got samples 1, 2, 4 (·10 ms): mean 70/3, median 20, max 40.
	b := r.Bucket["<=20"]
	if !near(b.MeanMS, 70.0/3) || b.P50MS != 20 || b.MaxMS != 40 {
		t.Errorf("<=20 = %+v", b)
	}
}

func TestLatencyOnlyFilledBuckets(t *testing.T) {
	var l LatencyAcc
	// numpy docstring values, all short: overall p50 = 3.5.
	for _, ms := range []float64{10, 7, 4, 3, 2, 1} {
		l.Add("订一张明天去北京的机票", ms)
	}
	l.Add("x", math.NaN())
	l.Add("x", math.Inf(1))
	r := l.Result()
	if r.Count != 6 || r.P50MS != 3.5 || r.MeanMS != 4.5 || r.MaxMS != 10 {
		t.Errorf("stats = %+v", r.LatencyStats)
	}
	if len(r.Bucket) != 1 || r.Bucket["<=20"] == nil {
		t.Errorf("buckets = %v", keys(r.Bucket))
	}
	var empty LatencyAcc
	if empty.Result() != nil {
		t.Error("result of no samples is not nil")
	}
	onlyNaN := NewLatencyAcc()
	onlyNaN.Add("", math.NaN())
	if onlyNaN.Result() != nil {
		t.Error("NaN-only result is not nil")
	}
}

func TestLatencyMerge(t *testing.T) {
	texts := []string{"你好", repeatWords(30), mixed(20, ""), strings.Repeat("查", 150), repeatWords(300)}
	whole, a, b := NewLatencyAcc(), NewLatencyAcc(), NewLatencyAcc()
	for i := range 200 {
		text := texts[i%len(texts)]
		ms := float64((i*37)%211) + 0.25*float64(i%4)
		whole.Add(text, ms)
		if i%3 == 0 {
			a.Add(text, ms)
		} else {
			b.Add(text, ms)
		}
	}
	b.Merge(a) // other order than whole's
	b.Merge(nil)
	if got, want := b.Result(), whole.Result(); !reflect.DeepEqual(got, want) {
		t.Errorf("merged = %+v\nwant %+v", got, want)
	}
	if len(whole.Result().Bucket) != 5 {
		t.Errorf("buckets = %v", keys(whole.Result().Bucket))
	}
	n := whole.Count()
	whole.Merge(whole)
	if whole.Count() != 2*n {
		t.Errorf("self-merge count = %d, want %d", whole.Count(), 2*n)
	}
}

// TestLatencyBeyondExactSamples checks the bounded mode: past
// ExactLatencySamples, count, mean and max stay exact and percentiles stay
// within 0.5% of numpy's exact values (computed here on the full sample).
func TestLatencyBeyondExactSamples(t *testing.T) {
	const n = ExactLatencySamples*3 + 17
	acc := NewLatencyAcc()
	var all []float64
	sum := 0.0
	for i := range n {
		// a long-tailed spread from 0.2 ms to about 3 s
		ms := 0.2 + float64((i*7919)%n)*float64((i*104729)%97+1)/float64(n)*30
		acc.Add("查询13301791708的酒店同房间人员", ms)
		all = append(all, ms)
		sum += ms
	}
	r := acc.Result()
	sort.Float64s(all)
	if r.Count != n || math.Abs(r.MeanMS-sum/n) > 1e-9*r.MeanMS || r.MaxMS != all[n-1] {
		t.Errorf("count/mean/max not exact: %d %v %v", r.Count, r.MeanMS, r.MaxMS)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"p50", r.P50MS, Percentile(all, 50)}, {"p90", r.P90MS, Percentile(all, 90)}, {"p95", r.P95MS, Percentile(all, 95)}, {"p99", r.P99MS, Percentile(all, 99)}} {
		if math.Abs(c.got-c.want) > 0.005*c.want {
			t.Errorf("%s = %v, exact %v: more than 0.5%% off", c.name, c.got, c.want)
		}
	}
	// Merging a histogram-mode accumulator with an exact one keeps the sums.
	small := NewLatencyAcc()
	small.Add("hi", 1)
	small.Merge(acc)
	if got := small.Result(); got.Count != n+1 || got.MaxMS != all[n-1] {
		t.Errorf("merge: %+v", got.LatencyStats)
	}
}
