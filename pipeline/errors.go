package pipeline

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// InvalidError is a request pipeline refuses before anything runs: a
// selection that matches nothing, a run directory that already holds a run,
// a resume with another selection. The command line reports it as a usage
// error (exit 2).
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return e.Msg }

func invalidf(format string, args ...any) error {
	return &InvalidError{fmt.Sprintf(format, args...)}
}

// GenerateError is the suite failing to generate its cases (an invalid
// suite: exit 2).
type GenerateError struct{ Err error }

func (e *GenerateError) Error() string { return "generating cases: " + e.Err.Error() }

func (e *GenerateError) Unwrap() error { return e.Err }

// RefusedError is a selection the chosen target cannot run, with located
// diagnostics: a bot-first conversation against a target that cannot open
// a session without a user message (openai). Nothing ran: exit 2.
type RefusedError struct{ Diags hcl.Diagnostics }

func (e *RefusedError) Error() string {
	if len(e.Diags) == 0 {
		return "the target cannot run the selection"
	}
	return e.Diags[0].Summary + ": " + e.Diags[0].Detail
}
