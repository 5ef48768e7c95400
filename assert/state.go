package assert

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/nlutest/nlutest/spec/tools"
	"github.com/zclconf/go-cty/cty"
)

// This file checks dialogue state (SPEC §14.4): "state:$.path"
// expectations and `state` in conditions read schema.Result.State, the
// state a rasa webhook target with tracker = true records after each turn.

// noStateMessage ends the failure of a check that reads the state of a
// result that has none.
const noStateMessage = `the turn has no dialogue state: it is recorded only by a rasa target with mode = "webhook" and tracker = true, which reads the conversation's tracker after each turn`

// compileKey compiles an expectation's key; state, tool-argument and
// final-state paths belong to no schema dimension and are evaluated on Go
// values.
func (e *Evaluator) compileKey(k tools.CheckKey) compiled {
	x := k.X
	switch {
	case k.State:
		return compiled{x: x, multi: multiNode(x), mode: modeTree, canon: jsonpath.StatePrefix + x.String(), dim: -1, state: true}
	case k.Tool != "":
		// Compiled as a response path (simple paths are then read on the
		// arguments' tape in place), but of no schema dimension.
		c := e.compile(x)
		c.canon, c.dim, c.tool = tools.Prefix+k.Tool+":"+c.canon, -1, k.Tool
		c.item, c.collection, c.whole = false, false, false
		return c
	case k.Final:
		return compiled{x: x, multi: multiNode(x), mode: modeTree, canon: tools.FinalPrefix + x.String(), dim: -1, final: true}
	}
	return e.compile(x)
}

// stateExpectation checks one "state:" expectation against r.State; when
// it is not met it adds f, completed, to r.Failures and returns false.
func stateExpectation(r *schema.Result, rs *response, c *compiled, want any, f schema.Failure) bool {
	if len(r.State) == 0 {
		f.Missing, f.Message = true, noStateMessage
		r.Failures = append(r.Failures, f)
		return false
	}
	if !rs.stateRead {
		rs.stateRead = true
		var d jsondoc.Doc
		if err := d.Parse(r.State); err != nil {
			rs.stateErr = err
		} else {
			rs.state = d.Value(d.Root())
		}
	}
	if rs.stateErr != nil {
		f.Message = fmt.Sprintf("the recorded dialogue state is not JSON: %v", rs.stateErr)
		r.Failures = append(r.Failures, f)
		return false
	}
	got, found := matches(c.x, rs.state, c.multi)
	if !found {
		f.Missing = true
		r.Failures = append(r.Failures, f)
		return false
	}
	var actual any = got[0]
	if c.multi {
		actual = got
	}
	if Equal(want, actual) {
		return true
	}
	f.Actual = actual
	r.Failures = append(r.Failures, f)
	return false
}

// stateValue is `state` in conditions: the result's dialogue state, null
// when it has none (or it is not JSON).
func stateValue(r *schema.Result) cty.Value {
	if len(r.State) > 0 {
		if v, err := spec.JSONToCty(r.State); err == nil {
			return v
		}
	}
	return cty.NullVal(cty.DynamicPseudoType)
}

// stateMissing says why r has no state a condition can read (none
// recorded, or not JSON); "" when it has one.
func stateMissing(r *schema.Result) string {
	switch {
	case len(r.State) == 0:
		return noStateMessage
	case !json.Valid(r.State):
		return "the recorded dialogue state is not JSON"
	}
	return ""
}

// skipState reports whether r's state checks are skipped: it has no
// state and its target records none (a target without tracker = true), so
// a state check there would fail whatever the bot did. A result of a
// target that records state (or of one the suite no longer declares) is
// checked, and fails as missing when it has none.
func (e *Evaluator) skipState(r *schema.Result) bool {
	return len(r.State) == 0 && e.stateless[r.Target]
}

// captureFailures adds a turn's capture failures to r.Failures, but for a
// result whose state checks are skipped counts its state: captures that
// selected nothing as skipped instead.
func (e *Evaluator) captureFailures(r *schema.Result, fails []schema.Failure) {
	skip := e.skipState(r)
	for _, f := range fails {
		if skip && strings.HasPrefix(f.Path, jsonpath.StatePrefix) {
			r.StateChecksSkipped++
			continue
		}
		r.Failures = append(r.Failures, f)
	}
}

// readsState reports whether a condition reads `state`.
func readsState(e hcl.Expression) bool {
	for _, tr := range e.Variables() {
		if tr.RootName() == "state" {
			return true
		}
	}
	return false
}
