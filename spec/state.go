package spec

import "github.com/hashicorp/hcl/v2"

// This file is the suite side of dialogue state (SPEC §14.4): a target
// that reads the bot's state after each call (a rasa webhook target with
// tracker = true) records it on the result, conditions read it as
// `state`, and expectations address it with "state:$.path" keys.

// checkStateUse warns when the suite reads dialogue state — a "state:"
// expectation, or `state` in an assert condition — and no target of the
// suite records any: every such check would fail. It is a warning, not an
// error: `eval` re-checks results recorded with state, and a target may
// be added later. Suites loaded without target kinds are not checked.
func (l *loader) checkStateUse() {
	s := l.suite
	if len(s.Targets) == 0 {
		return
	}
	for _, t := range s.Targets {
		if t.State || t.Decoded == nil {
			return
		}
	}
	rng, what := firstStateUse(s)
	if rng == nil {
		return
	}
	l.warnf(rng, "No target reads dialogue state",
		"%s reads the dialogue state, but no target of the suite records one, so it fails on every turn it is checked on. Read Rasa's tracker with rasa { mode = \"webhook\"  tracker = true }, or remove it.", what)
}

// firstStateUse finds the first expectation or condition of the suite
// that reads the dialogue state, and says what it is.
func firstStateUse(s *Suite) (*hcl.Range, string) {
	for _, src := range s.CaseSources {
		info := src.Info()
		for _, x := range info.Expect {
			if x.State {
				return x.Range.Ptr(), "The expectation \"" + x.Path + "\""
			}
		}
		for _, a := range info.Asserts {
			if usesState(a.Condition) {
				return a.Condition.Range().Ptr(), "This assert condition"
			}
		}
	}
	for _, a := range s.Asserts {
		if usesState(a.Condition) {
			return a.Condition.Range().Ptr(), "This assert condition"
		}
	}
	return nil, ""
}

// usesState reports whether e reads `state`.
func usesState(e hcl.Expression) bool {
	for _, tr := range e.Variables() {
		if tr.RootName() == "state" {
			return true
		}
	}
	return false
}
