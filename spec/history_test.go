package spec

import (
	"strings"
	"testing"
)

const historyHead = `suite "漂移" { schema = "rasa" }
materials "城市" { values = ["北京", "上海"] }
template "查天气" {
  text   = "{城市}天气"
  expect = { "$.intent.name" = "weather" }
}
split "冒烟" { fraction = 0.5 }
`

// TestThresholdHistoryBlock: a threshold's history block loads with its
// settings and defaults, watching the metric written, else every metric
// of the condition (a bound watches its metric), in the direction the
// condition compares it (>= higher, <= lower, either side), or as better
// says.
func TestThresholdHistoryBlock(t *testing.T) {
	for _, c := range []struct {
		name, block string
		want        []string // metric (better)
		window      int
		maxDrop     float64
	}{
		{"defaults", `condition = metrics.accuracy >= 0.8
  history {}`, []string{"metrics.accuracy (higher)"}, 10, 0},
		{"settings", `condition = metrics.accuracy.ci_low >= 0.8
  history {
    window   = 12
    max_drop = 0.02
  }`, []string{"metrics.accuracy (higher)"}, 12, 0.02},
		{"two metrics, two directions", `condition = metrics.split.冒烟.accuracy >= 0.8 && 0.1 >= metrics.error_rate.ci_high
  history { max_drop = 0.01 }`, []string{`metrics.split.冒烟.accuracy (higher)`, "metrics.error_rate (lower)"}, 10, 0.01},
		{"metric written", `condition = metrics.accuracy >= 0.8 && metrics.latency.p95_ms < 900
  history {
    metric = metrics.latency.p95_ms
    window = 5
  }`, []string{"metrics.latency.p95_ms (lower)"}, 5, 0},
		{"better written", `condition = abs(metrics.label.intent.macro_f1 - 0.9) < 0.2
  history {
    better = "higher"
    alpha  = 0.01
  }`, []string{"metrics.label.intent.macro_f1 (higher)"}, 10, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"s.nlutest.hcl": historyHead + "threshold \"t\" {\n  " + c.block + "\n}\n"})
			s, diags := testLoad(dir, Options{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			h := s.Thresholds[0].History
			if h == nil {
				t.Fatal("no history")
			}
			var got []string
			for _, w := range h.Watch {
				got = append(got, traversalText(w.Traversal)+" ("+w.Better+")")
			}
			if g, want := strings.Join(got, ", "), strings.Join(c.want, ", "); g != want {
				t.Errorf("watch %s; want %s", g, want)
			}
			if h.Window != c.window || h.MaxDrop != c.maxDrop || h.MinRuns != 3 {
				t.Errorf("window %d max_drop %g min_runs %d", h.Window, h.MaxDrop, h.MinRuns)
			}
		})
	}
}

// TestThresholdHistoryDiagnostics: a bad history block is an error at
// load, located at the attribute, saying what to write.
func TestThresholdHistoryDiagnostics(t *testing.T) {
	for _, c := range []struct {
		name, block, summary, at string
	}{
		{"window too small", `condition = metrics.accuracy >= 0.8
  history { window = 1 }`, "Value out of range", "1 }"},
		{"negative max_drop", `condition = metrics.accuracy >= 0.8
  history { max_drop = -0.1 }`, "Value out of range", "-0.1"},
		{"alpha", `condition = metrics.accuracy >= 0.8
  history { alpha = 0.9 }`, "Value out of range", "0.9 }"},
		{"min_runs beyond window", `condition = metrics.accuracy >= 0.8
  history {
    window   = 4
    min_runs = 6
  }`, "More runs needed than the window holds", "6"},
		{"bad better", `condition = metrics.accuracy >= 0.8
  history { better = "up" }`, "Unknown direction", `"up"`},
		{"metric not a reference", `condition = metrics.accuracy >= 0.8
  history { metric = "metrics.accuracy" }`, "Metric reference required", `"metrics.accuracy"`},
		{"metric misspelt", `condition = metrics.accuracy >= 0.8
  history { metric = metrics.acuracy }`, "Unknown metric", ".acuracy"},
		{"metric a node", `condition = metrics.accuracy >= 0.8
  history { metric = metrics.split.冒烟 }`, "Not a metric", "metrics.split"},
		{"direction unknown", `condition = metrics.accuracy != null
  history {}`, "Direction of the metric unknown", "history"},
		{"directions disagree", `condition = metrics.accuracy >= 0.5 && metrics.accuracy <= 0.99
  history {}`, "Direction of the metric unknown", "history"},
		{"attribute form", `condition = metrics.accuracy >= 0.8
  history = { window = 10 }`, "Unsupported argument", "history"},
		{"two blocks", `condition = metrics.accuracy >= 0.8
  history {}
  history {}`, "Duplicate history block", "history {}\n}"},
		{"unknown attribute", `condition = metrics.accuracy >= 0.8
  history { windows = 3 }`, "Unsupported argument", "windows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := historyHead + "threshold \"t\" {\n  " + c.block + "\n}\n"
			dir := writeFiles(t, map[string]string{"s.nlutest.hcl": src})
			_, diags := testLoad(dir, Options{})
			d := findDiag(diags, c.summary)
			if d == nil || d.Subject == nil {
				t.Fatalf("want %q, got %v", c.summary, diags)
			}
			at := strings.LastIndex(src, c.at)
			if c.name == "two blocks" {
				at = strings.LastIndex(src, "history {}")
			}
			if d.Subject.Start.Byte != at {
				t.Errorf("at byte %d (%d:%d); want %d: %v", d.Subject.Start.Byte, d.Subject.Start.Line, d.Subject.Start.Column, at, d)
			}
			if len(d.Detail) < 20 {
				t.Errorf("detail %q", d.Detail)
			}
		})
	}
}
