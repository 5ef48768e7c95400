package reporters

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// coverageKindTitles are the kinds' section titles.
var coverageKindTitles = map[string]string{
	"intents": "Intents", "entities": "Entities", "slots": "Slots", "responses": "Responses",
	"actions": "Actions", "forms": "Forms", "flows": "Flows", "flow_steps": "Flow steps",
}

// coverageStatus is a status's mark and words.
func coverageStatus(st string) (Mark, string) {
	switch st {
	case schema.CoveragePassing:
		return MarkPass, "passing"
	case schema.CoverageFailingOnly:
		return MarkFail, "failing only"
	case schema.CoverageUndeclared:
		return MarkError, "undeclared"
	}
	return MarkAlert, "untested"
}

// CoverageView lays out `nlutest coverage`: a summary per kind of item,
// then each kind's items with their status — passing (a passing case
// exercised it), failing only (only failing or errored cases did),
// untested, or undeclared (checked, but not in the model) — the cases
// that exercised it (passed, failed), the cases whose answer showed it
// (seen), and where the model declares it.
func CoverageView(c *schema.CoverageReport) *View {
	t := c.Totals
	title := fmt.Sprintf("Coverage of the bot's model by suite %q: %d of %d items exercised%s, %d only by failing cases, %d untested",
		c.Suite, t.Passing+t.FailingOnly, t.Items, percent(t.Ratio), t.FailingOnly, t.Untested)
	v := &View{Title: title, Level: 1, Context: []Field{{Label: "run", Value: c.Run, Code: true}, {Label: "cases", Value: fmt.Sprint(c.Cases)},
		{Label: "model", Value: strings.Join(c.Files, ", "), Code: true, Wide: true}}}
	sum := Table{Columns: []Column{col("kind"), rcol("items"), rcol("passing"), rcol("failing only"), rcol("untested"), rcol("undeclared"), rcol("exercised")}}
	for _, k := range c.Kinds {
		sum.Rows = append(sum.Rows, []Cell{text(k.Kind), num(k.Items), num(k.Passing), num(k.FailingOnly), num(k.Untested), num(k.Undeclared), text(fmtRatio(k.Ratio))})
	}
	sum.Rows = append(sum.Rows, []Cell{{Text: "all", Style: Strong}, num(t.Items), num(t.Passing), num(t.FailingOnly), num(t.Untested), num(t.Undeclared), text(fmtRatio(t.Ratio))})
	v.Sections = append(v.Sections, Section{ID: "coverage-summary", Title: "Summary", Tables: []Table{sum},
		Intro: "Exercised: (passing + failing only) / items. An item is exercised by a case that checks it — an expected intent or entity, a slot a state check or condition reads, a response a reply check names — and an action, form, flow or flow step by a case that runs it (the recorded tracker)."})
	for _, k := range c.Kinds {
		tb := Table{Columns: []Column{col("item"), {Header: "", Align: Center}, col("status"), rcol("passed"), rcol("failed"), rcol("seen"), col("declared at"), {Header: "detail", Wide: true}}}
		for _, r := range k.Rows {
			mark, words := coverageStatus(r.Status)
			tb.Rows = append(tb.Rows, []Cell{clip(r.Name), {Mark: mark}, text(words), num(r.Passed), num(r.Failed), num(r.Seen), code(r.At), clip(r.Detail)})
		}
		title := coverageKindTitles[k.Kind]
		v.Sections = append(v.Sections, Section{ID: "coverage-" + k.Kind, Title: title,
			Brief:  fmt.Sprintf("%s: %d of %d exercised, %d failing only, %d untested", title, k.Passing+k.FailingOnly, k.Items, k.FailingOnly, k.Untested),
			Tables: []Table{tb}})
	}
	return v
}

// percent is " (43.5 %)", or "" without items.
func percent(r schema.Ratio) string {
	if v, ok := r.Value(); ok {
		return fmt.Sprintf(" (%.1f %%)", 100*v)
	}
	return ""
}

// CoverageJSON writes the coverage report as one indented JSON document.
func CoverageJSON(w io.Writer, c *schema.CoverageReport) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
