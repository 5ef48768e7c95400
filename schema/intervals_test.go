package schema

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// A ratio with an interval writes ci_low and ci_high after its value,
// rounded as the value; one without writes neither; both read back, and
// a report written before intervals existed reads as ratios without one.
func TestRatioIntervalJSON(t *testing.T) {
	r := R(21, 30)
	r.SetCI(0.5212421254128503, 0.833352517317562) // statsmodels' Wilson interval of 21/30
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"value":0.7,"num":21,"den":30,"ci_low":0.521242125,"ci_high":0.833352517}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	var back Ratio
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if lo, hi, ok := back.CI(); !ok || lo != 0.521242125 || hi != 0.833352517 || back.Num != 21 || back.Den != 30 {
		t.Errorf("read back %+v", back)
	}
	b, _ = json.Marshal(R(3, 4))
	if want := `{"value":0.75,"num":3,"den":4}`; string(b) != want {
		t.Errorf("without an interval: %s, want %s", b, want)
	}
	var old Ratio
	if err := json.Unmarshal([]byte(`{"value":0.75,"num":3,"den":4}`), &old); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := old.CI(); ok || old != R(3, 4) {
		t.Errorf("an old ratio reads as %+v", old)
	}
	// An undefined bound leaves no interval, never a NaN in the JSON.
	for _, c := range [][2]float64{{math.NaN(), 1}, {0, math.Inf(1)}, {0.6, 0.5}} {
		r := R(1, 2)
		r.SetCI(c[0], c[1])
		if _, _, ok := r.CI(); ok {
			t.Errorf("SetCI(%v, %v) kept an interval", c[0], c[1])
		}
		if _, err := json.Marshal(r); err != nil {
			t.Error(err)
		}
	}
}

// ReadMetrics exposes the intervals as Metric.CILow and CIHigh, from a
// report in memory and from one read back from JSON (where families are
// raw JSON); a report without intervals reads with nil bounds.
func TestReadMetricsIntervals(t *testing.T) {
	acc := R(21, 30)
	acc.SetCI(0.52, 0.83)
	turn := R(5, 8)
	turn.SetCI(0.3, 0.9)
	m := &Metrics{Node: Node{Total: 30, Passed: 21, Failed: 9, Accuracy: acc, ErrorRate: R(0, 30),
		Families: map[string]any{"dialogue": &Dialogue{Conversations: 3, TurnAccuracy: turn, TaskCompletion: R(1, 3)}}}}
	check := func(name string, m *Metrics) {
		t.Helper()
		got := map[string][2]float64{}
		var walk func(o *Obj)
		walk = func(o *Obj) {
			for _, mt := range o.Metrics {
				if (mt.CILow == nil) != (mt.CIHigh == nil) {
					t.Errorf("%s: %s has one bound", name, mt.Addr)
				}
				if mt.CILow != nil {
					got[mt.Addr] = [2]float64{*mt.CILow, *mt.CIHigh}
				}
			}
			for _, c := range o.Children {
				if c.Obj != nil {
					walk(c.Obj)
				}
				for _, e := range c.Entries {
					walk(e)
				}
			}
		}
		walk(DefaultTree().ReadMetrics(m))
		want := map[string][2]float64{"metrics.accuracy": {0.52, 0.83}, "metrics.dialogue.turn_accuracy": {0.3, 0.9}}
		if len(got) != len(want) || got["metrics.accuracy"] != want["metrics.accuracy"] || got["metrics.dialogue.turn_accuracy"] != want["metrics.dialogue.turn_accuracy"] {
			t.Errorf("%s: intervals %v, want %v", name, got, want)
		}
	}
	check("in memory", m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Metrics
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	check("read back", &back)

	old := strings.NewReplacer(`,"ci_low":0.52,"ci_high":0.83`, "", `,"ci_low":0.3,"ci_high":0.9`, "").Replace(string(b))
	if old == string(b) {
		t.Fatal("the test's JSON has no interval to remove")
	}
	var oldM Metrics
	if err := json.Unmarshal([]byte(old), &oldM); err != nil {
		t.Fatal(err)
	}
	for _, mt := range DefaultTree().ReadMetrics(&oldM).Metrics {
		if mt.CILow != nil || mt.CIHigh != nil {
			t.Errorf("an old report's %s has an interval", mt.Addr)
		}
		if mt.Name == "accuracy" && (mt.Value == nil || *mt.Value != 0.7) {
			t.Errorf("an old report's accuracy reads %v", mt.Value)
		}
	}
}

// NodeRatios reaches every ratio of a filled node for writing, with its
// attribute: the built-in fields, pointer fields, keyed entries and
// families' values.
func TestNodeRatiosWritesEveryRatio(t *testing.T) {
	p, rc := R(1, 2), R(1, 3)
	n := &Node{Total: 4, Accuracy: R(3, 4), ErrorRate: R(0, 4),
		Dimension: map[string]*Dimension{"城市": {Kind: KindLeaf, Precision: &p, Recall: &rc}},
		Label:     map[string]*Label{"intent": {Total: 4, Accuracy: R(3, 4), Labels: map[string]*LabelStats{"订机票": {Precision: R(1, 1)}}}},
		Families:  map[string]any{"dialogue": &Dialogue{TurnAccuracy: R(5, 8), Turn: map[string]*TurnStats{"1": {Accuracy: R(2, 3)}}}},
	}
	seen := map[string]CIMethod{}
	DefaultTree().NodeRatios(n, `metrics.split["smoke"]`, func(addr string, a Attr, r *Ratio) {
		seen[addr] = a.CI
		r.SetCI(0.1, 0.9)
	})
	for addr, m := range map[string]CIMethod{
		`metrics.split["smoke"].accuracy`:                             CIWilson,
		`metrics.split["smoke"].dimension.城市.precision`:               CIBootstrap,
		`metrics.split["smoke"].dimension.城市.recall`:                  CIBootstrap,
		`metrics.split["smoke"].label.intent.macro_f1`:                CIBootstrap,
		`metrics.split["smoke"].label.intent.labels["订机票"].precision`: CIWilson,
		`metrics.split["smoke"].dialogue.turn_accuracy`:               CIBootstrap,
		`metrics.split["smoke"].dialogue.turn["1"].accuracy`:          CIWilson,
	} {
		got, ok := seen[addr]
		if !ok || got != m {
			t.Errorf("%s: seen %v with %q, want %q", addr, ok, got, m)
		}
	}
	if _, _, ok := n.Accuracy.CI(); !ok {
		t.Error("the node's accuracy was not written")
	}
	if _, _, ok := n.Families["dialogue"].(*Dialogue).Turn["1"].Accuracy.CI(); !ok {
		t.Error("a family's keyed entry was not written")
	}
	if _, _, ok := n.Dimension["城市"].Precision.CI(); !ok {
		t.Error("a pointer ratio was not written")
	}
}
