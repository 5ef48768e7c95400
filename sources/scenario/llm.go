package scenario

import (
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// This file is a scenario's LLM user simulator (SPEC §14.6): user =
// "NAME" names an openai target with a simulator block, which plays the
// user from spec.SimulatorSystemPrompt (or the block's own system) holding the
// instance's goal and the block's persona. The opening turn is one of the
// scenario's openings; after each bot reply the runner asks the target for
// the next user turn (runner.WithUserSimulators) and records the call on
// the turn's result (schema.Result.Simulator); Next reads the answer from
// it, so the scenario's turns depend only on recorded results and eval
// never simulates again. The simulator ends the dialogue by answering
// spec.StopWord; max_turns and the success condition end it too.

// simulatorTarget is the target user = name names; it must have a
// simulator block and be an openai target (targets are decoded before
// sources).
func simulatorTarget(d *spec.Decoder, a *hcl.Attribute, name string) *spec.Target {
	rng := a.Expr.Range().Ptr()
	var sims []string
	for _, t := range d.Suite().Targets {
		if t.Simulator != nil {
			sims = append(sims, t.Name)
		}
		if t.Name != name {
			continue
		}
		switch {
		case t.Simulator == nil:
			d.Errorf(rng, "Target is not a simulator", "Target %q has no simulator block, so it cannot play the user: add simulator {} to it (an openai target), or write user = \"agenda\".", name)
		case t.Kind != "openai":
			d.Errorf(rng, "Simulator is not an openai target", "Target %q is of kind %s; an LLM user simulator is an openai target with a simulator block. Make it an openai target, or write user = \"agenda\".", name, t.Kind)
		default:
			return t
		}
		return nil
	}
	if d.IsBroken("target", name) {
		return nil // the target's own error is reported
	}
	d.Errorf(rng, "Unknown user simulator",
		"user is %q: the simulator of a scenario is \"agenda\" (the deterministic agenda-based simulator) or the name of an openai target with a simulator block.%s Write user = \"agenda\", or add the target.", name, spec.DidYouMean(name, append([]string{UserAgenda}, sims...)))
	return nil
}

// userSim is the LLM simulator request of scenario instance c, nil for
// the agenda simulator.
func (ss *scenarioSource) userSim(c *schema.Case) *schema.UserSim {
	if ss.sim == nil {
		return nil
	}
	persona := ""
	if p := ss.sim.Simulator.Persona; p != "" {
		persona = "Your persona: " + p + "\n"
	}
	system := strings.NewReplacer("{goal}", ss.SimulatorGoal(c), "{persona}", persona).Replace(ss.sim.Simulator.System)
	return &schema.UserSim{Target: ss.sim.Name, System: system, Done: func(r *schema.Result) bool {
		return r.Turn >= ss.maxTurns || ss.Succeeded(r)
	}}
}

// SimulatorGoal is the goal of scenario instance c as an LLM simulator's
// system prompt states it: one line per inform slot (`- tell the city:
// "北京"`), then one per request item (`- ask for the order_id`).
func (ss *scenarioSource) SimulatorGoal(c *schema.Case) string {
	var lines []string
	for _, name := range ss.inform {
		lines = append(lines, "- tell the "+name+": "+strconv.Quote(ss.informValue(c, name)))
	}
	for _, name := range ss.requests {
		lines = append(lines, "- ask for the "+name)
	}
	return strings.Join(lines, "\n")
}

// nextLLM is the turn the LLM simulator answered to the bot's reply in r
// (recorded in r.Simulator), or nil when it answered the stop word.
func (ss *scenarioSource) nextLLM(st *agendaState, r *schema.Result) *schema.Case {
	if r.Simulator == nil || r.Simulator.Error != nil {
		return nil
	}
	text := strings.TrimSpace(r.Simulator.Reply)
	if text == "" || strings.Contains(text, spec.StopWord) {
		return nil
	}
	return ss.turn(st, r.Turn+1, text, spec.ReasonLLM)
}
