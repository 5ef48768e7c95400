package reporters

import (
	"fmt"

	"github.com/nlutest/nlutest/schema"
)

// AgreementView lays out a judge's agreement with people
// (`nlutest memory agreement`): the items compared, the observed
// agreement and Cohen's kappa, then the judge × people table.
func AgreementView(ag *schema.Agreement) *View {
	title := fmt.Sprintf("Agreement of the %s with people: %d answers rated", ag.Judge, ag.Items)
	v := &View{Title: title, Level: 1, Context: []Field{{Label: "run", Value: ag.Run, Code: true}, {Label: "ratings", Value: ag.Sheet, Code: true}}}
	if ag.Unmatched > 0 {
		v.Context = append(v.Context, Field{Label: "not judged", Value: fmt.Sprintf("%d rated ids are not judged answers of the run", ag.Unmatched)})
	}
	if ag.Items == 0 {
		return v
	}
	kappa := "n/a (one verdict throughout)"
	if ag.Kappa != nil {
		kappa = fmt.Sprintf("%.4f", *ag.Kappa)
	}
	figures := Table{Columns: []Column{{Header: "figure", Align: Left}, {Header: "value", Align: Right}}, Rows: [][]Cell{
		{{Text: "agreement"}, {Text: fmtRatio(ag.Observed())}},
		{{Text: "cohen_kappa"}, {Text: kappa}},
	}}
	table := Table{Note: "rows: the judge's verdict; columns: people's", Columns: []Column{{Header: "judge \\ people", Align: Left}}}
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
		Section{Title: "Agreement", Intro: "Observed agreement and Cohen's kappa (unweighted, as scikit-learn's cohen_kappa_score).", Tables: []Table{figures}},
		Section{Title: "Judge × people", Tables: []Table{table}})
	return v
}
