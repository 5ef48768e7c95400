package assert

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// Collectors forked from one and fed disjoint batches with their sequence
// numbers (as eval's workers are) merge into exactly what one collector fed
// everything in order holds — including which cases the report lists once
// there are more than schema.MaxReportCases of a kind, and the per-template
// time, summed in whole nanoseconds whatever the order.
func TestForkedCollectorsMergeLikeOne(t *testing.T) {
	dir := t.TempDir()
	src := `
materials "城市" { values = ["北京", "上海"] }
template "天气" {
  text  = "{城市}天气"
  scene = ["生活", "天气"]
  level = "S1"
  expect = { "$.intent" = "查天气" }
}
split "冒烟" { where = case.level == "S1" }
`
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{SourceKinds: testSourceKinds()})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if underRace {
		t.Skip("one goroutine and 140,000 results: the race detector adds nothing but minutes")
	}
	// More passing cases than the report lists (about 3 in 4 pass).
	const n = schema.MaxReportCases*14/10 + 1
	result := func(i int) *schema.Result {
		r := &schema.Result{Case: schema.Case{ID: fmt.Sprintf("%016x", i*7919), Template: "天气", Text: "北京天气",
			Level: "S1", Scene: []string{"生活", "天气"}, Split: []string{"冒烟"}}, LatencyMS: float64(i%1000)/7 + 0.1}
		switch {
		case i%5 == 0:
			r.Outcome = schema.Fail
			r.Failures = []schema.Failure{{Kind: "expect", Path: "$.intent", Expected: "查天气", Actual: "问候"}}
		case i%17 == 0:
			r.Outcome = schema.Error
			r.Error = &schema.CallError{Type: schema.ErrTimeout, Message: "timeout"}
		default:
			r.Outcome = schema.Pass
		}
		return r
	}
	one := NewCollector(s, nil)
	for i := range n {
		one.Add(result(i), nil)
	}
	// Three forks take batches of 512 in turn, out of order between them.
	base := NewCollector(s, nil)
	forks := []*Collector{base.Fork(), base.Fork(), base.Fork()}
	for b := 0; b*512 < n; b++ {
		f := forks[(b*7)%3]
		for i := b * 512; i < min(n, (b+1)*512); i++ {
			f.AddAt(result(i), nil, int64(i))
		}
	}
	for i := len(forks) - 1; i >= 0; i-- {
		base.Merge(forks[i])
	}
	// Collectors that are not forks of one (no shared listing bound) list
	// every case they get, so their merge trims past the cap itself: it
	// must keep the first cases of each kind in the run's order.
	// Batches go in last first, so each collector's list is out of order.
	plain := []*Collector{NewCollector(s, nil), NewCollector(s, nil)}
	for b := (n - 1) / 512; b >= 0; b-- {
		p := plain[(b*3)%2]
		for i := b * 512; i < min(n, (b+1)*512); i++ {
			p.AddAt(result(i), nil, int64(i))
		}
	}
	plain[1].Merge(plain[0])
	if got, want := plain[1].Omitted(), one.Omitted(); got != want {
		t.Errorf("independent collectors merged omit %d cases, want %d", got, want)
	}
	if a, b := mustJSON(t, plain[1].Cases()), mustJSON(t, one.Cases()); a != b {
		t.Errorf("independent collectors merged list other cases than one collector fed everything in order")
	}
	if base.Total() != n || base.Omitted() != one.Omitted() {
		t.Fatalf("total %d omitted %d, want %d and %d", base.Total(), base.Omitted(), n, one.Omitted())
	}
	if one.Omitted() == 0 {
		t.Fatal("the test needs more cases than the report lists")
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"metrics", base.Metrics(), one.Metrics()},
		{"groups", base.Groups(), one.Groups()},
		{"cases", base.Cases(), one.Cases()},
	} {
		a, _ := json.Marshal(c.got)
		b, _ := json.Marshal(c.want)
		if string(a) != string(b) {
			i := 0
			for i < len(a) && i < len(b) && a[i] == b[i] {
				i++
			}
			t.Errorf("%s differ at byte %d:\nmerged: …%s…\none:    …%s…", c.name, i, a[max(0, i-100):min(len(a), i+100)], b[max(0, i-100):min(len(b), i+100)])
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
