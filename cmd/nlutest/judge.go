package main

import (
	"context"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/rubric"
)

// openJudges opens the judge targets the suite's sources name (a memory
// block's judge = "TARGET", a rubric block's judge) and returns caller
// with judging added (runner.WithJudges, runner.WithRubrics), the LLM
// user simulators scenarios name (user = "TARGET") opened the same way
// and added by runner.WithUserSimulators, a func closing them all, and the exit code when one cannot be opened (nil
// caller). Judges share the run's response cache but not its
// --concurrency or --rate, which are the bot's: a judge target paces
// itself by its own settings.
func (a *App) openJudges(ctx context.Context, s *spec.Suite, caller runner.Caller, copts runner.CallerOptions, color string) (runner.Caller, func(), int) {
	byTarget := map[string]runner.Caller{}
	closeAll := func() {
		for _, c := range byTarget {
			c.Close()
		}
	}
	open := func(name, role string) (runner.Caller, int) {
		if jc := byTarget[name]; jc != nil {
			return jc, ExitPass
		}
		jc, code := a.openTarget(ctx, s, s.Target(name), runner.CallerOptions{Cache: copts.Cache, Clock: copts.Clock}, color, "Nothing ran (the "+role+" target "+name+" is not answering)")
		if jc != nil {
			byTarget[name] = jc
		}
		return jc, code
	}
	bySource := map[string]runner.Caller{}
	rubrics := map[string]*spec.SourceInfo{}
	simulated := false
	for _, src := range s.CaseSources {
		info := src.Info()
		key := src.Kind() + "\x00" + src.Name()
		names := rubricJudges(info)
		if info.JudgeTarget != "" {
			names = append(names, info.JudgeTarget)
		}
		for _, name := range names {
			if _, code := open(name, "judge"); code != ExitPass {
				closeAll()
				return nil, nil, code
			}
		}
		if info.JudgeTarget != "" {
			bySource[key] = byTarget[info.JudgeTarget]
		}
		if info.Simulator != "" {
			if _, code := open(info.Simulator, "user simulator"); code != ExitPass {
				closeAll()
				return nil, nil, code
			}
			simulated = true
		}
		if len(names) > 0 && (len(info.Rubrics) > 0 || len(info.TurnRubrics) > 0) {
			rubrics[key] = info
		}
	}
	if len(bySource) > 0 {
		caller = runner.WithJudges(caller, s.Redactor(), func(c *schema.Case) runner.Caller {
			kind, name := c.SourceOf()
			return bySource[kind+"\x00"+name]
		})
	}
	if len(rubrics) > 0 {
		caller = runner.WithRubrics(caller, s.Redactor(), func(c *schema.Case) []runner.RubricCall {
			kind, name := c.SourceOf()
			info := rubrics[kind+"\x00"+name]
			if info == nil {
				return nil
			}
			var out []runner.RubricCall
			for _, r := range info.RubricsFor(c) {
				out = append(out, runner.RubricCall{Name: r.Name, Judge: byTarget[r.Judge], Input: func(c *schema.Case, reply string, h []schema.Message) *schema.JudgeInput {
					return r.Input(c, reply, h)
				}})
			}
			return out
		})
	}
	if simulated {
		caller = runner.WithUserSimulators(caller, s.Redactor(), func(name string) runner.Caller { return byTarget[name] })
	}
	return caller, closeAll, ExitPass
}

// rubricJudges are the names of the judge targets of a source's rubrics.
func rubricJudges(info *spec.SourceInfo) []string {
	var out []string
	add := func(rs []*rubric.Spec) {
		for _, r := range rs {
			out = append(out, r.Judge)
		}
	}
	add(info.Rubrics)
	for _, t := range info.TurnRubrics {
		add(t)
	}
	return out
}
