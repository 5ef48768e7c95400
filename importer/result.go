package importer

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

const botiumTarget = `# The bot under test. Botium reached it through a connector; this target
# talks to Rasa's REST channel. For another bot, replace the rasa block
# with an http block for its API (docs/language.md#target).
variable "bot_url" { default = env("BOT_URL", "http://127.0.0.1:5005") }

target "bot" {
  rasa {
    url  = var.bot_url
    mode = "webhook"
%s  }
}
`

const rasaTarget = `# The Rasa server under test (rasa run --enable-api), through its REST channel.
variable "rasa_url" { default = env("RASA_URL", "http://127.0.0.1:5005") }

target "rasa" {
  rasa {
    url  = var.rasa_url
    mode = "webhook"
%s  }
}
`

// partialHint ends the detail of every untranslatable step.
const partialHint = "Write the check by hand in the imported suite, or pass --partial to import the rest with this step left as a comment."

// skipHint ends the detail of a test without a user message.
const skipHint = ", or pass --partial to import the rest without it."

// withTracker fills a target template (botiumTarget, rasaTarget) with the
// tracker line the features ask for: state: expectations read the
// tracker after each turn.
func withTracker(tmpl string, f Features) string {
	tracker := ""
	if f.State {
		tracker = "    tracker = true\n"
	}
	return fmt.Sprintf(tmpl, tracker)
}

// result renders the suite into its file, with the problems found; target
// is the suite's target block(s), written as they are.
func (s *suite) result(f Features, target string) (*Result, []string, error) {
	header := fmt.Sprintf("Imported by nlutest import from %s.\nThe mapping of each step: docs/cli.md#import.", s.from)
	if n := len(s.problems.Errs()); n > 0 {
		header += fmt.Sprintf("\n%d step%s could not be translated: see the UNTRANSLATED comments.", n, plural(n))
	}
	sort.SliceStable(s.problems, func(i, j int) bool {
		a, b := s.problems[i].Subject, s.problems[j].Subject
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Start.Line < b.Start.Line
	})
	if !slices.ContainsFunc(s.convos, func(c *convo) bool { return len(c.turns) > 0 }) {
		return nil, nil, &InputError{Sources: s.sources, Diags: append(s.problems, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Nothing to import",
			Detail: "No test sends the bot a message, so the suite would hold no test; the problems above say why."})}
	}
	out, err := s.render(f, header, target)
	if err != nil {
		return nil, nil, err
	}
	r := &Result{Files: map[string][]byte{s.name + ".nlutest.hcl": out}, Problems: s.problems, Sources: s.sources}
	for _, c := range s.convos {
		r.Turns += len(c.turns)
		if isTemplate(c) {
			r.Templates++
		} else if len(c.turns) > 0 {
			r.Convos++
		}
	}
	return r, nil, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Warnings turns the problems into warnings: what --partial prints.
func (r *Result) Warnings() hcl.Diagnostics {
	out := make(hcl.Diagnostics, len(r.Problems))
	for i, d := range r.Problems {
		w := *d
		w.Severity = hcl.DiagWarning
		w.Detail = strings.Replace(w.Detail, partialHint, "It is left as an UNTRANSLATED comment in the imported suite; write the check by hand.", 1)
		w.Detail = strings.Replace(w.Detail, skipHint, "; it is left out of the imported suite, where a SKIPPED comment marks its place.", 1)
		out[i] = &w
	}
	return out
}

// InputError is input an import refuses as a whole, nothing written: a
// file that is not YAML, a duplicate key, an alias bomb, more input than
// an import reads. Diags say where and what to do (exit 2); Sources hold
// the files' bytes for the source lines under them.
type InputError struct {
	Diags   hcl.Diagnostics
	Sources map[string][]byte
}

func (e *InputError) Error() string { return e.Diags.Error() }

// inputError wraps one diagnostic with the sources read so far.
func (s *suite) inputError(d *hcl.Diagnostic) *InputError {
	return &InputError{Diags: hcl.Diagnostics{d}, Sources: s.sources}
}

// BugError is a suite the importer wrote that does not parse: an importer
// bug, never the input's fault (exit 3, "internal error").
type BugError struct{ Err string }

func (e *BugError) Error() string { return e.Err }
