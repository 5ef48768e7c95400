package reply

import (
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/schema"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

func TestFold(t *testing.T) {
	for _, c := range []struct {
		in         string
		ignoreCase bool
		want       string
	}{
		{"好的，请问哪天出发？", false, "好的,请问哪天出发?"},
		{"订单号　ＡＢ１２３", false, "订单号 AB123"},
		{"订单号　ＡＢ１２３", true, "订单号 ab123"},
		{"Café", true, "café"},
		{"Cafe\u0301", false, "Café"},
		{"ÄRGER", true, "ärger"},
		{"Hello", false, "Hello"},
	} {
		if got := Fold(c.in, c.ignoreCase); got != c.want {
			t.Errorf("Fold(%q, %v) = %q, want %q", c.in, c.ignoreCase, got, c.want)
		}
	}
	s := "北京明天晴。最高气温25度、风力3级"
	if n := testing.AllocsPerRun(100, func() { _ = Fold(s, true) }); n != 0 {
		t.Errorf("Fold of a folded text allocates %v times, want 0", n)
	}
}

func TestNFC(t *testing.T) {
	if got := NFC("Cafe\u0301 ＡＢ"); got != "Café ＡＢ" {
		t.Errorf("NFC = %q, want the full-width forms kept and é composed", got)
	}
	s := "请问您要去哪个城市？"
	if n := testing.AllocsPerRun(100, func() { _ = NFC(s) }); n != 0 {
		t.Errorf("NFC of a text in NFC allocates %v times, want 0", n)
	}
}

// testEnv is an Env over plain hcl: static values need no variables.
func testEnv() Env {
	return Env{
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
		Placeholders: func(text string) (lits, keys []string, err error) {
			rest := text
			for {
				i := strings.IndexByte(rest, '{')
				if i < 0 {
					return append(lits, rest), keys, nil
				}
				j := strings.IndexByte(rest[i:], '}')
				if j < 0 {
					return nil, nil, errors.New("unterminated placeholder")
				}
				lits, keys = append(lits, rest[:i]), append(keys, rest[i+1:i+j])
				rest = rest[i+j+1:]
			}
		},
		Locate: func(rng hcl.Range, needle string) hcl.Range { return rng },
		Suggest: func(name string, options []string) string {
			for _, o := range options {
				if strings.HasPrefix(o, name) || strings.HasPrefix(name, o) {
					return o
				}
			}
			return ""
		},
	}
}

func decode(t *testing.T, src string, slots []string, references bool) (*Check, hcl.Diagnostics) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte("reply {\n"+src+"\n}\n"), "t.nlutest.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	c, diags := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "reply"}}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	b := c.Blocks[0]
	bc, diags := b.Body.Content(Schema)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return Decode(b.DefRange, bc, slots, references, testEnv())
}

func TestDecode(t *testing.T) {
	rc, diags := decode(t, `
  contains     = "出发"
  contains_any = ["好的", "ＯＫ"]
  not_contains = "抱歉"
  one_of       = ["去{城市}的航班已预订", "已为您预订"]
  matches      = "订单号\\s*\\w+"
  ignore_case  = true
  similar      = { to = ["好的，请问哪天出发？"], metric = "f1", min = 0.5 }`, []string{"城市"}, false)
	if diags.HasErrors() || rc == nil {
		t.Fatalf("diags %v, check %v", diags, rc)
	}
	if len(rc.Contains) != 1 || rc.Contains[0].Folded(nil, true) != "出发" {
		t.Errorf("contains = %+v", rc.Contains)
	}
	if got := rc.ContainsAny[1].Folded(nil, true); got != "ok" {
		t.Errorf("contains_any's ＯＫ folds to %q, want ok (full width, ignore_case)", got)
	}
	if rc.EqualsName != OneOf || len(rc.Equals) != 2 {
		t.Errorf("one_of = %q %+v", rc.EqualsName, rc.Equals)
	}
	slots := map[string]schema.Slot{"城市": {Value: "上海"}}
	if got := rc.Equals[0].Shown(slots); got != "去上海的航班已预订" {
		t.Errorf("Shown = %q", got)
	}
	if !rc.Matches.MatchString("ORDER 订单号 AB12") || rc.MatchesText != `订单号\s*\w+` {
		t.Errorf("matches %q", rc.MatchesText)
	}
	if rc.Similar == nil || rc.Similar.Metric != "f1" || rc.Similar.Min != 0.5 || len(rc.Similar.To) != 1 {
		t.Errorf("similar = %+v", rc.Similar)
	}
	for _, name := range []string{Contains, ContainsAny, NotContains, OneOf, Matches, "ignore_case", SimilarName} {
		if _, ok := rc.Lines[name]; !ok {
			t.Errorf("Lines has no %s", name)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, c := range []struct {
		src, summary, detail string
	}{
		{`ignore_case = true`, "Reply block without checks", "give it at least one"},
		{`contains = ["好的", ""]`, "Empty reply text", "contains has an empty text"},
		{`contains = "去{城}"`, "Unknown placeholder in reply", "{城} does not appear in the case's text, so it has no value here. Did you mean {城市}?"},
		{`contains = "去{城市"`, "Invalid placeholder", "Unterminated placeholder."},
		{`equals = "好"
		  one_of = ["好"]`, "Conflicting reply checks", "equals and one_of"},
		{`matches = "订单号("`, "Invalid regular expression", "matches is an RE2 regular expression"},
		{`similar = "参考"`, "Invalid similar", "similar is an object"},
		{`similar = { to = ["参考"], metric = "rouge", min = 0.5 }`, "Unknown similarity metric", `not "rouge". Did you mean "rougeL"?`},
		{`similar = { to = ["参考"], min = 1.5 }`, "Invalid similar", "min is a number from 0 to 1"},
		{`similar = { to = ["参考"] }`, "Invalid similar", "similar needs min"},
		{`similar = { min = 0.5 }`, "Invalid similar", "similar needs to = [...]"},
		{`similar = { to = ["参考"], min = 0.5, minimum = 1 }`, "Invalid similar", `not "minimum". Did you mean "min"?`},
	} {
		rc, diags := decode(t, c.src, []string{"城市"}, false)
		if rc != nil || !diags.HasErrors() {
			t.Errorf("%s: got a check, diags %v", c.src, diags)
			continue
		}
		if d := diags[0]; d.Summary != c.summary || !strings.Contains(d.Detail, c.detail) || d.Subject == nil {
			t.Errorf("%s:\n got %q: %q\nwant %q: …%q…", c.src, d.Summary, d.Detail, c.summary, c.detail)
		}
	}
	// A dataset with references may leave similar's to out.
	if rc, diags := decode(t, `similar = { min = 0.5 }`, nil, true); rc == nil || diags.HasErrors() || rc.Similar.Metric != "rougeL" {
		t.Errorf("similar without to, with references: %v %v", rc, diags)
	}
}
