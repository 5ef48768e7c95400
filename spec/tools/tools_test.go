package tools

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/ohler55/ojg/jp"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// testEnv is an Env over plain hcl: static values need no variables, a
// mock expression may use any name, and a when map's keys are plain
// JSONPaths.
func testEnv(declared ...string) Env {
	return Env{
		Content: func(body hcl.Body, schema *hcl.BodySchema) (*hcl.BodyContent, bool, hcl.Diagnostics) {
			c, diags := body.Content(schema)
			return c, !diags.HasErrors(), diags
		},
		Static: func(a *hcl.Attribute, ty cty.Type, what string) (cty.Value, bool, hcl.Diagnostics) {
			v, diags := a.Expr.Value(nil)
			if diags.HasErrors() {
				return cty.NilVal, false, diags
			}
			if ty != cty.DynamicPseudoType {
				cv, err := convert.Convert(v, ty)
				if err != nil {
					return cty.NilVal, false, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Incorrect attribute value type", Detail: what}}
				}
				v = cv
			}
			return v, true, nil
		},
		MockExpr: func(hcl.Expression, string) (bool, hcl.Diagnostics) { return true, nil },
		Expect: func(a *hcl.Attribute) (out []Expectation, diags hcl.Diagnostics) {
			pairs, _ := hcl.ExprMap(a.Expr)
			for _, p := range pairs {
				k, _ := p.Key.Value(nil)
				v, _ := p.Value.Value(nil)
				path, state := strings.CutPrefix(k.AsString(), "state:")
				x := jp.MustParseString(path)
				out = append(out, Expectation{Path: x.String(), X: x, Value: v, State: state, Range: p.Key.Range()})
			}
			return out, nil
		},
		Suggest: func(name string, options []string) string {
			for _, o := range options {
				if strings.HasPrefix(o, name[:len(name)/2]) {
					return o
				}
			}
			return ""
		},
		Tools: declared,
	}
}

func parse(t *testing.T, src string) hcl.Blocks {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "t.nlutest.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	c, diags := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "tool", LabelNames: []string{"name"}}, {Type: "tools"}}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return c.Blocks
}

// A mock answers with the first case whose when holds (numbers as
// numbers, strings in NFC), else its default result; only the answering
// branch's effects apply; no answer is an error, the state unchanged.
func TestAnswer(t *testing.T) {
	byName, order, diags := DecodeMocks(parse(t, `
tool "book_flight" {
  description = "预订航班"
  parameters  = { type = "object" }
  case {
    when   = { "$.city" = "拉萨", "$.seats" = 2 }
    result = { error = "no seats" }
  }
  case {
    when   = { "$.city" = "Cafe\u0301" }
    result = { order = "C" }
    effect {
      set   = "last"
      value = args.city
    }
  }
  result = { order = "B-${args.city}", seen = mocks }
  effect {
    append = "bookings"
    value  = args
  }
}
tool "no_default" {
  case {
    when   = { "$.x" = 1 }
    result = { ok = true }
  }
}`), testEnv())
	if diags.HasErrors() || len(order) != 2 {
		t.Fatalf("%v %v", order, diags)
	}
	base := &hcl.EvalContext{}
	state := MockState{}
	book := byName["book_flight"]
	for _, c := range []struct{ args, want, state string }{
		{`{"city":"上海"}`, `{"order":"B-上海","seen":{}}`, `{"bookings":[{"city":"上海"}]}`},
		{`{"city":"拉萨","seats":2.0}`, `{"error":"no seats"}`, `{"bookings":[{"city":"上海"}]}`},
		{`{"city":"Café"}`, `{"order":"C"}`, `{"bookings":[{"city":"上海"}],"last":"Café"}`},
	} {
		got, err := book.Answer(base, []byte(c.args), state)
		if err != nil || string(got) != c.want || string(state.JSON()) != c.state {
			t.Errorf("%s: %s, %v, state %s; want %s, state %s", c.args, got, err, state.JSON(), c.want, c.state)
		}
	}
	before := string(state.JSON())
	if _, err := byName["no_default"].Answer(base, []byte(`{"x":2}`), state); err == nil || !strings.Contains(err.Error(), "no case for these arguments and no default result") {
		t.Errorf("no answer: %v", err)
	}
	if _, err := book.Answer(base, []byte(`{"city":`), state); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("arguments not JSON: %v", err)
	}
	if string(state.JSON()) != before {
		t.Errorf("a call without an answer changed the state to %s", state.JSON())
	}
	defs := string(Defs(byName, []string{"book_flight", "missing", "no_default"}))
	if defs != `[{"type":"function","function":{"name":"book_flight","description":"预订航班","parameters":{"type":"object"}}},{"type":"function","function":{"name":"no_default","parameters":{"type":"object","properties":{}}}}]` {
		t.Errorf("Defs = %s", defs)
	}
}

func TestDecodeMocksErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`tool "查航班" { result = {} }`, "Invalid tool name"},
		{`tool "t" { parameters = "x" }`, "Invalid parameters"},
		{"tool \"t\" {\n  effect {\n    value = args\n  }\n}", "Invalid effect"},
		{"tool \"t\" {\n  case {\n    when   = { \"state:$.a\" = 1 }\n    result = {}\n  }\n}", "Invalid when"},
	} {
		_, _, diags := DecodeMocks(parse(t, c.src), testEnv())
		if !diags.HasErrors() || diags[0].Summary != c.want || diags[0].Subject == nil {
			t.Errorf("%s: %v, want %s", c.src, diags, c.want)
		}
	}
}

func decodeChecks(t *testing.T, src string, script bool, env Env) (*Checks, []string, hcl.Diagnostics) {
	t.Helper()
	b := parse(t, src)[0]
	c, diags := b.Body.Content(ChecksSchema)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	var args []string
	tc, diags := DecodeChecks(b, c, script, env, func(tool string, a *hcl.Attribute) hcl.Diagnostics {
		args = append(args, tool)
		return nil
	})
	return tc, args, diags
}

func TestDecodeChecks(t *testing.T) {
	tc, args, diags := decodeChecks(t, `tools {
  called   = ["search_flights"]
  args     = { "search_flights" = { "$.city" = "{城市}" }, book = { "$.date" = "明天" } }
  sequence = ["search_flights", "book"]
  mode     = "in_order"
}`, false, testEnv("search_flights", "book"))
	if diags.HasErrors() || !tc.HasCalled || !tc.HasSequence || tc.Mode != "in_order" || strings.Join(tc.ArgTools, ",") != "search_flights,book" || strings.Join(args, ",") != "search_flights,book" {
		t.Fatalf("%+v %v %v", tc, args, diags)
	}
	for _, c := range []struct {
		src, want, detail string
		script            bool
	}{
		{`tools { called = ["a:b"] }`, "Invalid tool name", `"a:b" is not a tool name`, false},
		{`tools {
  called     = ["book"]
  not_called = ["book"]
}`, "Contradictory tool checks", `"book" is in not_called`, false},
		{`tools {
  sequence = ["book"]
  mode     = "in_ordr"
}`, "Unknown sequence mode", `Did you mean "in_order"?`, false},
		{`tools { mode = "exact" }`, "Mode without sequence", "add sequence", false},
		{`tools { args = { book = { "$.a" = 1 } } }`, "Arguments checked over several turns", "whose case makes the call", true},
		{`tools { args = { book = 1 } }`, "Invalid args", `The arguments of "book"`, false},
		{`tools { args = { book = {}, "book" = {} } }`, "Duplicate args", `"book" are checked already`, false},
	} {
		_, _, diags := decodeChecks(t, c.src, c.script, testEnv("book"))
		if !diags.HasErrors() || diags[0].Summary != c.want || !strings.Contains(diags[0].Detail, c.detail) {
			t.Errorf("%s: %v, want %s: …%s…", c.src, diags, c.want, c.detail)
		}
	}
	// A tool no tool block declares is a warning, with did-you-mean.
	_, _, diags = decodeChecks(t, `tools { called = ["boook"] }`, false, testEnv("book"))
	if len(diags) != 1 || diags[0].Severity != hcl.DiagWarning || !strings.Contains(diags[0].Detail, `Did you mean "book"?`) {
		t.Errorf("unknown tool: %v", diags)
	}
}

func TestReservedAndMapKeyName(t *testing.T) {
	if Reserved(" tool:book:$.a") == "" || Reserved("final:$.a") == "" || Reserved("$.tool") != "" {
		t.Error("Reserved misreads the recorded prefixes")
	}
	for src, want := range map[string]string{`城市`: "城市", `"订单号"`: "订单号", `1`: "", `a.b`: ""} {
		e, diags := hclsyntax.ParseExpression([]byte(src), "k", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		if got := MapKeyName(e); got != want {
			t.Errorf("MapKeyName(%s) = %q, want %q", src, got, want)
		}
	}
}
