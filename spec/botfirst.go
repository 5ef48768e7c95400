package spec

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// BotFirstDiags returns a located error for each bot-first turn (turn {
// bot_first = true }) of the conversations target t cannot open (its kind
// refused bot-first turns: Target.NoBotFirst), among the case sources keep
// reports true for (nil: all). Nothing when t opens them.
func (s *Suite) BotFirstDiags(t *Target, keep func(source string) bool) hcl.Diagnostics {
	if t == nil || t.NoBotFirst == "" {
		return nil
	}
	var diags hcl.Diagnostics
	for _, src := range s.CaseSources {
		turns := TurnsOf(src)
		if len(turns) == 0 || !turns[0].BotFirst || keep != nil && !keep(src.Name()) {
			continue
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Bot-first turn against a target that cannot start a session",
			Detail: fmt.Sprintf("The conversation %q opens with the bot's welcome (bot_first = true), but the target %q (%s) cannot open a conversation without a user message: %s",
				src.Name(), t.Name, t.Kind, t.NoBotFirst),
			Subject: turns[0].BotFirstRange.Ptr(),
		})
	}
	return diags
}

// checkBotFirst refuses, at load, a bot-first conversation no target of
// the suite can open (every target that is not a judge refuses it), so
// validate says so before anything runs. With a target that can open it,
// run refuses the others when they are chosen (BotFirstDiags).
func (l *loader) checkBotFirst() {
	var bots []*Target
	for _, t := range l.suite.Targets {
		if t.Judge == nil {
			bots = append(bots, t)
		}
	}
	if len(bots) == 0 {
		return
	}
	for _, t := range bots {
		if t.NoBotFirst == "" {
			return
		}
	}
	l.diags = append(l.diags, l.suite.BotFirstDiags(bots[0], nil)...)
}
