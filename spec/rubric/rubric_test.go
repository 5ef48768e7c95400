package rubric

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/schema"
)

// The judge is sent the rubric, its criteria, the case's text and the
// reply, and the conversation before it only when the rubric asks.
func TestInput(t *testing.T) {
	history := []schema.Message{{Role: "user", Content: "我要退货"}, {Role: "assistant", Content: "好的"}}
	c := &schema.Case{Text: "订单号是多少？"}
	pass, _ := hclsyntax.ParseExpression([]byte("score >= 4"), "s.nlutest.hcl", hcl.InitialPos)
	for _, tc := range []struct {
		r       *Spec
		history int
		scored  bool
	}{
		{&Spec{Name: "礼貌", Criteria: "回复礼貌。"}, 0, false},
		{&Spec{Name: "礼貌", Criteria: "回复礼貌。", History: true}, 2, false},
		{&Spec{Name: "有用", Criteria: "回复有用。", Pass: pass}, 0, true},
	} {
		in := tc.r.Input(c, "请稍等", history)
		if in.Rubric != tc.r.Name || in.Criteria != tc.r.Criteria || in.Question != c.Text || in.Answer != "请稍等" || len(in.History) != tc.history || in.Scored != tc.scored || tc.r.Scored() != tc.scored {
			t.Errorf("%+v: input %+v", tc.r, in)
		}
	}
}

// A pass condition must hold for some scores 1–5 and not all, and give a
// bool on each; the diagnostic is at the pass attribute and says why.
func TestCheckPass(t *testing.T) {
	at := hcl.Range{Filename: "s.nlutest.hcl", Start: hcl.Pos{Line: 7, Column: 16, Byte: 90}, End: hcl.Pos{Line: 7, Column: 28, Byte: 102}}
	r := &Spec{Name: "有用", PassText: "score >= 4"}
	for _, tc := range []struct {
		name   string
		passes func(int) (bool, error)
		want   string
	}{
		{"some", func(s int) (bool, error) { return s >= 4, nil }, ""},
		{"none", func(int) (bool, error) { return false, nil }, `Pass condition never met: The judge scores a reply from 1 to 5, and pass = "score >= 4" holds for none of them, so every judged reply would fail rubric "有用".`},
		{"all", func(int) (bool, error) { return true, nil }, `Pass condition always met: The judge scores a reply from 1 to 5, and pass = "score >= 4" holds for every one of them, so no reply could fail rubric "有用" (only an unparseable answer would).`},
		{"error", func(s int) (bool, error) {
			if s == 3 {
				return false, errors.New("gives number, not true or false")
			}
			return s > 3, nil
		}, `Invalid pass condition: pass is a condition on the judge's 1–5 score, such as "score >= 4"; with score = 3 it gives number, not true or false.`},
	} {
		diags := r.CheckPass(at, tc.passes)
		if tc.want == "" {
			if len(diags) != 0 {
				t.Errorf("%s: %v", tc.name, diags)
			}
			continue
		}
		if len(diags) != 1 || diags[0].Severity != hcl.DiagError || *diags[0].Subject != at || !strings.HasPrefix(diags[0].Summary+": "+diags[0].Detail, tc.want) {
			t.Errorf("%s: %v, want %s", tc.name, diags, tc.want)
		}
	}
}

// YD/T 4394.2-2023 tables 4–8: five dimensions, each under its Chinese,
// the standard's and English names, levels 5 to 1 with both criteria.
func TestYDT(t *testing.T) {
	tables := map[*Scale][]string{}
	for name, s := range YDT {
		tables[s] = append(tables[s], name)
	}
	if len(tables) != 5 {
		t.Fatalf("%d tables, want 5", len(tables))
	}
	for _, name := range []string{"拟人性", "专业性", "趣味性", "满意度", "敏感性", "anthropomorphism", "professionalism", "interest", "satisfaction", "sensitivity"} {
		if YDT[name] == nil {
			t.Errorf("no rubric for %s", name)
		}
	}
	for s, names := range tables {
		if !strings.HasPrefix(s.Source, "YD/T 4394.2-2023 表") || len(s.Levels) != 5 {
			t.Errorf("%v: %s, %d levels", names, s.Source, len(s.Levels))
		}
		var scores []int
		for _, l := range s.Levels {
			scores = append(scores, l.Score)
			if l.ZH == "" || l.EN == "" {
				t.Errorf("%v level %d has no criterion", names, l.Score)
			}
		}
		if !slices.Equal(scores, []int{5, 4, 3, 2, 1}) {
			t.Errorf("%v: scores %v", names, scores)
		}
	}
}
