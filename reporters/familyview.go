package reporters

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// familySections shows the run's figures of every metric family
// registered beyond the built-in ones (dialogue, text, ranking…), laid out
// from the report's descriptor (schema.Report.Descriptor): one section per family with a
// table of its metrics and one table per subtree. A new family therefore
// appears in console, Markdown and HTML reports without a line here.
func familySections(r, _ *schema.Report) []Section {
	if r.Metrics == nil || len(r.Metrics.Families) == 0 {
		return nil
	}
	var out []Section
	for _, f := range r.Descriptor().Families {
		v, ok := r.Metrics.Families[f.Name]
		if !ok || len(f.Subs) != 1 || dedicatedSections[f.Name] {
			continue
		}
		obj, ok := genericValue(v).(map[string]any)
		if !ok {
			continue
		}
		sub := f.Subs[0]
		sec := Section{ID: "family-" + f.Name, Title: familyTitle(f.Name), Code: "metrics." + f.Name, Intro: sub.Doc}
		if sub.Keyed { // metrics.ratings["NAME"]: the tables of each entry
			for _, k := range orderedKeys(sub.Order, obj) {
				e, _ := obj[k].(map[string]any)
				name := fmt.Sprintf("metrics.%s[%q]", f.Name, k)
				ts := shapeTables(name, sub.Shape, e)
				if len(ts) > 0 && ts[0].Title == "" {
					ts[0].Title = name
				}
				sec.Tables = append(sec.Tables, ts...)
			}
		} else {
			sec.Tables = shapeTables("metrics."+f.Name, sub.Shape, obj)
		}
		if chart := familyCharts[f.Name]; chart != nil {
			sec.Charts = chart(obj)
		}
		if chart := reportCharts[f.Name]; chart != nil {
			sec.Charts = append(sec.Charts, chart(r)...)
		}
		if len(sec.Tables) > 0 {
			out = append(out, sec)
		}
	}
	return out
}

// familyCharts are the charts of a family's section beside its tables,
// by family name.
var familyCharts = map[string]func(obj map[string]any) []Chart{"memory": memoryCharts}

// reportCharts are charts of a family's section drawn from the whole
// report (a family's figures per source), by family name.
var reportCharts = map[string]func(r *schema.Report) []Chart{"scenario": scenarioCharts}

// scenarioCharts are the success rate and the turns to success (mean,
// p50, p90) of each scenario block (metrics.scenario_source[NAME].scenario),
// in name order.
func scenarioCharts(r *schema.Report) []Chart {
	nodes := r.Metrics.Sources[r.Descriptor().SourceGroup("scenario")]
	if len(nodes) == 0 {
		return nil
	}
	rate := Chart{Kind: ChartBars, Title: "Scenario success rate", Name: "scenario", Unit: "ratio", Series: []string{"success rate"}}
	turns := Chart{Kind: ChartBars, Title: "Turns to success per scenario", Name: "scenario", Unit: "turns", Series: []string{"mean", "p50", "p90"}}
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		obj, _ := genericValue(nodes[name].Families["scenario"]).(map[string]any)
		if obj == nil {
			continue
		}
		n := 0
		if f, ok := obj["scenarios"].(float64); ok {
			n = int(f)
		}
		v := math.NaN()
		sr, _ := obj["success_rate"].(map[string]any)
		if f, ok := sr["value"].(float64); ok {
			v = f
		}
		rate.Points = append(rate.Points, Point{Label: name, Values: []float64{v}, N: n}.withCI(ratioOfJSON(sr)))
		tv := []float64{math.NaN(), math.NaN(), math.NaN()}
		for i, k := range []string{"turns_mean", "turns_p50", "turns_p90"} {
			if f, ok := obj[k].(float64); ok {
				tv[i] = f
			}
		}
		turns.Points = append(turns.Points, Point{Label: name, Values: tv, N: n})
	}
	if len(rate.Points) == 0 {
		return nil
	}
	return []Chart{rate, turns}
}

// memoryCharts is the memory score by distance, distances in numeric
// order (metrics.memory.distance).
func memoryCharts(obj map[string]any) []Chart {
	byDist, _ := obj["distance"].(map[string]any)
	if len(byDist) == 0 {
		return nil
	}
	keys := make([]string, 0, len(byDist))
	for k := range byDist {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) < len(keys[j])
		}
		return keys[i] < keys[j]
	})
	c := Chart{Kind: ChartBars, Title: "Memory score by distance", Name: "distance", Unit: "ratio", Series: []string{"score"}}
	for _, k := range keys {
		e, _ := byDist[k].(map[string]any)
		v, n := math.NaN(), 0
		sc, _ := e["score"].(map[string]any)
		if f, ok := sc["value"].(float64); ok {
			v = f
		}
		if q, ok := e["questions"].(float64); ok {
			n = int(q)
		}
		c.Points = append(c.Points, Point{Label: k, Values: []float64{v}, N: n}.withCI(ratioOfJSON(sc)))
	}
	return []Chart{c}
}

