package schema

// This file holds the values of the metric families that are not in
// their own file (schema.Memory is in memory.go): what the families in
// package assert put in a node's Families, and what reporters read back
// from a report, so both sides share one type.

// Text is metrics.text in a node (the YD/T draft on NLP model
// evaluation): each case's reply against its references. BLEU is 0–1;
// BLEUScore is the same on sacrebleu's 0–100 scale, with its signature.
type Text struct {
	Cases         int     `json:"cases"`
	ExactMatch    Ratio   `json:"exact_match"`
	F1            Ratio   `json:"f1"`
	BLEU          float64 `json:"bleu"`
	BLEUScore     float64 `json:"bleu_score"`
	BLEUSignature string  `json:"bleu_signature"`
	Rouge1        Ratio   `json:"rouge1"`
	Rouge2        Ratio   `json:"rouge2"`
	RougeL        Ratio   `json:"rougeL"`
	Meteor        Ratio   `json:"meteor"`
	Distinct1     Ratio   `json:"distinct1"`
	Distinct2     Ratio   `json:"distinct2"`
	// LowestBy names the per-case score Lowest is ordered by (f1, or
	// text_metrics' lowest_by); Lowest lists the node's lowest-scoring
	// cases, lowest first (at most MaxLowestText).
	LowestBy string     `json:"lowest_by,omitempty"`
	Lowest   []TextCase `json:"lowest,omitempty"`
}

// MaxLowestText caps the lowest-scoring cases a node of metrics.text
// lists.
const MaxLowestText = 10

// TextCase is one case of metrics.text's lowest-scoring list: its reply
// (cut at 300 bytes), its references (at most 3, each cut) and its scores.
type TextCase struct {
	ID         string   `json:"id"`
	Text       string   `json:"text"`
	Reply      string   `json:"reply"`
	References []string `json:"references"`
	Score      float64  `json:"score"`
	ExactMatch float64  `json:"exact_match"`
	F1         float64  `json:"f1"`
	RougeL     float64  `json:"rougeL"`
	Meteor     float64  `json:"meteor"`
}

// Robustness is metrics.robustness in a node: how cases fare under
// perturbation, R = (D1 + S1) / (D + S).
type Robustness struct {
	Original  RobustCounts           `json:"original"`
	Perturbed RobustCounts           `json:"perturbed"`
	Score     Ratio                  `json:"score"`
	Kind      map[string]*RobustKind `json:"kind"`
	Broken    []BrokenCase           `json:"broken,omitempty"`
}

// RobustCounts are D and D1, or S and S1.
type RobustCounts struct {
	Total  int `json:"total"`
	Passed int `json:"passed"`
}

// RobustKind are one perturbation kind's figures.
type RobustKind struct {
	Total    int   `json:"total"`
	Passed   int   `json:"passed"`
	Accuracy Ratio `json:"accuracy"`
}

// BrokenCase is a perturbed case that failed while its original passed.
type BrokenCase struct {
	ID           string `json:"id"`
	Perturbation string `json:"perturbation"`
	Text         string `json:"text"`
	Original     string `json:"original"`
	OriginalText string `json:"original_text"`
}
