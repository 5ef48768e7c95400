// Package rubric owns what a judge is asked and how its answer is read:
// the rubric block's model ([Spec], SPEC §14.5: criteria a judge target
// judges a case's reply by, on a conversation turn, a template, a dataset
// or a memory block's questions), what the judge is sent ([Spec.Input]),
// the check of a pass condition over every score 1–5 ([Spec.CheckPass]),
// the strict reading of answers ([ParseVerdict] for pass/fail,
// [ParseScore] for a 1–5 score, [ParseNLI] for a memory answer's
// entailed, neutral or contradicted: anything else is unparseable, never
// guessed), and YD/T 4394.2-2023's 5-point rating rubrics ([YDT]) that
// ratings sheets print.
//
//	rubric "empathy" {
//	  judge    = "llm-judge"
//	  criteria = "The reply acknowledges the problem and offers a next step."
//	  history  = true          # the judge also sees the conversation so far
//	  pass     = "score >= 4"  # the judge gives a 1–5 score; default pass/fail
//	}
//
// The package does not decode the block nor evaluate expressions: the
// suite loader (package spec) reads the attributes, resolves the judge
// target and variables, evaluates the pass condition and a judge target's
// verdict expression (Suite.JudgeText, Suite.RubricPasses); the evaluator
// (assert) reads a recorded judgement with them.
package rubric