// ratioOfJSON reads a ratio of decoded JSON (num, den, ci_low, ci_high);
// nil when m is not one.
func ratioOfJSON(m map[string]any) *schema.Ratio {
	if m == nil {
		return nil
	}
	num, _ := m["num"].(float64)
	den, _ := m["den"].(float64)
	r := &schema.Ratio{Num: num, Den: den}
	lo, okLo := m["ci_low"].(float64)
	hi, okHi := m["ci_high"].(float64)
	if okLo && okHi {
		r.SetCI(lo, hi)
	}
	return r
}

// familyTitles are section titles that the family's name does not spell.
var familyTitles = map[string]string{}

// familyTitle turns a family name into a section title: "dialogue" →
// "Dialogue", "text_metrics" → "Text metrics".
func familyTitle(name string) string {
	if t, ok := familyTitles[name]; ok {
		return t
	}
	t := strings.ReplaceAll(name, "_", " ")
	if t == "" {
		return t
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// genericValue turns a family's value (a Go struct when the report was
// just built, raw JSON when it was read back) into decoded JSON.
func genericValue(v any) any {
	var b []byte
	switch t := v.(type) {
	case json.RawMessage:
		b = t
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil
		}
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil
	}
	return out
}

// shapeTables lays out one object of shape sh: a table of its metrics,
// then each subtree (a keyed map becomes one table with a row per key; an
// object recurses). prefix is the object's address (metrics.dialogue),
// which titles the subtrees' tables.
func shapeTables(prefix string, sh *schema.Shape, obj map[string]any) []Table {
	if sh == nil {
		return nil
	}
	var out []Table
	if len(sh.Attrs) > 0 {
		t := Table{Columns: []Column{col("metric"), rcol("value"), {Header: "meaning", Wide: true}}}
		for _, a := range sh.Attrs {
			if val, ok := obj[a.Name]; ok {
				t.Rows = append(t.Rows, []Cell{code(a.Name), text(fmtMetric(a.Kind, val, true)), text(a.Doc)})
			}
		}
		if len(t.Rows) > 0 {
			out = append(out, t)
		}
	}
	for _, s := range sh.Subs {
		name := joinName(prefix, s.Name)
		val, ok := obj[s.Name].(map[string]any)
		if !ok || len(val) == 0 {
			continue
		}
		if !s.Keyed {
			out = append(out, shapeTables(name, s.Shape, val)...)
			continue
		}
		out = append(out, keyedTable(name, s, val))
	}
	return out
}

// keyedTable is one table for a keyed map: a row per key (the descriptor's
// order first, then sorted), a column per metric of the entries.
func keyedTable(name string, s *schema.Sub, entries map[string]any) Table {
	t := Table{Title: name + "[…]", Note: s.Doc, Collapsed: true}
	t.Columns = []Column{col(s.Name)}
	var attrs []schema.Attr
	if s.Shape != nil {
		attrs = s.Shape.Attrs
	}
	for _, a := range attrs {
		t.Columns = append(t.Columns, rcol(strings.ReplaceAll(a.Name, "_", " ")))
	}
	for _, k := range orderedKeys(s.Order, entries) {
		e, _ := entries[k].(map[string]any)
		row := []Cell{clip(k)}
		for _, a := range attrs {
			row = append(row, text(fmtMetric(a.Kind, e[a.Name], false)))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func joinName(prefix, name string) string { return prefix + "." + name }

// orderedKeys lists the keys of m: those of order first, in that order,
// then the others sorted (numerically when they are all numbers, so turn
// "10" follows turn "9").
func orderedKeys(order []string, m map[string]any) []string {
	var out, rest []string
	for _, k := range order {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	for k := range m {
		if !slices.Contains(order, k) {
			rest = append(rest, k)
		}
	}
	sort.Slice(rest, func(i, j int) bool {
		a, b := rest[i], rest[j]
		if len(a) != len(b) && allDigits(a) && allDigits(b) {
			return len(a) < len(b)
		}
		return a < b
	})
	return append(out, rest...)
}

func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// fmtMetric prints one metric of decoded JSON as its kind reads: a ratio
// as "0.875 (35/40)", followed with ci by its interval when it has one
// ("0.875 (35/40) [0.739, 0.945]"), milliseconds with one decimal, other
// numbers as fmtNum does; "" when absent.
func fmtMetric(kind schema.MetricKind, v any, ci bool) string {
	switch t := v.(type) {
	case nil:
		return ""
	case map[string]any:
		if kind == schema.MetricRatio {
			r := ratioOfJSON(t)
			if !ci {
				return fmtRatio(*r)
			}
			return fmtRatioCI(*r)
		}
		return ""
	case float64:
		if kind == schema.MetricMillis {
			return fmtMS(t)
		}
		return fmtNum(t)
	case string:
		return t
	case bool:
		if t {
			return "yes"
		}
		return "no"
	}
	return ""
}
