package main

import (
	"context"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// openJudges opens the judge targets the suite's sources name (a memory
// block's judge = "TARGET") and returns caller with judging added
// (runner.WithJudges), a func closing the judges, and the exit code when
// one cannot be opened (nil caller). Judges share the run's response
// cache but not its --concurrency or --rate, which are the bot's: a judge
// target paces itself by its own settings.
func (a *App) openJudges(ctx context.Context, s *spec.Suite, caller runner.Caller, copts runner.CallerOptions, color string) (runner.Caller, func(), int) {
	bySource := map[string]runner.Caller{}
	byTarget := map[string]runner.Caller{}
	closeAll := func() {
		for _, c := range byTarget {
			c.Close()
		}
	}
	for _, src := range s.CaseSources {
		name := src.Info().JudgeTarget
		if name == "" {
			continue
		}
		jc := byTarget[name]
		if jc == nil {
			var code int
			jc, code = a.openTarget(ctx, s, s.Target(name), runner.CallerOptions{Cache: copts.Cache, Clock: copts.Clock}, color, "Nothing ran (the judge target "+name+" is not answering)")
			if jc == nil {
				closeAll()
				return nil, nil, code
			}
			byTarget[name] = jc
		}
		bySource[src.Kind()+"\x00"+src.Name()] = jc
	}
	if len(bySource) == 0 {
		return caller, func() {}, ExitPass
	}
	return runner.WithJudges(caller, s.Redactor(), func(c *schema.Case) runner.Caller {
		kind, name := c.SourceOf()
		return bySource[kind+"\x00"+name]
	}), closeAll, ExitPass
}
