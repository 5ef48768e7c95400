package assert

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/text/unicode/norm"
)

// MetricsValue converts the metrics tree to the `metrics` object of
// threshold conditions, as the descriptor t describes it, with an index
// from each ratio's canonical address to the ratio, so observed values
// carry num/den. Ratios without data are null.
func MetricsValue(t *schema.Tree, m *schema.Metrics) (cty.Value, map[string]schema.Ratio) {
	idx := map[string]schema.Ratio{}
	return objValue(t.ReadMetrics(m), idx), idx
}

func objValue(o *schema.Obj, idx map[string]schema.Ratio) cty.Value {
	attrs := make(map[string]cty.Value, len(o.Metrics)+len(o.Children))
	for i := range o.Metrics {
		m := &o.Metrics[i]
		attrs[m.Name] = metricValue(m, idx)
		if m.CI != schema.CINone {
			// The bounds a condition reads as NAME.ci_low (spec's
			// IntervalAttr); null when the metric has no interval.
			attrs[spec.IntervalAttr(m.Name, spec.CILow)] = boundValue(m.CILow)
			attrs[spec.IntervalAttr(m.Name, spec.CIHigh)] = boundValue(m.CIHigh)
		}
	}
	for _, c := range o.Children {
		if c.Obj != nil {
			attrs[c.Sub.Name] = objValue(c.Obj, idx)
			continue
		}
		entries := make(map[string]cty.Value, len(c.Keys))
		for i, k := range c.Keys {
			// cty names attributes in NFC: of keys equal in NFC (labels
			// are NFC already; a scene or value written both ways) the
			// first in listing order wins, never map order.
			nk := norm.NFC.String(k)
			if _, dup := entries[nk]; !dup {
				entries[nk] = objValue(c.Entries[i], idx)
			}
		}
		attrs[c.Sub.Name] = cty.ObjectVal(entries)
	}
	return cty.ObjectVal(attrs)
}

func metricValue(m *schema.Metric, idx map[string]schema.Ratio) cty.Value {
	if m.Ratio != nil {
		idx[m.Addr] = *m.Ratio
	}
	switch {
	case m.Value == nil:
		return cty.NullVal(cty.Number)
	case m.Kind == schema.MetricCount:
		return cty.NumberIntVal(int64(*m.Value))
	}
	return cty.NumberFloatVal(*m.Value)
}

func boundValue(f *float64) cty.Value {
	if f == nil {
		return cty.NullVal(cty.Number)
	}
	return cty.NumberFloatVal(*f)
}

// address renders a traversal as people write it, with string keys in
// brackets (metrics.split["smoke"].accuracy, response.slots["城市"]) — the
// form MetricsValue indexes ratios by.
func address(tr hcl.Traversal) string { return spell(tr, false) }

// spell renders a traversal; with attrKeys, a string key that is an
// identifier is written as an attribute (metrics.split.smoke), as a
// condition spells it.
func spell(tr hcl.Traversal, attrKeys bool) string {
	var b strings.Builder
	for _, s := range tr {
		switch t := s.(type) {
		case hcl.TraverseRoot:
			b.WriteString(t.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + t.Name)
		case hcl.TraverseIndex:
			switch {
			case t.Key.Type() != cty.String:
				b.WriteString("[" + ShowValue(t.Key) + "]")
			case attrKeys && hclsyntax.ValidIdentifier(t.Key.AsString()):
				b.WriteString("." + t.Key.AsString())
			default:
				fmt.Fprintf(&b, "[%q]", t.Key.AsString())
			}
		}
	}
	return b.String()
}

// canonicalAddress maps a metrics traversal to the canonical address
// MetricsValue indexes ratios by: keys of keyed maps in brackets
// (metrics.split.smoke.accuracy → metrics.split["smoke"].accuracy),
// dimension names as names (metrics.label["intent"] → metrics.label.intent).
func canonicalAddress(tree *schema.Tree, tr hcl.Traversal) string {
	return address(canonical(tree, tr))
}

