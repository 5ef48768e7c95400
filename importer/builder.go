package importer

import (
	"fmt"
	"strings"
)

// Suite is a suite a Format builds, test by test, from the exported API
// alone (a format outside this package has no other way in): the tests
// with their turns, the files read (for the source lines under
// diagnostics) and the steps that could not be translated. Its Result is
// written as Botium's and Rasa's imports are: the canonical layout, a
// comment naming each test's file and line, user texts and expected
// values quoted so that nothing in them reads as a {placeholder} or a
// template.
type Suite struct{ s *suite }

// NewSuite starts a suite named after what was read: the base name of
// path without its extension ("意图.tsv" → 意图; its file is
// 意图.nlutest.hcl). from completes the header's "Imported by nlutest
// import from …" ("the utterance list 意图.tsv").
func NewSuite(path, from string) *Suite {
	return &Suite{&suite{name: suiteName(path), from: from, sources: map[string][]byte{}}}
}

// Test is one test a format read: a template when it has one turn, a
// conversation otherwise. A test without a turn is listed as skipped in
// the suite; the format reports it with Untranslated.
type Test struct {
	// Name is the block's name (a second test of one name gets " (2)").
	Name string
	// File and Line are where the test was read, as the comment above
	// its block names them.
	File string
	Line int
	// Turns are its user messages in order.
	Turns []Turn
	// Comments are written at the top of its block.
	Comments []string
}

// Turn is one user message and what the bot's answer must satisfy.
type Turn struct {
	// User is the text sent, as written: it is quoted for the suite
	// (braces doubled, so no {slot} is read into it).
	User string
	// Line is the line it was read from.
	Line int
	// Expect are the expectations on the response: a JSONPath
	// ("$.intent.name") or a tracker path ("state:$.slots.city", which
	// needs Features.State and a target that reads the tracker) and the
	// value expected (a string, bool, float64, nil or []any).
	Expect []Expect
	// Contains are texts the reply must contain.
	Contains []string
	// Comments are written above the turn (Untranslated's notes).
	Comments []string
}

// Expect is one expectation of a turn.
type Expect struct {
	Path  string
	Value any
}

// Source keeps an imported file's bytes under the name the problems give
// it, for the source line printed under each diagnostic.
func (b *Suite) Source(name string, data []byte) { b.s.sources[name] = data }

// Add adds a test.
func (b *Suite) Add(t Test) {
	c := &convo{name: t.Name, file: t.File, line: t.Line, comments: t.Comments}
	for _, u := range t.Turns {
		tn := &turn{user: literal(u.User), line: u.Line, comments: u.Comments}
		for _, e := range u.Expect {
			tn.expect = append(tn.expect, expectation{path: e.Path, value: e.Value})
		}
		if len(u.Contains) > 0 {
			tn.checks = append(tn.checks, check{kind: "contains", values: u.Contains, origin: fmt.Sprintf("%s:%d", t.File, u.Line)})
		}
		c.turns = append(c.turns, tn)
	}
	b.s.convos = append(b.s.convos, c)
}

// Untranslated records a step with no nlutest form, read at file:line:
// a diagnostic (summary, and why it cannot be translated) that stops the
// import, or with --partial a warning. It returns the comment to put
// where the step stood (a Test's or a Turn's Comments):
// "UNTRANSLATED file:line step (why)".
func (b *Suite) Untranslated(file string, line int, step, summary, why string) string {
	step = strings.TrimSpace(step)
	b.s.problem(file, line, summary, "%q cannot be translated: %s. "+partialHint, step, why)
	return fmt.Sprintf("UNTRANSLATED %s:%d %s (%s)", file, line, step, why)
}

// Result writes the suite with its target: target is the target block(s)
// as HCL, written as they are (with Features.State a rasa target must
// set tracker = true for state: expectations to read the tracker). A
// suite of no test with a turn is an *InputError ("Nothing to import"),
// with the problems that say why.
func (b *Suite) Result(f Features, target string) (*Result, error) {
	res, _, err := b.s.result(f, target)
	return res, err
}
