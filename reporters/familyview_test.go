package reporters

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// A family registered beyond the built-in ones ("turns", test-only) shows
// in the console and Markdown reports laid out from its descriptor alone:
// its metrics with num/den, and a keyed subtree as a table whose numeric
// keys sort as numbers.
var turnsFamily = &schema.Family{Name: "turns", Subs: []*schema.Sub{{
	Name: "turns", Doc: "per-turn figures (test-only family)",
	Shape: &schema.Shape{
		Attrs: []schema.Attr{
			{Name: "conversations", Kind: schema.MetricCount, Doc: "conversations run"},
			{Name: "completion", Kind: schema.MetricRatio, Doc: "completed / conversations"},
			{Name: "mean_ms", Kind: schema.MetricMillis, Doc: "mean turn latency"},
		},
		Subs: []*schema.Sub{{Name: "turn", Doc: "per turn index", Keyed: true, Shape: &schema.Shape{Attrs: []schema.Attr{
			{Name: "total", Kind: schema.MetricCount, Doc: "turns"},
			{Name: "accuracy", Kind: schema.MetricRatio, Doc: "passed / total"},
		}}}},
	},
}}}

// turnsTree is the built-in tree with the turns family added, as a report
// of a program with that family carries it (Report.Tree).
func turnsTree(t *testing.T) *schema.Tree {
	tree, err := schema.NewTree(append(schema.BuiltinFamilies(), turnsFamily))
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

type turnsValue struct {
	Conversations int                    `json:"conversations"`
	Completion    schema.Ratio           `json:"completion"`
	MeanMS        float64                `json:"mean_ms"`
	Turn          map[string]turnsByTurn `json:"turn"`
}

type turnsByTurn struct {
	Total    int          `json:"total"`
	Accuracy schema.Ratio `json:"accuracy"`
}

func turnsReport(t *testing.T, readBack bool) *schema.Report {
	r := iaoPass()
	r.Metrics.Families = map[string]any{"turns": &turnsValue{Conversations: 4, Completion: schema.R(3, 4), MeanMS: 12.34,
		Turn: map[string]turnsByTurn{"1": {4, schema.R(4, 4)}, "10": {1, schema.R(0, 1)}, "2": {4, schema.R(3, 4)}}}}
	r.Tree = turnsTree(t)
	if !readBack {
		return r
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back schema.Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	back.Tree = r.Tree
	return &back
}

func TestRegisteredFamilySection(t *testing.T) {
	for _, readBack := range []bool{false, true} {
		r := turnsReport(t, readBack)
		var con, md bytes.Buffer
		if err := Console(&con, r, Options{}); err != nil {
			t.Fatal(err)
		}
		if err := Markdown(&md, r, Options{}); err != nil {
			t.Fatal(err)
		}
		for name, out := range map[string]string{"console": con.String(), "markdown": md.String()} {
			for _, want := range []string{"Turns", "conversations", "0.750 (3/4)", "12.3", "1.000 (4/4)", "0.000 (0/1)"} {
				if !strings.Contains(out, want) {
					t.Errorf("read back %v: %s report lacks %q:\n%s", readBack, name, want, out)
				}
			}
			i1, i2, i10 := strings.Index(out, "1.000 (4/4)"), strings.Index(out, "0.750 (3/4) |"), strings.Index(out, "0.000 (0/1)")
			if name == "console" {
				i2 = strings.LastIndex(out, "0.750 (3/4)")
			}
			if !(i1 < i2 && i2 < i10) {
				t.Errorf("read back %v: %s report: turn rows not in numeric order (1, 2, 10):\n%s", readBack, name, out)
			}
		}
	}
}

// A report without the family's value has no section for it.
func TestRegisteredFamilyAbsent(t *testing.T) {
	var con bytes.Buffer
	if err := Console(&con, iaoPass(), Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(con.String(), "Turns") {
		t.Errorf("a report without the family shows it:\n%s", con.String())
	}
}

// The memory section charts the score by distance, in numeric order, with
// the number of questions behind each bar.
func TestMemoryChart(t *testing.T) {
	obj := map[string]any{"distance": map[string]any{
		"10": map[string]any{"questions": 4.0, "score": map[string]any{"value": 0.0}},
		"2":  map[string]any{"questions": 12.0, "score": map[string]any{"value": 0.25}},
		"0":  map[string]any{"questions": 12.0, "score": map[string]any{"value": 1.0}},
	}}
	cs := memoryCharts(obj)
	if len(cs) != 1 || cs[0].Kind != ChartBars || len(cs[0].Points) != 3 {
		t.Fatalf("charts %+v", cs)
	}
	var got []string
	for _, p := range cs[0].Points {
		got = append(got, fmt.Sprintf("%s=%g/%d", p.Label, p.Values[0], p.N))
	}
	if strings.Join(got, " ") != "0=1/12 2=0.25/12 10=0/4" {
		t.Errorf("points %v", got)
	}
}