// conditionAddress is the canonical address as a condition spells it,
// the name reports show (issue 17: JUnit wrote metrics.split["smoke"]
// where the condition said metrics.split.smoke): a key that is an
// identifier as an attribute (metrics.split.smoke.accuracy,
// metrics.scene.出行), other keys in brackets (metrics.scene["出行/天气"]).
func conditionAddress(tree *schema.Tree, tr hcl.Traversal) string {
	return spell(canonical(tree, spec.WrittenTraversal(tr)), true)
}

// canonical is tr with keyed steps as indexes and named steps as
// attributes.
func canonical(tree *schema.Tree, tr hcl.Traversal) hcl.Traversal {
	names := make([]string, len(tr)-1)
	for i, s := range tr[1:] {
		switch t := s.(type) {
		case hcl.TraverseAttr:
			names[i] = t.Name
		case hcl.TraverseIndex:
			if t.Key.Type() == cty.String && t.Key.IsKnown() && !t.Key.IsNull() {
				names[i] = t.Key.AsString()
			}
		}
	}
	styles := tree.StepStyles(names)
	out := hcl.Traversal{tr[0]}
	for i, s := range tr[1:] {
		switch {
		case names[i] == "":
		case styles[i] == schema.StepKey:
			s = hcl.TraverseIndex{Key: cty.StringVal(names[i])}
		case styles[i] == schema.StepNameKey:
			s = hcl.TraverseAttr{Name: names[i]}
		}
		out = append(out, s)
	}
	return out
}

// EvaluateThresholds evaluates every threshold of s against m.
func EvaluateThresholds(s *spec.Suite, m *schema.Metrics) []schema.ThresholdResult {
	mv, idx := MetricsValue(s.Tree, m)
	ctx := s.CheckBaseContext().NewChild()
	ctx.Variables = map[string]cty.Value{"metrics": mv}
	var out []schema.ThresholdResult
	for _, th := range s.Thresholds {
		tr := schema.ThresholdResult{
			Name: th.Name, Condition: exprSource(s, th.Condition), Message: th.Message, Severity: th.Severity,
			File: th.DeclRange.Filename, Line: th.DeclRange.Start.Line,
		}
		var noData, absent []string
		seen := map[string]bool{}
		for _, t := range th.Condition.Variables() {
			if t.RootName() != "metrics" {
				continue
			}
			key := canonicalAddress(s.Tree, t)
			if seen[key] {
				continue
			}
			seen[key] = true
			name := conditionAddress(s.Tree, t)
			ob := schema.Observed{Name: name}
			v, diags := t.TraverseAbs(ctx)
			v = spec.Unmark(v)
			if !diags.HasErrors() && v.IsKnown() && !v.IsNull() && v.Type() == cty.Number {
				f, _ := v.AsBigFloat().Float64()
				ob.Value = &f
			} else if !diags.HasErrors() && v.IsNull() {
				noData = append(noData, name)
			} else if diags.HasErrors() {
				// validate checked the name against the metrics tree, so
				// what is missing is a node, family or entry this run has
				// no figures for: a dimension (calibration, oos) no case
				// expected anything in, a fully cached run's latency, a
				// filtered run's robustness, a memory distance no question
				// was asked at.
				absent = append(absent, absentText(s.Tree, name, t, ctx))
			}
			if r, ok := idx[key]; ok {
				n, d := r.Num, r.Den
				ob.Num, ob.Den = &n, &d
				if lo, hi, ok := r.CI(); ok {
					ob.CILow, ob.CIHigh = &lo, &hi
				}
			}
			tr.Observed = append(tr.Observed, ob)
		}
		v, diags := th.Condition.Value(ctx)
		v = spec.Unmark(v)
		switch {
		case len(noData)+len(absent) > 0:
			tr.Outcome = schema.Error
			if len(noData) > 0 {
				absent = append([]string{fmt.Sprintf("%s has no data: no case of the run counts towards it (a ratio whose denominator is 0), or its cases do not define it (a kappa over one label, an AUROC without both classes, an interval whose statistic is undefined on every resample)", strings.Join(noData, ", "))}, absent...)
			}
			tr.Error = strings.Join(absent, "; ")
		case diags.HasErrors():
			tr.Outcome = schema.Error
			tr.Error = "the condition could not be evaluated: " + s.Redactor().String(diagSummary(diags))
		case !v.IsKnown() || v.IsNull() || v.Type() != cty.Bool:
			tr.Outcome = schema.Error
			tr.Error = "the condition must be true or false"
		case v.True():
			tr.Outcome = schema.Pass
		default:
			tr.Outcome = schema.Fail
		}
		out = append(out, tr)
	}
	return out
}

