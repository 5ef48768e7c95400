package assert

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
)

// metricsTree is the `metrics` value of thresholds plus an index from each
// ratio's address to the ratio, so observed values carry num/den.
type metricsTree struct {
	val    cty.Value
	ratios map[string]schema.Ratio
}

func ratioVal(r schema.Ratio, addr string, idx map[string]schema.Ratio) cty.Value {
	idx[addr] = r
	if v, ok := r.Value(); ok {
		return cty.NumberFloatVal(v)
	}
	return cty.NullVal(cty.Number)
}

func num(n int) cty.Value { return cty.NumberIntVal(int64(n)) }

func keyAddr(prefix, k string) string { return fmt.Sprintf("%s[%q]", prefix, k) }

func nodeValue(n *schema.Node, p string, idx map[string]schema.Ratio) map[string]cty.Value {
	attrs := map[string]cty.Value{
		"total": num(n.Total), "passed": num(n.Passed), "failed": num(n.Failed), "errored": num(n.Errored),
		"accuracy":   ratioVal(n.Accuracy, p+".accuracy", idx),
		"error_rate": ratioVal(n.ErrorRate, p+".error_rate", idx),
	}
	if len(n.Dimension) > 0 {
		dims := map[string]cty.Value{}
		for name, d := range n.Dimension {
			dims[name] = dimValue(d, p+".dimension."+name, idx)
		}
		attrs["dimension"] = cty.ObjectVal(dims)
	}
	if len(n.Label) > 0 {
		labels := map[string]cty.Value{}
		for name, l := range n.Label {
			labels[name] = labelValue(l, p+".label."+name, idx)
		}
		attrs["label"] = cty.ObjectVal(labels)
	}
	if n.Latency != nil {
		lat := latencyValue(&n.Latency.LatencyStats)
		b := map[string]cty.Value{}
		for k, s := range n.Latency.Bucket {
			b[k] = cty.ObjectVal(latencyValue(s))
		}
		lat["bucket"] = cty.ObjectVal(b)
		attrs["latency"] = cty.ObjectVal(lat)
	}
	return attrs
}

func latencyValue(s *schema.LatencyStats) map[string]cty.Value {
	return map[string]cty.Value{
		"count": num(s.Count), "mean_ms": cty.NumberFloatVal(s.MeanMS), "p50_ms": cty.NumberFloatVal(s.P50MS),
		"p90_ms": cty.NumberFloatVal(s.P90MS), "p95_ms": cty.NumberFloatVal(s.P95MS),
		"p99_ms": cty.NumberFloatVal(s.P99MS), "max_ms": cty.NumberFloatVal(s.MaxMS),
	}
}

func optRatio(r *schema.Ratio, addr string, idx map[string]schema.Ratio) cty.Value {
	if r == nil {
		return cty.NullVal(cty.Number)
	}
	return ratioVal(*r, addr, idx)
}

func dimValue(d *schema.Dimension, p string, idx map[string]schema.Ratio) cty.Value {
	if d.Kind == schema.KindCase {
		return cty.ObjectVal(map[string]cty.Value{
			"total": num(d.Total), "correct": num(d.Correct), "accuracy": optRatio(d.Accuracy, p+".accuracy", idx),
		})
	}
	attrs := map[string]cty.Value{
		"expected": num(d.Expected), "recognized": num(d.Recognized), "correct": num(d.Correct), "wrong": num(d.Wrong),
		"precision": optRatio(d.Precision, p+".precision", idx), "recall": optRatio(d.Recall, p+".recall", idx),
		"error_rate": optRatio(d.ErrorRate, p+".error_rate", idx), "f1": optRatio(d.F1, p+".f1", idx),
	}
	vals := map[string]cty.Value{}
	for k, v := range d.Values {
		vals[k] = dimValue(v, keyAddr(p+".values", k), idx)
	}
	attrs["values"] = cty.ObjectVal(vals)
	return cty.ObjectVal(attrs)
}

func labelValue(l *schema.Label, p string, idx map[string]schema.Ratio) cty.Value {
	labels := map[string]cty.Value{}
	for k, s := range l.Labels {
		lp := keyAddr(p+".labels", k)
		labels[k] = cty.ObjectVal(map[string]cty.Value{
			"precision": ratioVal(s.Precision, lp+".precision", idx), "recall": ratioVal(s.Recall, lp+".recall", idx),
			"f1": ratioVal(s.F1, lp+".f1", idx), "support": num(s.Support),
		})
	}
	return cty.ObjectVal(map[string]cty.Value{
		"total": num(l.Total), "accuracy": ratioVal(l.Accuracy, p+".accuracy", idx),
		"macro_precision":  ratioVal(l.MacroPrecision, p+".macro_precision", idx),
		"macro_recall":     ratioVal(l.MacroRecall, p+".macro_recall", idx),
		"macro_f1":         ratioVal(l.MacroF1, p+".macro_f1", idx),
		"micro_f1":         ratioVal(l.MicroF1, p+".micro_f1", idx),
		"weighted_f1":      ratioVal(l.WeightedF1, p+".weighted_f1", idx),
		"top_k_accuracy":   ratioVal(l.TopKAccuracy, p+".top_k_accuracy", idx),
		"recognition_rate": ratioVal(l.RecognitionRate, p+".recognition_rate", idx),
		"labels":           cty.ObjectVal(labels),
	})
}

