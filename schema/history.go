package schema

import "time"

// HistoryPoint is one run's value of a metric in a history
// (docs/report-json.md, "History"): the runs of a suite and target a
// history file keeps (package history), oldest first, then the current
// run.
type HistoryPoint struct {
	// Run numbers the run in its history, 1 for the oldest kept.
	Run    int       `json:"run"`
	ID     string    `json:"id"`
	Label  string    `json:"label,omitempty"`
	Commit string    `json:"commit,omitempty"`
	Time   time.Time `json:"time"`
	// Value is nil when the run has no data for the metric.
	Value  *float64 `json:"value"`
	CILow  *float64 `json:"ci_low,omitempty"`
	CIHigh *float64 `json:"ci_high,omitempty"`
	// Confidence is the level of the run's intervals (0 when unknown).
	Confidence float64 `json:"confidence,omitempty"`
	// Current marks the run the report is about.
	Current bool `json:"current,omitempty"`
}

// MetricHistory is a metric's history as a report shows it beside a
// threshold: the series, its slope and changes of level, and the drift
// gate's answer when the threshold has a history block.
type MetricHistory struct {
	// Metric is the metric's address as the condition spells it.
	Metric string `json:"metric"`
	// Points are the runs, oldest first; the last is the current run.
	Points []HistoryPoint `json:"points"`
	// Slope is the Theil–Sen slope per run over the points (nil with
	// fewer than 3 values).
	Slope *HistorySlope `json:"slope,omitempty"`
	// Changes are the changes of level found in the points (indexes into
	// Points: the first run at the new level).
	Changes []HistoryChange `json:"changes,omitempty"`
	Drift   *Drift          `json:"drift,omitempty"`
}

// HistorySlope is a Theil–Sen slope per run with Sen's interval.
type HistorySlope struct {
	Runs   int     `json:"runs"`
	Slope  float64 `json:"slope"`
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
}

// HistoryChange is a change of level: Index is the first point at the
// new level, Before and After the levels either side, P the change
// test's p-value.
type HistoryChange struct {
	Index  int     `json:"index"`
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	P      float64 `json:"p"`
}

// Drift outcomes.
const (
	DriftPass   = "pass"
	DriftFail   = "fail"
	DriftNoData = "no data"
)

// Drift is the drift gate's answer for one metric of a threshold
// (docs/statistics.md, "The drift gate").
type Drift struct {
	// Outcome is DriftPass, DriftFail or DriftNoData (no history file,
	// too few earlier runs with the metric, or no value in this run):
	// no data is reported, never counted as a pass.
	Outcome string `json:"outcome"`
	// Text is the one sentence reports print: "accuracy fell from 0.91
	// (runs 3–10) to 0.86 at run 11 (label v1.11)".
	Text    string  `json:"text"`
	Window  int     `json:"window"`
	MaxDrop float64 `json:"max_drop"`
	Alpha   float64 `json:"alpha"`
	// Better is "higher" or "lower": the direction the metric improves.
	Better string `json:"better"`
	// From and To are the indexes (into the MetricHistory's Points) of
	// the window's first and last runs; Level its mean.
	From  int      `json:"from"`
	To    int      `json:"to"`
	Level *float64 `json:"level,omitempty"`
	// Drop is how much worse the current value is than Level; Limit the
	// drop beyond which the level test fails; P its p-value.
	Drop  *float64 `json:"drop,omitempty"`
	Limit *float64 `json:"limit,omitempty"`
	P     *float64 `json:"p,omitempty"`
	// Change is the change of level the change test found, when it
	// worsened the metric (Index into Points: the run where it changed).
	Change *HistoryChange `json:"change,omitempty"`
}
