package pipeline

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec"
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
type RefusedError struct {
	Target string
	Diags  hcl.Diagnostics
}

func (e *RefusedError) Error() string {
	if len(e.Diags) == 0 {
		return "the target cannot run the selection"
	}
	return e.Diags[0].Summary + ": " + e.Diags[0].Detail
}

// CheckBotFirst refuses (a *RefusedError) the first of targets that
// cannot open a bot-first conversation the selection keeps, so a run
// against several targets stops before its first call rather than at the
// target that refuses.
func CheckBotFirst(s *spec.Suite, targets []*spec.Target, sel Selection) error {
	var refusing []*spec.Target
	for _, t := range targets {
		if s.BotFirstDiags(t, nil).HasErrors() {
			refusing = append(refusing, t)
		}
	}
	if len(refusing) == 0 {
		return nil
	}
	counts, err := sel.Count(s, func(string) {})
	if err != nil {
		return nil // the run's Prepare reports it
	}
	return refuseBotFirst(s, refusing, counts)
}

// refuseBotFirst is CheckBotFirst once the selection is counted.
func refuseBotFirst(s *spec.Suite, targets []*spec.Target, counts Counts) error {
	for _, t := range targets {
		if d := s.BotFirstDiags(t, func(src string) bool { return counts.PerSource[src] > 0 }); d.HasErrors() {
			return &RefusedError{Target: t.Name, Diags: d}
		}
	}
	return nil
}
