package schema

// Significance is the comparison of a candidate run (B) with a baseline
// run (A), metric by metric: the difference, its paired interval, the
// p-value of "no difference" and a verdict (docs/statistics.md,
// "Comparing two runs"; docs/report-json.md#significance). nlutest diff
// shows it, and comparison.json holds one per target after the first
// (each against the first).
type Significance struct {
	// Paired is true when the runs' results were compared unit by unit;
	// false when only their reports were at hand (report.json files):
	// no metric then has a test or a verdict, and Note says why.
	Paired bool   `json:"paired"`
	Note   string `json:"note,omitempty"`
	// Alpha is the level of the tests; Confidence that of the intervals
	// of the differences, drawn with Resamples resamples.
	Alpha      float64 `json:"alpha"`
	Confidence float64 `json:"confidence"`
	Resamples  int     `json:"resamples,omitempty"`
	// Worse, Better and NoDifference count the metrics tested, by
	// verdict.
	Worse        int `json:"worse"`
	Better       int `json:"better"`
	NoDifference int `json:"no_difference"`
	// Units counts, per kind of unit, those both runs have (the paired
	// comparisons' units) and those only one has (left out).
	Units []UnitPairs `json:"units,omitempty"`
	// Metrics are the metrics compared: the significant regressions
	// first, then the improvements, then the others by address.
	Metrics []MetricChange `json:"metrics"`
}

// UnitPairs counts one kind of unit (cases, conversations…) of two runs.
type UnitPairs struct {
	Unit          string `json:"unit"`
	Paired        int    `json:"paired"`
	OnlyBaseline  int    `json:"only_baseline"`
	OnlyCandidate int    `json:"only_candidate"`
}

// The verdicts of a tested metric (MetricChange.Verdict).
const (
	VerdictBetter       = "better"
	VerdictWorse        = "worse"
	VerdictNoDifference = "no detectable difference"
)

// TestNone is MetricChange.Test of a metric compared without a test.
const TestNone = "none"

// MetricChange is one metric of a Significance.
type MetricChange struct {
	// Metric is the canonical address (metrics.split["smoke"].accuracy).
	Metric string `json:"metric"`
	// Baseline and Candidate are the metric in A and B: over the units
	// both runs have when the metric was tested (equal to the reports'
	// figures when the runs have the same units), else the reports'.
	// Nil without data.
	Baseline  *float64 `json:"baseline"`
	Candidate *float64 `json:"candidate"`
	// Diff is Candidate − Baseline; CILow and CIHigh its interval
	// (paired, or Newcombe's unpaired one for a proportion of two
	// reports), absent when there is none.
	Diff   *float64 `json:"diff"`
	CILow  *float64 `json:"ci_low,omitempty"`
	CIHigh *float64 `json:"ci_high,omitempty"`
	// P is the two-sided p-value of "no difference"; PAdjusted the same
	// adjusted by Holm's method over the metrics of its family (the gated
	// metrics, or the others), which the verdict reads. Absent without a
	// test.
	P         *float64 `json:"p,omitempty"`
	PAdjusted *float64 `json:"p_adjusted,omitempty"`
	// Test names how P was obtained (McNemar exact, paired bootstrap,
	// sign-flip permutation…); TestNone when the metric has no test.
	Test string `json:"test"`
	// Verdict is better, worse or no detectable difference, at Alpha
	// after the adjustment; empty without a test.
	Verdict string `json:"verdict,omitempty"`
	// Gated marks the metrics `diff --fail-on-worse` fails on: accuracy,
	// error rate and every metric the suite's thresholds name.
	Gated bool `json:"gated,omitempty"`
	// LowerBetter: the metric improves going down (Attr.Lower).
	LowerBetter bool `json:"lower_better,omitempty"`
	// Unit is what the test resampled or paired (cases,
	// conversations…); Paired how many units it used.
	Unit   string `json:"unit,omitempty"`
	Paired int64  `json:"paired,omitempty"`
	// Note says why a metric has no test or no interval.
	Note string `json:"note,omitempty"`
}
