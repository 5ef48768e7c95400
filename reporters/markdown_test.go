package reporters

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

func renderMarkdown(t *testing.T, r *schema.Report, o Options, limit int) string {
	t.Helper()
	var b bytes.Buffer
	if err := markdown(&b, r, o, limit); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestMDText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"查询13301791708的酒店同房间人员", "查询13301791708的酒店同房间人员"},
		{"a|b", `a\|b`},
		{"use `code`", "use &#96;code&#96;"},
		{"line1\nline2\r\nline3", "line1<br>line2<br>line3"},
		{"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"ask @travel-team", "ask &#64;travel-team"},
		{"a & b", "a &amp; b"},
		{"content_op *bold* [link](x)", `content\_op \*bold\* \[link\](x)`},
		{`C:\path`, `C:\\path`},
		{"\x1b[31mred\x1b[0m\x00", "red"},
		{"  padded  ", "padded"},
	} {
		if got := mdText(tc.in); got != tc.want {
			t.Errorf("mdText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "```"},
		{"has ``` inside", "````"},
		{"has ````` five", "``````"},
	} {
		if got := fence(tc.in); got != tc.want {
			t.Errorf("fence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMarkdownLayout: the verdict heading comes first and states gates and
// cases; the thresholds table carries numerators and denominators; user data
// never reaches the page as raw HTML.
func TestMarkdownLayout(t *testing.T) {
	out := renderMarkdown(t, iaoFail(), Options{}, maxMarkdownBytes)
	first := strings.SplitN(out, "\n", 2)[0]
	if first != "## ❌ FAIL · iao-hotel: 2/6 thresholds met (1 not evaluated) · 35 passed, 11 failed, 4 errored of 50 cases (4.1s)" {
		t.Errorf("first line %q", first)
	}
	for _, frag := range []string{
		"| ❌ | 总体准确率<br><sub>上线门槛：整体准确率不低于 0.8</sub>",
		"<code>metrics.accuracy &gt;= 0.8</code> | **0.761 (35/46) \\[0.621, 0.861\\]** | 46 | error |",
		"| 🔥 | 意图宏F1 |",
		"| ✅ | 冒烟集准确率 |",
		"### Scenes",
		"| 关系分析/伴随分析 | 20 | 17 | 3 | 0 | 0.850 (17/20) |",
		"| **查询** | **34** | 1 | 1 |",
		"| &lt;=20 | 30 | 48.2 |",
		"<details><summary>🔥 住宿记录查询 › 查询赵刚和手机号为13033918279，一九九七年的住宿记录，珠江路汉庭酒店 <code>c41e07</code>: Timeout: no response within 5s (3 attempts)</summary>\n\n```text\n",
	} {
		if !strings.Contains(out, frag) {
			t.Errorf("Markdown lacks %q", frag)
		}
	}
	if strings.Contains(out, "Δ") {
		t.Errorf("no Δ column without a baseline")
	}

	qs := renderMarkdown(t, quickstart(), Options{}, maxMarkdownBytes)
	// Outside fenced blocks no HTML from user data survives.
	prose := regexp.MustCompile("(?s)```text\n.*?\n```").ReplaceAllString(qs, "")
	for _, bad := range []string{"<b>", "<html>", "@travel-team", "\x1b", "\x00"} {
		if strings.Contains(prose, bad) {
			t.Errorf("Markdown prose contains raw %q", bad)
		}
	}
	if strings.Contains(qs, "\x1b") || strings.Contains(qs, "\x00") {
		t.Errorf("control characters in the Markdown report")
	}
	if !strings.Contains(qs, "<summary>❌ book_flight › 订一张去東京的机票 | 经济舱 <code>q03</code>") {
		t.Errorf("failure summary missing or mis-escaped")
	}
}

// TestMarkdownBaseline: the Δ column compares against the baseline's
// threshold and scope of the same name.
func TestMarkdownBaseline(t *testing.T) {
	out := renderMarkdown(t, iaoFail(), Options{Baseline: iaoPass()}, maxMarkdownBytes)
	// 35/46 − 41/48 = 0.76087 − 0.85417 = −0.0933.
	if !strings.Contains(out, "| **0.761 (35/46) \\[0.621, 0.861\\]** | 46 | error | -0.093 |") {
		t.Errorf("threshold Δ missing")
	}
	if !strings.Contains(out, "| split smoke | 10 | 10 | 0 | 0 | 1.000 (10/10) \\[0.722, 1.000\\] | 0.000 (0/10) | +0.1 |") {
		t.Errorf("scope Δ missing")
	}
}

// bigFailingReport has n failing cases, each with a large response.
func bigFailingReport(n int) *schema.Report {
	r := iaoFail()
	r.Cases = nil
	for i := range n {
		c := hotelCase(fmt.Sprintf("x%05d", i), "同房间人员查询", fmt.Sprintf("查询第%d位住客的酒店同房间人员", i), 40, schema.Fail, 50,
			expectFail("$.data[0].content.rel[0].rel[0].relName", "酒店同房间同宿", "同住", "relation", 52))
		c.Response = strings.Repeat("响应", 1500) // 9 KB
		r.Cases = append(r.Cases, c)
	}
	return r
}

// TestMarkdownSizeCap: the summary stays under GitHub's 1 MiB step-summary
// limit; failure details are trimmed first (compact blocks), then failures
// are cut with "…and N more"; verdict and thresholds are always whole.
func TestMarkdownSizeCap(t *testing.T) {
	r := bigFailingReport(3000)
	out := renderMarkdown(t, r, Options{MaxFailures: 3000}, maxMarkdownBytes)
	if len(out) > maxMarkdownBytes {
		t.Fatalf("Markdown is %d bytes, over %d", len(out), maxMarkdownBytes)
	}
	checkCut(t, out, 3000)
	if !strings.Contains(out, "| 🔥 | 意图宏F1 |") {
		t.Errorf("thresholds table lost")
	}

	// A tight limit: compact blocks after the full ones.
	out = renderMarkdown(t, r, Options{MaxFailures: 3000}, 64<<10)
	if len(out) > 64<<10 {
		t.Fatalf("Markdown is %d bytes, over 64 KiB", len(out))
	}
	full := strings.Count(out, "response: ")
	blocks := checkCut(t, out, 3000)
	if full == 0 || full >= blocks {
		t.Errorf("want some full blocks then compact ones; %d full of %d", full, blocks)
	}

	// Default cap of 50 listed failures.
	out = renderMarkdown(t, r, Options{}, maxMarkdownBytes)
	if n := checkCut(t, out, 3000); n != 50 {
		t.Errorf("listed %d failures, want the default 50", n)
	}
}

// checkCut checks that the listed failures plus "…and N more" account for
// every failing case, and returns how many were listed.
func checkCut(t *testing.T, out string, total int) int {
	t.Helper()
	// A failing case is ⚠️ where the thresholds decide (SPEC §9), ❌ where
	// every case must pass.
	listed := strings.Count(out, "<details><summary>❌ ") + strings.Count(out, "<details><summary>⚠️ ")
	m := regexp.MustCompile(`_…and (\d+) more failing cases; the JSON report has them all\._`).FindStringSubmatch(out)
	more := 0
	if m != nil {
		fmt.Sscan(m[1], &more)
	}
	if listed+more != total {
		t.Errorf("listed %d + %d more != %d failing cases", listed, more, total)
	}
	return listed
}

// TestMarkdownThresholdsNeverTruncated: even when the limit is tiny, every
// threshold row is there; other sections give way with a note.
func TestMarkdownThresholdsNeverTruncated(t *testing.T) {
	r := bigFailingReport(10)
	for i := range 200 {
		r.Thresholds = append(r.Thresholds, schema.ThresholdResult{
			Name: fmt.Sprintf("场景%03d准确率", i), Condition: fmt.Sprintf(`metrics.scene["场景%03d"].accuracy >= 0.9`, i),
			Severity: "error", Outcome: schema.Pass, Observed: []schema.Observed{{Name: "x", Value: fp(0.95), Num: fp(19), Den: fp(20)}},
		})
	}
	out := renderMarkdown(t, r, Options{}, 16<<10)
	if n := strings.Count(out, "准确率 | <code>metrics.scene"); n != 200 {
		t.Errorf("%d of 200 threshold rows", n)
	}
	if !strings.Contains(out, "_The templates section was left out to keep this summary under 16 KiB; the JSON report has it._") {
		t.Errorf("no note for the sections left out")
	}
}

func TestMarkdownNilReport(t *testing.T) {
	if err := Markdown(&bytes.Buffer{}, nil, Options{}); err == nil {
		t.Error("nil report: want an error")
	}
	var b bytes.Buffer
	if err := Markdown(&b, &schema.Report{}, Options{}); err != nil || !strings.HasPrefix(b.String(), "## ❌ FAIL · suite: ") {
		t.Errorf("empty report: %v %q", err, b.String())
	}
}
