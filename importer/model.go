package importer

import (
	"fmt"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
)

// Features says which parts of the suite language the written suite may
// use. The importer writes the closest form the language offers when a
// feature is off (a reply check as an assert over regexall) or lists the
// step as untranslatable when there is none (a state check).
type Features struct {
	// ReplyBlocks: turn/template `reply { ... }` blocks.
	ReplyBlocks bool
	// State: "state:$.path" expectations and `state` in conditions.
	State bool
	// BotFirst: `turn { bot_first = true }`.
	BotFirst bool
}

// Result is one imported suite, ready to be written.
type Result struct {
	// Files maps a path relative to the suite directory to its content.
	Files map[string][]byte
	// Problems are the steps that could not be translated, each at its
	// file:line, as errors (or warnings once the caller accepts a
	// partial suite).
	Problems hcl.Diagnostics
	// Sources are the imported files' bytes by the names the problems
	// use, for printing source lines under diagnostics.
	Sources map[string][]byte
	// Convos and Templates count what was written.
	Convos, Templates, Turns int
}

// suite is the importer's model of the suite it writes.
type suite struct {
	name      string
	from      string // "botium" or "rasa-e2e": the header comment and target
	materials []material
	convos    []*convo
	problems  hcl.Diagnostics
	sources   map[string][]byte
	// base is joined to the files' names in diagnostics: the files are
	// named relative to the imported directory in the written suite.
	base string
	// exp counts what aliases, includes and utterance lists copied.
	exp expansion
}

// material is a materials block from a Botium utterances list.
type material struct {
	name   string
	values []string
}

// convo is one conversation (or template, when it has one user turn).
type convo struct {
	name, description string
	file              string
	line              int
	comments          []string // untranslated parts at conversation level
	turns             []*turn
}

// turn is one user message and what its reply must satisfy.
type turn struct {
	user     string // text with {slot} placeholders already in place
	line     int
	botFirst bool
	checks   []check
	expect   []expectation
	asserts  []assertion
	comments []string // untranslated steps (with --partial) and notes
}

// check is one reply check: the reply { } attribute it becomes.
type check struct {
	kind       string // contains, contains_any, not_contains, matches, equals, one_of
	values     []string
	ignoreCase bool
	origin     string // the source step, for the fallback assert's message
}

// expectation is one expect entry: a JSONPath (or state:$.path) and a
// value (string, bool, number as float64, nil, []any).
type expectation struct {
	path  string
	value any
}

// assertion is one assert block.
type assertion struct {
	condition, message string
}

// problem records an untranslatable step.
func (s *suite) problem(file string, line int, summary, detail string, args ...any) {
	s.problemAt(file, line, 1, summary, detail, args...)
}

// problemAt is problem at a column.
func (s *suite) problemAt(file string, line, col int, summary, detail string, args ...any) {
	s.problems = append(s.problems, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: s.rangeAt(file, line, col)})
}

// path is a file's name in diagnostics and Sources.
func (s *suite) path(file string) string {
	return filepath.Join(s.base, file)
}
