package metrics

// CaseTextScores are the text metrics that have a value per case (EM, F1,
// ROUGE, METEOR), by the names metrics.text gives their means: what a
// dataset's per-case minimums (min_f1 …) and text_metrics' lowest_by
// name. BLEU and distinct-n are corpus figures and have none.
var CaseTextScores = []string{"exact_match", "f1", "rouge1", "rouge2", "rougeL", "meteor"}
