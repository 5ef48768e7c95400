package reporters

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// Options tune the console, JUnit and Markdown renderers. The zero value is
// a sensible default.
type Options struct {
	// Color turns ANSI colour on in the console report. The caller decides
	// (flag, NO_COLOR, TERM, TTY); renderers never consult the environment.
	Color bool
	// Width is the console width hint; 0 means 100.
	Width int
	// MaxFailures caps the failing cases listed; 0 means the renderer's
	// default (console 20, Markdown 50, JUnit unlimited).
	MaxFailures int
	// JUnitCases adds one testcase per case to the JUnit report of a suite
	// with thresholds (--junit-cases).
	JUnitCases bool
	// Baseline, when set, adds a Δ column to the console and Markdown
	// threshold and case tables: the change against this earlier report.
	Baseline *schema.Report
}

// Default caps on listed failing cases.
const (
	defaultConsoleFailures  = 20
	defaultMarkdownFailures = 50
	defaultWidth            = 100
)

func (o Options) width() int {
	if o.Width <= 0 {
		return defaultWidth
	}
	return max(o.Width, 40)
}

// failureCap returns the cap for a renderer; 0 means unlimited.
func (o Options) failureCap(def int) int {
	if o.MaxFailures > 0 {
		return o.MaxFailures
	}
	return def
}

var errNilReport = errors.New("reporters: nil report")

// caseCounts are the run's case totals.
type caseCounts struct {
	Total, Passed, Failed, Errored int
}

// countCases takes the totals from the metrics tree, or counts the report's
// cases when the run produced no metrics (an interrupted run, say).
func countCases(r *schema.Report) caseCounts {
	if r.Metrics != nil {
		n := r.Metrics.Node
		return caseCounts{Total: n.Total, Passed: n.Passed, Failed: n.Failed, Errored: n.Errored}
	}
	var c caseCounts
	for x := range r.ListedCases() {
		c.Total++
		switch x.Outcome {
		case schema.Pass:
			c.Passed++
		case schema.Fail:
			c.Failed++
		case schema.Error:
			c.Errored++
		}
	}
	return c
}

