package schema

// The shapes of the built-in metric families defined outside tree.go
// (assert's accumulators fill them). BuiltinFamilies lists every built-in
// family in the order the metrics tree, reports and listings show them.

var rankFigures = []Attr{
	{Name: "questions", Kind: MetricCount, Doc: "questions averaged"},
	{Name: "dropped", Kind: MetricCount, Doc: "questions dropped: all candidates one class (drop_single_class)"},
	{Name: "p_at_1", Kind: MetricRatio, Doc: "questions whose first-ranked candidate is positive / questions", CI: CIWilson, CIUnit: UnitQuestions},
	{Name: "map", Kind: MetricRatio, Doc: "mean average precision"},
	{Name: "mrr", Kind: MetricRatio, Doc: "mean reciprocal rank of the first positive"},
	{Name: "ndcg", Kind: MetricRatio, Doc: "mean nDCG, gain = grade"},
}

// RankingFamily is metrics.ranking: response ranking over graded candidates.
var RankingFamily = &Family{Name: "ranking", Subs: []*Sub{{
	Name: "ranking", Doc: "response ranking over graded candidates, at each block's first positive grade",
	Shape: &Shape{Attrs: rankFigures, Subs: []*Sub{
		{Name: "positive_grade", Doc: "at each positive grade N (positive = grade ≥ N)", Keyed: true, What: "positive grade", Shape: &Shape{Attrs: rankFigures}},
		{Name: "source", Doc: "per ranking block", Keyed: true, Keys: KeysSourcePrefix + "ranking", What: "ranking block", Shape: &Shape{Attrs: rankFigures}},
	}},
	Props: []string{"p_at_1", "map", "mrr"},
}}}

// RatingsFamily is metrics.ratings: imported rating sheets.
var RatingsFamily = &Family{Name: "ratings", Subs: []*Sub{{
	Name: "ratings", Doc: "imported rating sheets, per ratings block", Keyed: true, What: "ratings block",
	Shape: &Shape{
		Attrs: []Attr{
			{Name: "items", Kind: MetricCount, Doc: "cases rated"},
			{Name: "raters", Kind: MetricCount, Doc: "raters in the sheet"},
			{Name: "kept", Kind: MetricCount, Doc: "items whose scores differ by at most keep_if_diff_at_most"},
		},
		Subs: []*Sub{{Name: "dimension", Doc: "per rated dimension, over the kept items", Keyed: true, What: "rated dimension",
			Shape: &Shape{Attrs: []Attr{
				{Name: "mean", Kind: MetricNumber, Doc: "mean score of all raters"},
				{Name: "cohen_kappa", Kind: MetricNumber, Doc: "Cohen's kappa, two raters"},
				{Name: "cohen_kappa_linear", Kind: MetricNumber, Doc: "Cohen's kappa, linear weights over label indexes"},
				{Name: "cohen_kappa_quadratic", Kind: MetricNumber, Doc: "Cohen's kappa, quadratic weights over label indexes"},
				{Name: "fleiss_kappa", Kind: MetricNumber, Doc: "Fleiss' kappa, three raters or more"},
			}},
			Props: []string{"mean", "cohen_kappa", "fleiss_kappa"},
		}},
	},
	Props: []string{"items", "kept"},
}}}

var robustCountsShape = &Shape{Attrs: []Attr{
	{Name: "total", Kind: MetricCount, Doc: "cases"},
	{Name: "passed", Kind: MetricCount, Doc: "cases that passed"},
}}

// RobustnessFamily is metrics.robustness: originals and perturbed variants.
var RobustnessFamily = &Family{Name: "robustness", Absent: "robustness compares perturbed variants with their originals, and none of them ran; --filter, --split and --shard choose which cases run", Subs: []*Sub{{
	Name: "robustness", Doc: "original and perturbed inputs: R = (D1 + S1) / (D + S)",
	Shape: &Shape{
		Attrs: []Attr{{Name: "score", Kind: MetricRatio, Doc: "(originals passed + perturbed passed) / (originals + perturbed)", CI: CIWilson, CIUnit: UnitInputs}},
		Subs: []*Sub{
			{Name: "original", Doc: "cases of perturbing sources, unperturbed (D, D1)", Shape: robustCountsShape},
			{Name: "perturbed", Doc: "perturbed cases (S, S1)", Shape: robustCountsShape},
			{Name: "kind", Doc: "per perturbation kind", Keyed: true, What: "perturbation kind", Shape: &Shape{Attrs: []Attr{
				{Name: "total", Kind: MetricCount, Doc: "perturbed cases of the kind"},
				{Name: "passed", Kind: MetricCount, Doc: "those that passed"},
				{Name: "accuracy", Kind: MetricRatio, Doc: "passed / total", CI: CIWilson, CIUnit: UnitCases},
			}}},
		},
	},
	Props: []string{"score"},
}}}

// TextFamily is metrics.text: replies against references.
var TextFamily = &Family{Name: "text", Subs: []*Sub{{
	Name: "text", Doc: "reply against references: EM/F1, BLEU, ROUGE, METEOR, distinct (cases with references)",
	Shape: &Shape{Attrs: []Attr{
		{Name: "cases", Kind: MetricCount, Doc: "cases with references"},
		{Name: "exact_match", Kind: MetricRatio, Doc: "replies equal to a reference after normalisation / cases", CI: CIWilson, CIUnit: UnitCases},
		{Name: "f1", Kind: MetricRatio, Doc: "mean token F1 against the best reference", CI: CIBootstrap, CIUnit: UnitCases},
		{Name: "bleu", Kind: MetricNumber, Doc: "corpus BLEU as sacrebleu's corpus_bleu, 0–1 (the report shows 0–100)"},
		{Name: "rouge1", Kind: MetricRatio, Doc: "mean ROUGE-1 F against the best reference", CI: CIBootstrap, CIUnit: UnitCases},
		{Name: "rouge2", Kind: MetricRatio, Doc: "mean ROUGE-2 F against the best reference", CI: CIBootstrap, CIUnit: UnitCases},
		{Name: "rougeL", Kind: MetricRatio, Doc: "mean ROUGE-L F against the best reference", CI: CIBootstrap, CIUnit: UnitCases},
		{Name: "meteor", Kind: MetricRatio, Doc: "mean METEOR (NLTK's meteor_score, synonyms off) against the best reference", CI: CIBootstrap, CIUnit: UnitCases},
		{Name: "distinct1", Kind: MetricRatio, Doc: "distinct unigrams of all replies / reply tokens"},
		{Name: "distinct2", Kind: MetricRatio, Doc: "distinct bigrams of all replies / reply tokens"},
	}},
	Props: []string{"exact_match", "f1", "bleu", "rougeL"},
}}}

// BuiltinFamilies returns the built-in metric families' shapes, in the
// order of the metrics tree: the case counts, dimension, label and latency
// (figures of every node), then the others by name.
func BuiltinFamilies() []*Family {
	return []*Family{CasesFamily, DimensionFamily, LabelFamily, LatencyFamily,
		DialogueFamily, RepeatFamily, MemoryFamily, RankingFamily, RatingsFamily, RobustnessFamily, RubricFamily, TextFamily, UsageFamily,
		CalibrationFamily, OOSFamily, ScenarioFamily, CoverageFamily, ToolsFamily, TaskFamily}
}
