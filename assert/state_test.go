package assert

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

const stateSuite = `
template "订票" {
  text   = "我想订去上海的票"
  expect = { "state:$.slots.城市" = "上海", "$.intent" = "订票" }
  assert {
    condition = state.active_loop.name == "booking_form"
    message   = "the form is active"
  }
}
`

// "state:$.path" expectations and `state` in conditions read the result's
// dialogue state, never its response; a result without state fails them
// with a message saying where state comes from, and does not panic.
func TestStateExpectations(t *testing.T) {
	s := loadSuite(t, stateSuite)
	ev := NewEvaluator(s)
	var c *schema.Case
	if err := s.Generate(spec.GenOptions{}, func(x *schema.Case) error { c = x; return nil }); err != nil || c == nil {
		t.Fatal("no case", err)
	}
	const resp = `{"intent":"订票","slots":{"城市":"上海"},"active_loop":{"name":"booking_form"}}`
	for _, tc := range []struct {
		name, state string
		want        []string // the failures, as path or kind: message fragment
	}{
		{"met", `{"slots":{"城市":"上海","日期":null},"active_loop":{"name":"booking_form"}}`, nil},
		{"other city", `{"slots":{"城市":"北京"},"active_loop":{"name":"booking_form"}}`, []string{`state:$.slots.城市: actual "北京"`}},
		{"form done", `{"slots":{"城市":"上海"},"active_loop":null}`, []string{"assert: could not be evaluated"}},
		{"slot absent", `{"slots":{},"active_loop":{"name":"booking_form"}}`, []string{"state:$.slots.城市: missing"}},
		{"no state (the response has the same members)", ``, []string{"state:$.slots.城市: missing: the turn has no dialogue state", "assert: reads state, but the turn has no dialogue state"}},
		{"state not JSON", `{"slots":`, []string{"state:$.slots.城市: the recorded dialogue state is not JSON", "assert: reads state, but the recorded dialogue state is not JSON"}},
	} {
		r := &schema.Result{Case: *c, Response: json.RawMessage(resp), State: json.RawMessage(tc.state)}
		ev.Evaluate(r)
		var got []string
		for _, f := range r.Failures {
			got = append(got, describeFailure(f))
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: failures %q, want %d", tc.name, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: failure %q, want it to contain %q", tc.name, got[i], w)
			}
		}
		if want := schema.Pass; len(tc.want) > 0 {
			want = schema.Fail
			if r.Outcome != want {
				t.Errorf("%s: outcome %v, want %v", tc.name, r.Outcome, want)
			}
		} else if r.Outcome != want {
			t.Errorf("%s: outcome %v, want %v", tc.name, r.Outcome, want)
		}
	}
}

// describeFailure is "PATH: actual V" / "PATH: missing: MESSAGE" for an
// expectation, "assert: MESSAGE" for a condition.
func describeFailure(f schema.Failure) string {
	if f.Kind == "assert" {
		return "assert: " + strings.TrimPrefix(f.Message, `state.active_loop.name == "booking_form" `)
	}
	parts := []string{f.Path}
	if f.Missing {
		parts = append(parts, "missing")
	}
	if f.Actual != nil {
		b, _ := json.Marshal(f.Actual)
		parts = append(parts, "actual "+string(b))
	}
	if f.Message != "" {
		parts = append(parts, f.Message)
	}
	return strings.Join(parts, ": ")
}

// Issue 35, minor: a result of a target that records no dialogue state
// (an http bot, beside a rasa one with tracker = true) skips its state
// checks — the state: expectation and the condition reading state — and
// passes on its other checks, the skips counted on the result and in the
// collector's report warning; a result of a target that records state but
// has none still fails them as missing. At 0bdf656 both failed.
func TestStateChecksSkippedOnStatelessTarget(t *testing.T) {
	s := loadSuite(t, stateSuite)
	s.Targets = append(s.Targets, &spec.Target{Name: "rasa", Kind: "rasa", State: true}, &spec.Target{Name: "机器人", Kind: "http"})
	ev := NewEvaluator(s)
	var c *schema.Case
	if err := s.Generate(spec.GenOptions{}, func(x *schema.Case) error { c = x; return nil }); err != nil || c == nil {
		t.Fatal("no case", err)
	}
	col := NewCollector(s, nil)
	for i, tc := range []struct {
		target  string
		want    schema.Outcome
		skipped int
	}{
		{"机器人", schema.Pass, 2}, {"rasa", schema.Fail, 0}, {"机器人", schema.Pass, 2},
	} {
		r := &schema.Result{Case: *c, Target: tc.target, Response: json.RawMessage(`{"intent":"订票"}`)}
		ev.Evaluate(r)
		if r.Outcome != tc.want || int(r.StateChecksSkipped) != tc.skipped {
			t.Errorf("target %s: outcome %v with %d state checks skipped (failures %+v), want %v and %d", tc.target, r.Outcome, r.StateChecksSkipped, r.Failures, tc.want, tc.skipped)
		}
		col.AddAt(r, nil, int64(i))
	}
	rep := BuildReport(s, col, schema.RunInfo{Target: "机器人"}, "test", nil)
	want := `4 state checks on 2 turns were skipped: target "机器人" records no dialogue state`
	if len(rep.Warnings) != 1 || !strings.HasPrefix(rep.Warnings[0], want) {
		t.Errorf("report warnings %q, want one starting %q", rep.Warnings, want)
	}
}
