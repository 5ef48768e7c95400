package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/nlutest/nlutest/schema"
)

// Run is one finished run as a history keeps it.
type Run struct {
	Suite  string `json:"suite"`
	Target string `json:"target"`
	// ID is the run's id (report.json's run.id): adding a run of the same
	// id again replaces it.
	ID string `json:"id"`
	// Label names the run for people (a version, a build); Commit is the
	// commit it tested.
	Label    string    `json:"label,omitempty"`
	Commit   string    `json:"commit,omitempty"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Added    time.Time `json:"added"`
	// Verdict is the run's verdict: pass or fail.
	Verdict    string      `json:"verdict"`
	Thresholds []Threshold `json:"thresholds,omitempty"`
	// Intervals are the settings of the metrics' intervals (confidence,
	// resamples, seed): with the num and den of each ratio, enough to
	// recompute a Wilson interval and to read a bootstrap one.
	Intervals *schema.Intervals `json:"intervals,omitempty"`
	// Metrics is the metrics tree as report.json wrote it.
	Metrics json.RawMessage `json:"metrics"`
	// Number numbers the run in its series when read, 1 for the oldest.
	Number int `json:"-"`
}

// Threshold is what a history keeps of a threshold's result: the
// metrics it read, so `history show` knows which metrics are gated.
type Threshold struct {
	Name     string   `json:"name"`
	Severity string   `json:"severity,omitempty"`
	Outcome  string   `json:"outcome"`
	Metrics  []string `json:"metrics,omitempty"`
}

// When is the time the run is ordered by: when it finished (when it
// started, or was added, for a report without that time).
func (r *Run) When() time.Time {
	switch {
	case !r.Finished.IsZero():
		return r.Finished
	case !r.Started.IsZero():
		return r.Started
	}
	return r.Added
}

// Name is how reports name the run: its label, else its id.
func (r *Run) Name() string {
	if r.Label != "" {
		return r.Label
	}
	return r.ID
}

// reportHead is what FromReport reads of a report.json.
type reportHead struct {
	Tool  string `json:"tool"`
	Suite struct {
		Name string `json:"name"`
	} `json:"suite"`
	Run struct {
		ID          string    `json:"id"`
		Target      string    `json:"target"`
		Started     time.Time `json:"started"`
		Finished    time.Time `json:"finished"`
		Interrupted bool      `json:"interrupted"`
	} `json:"run"`
	Verdict struct {
		Outcome string `json:"outcome"`
	} `json:"verdict"`
	Thresholds []struct {
		Name     string `json:"name"`
		Severity string `json:"severity"`
		Outcome  string `json:"outcome"`
		Observed []struct {
			Name string `json:"name"`
		} `json:"observed"`
	} `json:"thresholds"`
	Intervals *schema.Intervals `json:"intervals"`
	Metrics   json.RawMessage   `json:"metrics"`
}

// FromReport makes the record of the run whose report.json (at path, for
// messages) holds b.
func FromReport(b []byte, path string) (*Run, error) {
	var h reportHead
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("%s is not an nlutest report: %w", path, err)
	}
	switch {
	case h.Tool != "nlutest" || h.Run.ID == "" || h.Suite.Name == "":
		return nil, fmt.Errorf("%s is not an nlutest run report (no tool, run id or suite name)", path)
	case h.Run.Interrupted:
		return nil, fmt.Errorf("%s is the report of an interrupted run, whose metrics cover only the cases that finished: finish it with nlutest run --resume, then record it", path)
	case len(h.Metrics) == 0 || string(h.Metrics) == "null":
		return nil, fmt.Errorf("%s has no metrics", path)
	}
	r := &Run{
		Suite: h.Suite.Name, Target: h.Run.Target, ID: h.Run.ID, Started: h.Run.Started, Finished: h.Run.Finished,
		Verdict: h.Verdict.Outcome, Intervals: h.Intervals, Metrics: h.Metrics,
	}
	for _, t := range h.Thresholds {
		th := Threshold{Name: t.Name, Severity: t.Severity, Outcome: t.Outcome}
		for _, o := range t.Observed {
			th.Metrics = append(th.Metrics, o.Name)
		}
		r.Thresholds = append(r.Thresholds, th)
	}
	return r, nil
}

// Point is the run's value and interval of the metric at addr
// (ParseAddress); a run without the metric has a nil Value.
func (r *Run) Point(addr []string) schema.HistoryPoint {
	p := schema.HistoryPoint{Run: r.Number, ID: r.ID, Label: r.Label, Commit: r.Commit, Time: r.When()}
	if r.Intervals != nil {
		p.Confidence = r.Intervals.Confidence
	}
	raw := r.Metrics
	for _, step := range addr {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return p
		}
		var ok bool
		if raw, ok = obj[step]; !ok {
			return p
		}
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		p.Value = &f
		return p
	}
	var ratio struct {
		Value  *float64 `json:"value"`
		CILow  *float64 `json:"ci_low"`
		CIHigh *float64 `json:"ci_high"`
	}
	if json.Unmarshal(raw, &ratio) == nil {
		p.Value, p.CILow, p.CIHigh = ratio.Value, ratio.CILow, ratio.CIHigh
	}
	return p
}

// ParseAddress splits a metric's address as conditions and reports
// write it — metrics.split.smoke.accuracy, metrics.split["smoke"].accuracy,
// metrics.scene["出行/天气"].accuracy — into the member names of
// report.json's metrics tree after "metrics" (split, smoke, accuracy).
// An address ending in .ci_low or .ci_high names its metric's bound: the
// metric's steps are returned with bound "ci_low" or "ci_high".
func ParseAddress(s string) (steps []string, bound string, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "metrics")
	if !ok {
		return nil, "", fmt.Errorf("%q is not a metric's address: it starts with metrics. (metrics.accuracy, metrics.split.smoke.accuracy)", s)
	}
	for rest != "" {
		var step string
		switch rest[0] {
		case '.':
			n := identLen(rest[1:])
			if n == 0 {
				return nil, "", fmt.Errorf("%q: a name must follow the dot at %q", s, rest)
			}
			step, rest = rest[1:1+n], rest[1+n:]
		case '[':
			end := closingBracket(rest)
			if end < 0 {
				return nil, "", fmt.Errorf("%q: %q is not a quoted key in brackets", s, rest)
			}
			key, err := strconv.Unquote(rest[1:end])
			if err != nil {
				return nil, "", fmt.Errorf("%q: %s is not a quoted key", s, rest[1:end])
			}
			step, rest = key, rest[end+1:]
		default:
			return nil, "", fmt.Errorf("%q: unexpected %q after %q", s, rest, strings.TrimSuffix(s, rest))
		}
		steps = append(steps, step)
	}
	if len(steps) == 0 {
		return nil, "", errors.New("the address names no metric: write metrics.accuracy, metrics.split.smoke.accuracy…")
	}
	if last := steps[len(steps)-1]; len(steps) > 1 && (last == "ci_low" || last == "ci_high") {
		return steps[:len(steps)-1], last, nil
	}
	return steps, "", nil
}

// identLen is the length of the identifier (HCL's: letters, digits, _
// and -, any non-ASCII letter) that s starts with.
func identLen(s string) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !(r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)) {
			break
		}
		n += size
	}
	return n
}

// closingBracket is the index of the ] closing the quoted key s starts
// with ("[\"…\"]"), or -1.
func closingBracket(s string) int {
	if len(s) < 4 || s[1] != '"' {
		return -1
	}
	for i := 2; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			if i+1 < len(s) && s[i+1] == ']' {
				return i + 1
			}
			return -1
		}
	}
	return -1
}
