package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/schema"
)

// TestComparisonShowsSignificance: a run against 生产 (right on all 30
// booking cases) and 候选 (wrong on `wrong` of them) says in
// comparison.json, on the console and in the Markdown and HTML reports
// how 候选 differs from 生产, the baseline: 12 discordant cases are a
// significant regression of accuracy (McNemar's exact p = 2·0.5¹² =
// 0.00049, statsmodels mcnemar([[18, 12], [0, 0]], exact=True)), 3 are
// not (p = 0.25).
func TestComparisonShowsSignificance(t *testing.T) {
	for _, c := range []struct {
		wrong    int
		p        float64
		verdict  string
		headline string
	}{
		{12, 0.00048828125, schema.VerdictWorse, "候选 is worse than 生产 on 7 metrics (accuracy −40.0 points, p = 0.00049;"},
		{3, 0.25, schema.VerdictNoDifference, "候选 is not worse than 生产 on any metric, no detectable difference on 8"},
	} {
		t.Run(fmt.Sprint(c.wrong), func(t *testing.T) {
			prod, cand := signifNLU(t, 0), signifNLU(t, c.wrong)
			dir := writeSuite(t, fmt.Sprintf(`suite "比较" {
  schema  = "rasa"
  targets = ["生产", "候选"]
}
target "生产" {
  http {
    url  = %q
    body = jsonencode({ text = case.text })
  }
}
target "候选" {
  http {
    url  = %q
    body = jsonencode({ text = case.text })
  }
}
materials "号" { values = [%s] }
template "订票" {
  text   = "订票第{号}张"
  expect = { "$.intent.name" = "book_flight" }
}
threshold "准确率" { condition = metrics.accuracy >= 0.8 }
`, prod.URL, cand.URL, numbers(30)))
			out := filepath.Join(dir, "r")
			_, stdout, errs := runCLI(t, dir, nil, "run", dir, "--out", out, "--color", "never",
				"--report-markdown", filepath.Join(dir, "r.md"), "--report-html", filepath.Join(dir, "r.html"))
			b, err := os.ReadFile(filepath.Join(out, pipeline.ComparisonFile))
			if err != nil {
				t.Fatalf("%v\n%s\n%s", err, stdout, errs)
			}
			var cmp schema.Comparison
			if err := json.Unmarshal(b, &cmp); err != nil {
				t.Fatal(err)
			}
			if cmp.Baseline != "生产" || len(cmp.Targets) != 2 || cmp.Targets[0].Significance != nil || cmp.Targets[1].Significance == nil {
				t.Fatalf("baseline %q, targets %+v; want 生产 and a significance for 候选 only", cmp.Baseline, cmp.Targets)
			}
			sig := cmp.Targets[1].Significance
			var acc *schema.MetricChange
			for i := range sig.Metrics {
				if sig.Metrics[i].Metric == "metrics.accuracy" {
					acc = &sig.Metrics[i]
				}
			}
			want := -float64(c.wrong) / 30
			if acc == nil || acc.P == nil || math.Abs(*acc.P-c.p) > 1e-12 || acc.Verdict != c.verdict || !acc.Gated ||
				acc.Diff == nil || math.Abs(*acc.Diff-want) > 1e-12 || *acc.CILow > want || *acc.CIHigh < want || acc.Paired != 30 {
				t.Errorf("accuracy %+v; want Δ %v inside its interval, McNemar p %v, %s, gated, 30 paired", acc, want, c.p, c.verdict)
			}
			if c.verdict == schema.VerdictWorse && sig.Metrics[0].Metric != "metrics.accuracy" {
				t.Errorf("first metric %s; want the gated regression, metrics.accuracy, first", sig.Metrics[0].Metric)
			}
			md, _ := os.ReadFile(filepath.Join(dir, "r.md"))
			html, _ := os.ReadFile(filepath.Join(dir, "r.html"))
			for name, s := range map[string]string{"console": stdout, "markdown": string(md), "html": string(html)} {
				if !strings.Contains(s, c.headline) {
					t.Errorf("%s: no headline %q:\n%s", name, c.headline, s)
				}
				if !strings.Contains(s, c.verdict) || !strings.Contains(s, "metrics.accuracy") {
					t.Errorf("%s: no accuracy row with the verdict %q", name, c.verdict)
				}
			}
		})
	}
}

// signifNLU answers book_flight to "订票第N张", except for N < wrong.
func signifNLU(t *testing.T, wrong int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		var n int
		_, _ = fmt.Sscanf(req.Text, "订票第%d张", &n)
		intent := "book_flight"
		if n < wrong {
			intent = "book_train"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"intent": map[string]any{"name": intent, "confidence": 0.9}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// numbers is `"0", "1", …` up to n − 1.
func numbers(n int) string {
	var vals []string
	for i := range n {
		vals = append(vals, fmt.Sprintf(`"%d"`, i))
	}
	return strings.Join(vals, ", ")
}
