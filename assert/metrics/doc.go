// Package metrics owns the arithmetic behind nlutest's metrics tree
// (SPEC §8): streaming accumulators that take one case at a time and turn
// what they saw into the schema records the reporters and thresholds read.
//
// It does no I/O and knows nothing of HCL, cty or JSONPath: callers decide
// which units, labels and latencies belong to which dimension and node, and
// feed them here. Every accumulator keeps memory bounded by the number of
// distinct labels or values it has seen (the latency accumulator keeps one
// float64 per sample for exact percentiles up to ExactLatencySamples,
// 2,097,152, then a log-linear histogram: percentiles within 0.4%, stated
// in the result, count, mean and max still exact), and every accumulator has a Merge method, so shards, splits and groups can be accumulated apart and
// combined: merging accumulators gives the same result as feeding one
// accumulator everything. Results are deterministic: labels and values are
// sorted, never taken in map order, and sums run in a fixed order.
//
// The accumulators are not safe for concurrent use; give each goroutine its
// own and Merge them.
//
// # Classification (label dimensions: intent, domain)
//
// [LabelAcc] follows scikit-learn's classification_report,
// precision_recall_fscore_support, confusion_matrix and top_k_accuracy_score:
//
//   - The labels are the sorted union of the expected and the predicted
//     labels (sklearn's unique_labels). A case without a prediction (empty
//     ranking: no intent, or a confidence below min_confidence) is not a
//     label: it is a miss for the recall of its expected label, adds no
//     false positive anywhere, and shows in the confusion matrix as a last
//     column named [NoPrediction], present only when it occurred.
//   - Per label: precision = tp/(tp+fp), recall = tp/(tp+fn),
//     F1 = 2tp/(2tp+fp+fn), support = tp+fn, each kept as a ratio. When a
//     denominator is zero (a label never predicted has no precision, a label
//     never expected has no recall) the ratio keeps its zero denominator and
//     reads "n/a"; the macro and weighted averages count it as 0, exactly as
//     sklearn's default zero_division does.
//   - Macro = unweighted mean over the labels (sum over the number of
//     labels); weighted F1 = support-weighted mean (Σ F1·support over
//     Σ support); micro F1 = 2Σtp / (2Σtp + Σfp + Σfn), which equals the
//     accuracy when every case has a prediction; accuracy = exact / total.
//   - Top-k accuracy = cases whose expected label is among the first k
//     distinct labels of the ranking, over all cases. YD/T 4394.2-2023's intent
//     recognition rate W = S1/S, S1 being exact plus fuzzy recognitions, is
//     the same figure when "fuzzy" means "in the top k but not first", so the
//     two fields are always equal; both are kept because suites speak of
//     either. Without a ranking (k ≤ 1) both equal the accuracy and K is 0.
//
// # Leaf, items and case dimensions (the IAO corpus-factory write-up §2.1)
//
// [DimAcc] counts units, (path, value) pairs for leaf dimensions or compared
// item keys for items dimensions. Per case, correct is the multiset
// intersection of expected and recognised units, wrong = recognised −
// correct; precision = correct/recognised, recall = correct/expected, error
// rate = wrong/recognised, F1 = 2·correct/(expected + recognised). The same
// figures are kept per value (ontology "Person"). [CaseDimAcc] counts cases
// that met every expectation of a case dimension.
//
// # Latency (YD/T 4394.2-2023, response time)
//
// [LatencyAcc] reports mean, p50/p90/p95/p99 and max, overall and per input
// length bucket. Up to [ExactLatencySamples] samples, percentiles use linear
// interpolation between closest ranks, numpy's default method ("linear") and
// Excel's PERCENTILE.INC; past it the samples move into a log-linear
// histogram, so memory stays flat, and percentiles are within 0.4% of the
// exact values. Input length
// is measured by [InputLength]: characters for Chinese, Japanese and Korean
// script, words otherwise.
//
// # Ranking (the Tencent AI Lab rated chit-chat dataset paper; trec_eval)
//
// [ScoreQuestion] scores one question's ranking at a positive grade N as
// trec_eval -lN: AP (denominator: the question's positives), reciprocal
// rank, P@1 and nDCG (gain = grade). [SortByScore] ranks by score, ties
// by the candidates' order in the file. [RankAcc] averages questions under
// the paper's rule (single-class questions dropped and counted) or
// trec_eval's (kept).
//
// # Agreement (ratings)
//
// [CohenKappa] is scikit-learn's cohen_kappa_score (weights none, linear,
// quadratic over label indexes); [FleissKappa] is statsmodels'
// fleiss_kappa.
//
// # Text (reply against references)
//
// The text metrics follow their reference implementations exactly:
// sacrebleu's tokenizers ([Tokenize]: 13a, zh, char, none) and corpus BLEU
// ([SegmentBLEU] statistics summed, [BLEUScore] with exp, floor, add-k or
// no smoothing, [BLEUSignature]); the SQuAD v1.1 and MLQA (Chinese)
// evaluation scripts' normalisation, exact match and token F1
// ([ExactMatch], [TokenF1]); Google rouge-score's ROUGE-N and ROUGE-L
// ([RougeN], [RougeL], [RougeTokens]; [RougeTokensZh] for Chinese, which
// rouge-score cannot tokenise); METEOR as NLTK's meteor_score without
// synonyms ([Meteor], with NLTK's Porter stemmer [PorterStem]); and
// distinct-n as Li et al. 2016 ([DistinctAcc]). Their tests reproduce the
// references' published values.
package metrics
