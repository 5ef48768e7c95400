package conversation

import (
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/kindtest"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
)

const captureReplySuite = `
suite "s" {}
materials "城市" {
  values = ["上海"]
}
conversation "c" {
  turn {
    user          = "去{城市}"
    capture_reply = { order = "订单号\\s*([A-Z0-9]+)", whole = "[A-Z]{3}[0-9]+" }
    capture       = { id = "$.order_id" }
  }
  turn {
    user = "确认"
  }
}
`

// capture_reply takes group 1 of its regex, or the whole match when it
// has no group, trying the reply with full-width forms folded when it
// does not match as written; the JSONPath capture beside it works as before; a
// capture that selects nothing is left out of the next turn and fails
// its own turn with a located message.
func TestCaptureReply(t *testing.T) {
	s := loadAnnotSuite(t, captureReplySuite)
	cs := s.CaseSources[0].(*conversationSource)
	for _, tc := range []struct {
		reply, response string
		want            map[string]string
		fails           []string
	}{
		{"好的，订单号 ORD123，请确认。", `{"order_id":"ORD123"}`, map[string]string{"order": "ORD123", "whole": "ORD123", "id": "ORD123"}, nil},
		{"好的，订单号：ＡＢＣ９", `{"order_id":7}`, map[string]string{"whole": "ABC9", "id": "7"}, []string{
			`capture_reply "order": "订单号\\s*([A-Z0-9]+)" matched nothing in "好的，订单号：ＡＢＣ９"`}},
		{"抱歉", `{}`, map[string]string{}, []string{
			`capture "id": "$.order_id" selected nothing`,
			`capture_reply "order": "订单号\\s*([A-Z0-9]+)" matched nothing in "抱歉"`,
			`capture_reply "whole": "[A-Z]{3}[0-9]+" matched nothing in "抱歉"`}},
	} {
		r := &schema.Result{Case: schema.Case{Turn: 1}, Reply: tc.reply, Response: []byte(tc.response)}
		next := &schema.Case{Turn: 2}
		cs.capture(0, r, next)
		if len(next.Captures) != len(tc.want) {
			t.Errorf("%s: captures %v, want %v", tc.reply, next.Captures, tc.want)
		}
		for k, v := range tc.want {
			if next.Captures[k] != v {
				t.Errorf("%s: capture %s = %q, want %q", tc.reply, k, next.Captures[k], v)
			}
		}
		var fails []string
		for _, f := range cs.CaptureFailures(r) {
			fails = append(fails, f.Message)
			if f.Kind != CaptureFailureKind || !strings.HasSuffix(f.File, "s.nlutest.hcl") || (f.Line != 9 && f.Line != 10) {
				t.Errorf("failure %+v: want kind capture at line 9 or 10", f)
			}
		}
		if strings.Join(fails, "\n") != strings.Join(tc.fails, "\n") {
			t.Errorf("%s: failures\n got %q\nwant %q", tc.reply, fails, tc.fails)
		}
	}
}

// A bad capture_reply is a located diagnostic.
func TestCaptureReplyDiagnostics(t *testing.T) {
	for _, tc := range []struct{ attrs, at, summary, detail string }{
		{`capture_reply = { order = "订单号([" }`, "9,31", "Invalid regular expression", "RE2"},
		{"capture_reply = { order = \"x\" }\n    capture = { order = \"$.a\" }", "9,23", "Duplicate capture", `captures "order" already at`},
		{`capture_reply = ["x"]`, "9,21", "Invalid capture_reply", "RE2 regular expression on the turn's reply"},
	} {
		src := strings.Replace(captureReplySuite, "    capture_reply = { order = \"订单号\\\\s*([A-Z0-9]+)\", whole = \"[A-Z]{3}[0-9]+\" }\n    capture       = { id = \"$.order_id\" }", "    "+tc.attrs, 1)
		if src == captureReplySuite {
			t.Fatal("the test suite did not change")
		}
		_, diags := load(kindtest.WriteSuite(t, src))
		if !diags.HasErrors() {
			t.Errorf("%s: no error", tc.summary)
			continue
		}
		d := diags.Errs()[0].Error()
		if !strings.Contains(d, "s.nlutest.hcl:"+tc.at) || !strings.Contains(d, tc.summary) || !strings.Contains(d, tc.detail) {
			t.Errorf("diagnostic %q, want %s at %s with %q", d, tc.summary, tc.at, tc.detail)
		}
	}
}

// A turn's expression that fails because it reads a capture an earlier
// turn did not make says which capture, and which turn should have made
// it; other errors are left alone.
func TestMissingCapture(t *testing.T) {
	s := loadAnnotSuite(t, captureReplySuite+`
conversation "d" {
  turn {
    user = "a"
  }
  turn {
    user = "b"
    assert {
      condition = capture.order == "x"
    }
    assert {
      condition = response.order == "x"
    }
  }
}
`)
	c := &schema.Case{Source: "c", SourceKind: spec.KindConversation, Turn: 2, Captures: map[string]string{"id": "7"}}
	d := *c
	d.Source = "d"
	asserts := s.SourceByKind(spec.KindConversation, "d").Info().TurnAsserts[1]
	ctx := s.CheckContext(c)
	_, diags := asserts[0].Condition.Value(ctx)
	if got, want := s.MissingCapture(c, diags), `capture "order" is missing (turn 1 selected nothing)`; got != want {
		t.Errorf("got %q, want %q (diags %v)", got, want, diags)
	}
	if got := s.MissingCapture(&d, diags); !strings.Contains(got, `capture "order" is missing (no earlier turn captures it`) {
		t.Errorf("in a conversation that captures nothing: %q", got)
	}
	ctx.Variables["response"] = cty.EmptyObjectVal
	if _, diags := asserts[1].Condition.Value(ctx); !diags.HasErrors() || s.MissingCapture(c, diags) != "" {
		t.Errorf("a missing response field is no missing capture: %v", diags)
	}
}
