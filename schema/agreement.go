package schema

// Agreement compares the labels a judge gave a run's items with the
// labels people gave the same items (`nlutest memory agreement`): the
// observed agreement, Cohen's kappa (Cohen 1960, as scikit-learn's
// cohen_kappa_score computes it) and the judge × people table. reporters
// render it (AgreementView); pipeline computes it.
type Agreement struct {
	// Judge names what judged ("memory judge"); Run is the run directory
	// and Sheet the people's file.
	Judge, Run, Sheet string
	// Labels are the labels in the table's order.
	Labels []string
	// Items counts items both judged in the run and rated by people;
	// Unmatched the rated ids the run did not judge.
	Items, Unmatched int
	// Agreed counts items where judge and people gave the same label.
	Agreed int
	// Kappa is Cohen's kappa, unweighted; nil when it is not defined
	// (one label throughout, or no item).
	Kappa *float64
	// Table[i][j] counts the items the judge gave Labels[i] and people
	// Labels[j].
	Table [][]int
}

// Observed is the share of items judge and people agree on, Agreed/Items.
func (a *Agreement) Observed() Ratio { return R(a.Agreed, a.Items) }
