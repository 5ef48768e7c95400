package schema

// Comparison is one suite run against several targets (run --target a
// --target b, or the suite's targets list): each target's run is a whole
// run of its own (run directory, report.json), and the comparison sets
// their verdicts, metrics and per-case outcomes side by side, the cases
// whose outcome differs between the targets first. It is written as
// comparison.json in the run directory and by --report-json
// (docs/report-json.md#comparison).
type Comparison struct {
	Tool    string    `json:"tool"`
	Version string    `json:"version"`
	Kind    string    `json:"kind"` // always "comparison"
	Suite   SuiteInfo `json:"suite"`
	// Dir is the run directory holding one run directory per target.
	Dir string `json:"dir,omitempty"`
	// Outcome is fail when any target's verdict is fail.
	Outcome Outcome `json:"outcome"`
	// Baseline names the first target, which every other target's
	// Significance compares with.
	Baseline string `json:"baseline,omitempty"`
	// Targets are the compared targets in the order given.
	Targets []ComparedTarget `json:"targets"`
	// Thresholds are the suite's thresholds, each with every target's
	// outcome and observed values (in Targets' order).
	Thresholds []ComparedThreshold `json:"thresholds,omitempty"`
	// Differing counts the cases whose outcome differs between targets;
	// they come first in Cases.
	Differing int `json:"differing"`
	// Cases are every case any target's report lists, differing first,
	// then in the first target's order.
	Cases []ComparedCase `json:"cases"`
}

// ComparedTarget is one target's run in a comparison.
type ComparedTarget struct {
	Name string `json:"name"`
	// Dir is the target's run directory (DIR/TARGET).
	Dir     string  `json:"dir"`
	Verdict Verdict `json:"verdict"`
	Total   int     `json:"total"`
	Passed  int     `json:"passed"`
	Failed  int     `json:"failed"`
	Errored int     `json:"errored"`
	// Accuracy and ErrorRate are the run's metrics.accuracy and
	// metrics.error_rate; P95MS its metrics.latency.p95_ms (nil without
	// latency data).
	Accuracy  Ratio    `json:"accuracy"`
	ErrorRate Ratio    `json:"error_rate"`
	P95MS     *float64 `json:"p95_ms"`
	Seconds   float64  `json:"seconds"`
	// Warnings are the target's report's warnings (a state check skipped
	// because the target records no dialogue state, cached answers…).
	Warnings []string `json:"warnings,omitempty"`
	// Significance compares this target's run with the baseline's (the
	// first target's) metric by metric, paired on the cases both ran;
	// absent for the baseline itself.
	Significance *Significance `json:"significance,omitempty"`
}

// ComparedThreshold is one threshold across the targets.
type ComparedThreshold struct {
	Name      string `json:"name"`
	Condition string `json:"condition"`
	Severity  string `json:"severity"`
	// Outcomes and Observed are per target, in Targets' order.
	Outcomes []Outcome    `json:"outcomes"`
	Observed [][]Observed `json:"observed"`
}

// ComparedCase is one case across the targets.
type ComparedCase struct {
	ID         string `json:"id"`
	Source     string `json:"source"`
	SourceKind string `json:"source_kind,omitempty"`
	Text       string `json:"text"`
	Turn       int    `json:"turn,omitempty"`
	// Differs is true when the targets' outcomes are not all the same.
	Differs bool `json:"differs"`
	// Outcomes are per target, in Targets' order; "skip" where a
	// target's report does not list the case (not run, or a passing case
	// beyond MaxReportCases).
	Outcomes []Outcome `json:"outcomes"`
}
