package assert

import (
	"cmp"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/nlutest/nlutest/schema"
)

// Wrong answers in a text dataset must not be invisible: a case with
// references and no expectation always passes. metrics.text lists each
// node's lowest-scoring cases (by F1, or text_metrics' lowest_by), and a
// dataset's per-case minimums (min_f1 = 0.5 …) fail the cases below them.

// score returns the case's value of a per-case text metric
// (metrics.CaseTextScores).
func (tc *textCase) score(metric string) float64 {
	switch metric {
	case "exact_match":
		return tc.em
	case "rouge1":
		return tc.r1
	case "rouge2":
		return tc.r2
	case "rougeL":
		return tc.rl
	case "meteor":
		return tc.meteor
	}
	return tc.f1
}

// lowerCase orders the lowest-scoring list: by score, then id and text,
// so the list does not depend on the order cases arrive or merge in.
func lowerCase(a, b *schema.TextCase) int {
	return cmp.Or(cmp.Compare(a.Score, b.Score), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Text, b.Text), cmp.Compare(a.Reply, b.Reply))
}

// keepLowest adds r's case to list (sorted, at most schema.MaxLowestText)
// when it scores among the lowest; it builds the entry only then.
func keepLowest(list []schema.TextCase, r *schema.Result, tc *textCase, by string) []schema.TextCase {
	probe := schema.TextCase{ID: r.ID, Text: r.Text, Reply: r.Reply, Score: tc.score(by)}
	if len(list) >= schema.MaxLowestText && lowerCase(&probe, &list[len(list)-1]) >= 0 {
		return list
	}
	e := schema.TextCase{ID: r.ID, Text: clipText(r.Text), Reply: clipText(r.Reply), Score: probe.Score,
		ExactMatch: tc.em, F1: tc.f1, RougeL: tc.rl, Meteor: tc.meteor}
	for i, ref := range r.References {
		if i == 3 {
			break
		}
		e.References = append(e.References, clipText(ref))
	}
	i, _ := slices.BinarySearchFunc(list, &e, func(x schema.TextCase, t *schema.TextCase) int { return lowerCase(&x, t) })
	list = slices.Insert(list, i, e)
	if len(list) > schema.MaxLowestText {
		list = list[:schema.MaxLowestText]
	}
	return list
}

// mergeLowest returns the lowest of a and b, sorted.
func mergeLowest(a, b []schema.TextCase) []schema.TextCase {
	out := slices.Concat(a, b)
	slices.SortFunc(out, func(x, y schema.TextCase) int { return lowerCase(&x, &y) })
	if len(out) > schema.MaxLowestText {
		out = out[:schema.MaxLowestText]
	}
	return out
}

// clipText cuts s at 300 bytes, on a character boundary.
func clipText(s string) string {
	const most = 300
	if len(s) <= most {
		return s
	}
	i := most
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// textMinimums fails r when a per-case text score falls below its
// source's minimum (min_f1 = 0.5): the failure names the metric, the
// score, the minimum and where it is set.
func (e *Evaluator) textMinimums(r *schema.Result, sc *sourceChecks) {
	if sc == nil || len(sc.minimums) == 0 || len(r.References) == 0 {
		return
	}
	tc := newTextCase(r, TextMetricsOf(e.suite))
	for _, m := range sc.minimums {
		v := tc.score(m.Metric)
		if v >= m.Min {
			continue
		}
		r.Failures = append(r.Failures, schema.Failure{Kind: "text", Expected: m.Min, Actual: v,
			Message: fmt.Sprintf("%s %.4f is below min_%s = %g: the reply %q against %d reference(s)", m.Metric, v, m.Metric, m.Min, clipText(r.Reply), len(r.References)),
			File:    m.Range.Filename, Line: m.Range.Start.Line})
	}
}
