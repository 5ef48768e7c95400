package schema

// The confidence families (package assert fills them): calibration
// (metrics.calibration.DIM) and out-of-scope detection (metrics.oos.DIM),
// one entry per label dimension with a confidence path — their shapes and
// their values, which reporters read back from a report too.

// CalibrationBinKeys name the bins of a reliability diagram, in order.
var CalibrationBinKeys = []string{"0.0-0.1", "0.1-0.2", "0.2-0.3", "0.3-0.4", "0.4-0.5", "0.5-0.6", "0.6-0.7", "0.7-0.8", "0.8-0.9", "0.9-1.0"}

// CalibrationFamily is metrics.calibration: confidence calibration per
// label dimension with a confidence.
var CalibrationFamily = &Family{Name: "calibration", Subs: []*Sub{{
	Name: "calibration", Doc: "per label dimension with a confidence: confidence calibration (Guo et al. 2017)", Keyed: true,
	Keys: KeysLabel, What: "label dimension", NameKeys: true,
	Shape: &Shape{Attrs: []Attr{
		{Name: "cases", Kind: MetricCount, Doc: "cases with an expected label and a predicted label with a confidence in [0, 1]"},
		{Name: "accuracy", Kind: MetricRatio, Doc: "predictions equal to the expected label (min_confidence not applied) / cases", CI: CIWilson, CIUnit: UnitCases},
		{Name: "mean_confidence", Kind: MetricRatio, Doc: "mean confidence of the predictions"},
		{Name: "ece", Kind: MetricRatio, Doc: "expected calibration error: Σ over 10 bins of |correct − Σ confidence| / cases", LowerBetter: true},
		{Name: "mce", Kind: MetricNumber, Doc: "maximum calibration error: the largest |accuracy − mean confidence| of a bin", LowerBetter: true},
		{Name: "brier", Kind: MetricRatio, Doc: "top-label Brier score: Σ (confidence − correct)² / cases, correct 1 or 0", LowerBetter: true},
		{Name: "out_of_range", Kind: MetricCount, Doc: "confidences outside [0, 1], left out"},
	}, Subs: []*Sub{{
		Name: "bins", Doc: "the reliability diagram: bins (0, 0.1], …, (0.9, 1] (0 in the first)", Keyed: true, Always: true,
		Order: CalibrationBinKeys, Shape: &Shape{Attrs: []Attr{
			{Name: "cases", Kind: MetricCount, Doc: "cases whose confidence falls in the bin"},
			{Name: "accuracy", Kind: MetricRatio, Doc: "right predictions / cases of the bin", CI: CIWilson, CIUnit: UnitCases},
			{Name: "mean_confidence", Kind: MetricRatio, Doc: "mean confidence of the bin"},
			{Name: "gap", Kind: MetricNumber, Doc: "|accuracy − mean confidence|", LowerBetter: true},
		}},
	}}},
	Props: []string{"ece", "mce", "brier"},
}}}

// OOSFamily is metrics.oos: out-of-scope detection per label dimension
// with a confidence and an out_of_scope label or a min_confidence.
var OOSFamily = &Family{Name: "oos", Subs: []*Sub{{
	Name: "oos", Doc: "per label dimension with a confidence and an out_of_scope label or min_confidence: out-of-scope detection", Keyed: true,
	Keys: KeysLabel, What: "label dimension", NameKeys: true,
	Shape: &Shape{Attrs: []Attr{
		{Name: "in_scope", Kind: MetricCount, Doc: "cases expecting a label other than the out-of-scope one"},
		{Name: "out_of_scope", Kind: MetricCount, Doc: "cases expecting the out-of-scope label or no label"},
		{Name: "auroc", Kind: MetricNumber, Doc: "area under the ROC curve of in scope by the score (scikit-learn roc_auc_score)"},
		{Name: "aupr", Kind: MetricNumber, Doc: "average precision of in scope by the score (scikit-learn average_precision_score)"},
		{Name: "fpr_at_95_tpr", Kind: MetricNumber, Doc: "out-of-scope cases accepted at the highest threshold keeping 95 % of the in-scope ones", LowerBetter: true},
		{Name: "threshold_at_95_tpr", Kind: MetricNumber, Doc: "that threshold"},
	}, Subs: []*Sub{{
		Name: "thresholds", Doc: "a fallback below each threshold", Keyed: true, Always: true,
		Shape: &Shape{Attrs: []Attr{
			{Name: "in_scope_accuracy", Kind: MetricRatio, Doc: "in-scope cases with the expected label at or above the threshold / in-scope cases", CI: CIWilson, CIUnit: UnitCases},
			{Name: "oos_recall", Kind: MetricRatio, Doc: "out-of-scope cases below the threshold / out-of-scope cases", CI: CIWilson, CIUnit: UnitCases},
			{Name: "in_scope_kept", Kind: MetricRatio, Doc: "in-scope cases at or above the threshold (TPR)", CI: CIWilson, CIUnit: UnitCases},
			{Name: "oos_accepted", Kind: MetricRatio, Doc: "out-of-scope cases at or above the threshold (FPR)", CI: CIWilson, CIUnit: UnitCases, LowerBetter: true},
		}},
	}}},
	Props: []string{"auroc", "aupr", "fpr_at_95_tpr"},
}}}

