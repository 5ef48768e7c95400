package reporters

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/browsertest"
	"github.com/nlutest/nlutest/schema"
)

// convoTurn is one turn of a conversation's script in a report.
func convoTurn(script string, turn, turns int, text, reply string, o schema.Outcome, fails ...schema.Failure) schema.CaseReport {
	return schema.CaseReport{ID: script + "/" + string(rune('0'+turn)), Source: "订票引导", SourceKind: "conversation", Text: text,
		Outcome: o, Script: script, Turn: turn, Turns: turns, Conversation: script + "-s", Reply: reply, Failures: fails,
		File: "suites/booking/booking.nlutest.hcl", Line: 51}
}

// withConversations is a report whose failing cases are all turns of
// conversations (so it has no failing-case list), one failed and one
// passed; pass says whether the thresholds, which decide, passed.
func withConversations(pass bool) *schema.Report {
	r := quickstart()
	r.Cases = []schema.CaseReport{
		convoTurn("c1", 1, 2, "帮我订一张明天去北京的机票", "好的，请问几位？", schema.Pass),
		convoTurn("c1", 2, 2, "两位", "订单号 123", schema.Fail,
			schema.Failure{Kind: "expect", Path: "$.intent.name", Expected: "inform_people", Actual: "greet"}),
		convoTurn("c2", 1, 1, "你好", "你好！", schema.Pass),
	}
	r.Verdict = schema.Verdict{Outcome: schema.Pass, ByThresholds: true}
	if !pass {
		r.Verdict = schema.Verdict{Outcome: schema.Fail}
		r.Thresholds = nil
	}
	return r
}

// TestFailedConversationInPassReportIsWarning (issue 28 item 6): a failed
// conversation in a report whose thresholds decide and pass is marked as a
// non-gating failure (⚠) in every renderer, like a failing case; in a
// report where every case decides it stays a red mark.
func TestFailedConversationInPassReportIsWarning(t *testing.T) {
	md := renderMarkdown(t, withConversations(true), Options{}, 0)
	if !strings.Contains(md, "<summary>⚠️ conversation 订票引导") {
		t.Errorf("the Markdown transcript of a failed conversation in a PASS report is not marked ⚠️:\n%s", md)
	}
	if strings.Contains(md, "❌") {
		t.Errorf("a PASS Markdown report whose thresholds decide shows ❌:\n%s", md)
	}
	page := renderHTML(t, withConversations(true), Options{})
	if !strings.Contains(page, `<summary><span class="m warn" title="warning">⚠</span> conversation 订票引导`) {
		t.Errorf("the HTML transcript is not marked as a warning")
	}
	con := renderConsole(t, withConversations(true), Options{Color: true})
	warnMark := newPalette(true).warn.Sprint("⚠")
	if !strings.Contains(con, warnMark+"  conversation 订票引导") {
		t.Errorf("the console transcript is not marked with the warning colour:\n%q", con)
	}
	md = renderMarkdown(t, withConversations(false), Options{}, 0)
	if !strings.Contains(md, "<summary>❌ conversation 订票引导") {
		t.Errorf("a failed conversation that decides the verdict is not marked ❌:\n%s", md)
	}
}

// TestHTMLSearchFiltersTranscripts (issue 28 item 6): a page whose failures
// are all conversations still has the search box, above the transcripts,
// and every transcript is an element the script filters.
func TestHTMLSearchFiltersTranscripts(t *testing.T) {
	page := renderHTML(t, withConversations(true), Options{})
	search := strings.Index(page, `<input type="search" id="q"`)
	first := strings.Index(page, `<details class="transcript"`)
	if search < 0 || first < 0 || search > first {
		t.Fatalf("want the search box (at %d) above the first transcript (at %d)", search, first)
	}
	if !strings.Contains(page, `<details class="transcript" data-source="conversation 订票引导" data-outcome="fail">`) {
		t.Errorf("the transcript carries no source and outcome to filter by")
	}
	if !strings.Contains(page, "<script>") {
		t.Errorf("the page with transcripts has no filter script")
	}
	checkBalanced(t, page)
}

// TestHTMLSearchFiltersTranscriptsInChromium types a word in the search
// box of a page with a failing case and a failed conversation: only the
// conversation whose transcript holds the word stays shown.
func TestHTMLSearchFiltersTranscriptsInChromium(t *testing.T) {
	browsertest.Require(t)
	r := withConversations(true)
	r.Cases = append(r.Cases, quickstart().Cases...)
	dir := t.TempDir()
	for word, want := range map[string]string{"两位": "1 of ", "zzz-nowhere": "0 of "} {
		page := renderHTML(t, r, Options{})
		typeIt := `<script>(function(){var q=document.getElementById("q");q.value="` + word + `";q.dispatchEvent(new Event("input"));}());</script>`
		i := strings.LastIndex(page, "</body>")
		file := filepath.Join(dir, "t.html")
		if err := os.WriteFile(file, []byte(page[:i]+typeIt+page[i:]), 0o644); err != nil {
			t.Fatal(err)
		}
		p := browsertest.Load(t, file, 1280, 1600)
		if len(p.Console) > 0 {
			t.Errorf("%s: the page wrote to the console:\n%s", word, strings.Join(p.Console, "\n"))
		}
		if !strings.Contains(p.DOM, `<span id="count">`+want) {
			t.Errorf("search %q: want %q… shown", word, want)
		}
		if word == "两位" && strings.Contains(p.DOM, `<details class="transcript" data-source="conversation 订票引导" data-outcome="fail" hidden="">`) {
			t.Errorf("the conversation holding %q was hidden", word)
		}
	}
}

// Issue 35, minor: the console and HTML mark a failing template of a
// suite whose thresholds decide with the same symbol, ⚠ (0bdf656: a
// yellow ✗ on the console, ⚠ in HTML), and every mark has one symbol in
// both. Markdown's emoji for it is ⚠️.
func TestFailingTemplateMarkedAlike(t *testing.T) {
	r := iaoPass() // 伴随人员查询 fails, the thresholds decide
	row := func(text, name string) string {
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, name) && strings.Contains(line, "17") {
				return line
			}
		}
		t.Fatalf("no template row for %s in:\n%s", name, text)
		return ""
	}
	con := row(renderConsole(t, r, Options{}), "伴随人员查询")
	page := row(renderHTML(t, r, Options{}), "<td>伴随人员查询</td>")
	md := row(renderMarkdown(t, r, Options{}, maxMarkdownBytes), "| 伴随人员查询 |")
	if !strings.HasPrefix(strings.TrimSpace(con), "⚠  伴随人员查询") || !strings.Contains(page, `<span class="m warn" title="warning">⚠</span>`) || !strings.Contains(md, "⚠️") {
		t.Errorf("the failing template is marked differently:\nconsole  %s\nHTML     %s\nMarkdown %s", con, page, md)
	}
	for m := MarkPass; m <= MarkSkip; m++ {
		c := &console{p: newPalette(false)}
		if got, span := c.mark(m), markSpan(m); !strings.Contains(span, ">"+got+"</span>") || got != MarkSymbol(m) {
			t.Errorf("mark %d: console %q, HTML %s", m, got, span)
		}
	}
}