func (c caseCounts) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d errored of %d %s",
		c.Passed, c.Failed, c.Errored, c.Total, plural(c.Total, "case", "cases"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// thresholdCounts tallies thresholds by what they mean for the verdict.
type thresholdCounts struct {
	Total   int
	Met     int // outcome pass
	Missed  int // severity error, outcome fail
	Errored int // severity error, outcome error
	Warned  int // severity warn, outcome fail or error
	Skipped int // not evaluated (skip, pending)
}

func countThresholds(ts []schema.ThresholdResult) thresholdCounts {
	var c thresholdCounts
	for _, t := range ts {
		c.Total++
		switch thresholdStatus(t) {
		case statusPass:
			c.Met++
		case statusFail:
			c.Missed++
		case statusError:
			c.Errored++
		case statusWarn:
			c.Warned++
		case statusSkip:
			c.Skipped++
		}
	}
	return c
}

// tstatus is what a threshold's result means for the verdict.
type tstatus int

const (
	statusPass  tstatus = iota
	statusFail          // a gate (severity error) was not met
	statusError         // a gate could not be evaluated
	statusWarn          // a warn-severity threshold was not met or not evaluated
	statusSkip          // not evaluated (interrupted run, filtered)
)

// isWarn reports whether a threshold only warns. Anything but "warn" is a
// gate, as an unknown severity must not silently weaken one.
func isWarn(t schema.ThresholdResult) bool { return strings.EqualFold(t.Severity, "warn") }

func thresholdStatus(t schema.ThresholdResult) tstatus {
	switch t.Outcome {
	case schema.Pass:
		return statusPass
	case schema.Fail, schema.Error:
		if isWarn(t) {
			return statusWarn
		}
		if t.Outcome == schema.Error {
			return statusError
		}
		return statusFail
	}
	return statusSkip
}

// verdictPass reports whether the verdict is pass; anything else is red.
func verdictPass(r *schema.Report) bool { return r.Verdict.Outcome == schema.Pass }

func verdictWord(r *schema.Report) string {
	if verdictPass(r) {
		return "PASS"
	}
	return "FAIL"
}

func suiteName(r *schema.Report) string {
	if n := oneLine(r.Suite.Name); n != "" {
		return n
	}
	return "suite"
}

func toolName(r *schema.Report) string {
	if n := oneLine(r.Tool); n != "" {
		return n
	}
	return "nlutest"
}

// gatesText says how the thresholds went: "3/3 thresholds met",
// "1/3 thresholds met (1 warning)"; "" for a suite without thresholds.
func gatesText(r *schema.Report) string {
	if len(r.Thresholds) == 0 {
		return ""
	}
	c := countThresholds(r.Thresholds)
	s := fmt.Sprintf("%d/%d %s met", c.Met, c.Total, plural(c.Total, "threshold", "thresholds"))
	var extra []string
	if c.Errored > 0 {
		extra = append(extra, fmt.Sprintf("%d not evaluated", c.Errored))
	}
	if c.Warned > 0 {
		extra = append(extra, fmt.Sprintf("%d %s", c.Warned, plural(c.Warned, "warning", "warnings")))
	}
	if c.Skipped > 0 {
		extra = append(extra, fmt.Sprintf("%d skipped", c.Skipped))
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// headline is the verdict sentence after the PASS/FAIL word, e.g.
// "iao-hotel: 3/3 thresholds met · 41 passed, 7 failed, 2 errored of 50
// cases (3.2s)", with "· 12 answered from the response cache" when some
// results were (--cache): a verdict not all of whose answers were called
// says so where it is read.
func headline(r *schema.Report) string {
	parts := []string{}
	if g := gatesText(r); g != "" {
		parts = append(parts, g)
	}
	parts = append(parts, countCases(r).String())
	if n := r.Run.Cached; n > 0 {
		parts = append(parts, fmt.Sprintf("%d answered from the response cache", n))
	}
	s := suiteName(r) + ": " + strings.Join(parts, " · ") + " (" + fmtSeconds(r.Run.Seconds) + ")"
	if r.Run.Interrupted {
		s += " · interrupted"
	}
	return s
}

// reasons returns the verdict's reasons, cleaned to one line each.
func reasons(r *schema.Report) []string {
	var out []string
	for _, s := range r.Verdict.Reasons {
		if s = strings.TrimSpace(oneLine(s)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// observedText prints the values a threshold used: "0.854 (41/48)" for one
// ratio, "212" for a plain value, "a = 0.9 (18/20); b = …" for several.
func observedText(obs []schema.Observed) string {
	if len(obs) == 0 {
		return ""
	}
	one := func(o schema.Observed) string {
		val := noData
		if o.Value != nil {
			if o.Num != nil && o.Den != nil || isBound(o.Name) {
				val = fmtFixed(*o.Value)
			} else {
				val = fmtNum(*o.Value)
			}
		}
		switch {
		case o.Num == nil || o.Den == nil:
		case isMacro(o.Name):
			val += " (mean of " + fmtNum(*o.Den) + " " + plural(int(*o.Den), "label", "labels") + ")"
		default:
			val += " (" + fmtNum(*o.Num) + "/" + fmtNum(*o.Den) + ")"
		}
		if o.CILow != nil && o.CIHigh != nil {
			val += " [" + fmtFixed(*o.CILow) + ", " + fmtFixed(*o.CIHigh) + "]"
		}
		return val
	}
	if len(obs) == 1 {
		return one(obs[0])
	}
	parts := make([]string, len(obs))
	for i, o := range obs {
		parts[i] = oneLine(o.Name) + " = " + one(o)
	}
	return strings.Join(parts, "; ")
}

// observedN returns the sample sizes (denominators) of a threshold's
// observed values, "" when none is a ratio.
func observedN(obs []schema.Observed) string {
	var ns []string
	for _, o := range obs {
		switch {
		case o.Den == nil:
		case isMacro(o.Name):
			ns = append(ns, fmtNum(*o.Den)+" "+plural(int(*o.Den), "label", "labels"))
		default:
			ns = append(ns, fmtNum(*o.Den))
		}
	}
	return strings.Join(ns, ", ")
}

// observedSentence is the one-line summary of a threshold result used in
// JUnit messages: "metrics.accuracy = 0.854 (41/48), n=48; condition
// metrics.accuracy >= 0.8".
func observedSentence(t schema.ThresholdResult) string {
	var parts []string
	for _, o := range t.Observed {
		s := oneLine(o.Name) + " = " + observedText([]schema.Observed{o})
		if o.Den != nil {
			s += ", n=" + fmtNum(*o.Den)
		}
		parts = append(parts, s)
	}
	s := "observed " + strings.Join(parts, "; ")
	if len(parts) == 0 {
		s = "observed nothing"
	}
	s += " (condition " + oneLine(t.Condition) + ")"
	for _, d := range driftTexts(t) {
		s += "; drift: " + d
	}
	return s
}

// driftTexts are the sentences of a threshold's drift gates, one per
// metric it watches.
func driftTexts(t schema.ThresholdResult) []string {
	var out []string
	for _, h := range t.History {
		if h.Drift != nil {
			out = append(out, oneLine(h.Drift.Text))
		}
	}
	return out
}

// firstObserved is the threshold's first observed value (for Δ columns).
func firstObserved(t schema.ThresholdResult) *float64 {
	if len(t.Observed) == 0 {
		return nil
	}
	return t.Observed[0].Value
}

// baselineThreshold finds the threshold of the same name in a baseline.
func baselineThreshold(base *schema.Report, name string) *schema.ThresholdResult {
	if base == nil {
		return nil
	}
	for i := range base.Thresholds {
		if base.Thresholds[i].Name == name {
			return &base.Thresholds[i]
		}
	}
	return nil
}

// location prints "file:line", "file" or "".
func location(file string, line int) string {
	file = oneLine(file)
	if file == "" {
		return ""
	}
	if line > 0 {
		return file + ":" + strconv.Itoa(line)
	}
	return file
}

// failureLine is one failed expectation or condition on one line:
// `$.code: expected 200, got 500`, `$.intent: missing (expected "book")`,
// `assert: 意图应为查询`.
func failureLine(f schema.Failure) string {
	switch f.Kind {
	case "expect":
		path := oneLine(f.Path)
		if f.Missing {
			return path + ": missing (expected " + oneLine(fmtValue(f.Expected)) + ")"
		}
		return path + ": expected " + oneLine(fmtValue(f.Expected)) + ", got " + oneLine(fmtValue(f.Actual))
	case "assert":
		msg := oneLine(f.Message)
		if msg == "" {
			msg = "condition not met"
		}
		return "assert: " + msg
	case "capture":
		return oneLine(f.Message) // `capture "order": "$.order_id" selected nothing`
	}
	msg := oneLine(f.Message)
	if msg == "" && f.Path != "" {
		msg = oneLine(f.Path)
	}
	if f.Kind != "" {
		return oneLine(f.Kind) + ": " + msg
	}
	return msg
}

// failureBlock is one failure over several lines, for JUnit and Markdown
// bodies:
//
//	suites/x.hcl:27: expect $.code
//	  expected: 200
//	  actual:   500
func failureBlock(f schema.Failure) string {
	var b strings.Builder
	if loc := location(f.File, f.Line); loc != "" {
		b.WriteString(loc + ": ")
	}
	switch f.Kind {
	case "expect":
		b.WriteString("expect " + oneLine(f.Path))
		if f.Dimension != "" {
			b.WriteString(" [" + oneLine(f.Dimension) + "]")
		}
		b.WriteString("\n  expected: " + clean(fmtValue(f.Expected)))
		if f.Missing {
			b.WriteString("\n  actual:   (missing: the path selected nothing)")
		} else {
			b.WriteString("\n  actual:   " + clean(fmtValue(f.Actual)))
		}
		if f.Message != "" {
			b.WriteString("\n  " + oneLine(f.Message))
		}
	default:
		b.WriteString(failureLine(f))
		if f.Dimension != "" {
			b.WriteString(" [" + oneLine(f.Dimension) + "]")
		}
	}
	return b.String()
}

// callErrorLine is "Timeout: no response within 5s".
func callErrorLine(e *schema.CallError) string {
	if e == nil {
		return ""
	}
	t := oneLine(e.Type)
	if t == "" {
		t = "Error"
	}
	if m := oneLine(e.Message); m != "" {
		return t + ": " + m
	}
	return t
}

// caseSummary is the one-line reason a case failed or errored: the call
// error, or the first failure followed by "(+N more)".
func caseSummary(c schema.CaseReport) string {
	if c.Error != nil {
		return callErrorLine(c.Error)
	}
	if len(c.Failures) == 0 {
		return c.Outcome.String()
	}
	s := failureLine(c.Failures[0])
	if n := len(c.Failures) - 1; n > 0 {
		s += fmt.Sprintf(" (+%d more)", n)
	}
	return s
}

// Caps on the data excerpts that go into JUnit and Markdown bodies.
const (
	maxResponseExcerpt = 2 << 10
	maxRequestExcerpt  = 1 << 10
)

// caseDetail is the full text of a failing or erroring case: each failure
// (or the call error), then the request and a capped response excerpt.
func caseDetail(c schema.CaseReport) string {
	var b strings.Builder
	if c.Error != nil {
		if loc := location(c.File, c.Line); loc != "" {
			b.WriteString(loc + ": ")
		}
		b.WriteString(callErrorLine(c.Error))
		b.WriteByte('\n')
	}
	for _, f := range c.Failures {
		b.WriteString(failureBlock(f))
		b.WriteByte('\n')
	}
	if len(c.Slots) > 0 {
		b.WriteString("slots:")
		for _, k := range sortedKeys(c.Slots) {
			b.WriteString(" " + oneLine(k) + "=" + oneLine(c.Slots[k].Value))
		}
		b.WriteByte('\n')
	}
	if c.Request != nil {
		req := strings.TrimSpace(oneLine(c.Request.Method + " " + c.Request.URL))
		if body := oneLine(c.Request.Body); body != "" {
			req += " " + body
		}
		if req != "" {
			b.WriteString("request: " + capLine(req, maxRequestExcerpt) + "\n")
		}
	}
	if c.Response != "" {
		b.WriteString("response: " + capBytes(clean(c.Response), maxResponseExcerpt) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// failingCases returns the failing and erroring cases, errors before
// failures, otherwise in the report's (worst-first) order.
func failingCases(r *schema.Report) []*schema.CaseReport {
	var out []*schema.CaseReport
	var scratch schema.CaseReport
	for i := range r.NumCases() {
		if c := r.CaseAt(i, &scratch); c.Outcome >= schema.Fail {
			if c == &scratch { // the listing's scratch: the next case overwrites it
				c = new(schema.CaseReport)
				*c = scratch
			}
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Outcome > out[j].Outcome })
	return out
}

// scope is one row of the case tables: the whole run, core / non-core, a
// split or a level.
type scope struct {
	Key   string // stable key to match a baseline's row
	Label string
	Node  *schema.Node
}

func caseScopes(m *schema.Metrics) []scope {
	if m == nil {
		return nil
	}
	out := []scope{{Key: "all", Label: "all", Node: &m.Node}}
	if m.Core != nil {
		out = append(out, scope{Key: "core", Label: "core", Node: m.Core})
	}
	if m.Noncore != nil {
		out = append(out, scope{Key: "noncore", Label: "non-core", Node: m.Noncore})
	}
	for _, k := range sortedKeys(m.Split) {
		if m.Split[k] != nil {
			out = append(out, scope{Key: "split\x00" + k, Label: "split " + oneLine(k), Node: m.Split[k]})
		}
	}
	for _, k := range sortedKeys(m.Level) {
		if m.Level[k] != nil {
			out = append(out, scope{Key: "level\x00" + k, Label: "level " + oneLine(k), Node: m.Level[k]})
		}
	}
	return out
}

// baselineAccuracy finds the accuracy of the same scope in a baseline.
func baselineAccuracy(base *schema.Report, key string) *float64 {
	if base == nil || base.Metrics == nil {
		return nil
	}
	for _, s := range caseScopes(base.Metrics) {
		if s.Key == key {
			return ratioValue(&s.Node.Accuracy)
		}
	}
	return nil
}

// groupKind is "template" unless the group says otherwise.
func groupKind(g schema.Group) string {
	if k := oneLine(g.Kind); k != "" {
		return k
	}
	return "template"
}

// latencyBuckets lists a latency subtree's buckets in the canonical order,
// then any others in natural order.
func latencyBuckets(l *schema.Latency) []string {
	if l == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, b := range schema.LatencyBuckets {
		if l.Bucket[b] != nil {
			out = append(out, b)
			seen[b] = true
		}
	}
	for _, b := range sortedKeys(l.Bucket) {
		if !seen[b] && l.Bucket[b] != nil {
			out = append(out, b)
		}
	}
	return out
}

// dimensionValues lists a dimension's per-value entries worst first (lowest
// F1, then lowest recall), ties by name, so capped lists show what matters.
func dimensionValues(d *schema.Dimension) []string {
	keys := sortedKeys(d.Values)
	score := func(k string) float64 {
		v := d.Values[k]
		if v == nil {
			return 2
		}
		for _, r := range []*schema.Ratio{v.F1, v.Recall, v.Accuracy} {
			if x := ratioValue(r); x != nil {
				return *x
			}
		}
		return 2
	}
	sort.SliceStable(keys, func(i, j int) bool { return score(keys[i]) < score(keys[j]) })
	return keys
}

// labelSummaryRows are the summary rows of a label dimension: metric name
// and value.
func labelSummaryRows(l *schema.Label) [][]string {
	rows := [][]string{
		{"accuracy", fmtRatioCI(l.Accuracy)},
		{"macro precision", fmtMean(l.MacroPrecision) + fmtCI(l.MacroPrecision)},
		{"macro recall", fmtMean(l.MacroRecall) + fmtCI(l.MacroRecall)},
		{"macro F1", fmtMean(l.MacroF1) + fmtCI(l.MacroF1)},
		{"micro F1", fmtRatioCI(l.MicroF1)},
		{"weighted F1", fmtRatioCI(l.WeightedF1)},
	}
	if l.K > 0 {
		rows = append(rows,
			[]string{fmt.Sprintf("top-%d accuracy", l.K), fmtRatioCI(l.TopKAccuracy)},
			[]string{"recognition rate (exact + fuzzy)", fmtRatioCI(l.RecognitionRate)})
	}
	return rows
}

// isBound reports the address of a bound of a metric's interval, as a
// threshold reads it: metrics.accuracy.ci_low.
func isBound(addr string) bool {
	return strings.HasSuffix(addr, ".ci_low") || strings.HasSuffix(addr, ".ci_high")
}

// isMacro reports a macro average's address: its denominator counts
// labels, not cases, so it is shown as "mean of N labels".
func isMacro(addr string) bool { return strings.Contains(addr, ".macro_") }
