package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

// weatherSuite declares n cities, a template over them (level S1, in split
// "smoke") and a second template over the first 5 (level S2).
func weatherSuite(t *testing.T, n int) *spec.Suite {
	t.Helper()
	var vals []string
	for i := range n {
		vals = append(vals, fmt.Sprintf(`"城市%03d"`, i))
	}
	src := fmt.Sprintf(`
suite "天气 / 测试" {}
target "fake" {
  http {
    url  = "http://127.0.0.1:1"
    body = jsonencode({ text = case.text })
  }
}
materials "城市" { values = [%s] }
template "查天气" {
  text   = "{城市}天气怎么样"
  level  = "S1"
  expect = { "$.city" = "{城市}" }
}
template "订机票" {
  text   = "订去{城市}的机票"
  level  = "S2"
  expect = { "$.city" = "{城市}" }
}
split "smoke" { where = case.level == "S1" }
`, strings.Join(vals, ", "))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s
}

// fakeCaller answers {"city": …} read back from the text; cities ending
// in 7 come back wrong. After stopAfter calls (0: never) it cancels the
// run's context, as Ctrl-C would.
type fakeCaller struct {
	mu        sync.Mutex
	calls     map[string]int
	stopAfter int
	cancel    context.CancelFunc
}

func newFakeCaller() *fakeCaller { return &fakeCaller{calls: map[string]int{}} }

func (f *fakeCaller) Preflight(context.Context) error { return nil }
func (f *fakeCaller) Close()                          {}

func (f *fakeCaller) Open(context.Context, *schema.Script) (runner.Session, error) {
	return runner.Stateless(f), nil
}

func (f *fakeCaller) Call(_ context.Context, c *schema.Case) *schema.Result {
	f.mu.Lock()
	f.calls[c.ID]++
	n := 0
	for _, k := range f.calls {
		n += k
	}
	if f.stopAfter > 0 && n == f.stopAfter {
		f.cancel()
	}
	f.mu.Unlock()
	city := strings.TrimSuffix(strings.TrimPrefix(c.Text, "订去"), "天气怎么样")
	city = strings.TrimSuffix(city, "的机票")
	if strings.HasSuffix(city, "7") {
		city = "上海"
	}
	b, _ := json.Marshal(map[string]string{"city": city})
	return &schema.Result{Case: *c, Target: "fake", Response: b, Status: 200, LatencyMS: 1, Attempts: 1}
}

// total is the number of calls made.
func (f *fakeCaller) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, k := range f.calls {
		n += k
	}
	return n
}

// options are the Options of a run of s into dir with selection sel.
func options(s *spec.Suite, sel pipeline.Selection, dir string) pipeline.Options {
	clock := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	return pipeline.Options{
		SuitePath: "suite", Target: s.Target(""), Selection: sel, Out: dir, Root: filepath.Dir(dir),
		Concurrency: 1, Version: "test",
		Now: func() time.Time { clock = clock.Add(time.Second); return clock },
	}
}

// ids lists the ids of the cases s generates for sel.
func ids(t *testing.T, s *spec.Suite, sel pipeline.Selection) []string {
	t.Helper()
	var out []string
	if err := sel.Generate(s, nil, func(sc *schema.Script) error { out = append(out, sc.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustSelection(t *testing.T, split, filter, shard string) pipeline.Selection {
	t.Helper()
	sel, err := pipeline.NewSelection(split, filter, shard)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}
