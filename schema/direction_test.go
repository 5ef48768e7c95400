package schema

import (
	"slices"
	"testing"
)

// TestLowerBetterMetrics pins which metrics a comparison of two runs
// calls better when they go down: error rates, durations, calibration
// errors, out-of-scope acceptance and turns to success. Every other
// ratio and number is better higher.
func TestLowerBetterMetrics(t *testing.T) {
	var lower []string
	seen := map[string]bool{}
	var walk func(p string, sh *Shape)
	walk = func(p string, sh *Shape) {
		if sh == nil {
			return
		}
		for _, a := range sh.Attrs {
			if a.Lower() && !seen[p+"."+a.Name] {
				seen[p+"."+a.Name] = true
				lower = append(lower, p+"."+a.Name)
			}
		}
		for _, s := range sh.Subs {
			walk(p+"."+s.Name, s.Shape)
			for _, v := range s.Variants {
				walk(p+"."+s.Name, v)
			}
		}
	}
	for _, f := range BuiltinFamilies() {
		walk(f.Name, &Shape{Attrs: f.Attrs, Subs: f.Subs})
	}
	slices.Sort(lower)
	want := []string{
		"calibration.calibration.bins.gap", "calibration.calibration.brier", "calibration.calibration.ece", "calibration.calibration.mce",
		"cases.error_rate",
		"dimension.dimension.error_rate", "dimension.dimension.types.error_rate", "dimension.dimension.values.error_rate",
		"latency.latency.bucket.max_ms", "latency.latency.bucket.mean_ms", "latency.latency.bucket.p50_ms", "latency.latency.bucket.p90_ms",
		"latency.latency.bucket.p95_ms", "latency.latency.bucket.p99_ms",
		"latency.latency.max_ms", "latency.latency.mean_ms", "latency.latency.p50_ms", "latency.latency.p90_ms", "latency.latency.p95_ms", "latency.latency.p99_ms",
		"oos.oos.fpr_at_95_tpr", "oos.oos.thresholds.oos_accepted",
		"scenario.scenario.turns_mean", "scenario.scenario.turns_p50", "scenario.scenario.turns_p90",
	}
	if !slices.Equal(lower, want) {
		t.Errorf("lower-better metrics:\n got %q\nwant %q", lower, want)
	}
}