// Calibration is one label dimension's confidence calibration (Guo et al.
// 2017): the top prediction's confidence against whether it was right.
type Calibration struct {
	Cases          int   `json:"cases"`
	Accuracy       Ratio `json:"accuracy"`
	MeanConfidence Ratio `json:"mean_confidence"`
	// ECE is the expected calibration error over 10 equal-width bins.
	ECE Ratio `json:"ece"`
	// MCE is the largest gap of a bin with cases; nil without cases.
	MCE *float64 `json:"mce"`
	// Brier is the top label's binary Brier score: mean (confidence −
	// correct)².
	Brier Ratio `json:"brier"`
	// OutOfRange counts confidences outside [0, 1], left out.
	OutOfRange int `json:"out_of_range"`
	// Bins are keyed "0.0-0.1" … "0.9-1.0" (every bin, empty ones too).
	Bins map[string]*CalibrationBin `json:"bins"`
}

// CalibrationBin is one confidence bin of a reliability diagram.
type CalibrationBin struct {
	Cases          int   `json:"cases"`
	Accuracy       Ratio `json:"accuracy"`
	MeanConfidence Ratio `json:"mean_confidence"`
	// Gap is |accuracy − mean confidence|; nil for an empty bin.
	Gap *float64 `json:"gap"`
}

// OOS is one label dimension's out-of-scope detection: how well the
// confidence tells in-scope utterances from out-of-scope ones.
type OOS struct {
	InScope    int `json:"in_scope"`
	OutOfScope int `json:"out_of_scope"`
	// AUROC and AUPR are scikit-learn's roc_auc_score and
	// average_precision_score of "in scope" by the score; nil when not
	// defined (one class only; AUPR without in-scope cases).
	AUROC *float64 `json:"auroc"`
	AUPR  *float64 `json:"aupr"`
	// FPRAt95TPR is the share of out-of-scope cases scored at or above
	// the highest threshold that keeps 95 % of the in-scope ones, which
	// ThresholdAt95TPR is; nil with one class only.
	FPRAt95TPR       *float64 `json:"fpr_at_95_tpr"`
	ThresholdAt95TPR *float64 `json:"threshold_at_95_tpr"`
	// Thresholds holds the figures a fallback at each threshold gives,
	// keyed by the threshold ("0.7").
	Thresholds map[string]*OOSThreshold `json:"thresholds"`
	// ROC is the ROC curve, [FPR, TPR] from (0, 0) to (1, 1), sampled to
	// at most 102 points, for charts.
	ROC [][2]float64 `json:"roc,omitempty"`
}

// OOSThreshold are the figures of a fallback below one threshold.
type OOSThreshold struct {
	// InScopeAccuracy: in-scope cases answered with the expected label
	// at or above the threshold / in-scope cases.
	InScopeAccuracy Ratio `json:"in_scope_accuracy"`
	// OOSRecall: out-of-scope cases that fall back (score below the
	// threshold) / out-of-scope cases.
	OOSRecall Ratio `json:"oos_recall"`
	// InScopeKept (TPR): in-scope cases scored at or above it; OOSAccepted
	// (FPR): out-of-scope cases scored at or above it.
	InScopeKept Ratio `json:"in_scope_kept"`
	OOSAccepted Ratio `json:"oos_accepted"`
}
