// Package infer owns nlutest's statistical inference: confidence
// intervals of the figures the metrics tree reports, paired significance
// tests between two runs, multiple-comparison adjustments, and the trend
// and change-point tests of a metric's history. It is pure arithmetic on
// numbers the callers hand it — counts, per-case contribution vectors,
// series — with the standard library only: no I/O, no HCL, no knowledge
// of the metrics tree. docs/statistics.md gives every formula with its
// reference.
//
// # Intervals
//
// [Wilson] is the Wilson score interval of a proportion (statsmodels'
// proportion_confint method "wilson"). Every other statistic — an F1, a
// macro average, a mean, a ratio — gets a percentile bootstrap interval
// ([Bootstrap], [Tally.Bootstrap], [Tally.Ratio]). Nearly every nlutest
// statistic is a function of sums of per-case contribution vectors
// (accuracy: passed, counted; a dimension's F1: correct, recognised,
// expected; a mean: value, 1), so resampling the N cases with replacement
// is exactly a multinomial draw of how many times each distinct vector
// appears. A [Tally] keeps the distinct vectors with their counts, and
// each resample costs O(distinct vectors), drawn exactly by sequential
// conditional binomials ([Stream.Binomial]: inversion for small means,
// Hörmann's BTRS otherwise) — four binomials a resample for pass/fail
// over a million cases. [DefaultResamples] is 1,000; quantiles are numpy's
// "linear" method ([Quantile]). A statistic whose distinct vectors ×
// resamples exceed a work budget ([DefaultBudget]) is not bootstrapped;
// [Tally.Ratio] (means, ratios) then gives the t interval with the
// delta-method standard error, which agrees with the bootstrap at those
// sizes (measured in the tests).
//
// # Randomness
//
// Every resampling draws from a [Stream]: PCG-DXSM seeded from SHA-256 of
// a seed ([DefaultSeed] unless set) and the statistic's address, so each
// interval is reproducible bit for bit and different statistics draw
// unrelated streams.
//
// # Comparisons
//
// [ComparePassFail] compares pass rates over paired cases: paired
// bootstrap interval of the difference, McNemar's exact p-value
// ([McNemarExact]). [Tally.Compare] compares any two statistics of paired
// cases with the paired bootstrap and its p-value; [Tally.CompareMeans]
// compares means with the paired sign-flip permutation test ([SignFlip]).
// [Decide] turns a difference and a p-value into a [Verdict]: better,
// worse or no detectable difference. [Holm] and [BenjaminiHochberg]
// adjust the p-values of several comparisons read together.
//
// # History
//
// [LinearTrend] (least squares, scipy's linregress) and [TheilSen]
// (robust) give a series' slope with its interval; [ChangePoints] finds
// changes of level by binary segmentation with a Monte Carlo test whose
// false alarm rate on a series without change is at most its alpha.
package infer