// MetricsValue converts the metrics tree to the `metrics` object of
// threshold conditions. Ratios without data are null.
func MetricsValue(m *schema.Metrics) (cty.Value, map[string]schema.Ratio) {
	idx := map[string]schema.Ratio{}
	attrs := nodeValue(&m.Node, "metrics", idx)
	group := func(name string, src map[string]*schema.Node) {
		g := map[string]cty.Value{}
		for k, n := range src {
			g[k] = cty.ObjectVal(nodeValue(n, keyAddr("metrics."+name, k), idx))
		}
		attrs[name] = cty.ObjectVal(g)
	}
	group("split", m.Split)
	group("level", m.Level)
	group("scene", m.Scene)
	group("template", m.Template)
	if m.Core != nil {
		attrs["core"] = cty.ObjectVal(nodeValue(m.Core, "metrics.core", idx))
	}
	if m.Noncore != nil {
		attrs["noncore"] = cty.ObjectVal(nodeValue(m.Noncore, "metrics.noncore", idx))
	}
	return cty.ObjectVal(attrs), idx
}

// address renders a traversal as people write it, with string keys in
// brackets (metrics.split["smoke"].accuracy, response.slots["城市"]) — the
// form MetricsValue indexes ratios by.
func address(tr hcl.Traversal) string {
	var b strings.Builder
	for _, s := range tr {
		switch t := s.(type) {
		case hcl.TraverseRoot:
			b.WriteString(t.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + t.Name)
		case hcl.TraverseIndex:
			if t.Key.Type() == cty.String {
				fmt.Fprintf(&b, "[%q]", t.Key.AsString())
			} else {
				b.WriteString("[" + ShowValue(t.Key) + "]")
			}
		}
	}
	return b.String()
}

// canonicalAddress maps metrics.split.smoke.accuracy to the index form
// metrics.split["smoke"].accuracy used for ratios.
func canonicalAddress(tr hcl.Traversal) string {
	out := hcl.Traversal{}
	for i, s := range tr {
		if a, ok := s.(hcl.TraverseAttr); ok && i >= 2 {
			if prev, ok := tr[i-1].(hcl.TraverseAttr); ok && isKeyed(prev.Name, i-1) {
				out = append(out, hcl.TraverseIndex{Key: cty.StringVal(a.Name)})
				continue
			}
		}
		out = append(out, s)
	}
	return address(out)
}

// isKeyed reports whether the step at i names a map of nodes (split, level,
// scene, template, values, labels) whose next step is a key.
func isKeyed(name string, i int) bool {
	switch name {
	case "split", "level", "scene", "template":
		return i == 1
	case "values", "labels":
		return true
	}
	return false
}

// EvaluateThresholds evaluates every threshold of s against m.
func EvaluateThresholds(s *spec.Suite, m *schema.Metrics) []schema.ThresholdResult {
	mv, idx := MetricsValue(m)
	ctx := s.BaseContext().NewChild()
	ctx.Variables = map[string]cty.Value{"metrics": mv}
	var out []schema.ThresholdResult
	for _, th := range s.Thresholds {
		tr := schema.ThresholdResult{
			Name: th.Name, Condition: exprSource(s, th.Condition), Message: th.Message, Severity: th.Severity,
			File: th.DeclRange.Filename, Line: th.DeclRange.Start.Line,
		}
		var noData []string
		seen := map[string]bool{}
		for _, t := range th.Condition.Variables() {
			if t.RootName() != "metrics" {
				continue
			}
			name := canonicalAddress(t)
			if seen[name] {
				continue
			}
			seen[name] = true
			ob := schema.Observed{Name: name}
			v, diags := t.TraverseAbs(ctx)
			if !diags.HasErrors() && v.IsKnown() && !v.IsNull() && v.Type() == cty.Number {
				f, _ := v.AsBigFloat().Float64()
				ob.Value = &f
			} else if !diags.HasErrors() && v.IsNull() {
				noData = append(noData, name)
			}
			if r, ok := idx[name]; ok {
				n, d := r.Num, r.Den
				ob.Num, ob.Den = &n, &d
			}
			tr.Observed = append(tr.Observed, ob)
		}
		v, diags := th.Condition.Value(ctx)
		switch {
		case len(noData) > 0:
			tr.Outcome = schema.Error
			tr.Error = fmt.Sprintf("%s has no data (its denominator is 0): no case of the run counts towards it", strings.Join(noData, ", "))
		case diags.HasErrors():
			tr.Outcome = schema.Error
			tr.Error = "the condition could not be evaluated: " + diagSummary(diags)
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
		if o.Num != nil && o.Den != nil {
			s += fmt.Sprintf(" (%g/%g)", *o.Num, *o.Den)
		}
		parts = append(parts, s)
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
