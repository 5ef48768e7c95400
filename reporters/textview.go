package reporters

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// Sections of the text metrics (metrics.text) and robustness
// (metrics.robustness) families. Their values reach the reporters as the
// family's Go value (in a run) or as raw JSON (read back from report.json),
// so both are read through their JSON form.

// dedicatedSections are the families with sections of their own here;
// familySections leaves them out.
var dedicatedSections = map[string]bool{"text": true, "robustness": true, "coverage": true}

// familyValue decodes node n's value of the family name into v; false
// when the node has none.
func familyValue(n *schema.Node, name string, v any) bool {
	if n == nil {
		return false
	}
	raw, ok := n.Families[name]
	if !ok || raw == nil {
		return false
	}
	b, ok := raw.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(raw); err != nil {
			return false
		}
	}
	return json.Unmarshal(b, v) == nil
}

// meanText is a mean over cases (a ratio of sums) as a plain fraction.
func meanText(r schema.Ratio) string {
	v, ok := r.Value()
	if !ok {
		return noData
	}
	return fmtFixed(v)
}

// textSections shows metrics.text: the whole run and each source that has
// cases with references, BLEU on sacrebleu's 0–100 scale with its
// signature.
func textSections(r, _ *schema.Report) []Section {
	if r.Metrics == nil {
		return nil
	}
	t := Table{Columns: []Column{col("node"), rcol("cases"), rcol("EM"), rcol("F1"), rcol("BLEU"), rcol("ROUGE-1"),
		rcol("ROUGE-2"), rcol("ROUGE-L"), rcol("METEOR"), rcol("distinct-1"), rcol("distinct-2")}}
	var sigs []string
	add := func(label string, n *schema.Node) {
		var tv schema.Text
		if !familyValue(n, "text", &tv) {
			return
		}
		t.Rows = append(t.Rows, []Cell{clip(label), num(tv.Cases), text(meanText(tv.ExactMatch)), text(meanText(tv.F1)),
			text(fmt.Sprintf("%.2f", tv.BLEUScore)), text(meanText(tv.Rouge1)), text(meanText(tv.Rouge2)), text(meanText(tv.RougeL)),
			text(meanText(tv.Meteor)), text(fmtRatio(tv.Distinct1)), text(fmtRatio(tv.Distinct2))})
		if !slices.Contains(sigs, tv.BLEUSignature) {
			sigs = append(sigs, tv.BLEUSignature)
		}
	}
	add("all", &r.Metrics.Node)
	if len(t.Rows) == 0 {
		return nil
	}
	for _, kind := range sortedKeys(r.Metrics.Sources) {
		for _, name := range sortedKeys(r.Metrics.Sources[kind]) {
			add(kind+" "+name, r.Metrics.Sources[kind][name])
		}
	}
	for _, name := range sortedKeys(r.Metrics.Template) {
		add("template "+name, r.Metrics.Template[name])
	}
	t.Note = "EM, F1 and ROUGE are means over the cases with references (fractions 0–1); BLEU is corpus BLEU on sacrebleu's 0–100 scale (metrics.text.bleu holds it as 0–1); METEOR is NLTK's meteor_score without synonyms, averaged; distinct-n = distinct n-grams / reply tokens."
	var notes []Note
	for _, s := range sigs {
		notes = append(notes, Note{Text: "BLEU signature: " + s})
	}
	tables := []Table{t}
	if low := lowestTextTable(&r.Metrics.Node); low != nil {
		tables = append(tables, *low)
	}
	return []Section{{ID: "text", Title: "Text metrics", Brief: "Text metrics", Intro: "Each case's reply against its references.", Tables: tables, Notes: notes}}
}

// lowestTextTable lists the run's lowest-scoring cases of metrics.text, so
// a wrong answer in a dataset without expectations is seen.
func lowestTextTable(n *schema.Node) *Table {
	var tv schema.Text
	if !familyValue(n, "text", &tv) || len(tv.Lowest) == 0 {
		return nil
	}
	by := tv.LowestBy
	if by == "" {
		by = "f1"
	}
	t := &Table{Title: "Lowest-scoring cases (by " + by + ")", Columns: []Column{rcol(by), col("case"), col("text"), col("reply"), col("references"),
		rcol("EM"), rcol("F1"), rcol("ROUGE-L"), rcol("METEOR")},
		Note: fmt.Sprintf("Lowest-scoring cases: the %d cases with the lowest %s, lowest first (metrics.text.lowest; text_metrics' lowest_by chooses the metric, a dataset's min_%s fails the cases below it).", len(tv.Lowest), by, by)}
	for _, c := range tv.Lowest {
		t.Rows = append(t.Rows, []Cell{text(fmtFixed(c.Score)), code(c.ID), clip(c.Text), clip(c.Reply), clip(strings.Join(c.References, " | ")),
			text(fmtFixed(c.ExactMatch)), text(fmtFixed(c.F1)), text(fmtFixed(c.RougeL)), text(fmtFixed(c.Meteor))})
	}
	return t
}

// robustnessSections shows metrics.robustness: R = (D1 + S1) / (D + S),
// accuracy per perturbation kind, and the cases that broke under
// perturbation next to their originals.
func robustnessSections(r, _ *schema.Report) []Section {
	var rv schema.Robustness
	if r.Metrics == nil || !familyValue(&r.Metrics.Node, "robustness", &rv) {
		return nil
	}
	score := Table{Columns: []Column{col("inputs"), rcol("total"), rcol("passed"), rcol("accuracy")}}
	score.Rows = append(score.Rows,
		[]Cell{term("original (D, D1)"), num(rv.Original.Total), num(rv.Original.Passed), text(fmtRatio(schema.R(rv.Original.Passed, rv.Original.Total)))},
		[]Cell{term("perturbed (S, S1)"), num(rv.Perturbed.Total), num(rv.Perturbed.Passed), text(fmtRatio(schema.R(rv.Perturbed.Passed, rv.Perturbed.Total)))})
	for _, k := range sortedKeys(rv.Kind) {
		kv := rv.Kind[k]
		score.Rows = append(score.Rows, []Cell{code(k), num(kv.Total), num(kv.Passed), text(fmtRatio(kv.Accuracy))})
	}
	score.Rows = append(score.Rows, []Cell{{Text: "R = (D1 + S1) / (D + S)", Style: Term | Strong}, num(rv.Original.Total + rv.Perturbed.Total),
		num(rv.Original.Passed + rv.Perturbed.Passed), {Text: fmtRatio(rv.Score), Style: Strong}})
	sec := Section{ID: "robustness", Title: "Robustness", Intro: "Original inputs and their perturbed variants (YD/T draft on NLP model evaluation).", Tables: []Table{score}}
	if len(rv.Broken) > 0 {
		b := Table{Title: "Broken under perturbation", Columns: []Column{col("perturbation"), col("perturbed text"), col("original text"), col("original")}, Cap: 20,
			Note: "Perturbed cases that failed while their original passed (at most 50)."}
		for _, x := range rv.Broken {
			b.Rows = append(b.Rows, []Cell{code(x.Perturbation), clip(x.Text), clip(x.OriginalText), code(x.Original)})
		}
		sec.Tables = append(sec.Tables, b)
	}
	return []Section{sec}
}
