package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseGatesComparisons runs the comparisons of suites/release-gates
// (run.sh's step 3) and checks the verdicts against hand counts.
//
// degrade answers nlu_fallback for the inputs whose key is below the share
// × 10,000, so candidate (0.1) and patch (0.01) lose only cases demo
// (degrade 0) passes or fails already: no case goes from fail to pass.
// Of demo's 260 passing cases, candidate fails 17 (260 − 243) and patch 3
// (260 − 257). McNemar's exact test on b = 17, c = 0: p = 2 · 0.5¹⁷ =
// 1.52587890625e-05, worse at α = 0.05 (Holm over the 3 gated metrics —
// accuracy, core.accuracy, error_rate — at most 3p = 4.58e-05). Of the
// 200 core cases (all passing in demo) candidate fails 14: p = 2 · 0.5¹⁴ =
// 1.220703125e-04. patch: b = 3, c = 0, p = 2 · 0.5³ = 0.25, no detectable
// difference. Both candidates pass the floor on their own (ci_low 0.830
// and 0.887 ≥ 0.7): only the paired comparison sees candidate's drop.
func TestReleaseGatesComparisons(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "suites", "release-gates"), dir)
	for _, tc := range []struct {
		target         string
		differ         string
		acc, core      float64 // McNemar p of accuracy and core.accuracy
		verdict, words string
	}{
		{"candidate", "17 of 278 cases differ", 2 * math.Pow(0.5, 17), 2 * math.Pow(0.5, 14), "worse", "candidate is worse than demo on 14 metrics (accuracy −6.1 points, p < 0.0001"},
		{"patch", "3 of 278 cases differ", 2 * math.Pow(0.5, 3), 2 * math.Pow(0.5, 3), "no detectable difference", "patch is not worse than demo on any metric"},
	} {
		out := filepath.Join(dir, tc.target)
		code, stdout, errs := runCLI(t, dir, nil, "run", dir, "--target", "demo", "--target", tc.target, "--out", out)
		if code != ExitPass || !strings.Contains(stdout, tc.differ) || !strings.Contains(stdout, tc.words) {
			t.Fatalf("%s: exit %d, want 0 with %q and %q\n%s%s", tc.target, code, tc.differ, tc.words, stdout, errs)
		}
		raw, err := os.ReadFile(filepath.Join(out, "comparison.json"))
		if err != nil {
			t.Fatal(err)
		}
		var cmp struct {
			Targets []struct {
				Name         string
				Significance *struct {
					Metrics []struct {
						Metric, Test, Verdict string
						P                     float64
						Paired                int
					}
				}
			}
		}
		if err := json.Unmarshal(raw, &cmp); err != nil || len(cmp.Targets) != 2 || cmp.Targets[1].Significance == nil {
			t.Fatalf("%s: comparison.json: %v\n%s", tc.target, err, raw)
		}
		want := map[string]float64{"metrics.accuracy": tc.acc, "metrics.core.accuracy": tc.core}
		for _, m := range cmp.Targets[1].Significance.Metrics {
			p, ok := want[m.Metric]
			if !ok {
				continue
			}
			delete(want, m.Metric)
			if m.Test != "McNemar exact" || math.Abs(m.P-p) > 1e-12*p || m.Verdict != tc.verdict {
				t.Errorf("%s %s: %s p = %g, %s; want McNemar exact p = %g, %s", tc.target, m.Metric, m.Test, m.P, m.Verdict, p, tc.verdict)
			}
		}
		if len(want) != 0 {
			t.Errorf("%s: comparison.json lacks %v", tc.target, want)
		}
		// nlutest diff of the two runs gates on the same test.
		code, stdout, errs = runCLI(t, dir, nil, "diff", filepath.Join(out, "demo"), filepath.Join(out, tc.target), "--fail-on-worse")
		switch tc.target {
		case "candidate":
			if code != ExitFail || !strings.Contains(errs, "B is significantly worse than A (α = 0.05) on 2 gated metrics") || !strings.Contains(stdout, "17 cases got worse") {
				t.Errorf("diff of candidate: exit %d, want 1\n%s%s", code, stdout, errs)
			}
		case "patch":
			if code != ExitPass || !strings.Contains(stdout+errs, "B is not worse than A on any metric") || !strings.Contains(stdout, "3 cases got worse") {
				t.Errorf("diff of patch: exit %d, want 0\n%s%s", code, stdout, errs)
			}
		}
	}
}
