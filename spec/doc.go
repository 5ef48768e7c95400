// Package spec owns nlutest's suite language: it reads a suite directory (every
// *.nlutest.hcl file in it) or one file into a typed Suite, reports every
// mistake as an hcl.Diagnostic with an exact source range, checks the names
// each expression uses before anything runs, builds the evaluation contexts
// and function table that expressions see, and walks its case sources to
// generate cases (the kinds and the engine that fills templates live
// outside it; see below).
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
// packages of their own and use that public API alone: sources/template,
// sources/dataset (a kind that reads data files row by row is a
// DataChecker: Suite.CheckData, Suite.CheckCaseIDs), sources/ranking,
// sources/memory, sources/conversation and sources/scenario. The
// generation engine the template-based kinds share, and the Source it
// makes to generate and rebuild a template's cases, are spec/generate's
// (generate.Template, generate.NewSource), which imports spec; spec keeps
// the walk over the sources (Suite.Generate), the split selection
// (Splitter), CaseID, the template-generation settings every such kind
// decodes (template_api.go) and the accessors the engine reads
// (api_gen.go). What the dialogue kinds share stays here as the language's
// records and loader steps (api_dialogue.go): the Turn and Capture records
// spec's own checks read (a bot-first turn a target cannot open,
// botfirst.go; a capture a later turn misses, capture_missing.go), the turn
// blocks as the loader reads them (fragments expanded, fragment.go), the
// joined-template text, the final_state block's record (FinalStateSpec, in
// SourceInfo), and the scenario records assert's families read
// (KindScenario, ReasonSlot, the task block's TaskSpec: task.go).
//
// The blocks' own models and their reading are leaf rooms spec imports
// and which never import it (internal/codeshape keeps them so): a block's
// plain attributes read alike everywhere (spec/attr), material values,
// material files and composed materials (spec/materials), the pre-parse
// nesting bound (spec/nesting), JSONPath keys (spec/jsonpath),
// carets inside a string literal (spec/litrange), a Chinese input
// method's punctuation slips (spec/imeslip), the streamed turn blocks of a
// long conversation (spec/turnstream), perturbation variants
// (spec/perturb), reply checks (spec/reply), tools checks and mock tools
// (spec/tools), rubric blocks and judge answers (spec/rubric) and the drift
// gate's model (spec/drift). spec keeps the glue that finds their blocks
// and reports into its diagnostics and evaluation context (reply_glue.go,
// tools_glue.go, rubric_block.go, perturb_block.go, streamed.go,
// compose.go, jsonpath_diag.go). Printing diagnostics for a person is
// spec/diagfmt's, which the command uses (spec only takes its one-line
// Text, DiagText).
//
// A metric family's settings block (text_metrics, statistics, coverage:
// SettingsBlock) is declared and decoded by its family, outside spec; spec
// keeps the mechanism (settings.go: the schema, at most one block of a
// type, Suite.Settings) and the Decoder methods such a block uses
// (api_settings.go); a family's named, repeatable block implements
// LabelledSettingsBlock too. The ratings block is such a block: it and
// its filled sheets' reader live in ratings/sheet, declared by the ratings
// family (assert). spec/rubric holds YD/T 4394.2-2023's rating rubrics
// (rubric.YDT), which ratings export writes.
package spec
