package schema

// Agreement compares the labels a judge gave a run's items with the
// labels people gave the same items (`nlutest memory agreement`): the
// observed agreement, Cohen's kappa (Cohen 1960, as scikit-learn's
// cohen_kappa_score computes it) and the judge × people table. reporters
// render it (AgreementView); pipeline computes it.
type Agreement struct {
	// Judge names what judged ("memory judge", `rubric judge "empathy"
	// (llm-judge)`); Rubric the rubric compared, if any; Run is the run
	// directory and Sheet the people's file.
	Judge  string `json:"judge"`
	Rubric string `json:"rubric,omitempty"`
	Run    string `json:"run"`
	Sheet  string `json:"sheet"`
	// Scored is true when 1–5 scores are compared (a rubric with a pass
	// condition rated in a score column), false for verdicts.
	Scored bool `json:"scored"`
	// Labels are the labels in the table's order.
	Labels []string `json:"labels"`
	// Items counts items both judged in the run and rated by people;
	// Unmatched the rated ids the run did not judge; Unscored the rated
	// items the judge gave no score (scores only: its answer was
	// unparseable or the reply empty), left out of the figures.
	Items     int `json:"items"`
	Unmatched int `json:"unmatched"`
	Unscored  int `json:"unscored,omitempty"`
	// Agreed counts items where judge and people gave the same label.
	Agreed int `json:"agreed"`
	// Kappa is Cohen's kappa, unweighted; nil when it is not defined
	// (one label throughout, or no item). QuadraticKappa is Cohen's kappa
	// with quadratic weights over the labels' indexes (scores only).
	Kappa          *float64 `json:"cohen_kappa"`
	QuadraticKappa *float64 `json:"cohen_kappa_quadratic,omitempty"`
	// Table[i][j] counts the items the judge gave Labels[i] and people
	// Labels[j].
	Table [][]int `json:"table"`
}

// Observed is the share of items judge and people agree on, Agreed/Items.
func (a *Agreement) Observed() Ratio { return R(a.Agreed, a.Items) }
