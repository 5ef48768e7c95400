package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/targets"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/diagfmt"
)

// openTarget prepares a caller for the target and checks that it answers
// before anything runs. On failure it prints what went wrong and returns
// the exit code: 2 for a target whose expressions are wrong, 3 for one that
// cannot be reached. what names what did not happen ("Nothing ran").
func (a *App) openTarget(ctx context.Context, s *spec.Suite, t *spec.Target, opts runner.CallerOptions, color, what string) (runner.Caller, int) {
	caller, err := targets.NewCaller(ctx, s, t, opts)
	if err != nil {
		var ce *runner.ConfigError
		if errors.As(err, &ce) {
			diagfmt.Write(a.Stderr, spec.RedactDiags(ce.Diags, s.Redactor()), s.Sources, a.useColor(color, a.StderrTTY))
			return nil, ExitInvalid
		}
		return nil, a.fail(err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	err = caller.Preflight(pctx)
	cancel()
	if err != nil {
		caller.Close()
		fmt.Fprintf(a.Stderr, "nlutest: %s\n%s. Check that the service is up and the target's url is right (nlutest serve demo starts the demo service).\n", err, what)
		return nil, ExitCannotRun
	}
	return caller, ExitPass
}