// absentText says that the metric name (traversal t) has no data because
// this run lacks the node, family or entry it is in, naming the first
// missing step, as the "has no data" sentence of a ratio over zero does,
// and why when the family says (schema.Family.Absent).
func absentText(tree *schema.Tree, name string, t hcl.Traversal, ctx *hcl.EvalContext) string {
	missing := name
	for i := 2; i < len(t); i++ {
		if _, d := t[:i].TraverseAbs(ctx); d.HasErrors() {
			missing = conditionAddress(tree, t[:i])
			break
		}
	}
	s := fmt.Sprintf("%s has no data: this run has no %s, as no case of the run counts towards it", name, missing)
	if h := familyAbsent(tree, t); h != "" {
		s += " (" + h + ")"
	}
	return s
}

// familyAbsent is the Absent clause of the family t reads, or "".
func familyAbsent(tree *schema.Tree, t hcl.Traversal) string {
	for _, step := range t[1:] {
		a, ok := step.(hcl.TraverseAttr)
		if !ok {
			continue
		}
		for _, f := range tree.Families {
			for _, sub := range f.Subs {
				if sub.Name == a.Name && f.Absent != "" {
					return f.Absent
				}
			}
		}
	}
	return ""
}

// Decide returns the verdict (SPEC §3): in a suite with thresholds of
// severity error, those decide; otherwise every case must pass. Errored
// calls beyond the target's error budget fail the verdict either way.
func Decide(m *schema.Metrics, ths []schema.ThresholdResult, errorBudget float64) schema.Verdict {
	v := schema.Verdict{Outcome: schema.Pass}
	for _, t := range ths {
		if t.Severity == "error" {
			v.ByThresholds = true
		}
	}
	if v.ByThresholds {
		for _, t := range ths {
			if t.Severity != "error" || t.Outcome == schema.Pass {
				continue
			}
			if t.Outcome == schema.Error {
				v.Reasons = append(v.Reasons, fmt.Sprintf("threshold %q could not be checked: %s", t.Name, t.Error))
			} else {
				v.Reasons = append(v.Reasons, fmt.Sprintf("threshold %q not met: %s (%s)", t.Name, t.Condition, observedText(t.Observed)))
			}
		}
	} else if m.Failed+m.Errored > 0 {
		v.Reasons = append(v.Reasons, fmt.Sprintf("%d of %d cases did not pass (%d failed, %d errored) and the suite has no thresholds, so every case must pass", m.Failed+m.Errored, m.Total, m.Failed, m.Errored))
	}
	if m.Total == 0 {
		v.Reasons = append(v.Reasons, "no case ran")
	}
	if m.Errored > 0 && float64(m.Errored) > errorBudget*float64(m.Total) {
		v.Reasons = append(v.Reasons, fmt.Sprintf("%d of %d calls errored (%.1f%%), above the target's error budget of %.1f%%", m.Errored, m.Total, 100*float64(m.Errored)/float64(m.Total), 100*errorBudget))
	}
	if len(v.Reasons) > 0 {
		v.Outcome = schema.Fail
	}
	return v
}

func observedText(obs []schema.Observed) string {
	var parts []string
	for _, o := range obs {
		s := o.Name + " = "
		if o.Value == nil {
			s += "no data"
		} else {
			s += fmt.Sprintf("%.4g", *o.Value)
		}
		switch {
		case o.Num == nil || o.Den == nil:
		case strings.Contains(o.Name, ".macro_"):
			// A macro average's denominator counts labels, not cases.
			s += fmt.Sprintf(" (mean over %g labels)", *o.Den)
		default:
			s += fmt.Sprintf(" (%.6g/%.6g)", *o.Num, *o.Den)
		}
		parts = append(parts, s)
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
