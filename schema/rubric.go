package schema

// Rubric judges (SPEC §14.5): a rubric block names a judge target and
// criteria; every case or turn carrying it is sent to that judge after
// its call, and the judge's answer is recorded on the result
// (Result.Rubrics), read again by every `nlutest eval`.

// Rubric verdicts (RubricVerdict.Verdict).
const (
	RubricPass = "pass"
	RubricFail = "fail"
	// Unanswered (a turn whose reply is empty: nothing to judge) and
	// Unparseable (the judge's answer is not a verdict or score) are the
	// memory verdicts' names.
)

// RubricVerdict is one rubric's judgement of a case's reply: the judge's
// call as recorded, and the verdict and score read from it when the result
// was last evaluated.
type RubricVerdict struct {
	// Name is the rubric block's label.
	Name string `json:"name"`
	// Judge is the call to the judge target (nil when the reply was empty
	// and nothing was sent).
	Judge *Judgement `json:"judge,omitempty"`
	// Verdict is pass, fail, unanswered or unparseable.
	Verdict string `json:"verdict"`
	// Score is the judge's score, 1–5, for a rubric with a pass
	// expression; 0 when it gives none.
	Score int `json:"score,omitempty"`
	// Detail says what decided the verdict.
	Detail string `json:"detail,omitempty"`
}

// RubricStats is metrics.rubric["NAME"]: one rubric's judgements in a
// node.
type RubricStats struct {
	// Judged counts the results the rubric was evaluated on (every result
	// carrying it whose call did not error).
	Judged int `json:"judged"`
	Passed int `json:"passed"`
	// PassRate = passed / judged.
	PassRate Ratio `json:"pass_rate"`
	// Unparseable counts judgements that gave no verdict or score.
	Unparseable int `json:"unparseable"`
	// MeanScore is the mean of the scores given (a rubric with a pass
	// expression); null without scores.
	MeanScore *float64 `json:"mean_score"`
}

// RubricFamily is metrics.rubric: rubric judges' verdicts per rubric name.
var RubricFamily = &Family{Name: "rubric", Absent: "metrics.rubric counts the cases of this run that carry a rubric block; --filter, --split and --shard choose which cases run", Subs: []*Sub{{
	Name: "rubric", Doc: "rubric judges: verdicts per rubric block name (present when the suite has rubric blocks)", Keyed: true, Keys: KeysRubric, What: "rubric",
	Shape: &Shape{Attrs: []Attr{
		{Name: "judged", Kind: MetricCount, Doc: "results judged (the case's call did not error)"},
		{Name: "passed", Kind: MetricCount, Doc: "results the rubric passed"},
		{Name: "pass_rate", Kind: MetricRatio, Doc: "passed / judged", CI: CIWilson, CIUnit: UnitCases},
		{Name: "unparseable", Kind: MetricCount, Doc: "judgements with no verdict or score (the judge call failed, or its answer is not one)"},
		{Name: "mean_score", Kind: MetricNumber, Doc: "mean 1–5 score, rubrics with a pass expression (null otherwise)"},
	}},
	Props: []string{"judged", "pass_rate", "mean_score"},
}}}
