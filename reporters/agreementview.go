package reporters

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/nlutest/nlutest/schema"
)

// AgreementView lays out a judge's agreement with people
// (`nlutest memory agreement`, `nlutest judge agreement`): the items
// compared, the observed agreement and Cohen's kappa (and its quadratic
// weighting, for scores), then the judge × people table.
func AgreementView(ag *schema.Agreement) *View {
	what := "answers"
	if ag.Rubric != "" {
		what = "replies"
	}
	title := fmt.Sprintf("Agreement of the %s with people: %d %s rated", ag.Judge, ag.Items, what)
	v := &View{Title: title, Level: 1, Context: []Field{{Label: "run", Value: ag.Run, Code: true}, {Label: "ratings", Value: ag.Sheet, Code: true}}}
	if ag.Unmatched > 0 {
		v.Context = append(v.Context, Field{Label: "not judged", Value: fmt.Sprintf("%d rated ids are not judged %s of the run", ag.Unmatched, what)})
	}
	if ag.Unscored > 0 {
		v.Context = append(v.Context, Field{Label: "no score", Value: fmt.Sprintf("%d rated %s the judge gave no score (unparseable or unanswered), left out", ag.Unscored, what)})
	}
	if ag.Items == 0 {
		return v
	}
	figures := Table{Columns: []Column{{Header: "figure", Align: Left}, {Header: "value", Align: Right}}, Rows: [][]Cell{
		{{Text: "agreement"}, {Text: fmtRatio(ag.Observed())}},
		{{Text: "cohen_kappa"}, {Text: kappaText(ag.Kappa)}},
	}}
	intro := "Observed agreement and Cohen's kappa (unweighted, as scikit-learn's cohen_kappa_score)."
	label := "verdict"
	if ag.Scored {
		figures.Rows = append(figures.Rows, []Cell{{Text: "cohen_kappa_quadratic"}, {Text: kappaText(ag.QuadraticKappa)}})
		intro = "Observed agreement and Cohen's kappa, unweighted and with quadratic weights (as scikit-learn's cohen_kappa_score, weights=\"quadratic\")."
		label = "score"
	}
	table := Table{Note: "rows: the judge's " + label + "; columns: people's", Columns: []Column{{Header: "judge \\ people", Align: Left}}}
	for _, l := range ag.Labels {
		table.Columns = append(table.Columns, Column{Header: l, Align: Right})
	}
	for i, row := range ag.Table {
		cells := []Cell{{Text: ag.Labels[i]}}
		for _, n := range row {
			cells = append(cells, num(n))
		}
		table.Rows = append(table.Rows, cells)
	}
	v.Sections = append(v.Sections,
		Section{Title: "Agreement", Intro: intro, Tables: []Table{figures}},
		Section{Title: "Judge × people", Tables: []Table{table}})
	return v
}

// kappaText is a kappa to 4 decimals, or why it is not defined.
func kappaText(k *float64) string {
	if k == nil {
		return "n/a (one label throughout)"
	}
	return fmt.Sprintf("%.4f", *k)
}

// AgreementJSON writes the agreement as one indented JSON document (the
// figures the views show: items, agreed, kappas, labels and table).
func AgreementJSON(w io.Writer, ag *schema.Agreement) error {
	b, err := json.MarshalIndent(ag, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
