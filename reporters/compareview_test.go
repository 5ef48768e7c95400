package reporters

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// comparedConversation is a comparison of two targets whose differing
// cases are turn 2 of two instances of one conversation: the same text.
func comparedConversation() *schema.Comparison {
	return &schema.Comparison{Suite: schema.SuiteInfo{Name: "改签"}, Outcome: schema.Fail, Differing: 2,
		Targets: []schema.ComparedTarget{{Name: "rasa", Verdict: schema.Verdict{Outcome: schema.Fail}}, {Name: "候选", Verdict: schema.Verdict{Outcome: schema.Fail}}},
		Cases: []schema.ComparedCase{
			{ID: "1b34104ce24df83c/2", Source: "航班取消", SourceKind: "conversation", Text: "还有别的办法吗？", Turn: 2, Differs: true, Outcomes: []schema.Outcome{schema.Pass, schema.Fail}},
			{ID: "9c0ffee24df83c11/2", Source: "航班取消", SourceKind: "conversation", Text: "还有别的办法吗？", Turn: 2, Differs: true, Outcomes: []schema.Outcome{schema.Fail, schema.Pass}},
			{ID: "77aa10", Source: "查天气", SourceKind: "template", Text: "北京天气", Outcomes: []schema.Outcome{schema.Pass, schema.Pass}},
		}}
}

// Issue 35, minor: the comparison's case rows carry the case id in the
// console, Markdown and HTML, so two instances of a conversation's turn
// (the same text) are told apart; 0bdf656's console showed only
// "turn 2: 还有别的办法吗？" twice.
func TestComparisonRowsNameTheCase(t *testing.T) {
	v := ComparisonView(comparedConversation(), Options{})
	var con, md, page bytes.Buffer
	if err := ConsoleView(&con, v, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := MarkdownView(&md, v, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := HTMLView(&page, v, Options{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"console": con.String(), "Markdown": md.String(), "HTML": page.String()} {
		for _, id := range []string{"1b34104ce24df83c/2", "9c0ffee24df83c11/2", "77aa10"} {
			found := false
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, id) && (id == "77aa10" || strings.Contains(line, "turn 2: 还有别的办法吗？")) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no case row names %s:\n%s", name, id, out)
			}
		}
	}
}
