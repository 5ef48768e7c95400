package schema

import (
	"encoding/json"
	"iter"
	"math"
	"sync"
	"time"
)

// Ratio is a metric kept as its numerator and denominator, so every report
// can show where a figure came from (the IAO corpus-factory write-up: "show each numerator and
// denominator"). Averages are ratios too: a macro F1 is the sum of per-label
// F1 over the number of labels.
//
// A ratio may carry a confidence interval (docs/statistics.md): CILow and
// CIHigh, set together with HasCI by SetCI. The metrics tree's descriptor
// says which ratios have one and how it is computed (Attr.CI); the
// settings (confidence, resamples, seed) are the report's Intervals. A
// ratio without data, or whose interval is undefined, has none.
type Ratio struct {
	Num float64
	Den float64
	// CILow and CIHigh bound the interval when HasCI is set.
	CILow, CIHigh float64
	HasCI         bool
}

// R builds a ratio from integer counts.
func R(num, den int) Ratio { return Ratio{Num: float64(num), Den: float64(den)} }

// Value returns Num/Den, and false when the denominator is zero (no data).
func (r Ratio) Value() (float64, bool) {
	if r.Den == 0 {
		return 0, false
	}
	return r.Num / r.Den, true
}

// CI returns the ratio's confidence interval, and false when it has none.
func (r Ratio) CI() (lo, hi float64, ok bool) {
	if !r.HasCI {
		return 0, 0, false
	}
	return r.CILow, r.CIHigh, true
}

// SetCI sets the ratio's interval to [lo, hi]; a bound that is NaN or
// infinite, or lo > hi, leaves the ratio without one.
func (r *Ratio) SetCI(lo, hi float64) {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo > hi {
		r.CILow, r.CIHigh, r.HasCI = 0, 0, false
		return
	}
	r.CILow, r.CIHigh, r.HasCI = lo, hi, true
}

type ratioJSON struct {
	Value  *float64 `json:"value"`
	Num    float64  `json:"num"`
	Den    float64  `json:"den"`
	CILow  *float64 `json:"ci_low,omitempty"`
	CIHigh *float64 `json:"ci_high,omitempty"`
}

