// Package perturb owns the text perturbations of a perturb block
// (robustness, the YD/T draft "面向应用场景的自然语言处理模型评估方法":
// R = (D1 + S1) / (D + S) over original and perturbed inputs): given a
// generated case, [Block.Variants] makes count variants of its text per
// kind ([Kinds]: swapped neighbours, a deleted or repeated character,
// half/full-width forms, punctuation, a synonym or homophone from the
// block's groups).
//
// A variant keeps the original's expectations and splits, carries
// Perturbation and Original, and has its own stable id ORIGINAL-KINDn
// ([SplitID] reads it back). Variants are seeded by the block's seed and
// the original's id, so the same suite gives the same variants; every
// variant's text differs from the original's and from the case's other
// variants (a kind that cannot make a new text makes fewer).
//
// The package does not decode the block: the suite loader (package spec)
// reads its attributes, resolves synonyms to a materials block and
// reports what is wrong.
package perturb
