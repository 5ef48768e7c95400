// Package spec owns nlutest's suite language: it reads a suite directory (every
// *.nlutest.hcl file in it) or one file into a typed Suite, reports every
// mistake as an hcl.Diagnostic with an exact source range, checks the names
// each expression uses before anything runs, builds the evaluation contexts
// and function table that expressions see, and generates cases from its
// case sources: templates (placeholders, strategies, splits), with the
// perturbed variants of a perturb block.
//
// spec never touches the network: expressions that depend on a case or a
// response are kept as hcl.Expression and evaluated later by runner and
// assert through the contexts built here. A target block's shared settings
// are read here; its kind block is decoded by the TargetKind the load is
// given (Options.TargetKinds, from runner/targets), through TargetDecoder.
//
// spec also owns what a secret is (secrets.go): the text forms of sensitive
// variables' values (Suite.Secrets, Suite.Redactor), the refusal of values
// too short to hide, and the check contexts (CheckContext, CheckBaseContext,
// SplitContext) where sensitive values carry the Sensitive mark so a failing
// function does not quote them; Go code reading a value computed there
// unmarks it first (Unmark). Where a sensitive variable may be used is one
// rule, applied to every attribute of every block (secret_places.go).
//
// Beyond names, the load checks what can be known before a run: threshold
// conditions' types, with every metric an unknown number
// (threshold_check.go), and rubric pass conditions against the judge's
// 1–5 scale (rubric_judge.go).
//
// The case source kinds the load is given (Options.SourceKinds) decode
// their blocks through Decoder and generate through Gen. spec has no
// built-in kind: with nil SourceKinds a template or any other source block
// is an "Unsupported block type", and a program passes the kinds nlutest
// ships through extensions.Default().LoadOptions. Those kinds live in
// packages of their own and use that public API alone: sources/template
// (the template block, decoded with api_template.go's helpers; the
// generation engine every template-based kind uses stays here —
// generate.go, compose.go, nesting.go, perturb.go, placeholder.go — as
// does the Source NewTemplateSource makes, template_source.go, which
// generates and rebuilds a template's cases), sources/dataset (rows
// of data files; a kind that reads data files row by row is a DataChecker:
// Suite.CheckData, Suite.CheckCaseIDs), sources/ranking (questions with
// graded candidates, and TREC qrels and run files read at report time),
// sources/memory (facts, fillers and questions, built on the
// template-generation API of template_api.go and api_memory.go; KindMemory
// and Fold, which assert and the scenario kind read, stay here),
// sources/conversation (ordered turns sharing one slot assignment, with
// per-turn checks and captures) and sources/scenario (goal-driven dialogues
// whose user turns a simulator computes). What the dialogue kinds share
// stays here as the language's records and loader steps (api_dialogue.go):
// the Turn and Capture records spec's own checks read (a bot-first turn a
// target cannot open, botfirst.go; a capture a later turn misses,
// capture_missing.go), the turn blocks as the loader reads them (streamed
// in batches from a long file, turnstream.go; fragments expanded,
// fragment.go), the joined-template text, the tools and tool blocks
// (tools.go, tool_mock.go), which templates and the suite's mock tools use
// too, the final_state block's record (FinalStateSpec, in SourceInfo), and
// the scenario records assert's families read (KindScenario, ReasonSlot,
// the task block's TaskSpec: task.go).
//
// A metric family's settings block (text_metrics, statistics, coverage:
// SettingsBlock) is declared and decoded by its family, outside spec; spec
// keeps the mechanism (settings.go: the schema, at most one block of a
// type, Suite.Settings) and the Decoder methods such a block uses
// (api_settings.go); a family's named, repeatable block implements
// LabelledSettingsBlock too. The ratings block is such a block: it and
// its filled sheets' reader live in ratings/sheet, declared by the ratings
// family (assert). rubric.go holds YD/T 4394.2-2023's rating rubrics,
// which ratings export writes.
package spec