// MarshalJSON writes {"value": v|null, "num": n, "den": d}, followed by
// "ci_low" and "ci_high" when the ratio has an interval (rounded to nine
// decimals, as the value).
func (r Ratio) MarshalJSON() ([]byte, error) {
	out := ratioJSON{Num: round9(r.Num), Den: round9(r.Den)}
	if v, ok := r.Value(); ok {
		v = round9(v)
		out.Value = &v
	}
	if lo, hi, ok := r.CI(); ok {
		lo, hi = round9(lo), round9(hi)
		out.CILow, out.CIHigh = &lo, &hi
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes; a report written before
// intervals existed (no ci_low, ci_high) reads as ratios without one.
func (r *Ratio) UnmarshalJSON(b []byte) error {
	var in ratioJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*r = Ratio{Num: in.Num, Den: in.Den}
	if in.CILow != nil && in.CIHigh != nil {
		r.SetCI(*in.CILow, *in.CIHigh)
	}
	return nil
}

func round9(f float64) float64 { return math.Round(f*1e9) / 1e9 }

// Node is one node of the metrics tree. Every node has the same shape, so a
// threshold on a split reads like one on the whole run (SPEC §8). Subtrees a
// suite cannot produce are nil and absent from JSON and from `metrics`.
type Node struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Errored int `json:"errored"`
	// Accuracy is passed / (total − errored).
	Accuracy Ratio `json:"accuracy"`
	// ErrorRate is errored / total.
	ErrorRate Ratio                 `json:"error_rate"`
	Dimension map[string]*Dimension `json:"dimension,omitempty"`
	Label     map[string]*Label     `json:"label,omitempty"`
	Latency   *Latency              `json:"latency,omitempty"`
	// Families holds the values of metric families registered beyond the
	// built-in ones (schema.MetricsTree), by family name; the report JSON
	// writes each as a member of the node.
	Families map[string]any `json:"-"`
}

// Dimension kinds (SPEC §6).
const (
	KindLeaf  = "leaf"
	KindItems = "items"
	KindLabel = "label"
	KindCase  = "case"
)

// Dimension holds the metrics of one schema dimension. Leaf and items
// dimensions fill the counting fields; case dimensions fill Total, Correct
// and Accuracy.
type Dimension struct {
	Kind       string `json:"kind"`
	Expected   int    `json:"expected,omitempty"`
	Recognized int    `json:"recognized,omitempty"`
	Correct    int    `json:"correct"`
	Wrong      int    `json:"wrong,omitempty"`
	// Precision = correct / recognized.
	Precision *Ratio `json:"precision,omitempty"`
	// Recall = correct / expected.
	Recall *Ratio `json:"recall,omitempty"`
	// ErrorRate = wrong / recognized.
	ErrorRate *Ratio `json:"error_rate,omitempty"`
	// F1 = 2·correct / (expected + recognized).
	F1 *Ratio `json:"f1,omitempty"`
	// Total and Accuracy are set for case dimensions.
	Total    int    `json:"total,omitempty"`
	Accuracy *Ratio `json:"accuracy,omitempty"`
	// Values breaks a leaf or items dimension down per value
	// (ontology `Person`, relation `酒店同房间同宿`).
	Values map[string]*Dimension `json:"values,omitempty"`
	// Support is set on a per-type entry: the expected units of the type.
	Support int `json:"support,omitempty"`
	// OutOfScope counts recognised items of types outside the dimension's
	// declared scope (not compared, not charged).
	OutOfScope *int `json:"out_of_scope,omitempty"`
	// The averages over Types (typed items dimensions: entities), as
	// seqeval's classification_report: macro = unweighted mean, weighted
	// = mean weighted by support; micro are Precision, Recall and F1.
	MacroPrecision    *Ratio `json:"macro_precision,omitempty"`
	MacroRecall       *Ratio `json:"macro_recall,omitempty"`
	MacroF1           *Ratio `json:"macro_f1,omitempty"`
	WeightedPrecision *Ratio `json:"weighted_precision,omitempty"`
	WeightedRecall    *Ratio `json:"weighted_recall,omitempty"`
	WeightedF1        *Ratio `json:"weighted_f1,omitempty"`
	// Types breaks a typed items dimension down per type (entity "city").
	Types map[string]*Dimension `json:"types,omitempty"`
}

// Label holds classification metrics of a label dimension (intent, domain).
type Label struct {
	Total          int   `json:"total"`
	Accuracy       Ratio `json:"accuracy"`
	MacroPrecision Ratio `json:"macro_precision"`
	MacroRecall    Ratio `json:"macro_recall"`
	MacroF1        Ratio `json:"macro_f1"`
	MicroF1        Ratio `json:"micro_f1"`
	WeightedF1     Ratio `json:"weighted_f1"`
	// K is the k of TopKAccuracy; zero when the schema gives no ranking.
	K            int   `json:"k,omitempty"`
	TopKAccuracy Ratio `json:"top_k_accuracy"`
	// RecognitionRate is YD/T 4394.2-2023's (exact + fuzzy) / total, fuzzy being
	// the expected label within the top k.
	RecognitionRate Ratio                  `json:"recognition_rate"`
	Labels          map[string]*LabelStats `json:"labels"`
	Confusion       *Confusion             `json:"confusion,omitempty"`
}

// LabelStats are the per-label figures of a classification report.
type LabelStats struct {
	Precision Ratio `json:"precision"`
	Recall    Ratio `json:"recall"`
	F1        Ratio `json:"f1"`
	Support   int   `json:"support"`
}

// Confusion is a confusion matrix: Counts[i][j] counts cases whose expected
// label is Labels[i] and predicted label is Labels[j].
type Confusion struct {
	Labels []string `json:"labels"`
	Counts [][]int  `json:"counts"`
}

// LatencyStats summarises call latencies in milliseconds.
type LatencyStats struct {
	Count  int     `json:"count"`
	MeanMS float64 `json:"mean_ms"`
	P50MS  float64 `json:"p50_ms"`
	P90MS  float64 `json:"p90_ms"`
	P95MS  float64 `json:"p95_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
}

// Latency is the latency subtree: overall and per input-length bucket
// (YD/T 4394.2-2023: ≤20, 21–50, 51–100, 101–200, >200 characters or words).
type Latency struct {
	LatencyStats
	Bucket map[string]*LatencyStats `json:"bucket,omitempty"`
	// Approximate is set when the percentiles come from a histogram (more
	// calls than are kept one by one): it states their bound, and every
	// report using them prints it. Empty: percentiles are exact.
	Approximate string `json:"approximate,omitempty"`
}

// LatencyBuckets lists the bucket names in order.
var LatencyBuckets = []string{"<=20", "21-50", "51-100", "101-200", ">200"}

// Metrics is the root of the metrics tree: a node for the whole run plus the
// same node per split, template level, scene path prefix ("A/B"), core and
// non-core cases, and template.
type Metrics struct {
	Node
	Split    map[string]*Node `json:"split,omitempty"`
	Level    map[string]*Node `json:"level,omitempty"`
	Scene    map[string]*Node `json:"scene,omitempty"`
	Core     *Node            `json:"core,omitempty"`
	Noncore  *Node            `json:"noncore,omitempty"`
	Template map[string]*Node `json:"template,omitempty"`
	// Sources holds the nodes of sources of kinds registered with
	// MetricsTree.RegisterSourceKind, by kind, then source name; the
	// report JSON writes each kind as a member (metrics.dataset).
	Sources map[string]map[string]*Node `json:"-"`
}

// Observed is the value of one metric a threshold condition used.
type Observed struct {
	// Name is the metric's address, e.g. "metrics.split.smoke.accuracy".
	Name string `json:"name"`
	// Value is the metric's value; nil when it has no data.
	Value *float64 `json:"value"`
	// Num and Den are the ratio behind the value, when it is one.
	Num *float64 `json:"num,omitempty"`
	Den *float64 `json:"den,omitempty"`
	// CILow and CIHigh are the metric's confidence interval, when it has
	// one (a condition reading metrics.X.ci_low is observed under that
	// name, its value the bound, and carries no interval of its own).
	CILow  *float64 `json:"ci_low,omitempty"`
	CIHigh *float64 `json:"ci_high,omitempty"`
}

// ThresholdResult is the evaluation of one threshold block.
type ThresholdResult struct {
	Name      string     `json:"name"`
	Condition string     `json:"condition"`
	Message   string     `json:"message,omitempty"`
	Severity  string     `json:"severity"`
	Outcome   Outcome    `json:"outcome"`
	Observed  []Observed `json:"observed,omitempty"`
	// Error explains an outcome of error (a metric with no data, say).
	Error string `json:"error,omitempty"`
	File  string `json:"file,omitempty"`
	Line  int    `json:"line,omitempty"`
	// History holds the series of each metric the threshold watches, from
	// the history file a run or eval was given (--history), with the drift
	// gate's answer when the threshold has a history block; a threshold
	// with a history block run without a file carries the drift's "no
	// data" here. Nil otherwise.
	History []MetricHistory `json:"history,omitempty"`
}

// DriftFailed reports whether the drift gate failed for one of the
// threshold's metrics.
func (t *ThresholdResult) DriftFailed() bool {
	for _, h := range t.History {
		if h.Drift != nil && h.Drift.Outcome == DriftFail {
			return true
		}
	}
	return false
}

// Group summarises the cases of one template, dataset or conversation.
type Group struct {
	Kind    string  `json:"kind"`
	Name    string  `json:"name"`
	File    string  `json:"file,omitempty"`
	Line    int     `json:"line,omitempty"`
	Outcome Outcome `json:"outcome"`
	Total   int     `json:"total"`
	Passed  int     `json:"passed"`
	Failed  int     `json:"failed"`
	Errored int     `json:"errored"`
	// Seconds is the summed call time of the group's cases.
	Seconds float64 `json:"seconds"`
	// Unreviewed marks templates whose expectations are drafts.
	Unreviewed bool `json:"unreviewed,omitempty"`
}

// CaseReport is the per-case outcome carried by a report.
type CaseReport struct {
	ID       string `json:"id"`
	Template string `json:"template"`
	// Source and SourceKind name the case's source when it is not a
	// template (a template case's source is Template).
	Source     string `json:"source,omitempty"`
	SourceKind string `json:"source_kind,omitempty"`
	// Scene is the case's business scene path, outermost first (the HTML
	// report filters failing cases by it).
	Scene     []string `json:"scene,omitempty"`
	Text      string   `json:"text"`
	Outcome   Outcome  `json:"outcome"`
	LatencyMS float64  `json:"latency_ms"`
	// Cached is true when the response came from the response cache
	// (--cache): its latency is an earlier call's.
	Cached   bool            `json:"cached,omitempty"`
	Error    *CallError      `json:"error,omitempty"`
	Failures []Failure       `json:"failures,omitempty"`
	File     string          `json:"file,omitempty"`
	Line     int             `json:"line,omitempty"`
	Request  *Request        `json:"request,omitempty"`
	Response string          `json:"response,omitempty"`
	Slots    map[string]Slot `json:"slots,omitempty"`
	// Script, Turn, Conversation and Repeat place a turn of a
	// conversation (see Case); Turns is the number of turns of its
	// conversation, Reply the bot's reply. Every turn of a conversation
	// keeps its response, so reports can show the transcript.
	Script       string `json:"script,omitempty"`
	Turn         int    `json:"turn,omitempty"`
	Turns        int    `json:"turns,omitempty"`
	Conversation string `json:"conversation,omitempty"`
	Repeat       int    `json:"repeat,omitempty"`
	Reply        string `json:"reply,omitempty"`
	// Event is "start" on a bot-first turn (no user message).
	Event string `json:"event,omitempty"`
	// Rubrics are the case's rubric verdicts, without the judge calls.
	Rubrics []RubricVerdict `json:"rubrics,omitempty"`
	// Reason is why a scenario's simulated user said this turn
	// (Case.Reason); Goal, on a scenario's first turn, is the instance's
	// goal (the inform slots with their values, the requests).
	Reason string `json:"reason,omitempty"`
	Goal   string `json:"goal,omitempty"`
}

// Bare reports whether cr holds nothing but what every listed case has:
// id, template, scene, text, outcome, latency, cached mark, file and
// line. The collector keeps such a case in a compact entry and report.json
// writes it without reflection, so a member added to CaseReport must be
// added here (assert's TestCompactableSeesEveryField and reporters'
// TestLeanCaseChecksEveryOtherField fail until it is).
func (cr *CaseReport) Bare() bool {
	return cr.Source == "" && cr.SourceKind == "" && cr.Error == nil && cr.Failures == nil && cr.Request == nil &&
		cr.Response == "" && cr.Slots == nil && cr.Script == "" && cr.Turn == 0 && cr.Turns == 0 &&
		cr.Conversation == "" && cr.Repeat == 0 && cr.Reply == "" && cr.Event == "" && cr.Rubrics == nil &&
		cr.Reason == "" && cr.Goal == ""
}

// SuiteInfo identifies the suite a report is about.
type SuiteInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Schema      string   `json:"schema,omitempty"`
	Dir         string   `json:"dir"`
	Files       []string `json:"files"`
}

// RunInfo describes the run a report is about.
type RunInfo struct {
	ID          string    `json:"id"`
	Dir         string    `json:"dir,omitempty"`
	Target      string    `json:"target"`
	Split       string    `json:"split,omitempty"`
	Filter      string    `json:"filter,omitempty"`
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished"`
	Seconds     float64   `json:"seconds"`
	Interrupted bool      `json:"interrupted,omitempty"`
	// Cached is the number of results answered from the response cache
	// (--cache) rather than by a call; the verdict line says so.
	Cached int `json:"cached,omitempty"`
	// ErrorBudget is the share of errored calls the target allows.
	ErrorBudget float64 `json:"error_budget"`
}

// Verdict is the one answer a release manager reads.
type Verdict struct {
	// Outcome is pass or fail.
	Outcome Outcome `json:"outcome"`
	// ByThresholds is true when thresholds of severity error decided the
	// verdict; false when every case had to pass.
	ByThresholds bool `json:"by_thresholds"`
	// Reasons lists why the verdict is fail, one sentence each.
	Reasons []string `json:"reasons,omitempty"`
}

// MaxReportCases caps the passing cases, and separately the failing and
// erroring ones, that a report lists one by one.
const MaxReportCases = 100_000

// Report is a finished run: everything the reporters render.
type Report struct {
	// Tree describes the metrics tree of the run (its families and
	// source groups); never written. Nil for a report read back from
	// JSON until its reader sets it: Descriptor then gives the built-in
	// tree.
	Tree       *Tree             `json:"-"`
	Tool       string            `json:"tool"`
	Version    string            `json:"version"`
	Suite      SuiteInfo         `json:"suite"`
	Run        RunInfo           `json:"run"`
	Verdict    Verdict           `json:"verdict"`
	Thresholds []ThresholdResult `json:"thresholds"`
	// Intervals gives the settings of the metrics' confidence intervals,
	// once for the report; nil in a report without intervals (one
	// written before they existed).
	Intervals *Intervals `json:"intervals,omitempty"`
	Metrics   *Metrics   `json:"metrics"`
	Groups    []Group    `json:"groups"`
	// Cases holds the cases, failing and erroring ones first (worst
	// first), then passing ones. A run keeps at most MaxReportCases of each
	// (so memory stays flat); CasesOmitted counts the rest, whose outcomes
	// are in the run's results.jsonl. Renderers cap what they show.
	//
	// A report a run or eval builds (assert.BuildReport) leaves Cases nil
	// and lists its cases through a CaseLister (SetListed) instead, the
	// collector's own entries, which ListedCases, CaseAt and NumCases read
	// without a CaseReport made per case; ExpandCases fills Cases from it
	// for code that reads Cases. A report read back from JSON, or built by
	// hand, has Cases, which those methods read then.
	Cases []CaseReport `json:"cases"`
	// CasesOmitted counts cases left out of Cases by the cap.
	CasesOmitted int      `json:"cases_omitted,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`

	listed CaseLister
}

// CaseLister lists a report's cases, in the report's order, from wherever
// their builder keeps them (assert's collector keeps most passing cases in
// a compact entry, not as a CaseReport). Its methods are safe to call from
// several goroutines at once, and the cases it lists never change.
type CaseLister interface {
	// Len is the number of cases listed.
	Len() int
	// Case returns case i: either a report the lister keeps, which the
	// caller must not change, or dst, overwritten whole with the case.
	Case(i int, dst *CaseReport) *CaseReport
}

// SetListed makes l the report's listed cases, and Cases nil.
func (r *Report) SetListed(l CaseLister) {
	r.Cases, r.listed = nil, l
}

// NumCases returns the number of cases the report lists.
func (r *Report) NumCases() int {
	if r.listed != nil && r.Cases == nil {
		return r.listed.Len()
	}
	return len(r.Cases)
}

// CaseAt returns case i of the report's list (0 <= i < NumCases()): the
// report's own (&Cases[i], or one its lister keeps), or scratch filled
// with it. The caller changes neither, and copies what it keeps past its
// next use of scratch. Safe from several goroutines with a scratch each.
func (r *Report) CaseAt(i int, scratch *CaseReport) *CaseReport {
	if r.listed != nil && r.Cases == nil {
		return r.listed.Case(i, scratch)
	}
	return &r.Cases[i]
}

// ListedCases yields the report's cases in order, as CaseAt gives them:
// the case yielded must not be changed, and is valid only until the next
// one (the same value may be reused for it); copy it to keep it.
func (r *Report) ListedCases() iter.Seq[*CaseReport] {
	return func(yield func(*CaseReport) bool) {
		var scratch CaseReport
		for i, n := 0, r.NumCases(); i < n; i++ {
			if !yield(r.CaseAt(i, &scratch)) {
				return
			}
		}
	}
}

// ExpandCases fills Cases from the report's lister when it has one, for
// code that reads Cases (a renderer from outside this module, say).
func (r *Report) ExpandCases() {
	if r.listed == nil || r.Cases != nil {
		return
	}
	out := make([]CaseReport, r.listed.Len())
	for i := range out {
		if c := r.listed.Case(i, &out[i]); c != &out[i] {
			out[i] = *c
		}
	}
	r.Cases = out
}

// Descriptor returns the report's metrics-tree descriptor: Tree, or the
// built-in one (DefaultTree) when it has none.
func (r *Report) Descriptor() *Tree {
	if r.Tree != nil {
		return r.Tree
	}
	return defaultTree()
}

var defaultTree = sync.OnceValue(DefaultTree)
