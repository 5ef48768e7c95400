package reporters

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/fatih/color"
	"github.com/mattn/go-runewidth"

	"github.com/nlutest/nlutest/schema"
)

func renderConsole(t *testing.T, r *schema.Report, o Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := Console(&b, r, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// consoleTables splits a console report into its tables: blocks separated
// by blank lines whose second line is the header rule. It returns each
// table's lines from the header down.
func consoleTables(out string) [][]string {
	var tables [][]string
	for _, block := range strings.Split(out, "\n\n") {
		lines := strings.Split(strings.Trim(block, "\n"), "\n")
		for i := 1; i < len(lines); i++ {
			if strings.Trim(lines[i], " ─") == "" && strings.Contains(lines[i], "─") {
				tables = append(tables, lines[i-1:])
				break
			}
		}
	}
	return tables
}

// TestConsoleCJKAlignment: every line of every table has the same display
// width, measured with go-runewidth (East Asian ambiguous characters
// narrow, as in a UTF-8 terminal), including tables with Chinese cells and
// under a Chinese locale with a dumb terminal, which would switch
// tablewriter's East Asian mode on by itself (gotcha #17).
func TestConsoleCJKAlignment(t *testing.T) {
	t.Setenv("LANG", "zh_CN.UTF-8")
	t.Setenv("LC_ALL", "zh_CN.UTF-8")
	t.Setenv("TERM", "dumb")
	rw := &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}
	for _, tc := range []struct {
		name string
		r    *schema.Report
		o    Options
	}{
		{"iao_pass", iaoPass(), Options{}},
		{"iao_fail_baseline", iaoFail(), Options{Baseline: iaoPass()}},
		{"iao_pass_color", iaoPass(), Options{Color: true}},
		{"quickstart", quickstart(), Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := stripANSI(renderConsole(t, tc.r, tc.o))
			tables := consoleTables(out)
			withHan := 0
			for _, lines := range tables {
				han := false
				want := rw.StringWidth(lines[0])
				for _, l := range lines {
					han = han || hasHan(l)
					if got := rw.StringWidth(l); got != want {
						t.Errorf("table line has width %d, header %d:\n%s", got, want, strings.Join(lines, "\n"))
						break
					}
				}
				if han {
					withHan++
				}
			}
			if len(tables) < 5 {
				t.Errorf("found only %d tables", len(tables))
			}
			if tc.r.Suite.Name == "iao-hotel" && withHan < 5 {
				t.Errorf("only %d tables with Chinese cells were checked", withHan)
			}
		})
	}
}

// TestConsoleTableWidthWithChinese checks the table helper directly on a
// mix of Chinese, full-width punctuation, Latin text and symbols.
func TestConsoleTableWidthWithChinese(t *testing.T) {
	rw := &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}
	c := &console{p: newPalette(false), cell: 50, rw: rw}
	rows := [][]string{
		{"✓", "查询13301791708的酒店同房间人员", "酒店同房间同宿", "0.966 (28/29)"},
		{"✗", "Book a flight to 上海", "flight.book", "n/a (0/0)"},
		{"!", "订一张去東京的机票，经济舱", "关系分析/伴随分析", "1.000 (1/1)"},
	}
	if err := c.table([]string{"", "文本", "label", "value"}, aligns("lllr"), rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(c.b.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("want header, rule and 3 rows, got:\n%s", c.b.String())
	}
	for _, l := range lines {
		if w := rw.StringWidth(l); w != rw.StringWidth(lines[0]) {
			t.Errorf("width %d != %d: %q", w, rw.StringWidth(lines[0]), l)
		}
	}
}

// TestConsoleColor: plain output has no ANSI escape at all, even when a
// message carries one; colour is on only when asked, whatever
// color.NoColor says (the caller decides, per gotcha #21).
func TestConsoleColor(t *testing.T) {
	r := quickstart()
	r.Cases[2].Failures[1].Message = "\x1b[1;31mred\x1b[0m text"
	r.Verdict.Reasons = append(r.Verdict.Reasons, "\x1b]8;;http://x\x07link\x1b]8;;\x07")

	saved := color.NoColor
	defer func() { color.NoColor = saved }()

	color.NoColor = false
	plain := renderConsole(t, r, Options{Color: false})
	if strings.Contains(plain, "\x1b") {
		t.Errorf("Color=false output contains ESC:\n%q", plain)
	}
	if !strings.Contains(plain, "assert: red text") || !strings.Contains(plain, "- link") {
		t.Errorf("user text lost while stripping escapes:\n%s", plain)
	}

	color.NoColor = true
	colored := renderConsole(t, r, Options{Color: true})
	if !strings.Contains(colored, "\x1b[31;1mFAIL\x1b[0;22m") {
		t.Errorf("Color=true output lacks the red FAIL:\n%q", colored[:min(200, len(colored))])
	}
	if stripANSI(colored) != plain {
		t.Errorf("colour must only add escapes: the text differs")
	}
}

// TestConsoleLayout: verdict first and last, reasons under it, thresholds
// with their symbols, failing cases worst first, capped.
func TestConsoleLayout(t *testing.T) {
	out := renderConsole(t, iaoFail(), Options{MaxFailures: 4})
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	want := "FAIL  iao-hotel: 2/6 thresholds met (1 not evaluated) · 35 passed, 11 failed, 4 errored of 50 cases (4.1s)"
	if lines[0] != want || lines[len(lines)-1] != want {
		t.Errorf("verdict line must come first and last:\nfirst %q\nlast  %q\nwant  %q", lines[0], lines[len(lines)-1], want)
	}
	if !strings.HasPrefix(lines[1], "      - threshold \"总体准确率\" not met") {
		t.Errorf("reasons follow the verdict: %q", lines[1])
	}
	for _, frag := range []string{
		"✗  总体准确率",
		"!  意图宏F1",
		"✓  p95延迟",
		"  ! 意图宏F1: metrics.label.intent has no data: no case of this run has an intent label",
		"… and 11 more failing cases",
	} {
		if !strings.Contains(out, frag) {
			t.Errorf("console report lacks %q", frag)
		}
	}
	// Worst first: the four listed are the four errored cases.
	var listed []string
	for _, l := range lines {
		if strings.HasPrefix(l, "  !  ") || strings.HasPrefix(l, "  ✗  ") {
			listed = append(listed, strings.Fields(l)[0])
		}
	}
	if fmt.Sprint(listed) != "[! ! ! !]" {
		t.Errorf("failing cases not worst first: %q", listed)
	}
}

// TestConsoleDefaultCap: 20 failing cases by default, then a count.
func TestConsoleDefaultCap(t *testing.T) {
	r := quickstart()
	r.Cases = nil
	for i := range 27 {
		r.Cases = append(r.Cases, schema.CaseReport{ID: fmt.Sprintf("c%02d", i), Template: "t", Text: "第" + fmt.Sprint(i) + "句",
			Outcome: schema.Fail, Failures: []schema.Failure{{Kind: "expect", Path: "$.a", Expected: int64(1), Actual: int64(2)}}})
	}
	out := renderConsole(t, r, Options{})
	if n := strings.Count(out, "      $.a: expected 1, got 2"); n != 20 {
		t.Errorf("listed %d failing cases, want the default cap of 20", n)
	}
	if !strings.Contains(out, "  … and 7 more failing cases\n") {
		t.Errorf("no count of the rest")
	}
}

// TestConsoleWithoutMetrics: an interrupted run with no metrics tree still
// renders, counting the cases it has.
func TestConsoleWithoutMetrics(t *testing.T) {
	r := quickstart()
	r.Metrics = nil
	r.Groups = nil
	r.Run.Interrupted = true
	out := renderConsole(t, r, Options{Width: 60})
	if !strings.HasPrefix(out, "FAIL  quickstart: 2 passed, 2 failed, 2 errored of 6 cases (2.2s) · interrupted\n") {
		t.Errorf("verdict from the cases: %q", strings.SplitN(out, "\n", 2)[0])
	}
	if err := Console(&bytes.Buffer{}, nil, Options{}); err == nil {
		t.Error("nil report: want an error")
	}
	if err := Console(&bytes.Buffer{}, &schema.Report{}, Options{}); err != nil {
		t.Errorf("empty report: %v", err)
	}
}

// TestConsoleLongText: a huge utterance or value is capped to a few console
// widths instead of flooding the terminal.
func TestConsoleLongText(t *testing.T) {
	r := quickstart()
	r.Cases[2].Text = strings.Repeat("很长的句子", 2000)
	r.Cases[2].Failures[0].Actual = strings.Repeat("x", 50000)
	out := renderConsole(t, r, Options{Width: 80})
	rw := &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}
	for _, l := range strings.Split(out, "\n") {
		if w := rw.StringWidth(l); w > 4*80+100 {
			t.Errorf("line of width %d: %.60q…", w, l)
		}
	}
	if !strings.Contains(out, "…  [q03]") {
		t.Errorf("long utterance not visibly truncated")
	}
}

// TestRenderConcurrently: renderers share no mutable state (run with
// -race); tablewriter's East Asian switch is process-global and only ever
// set to the same value.
func TestRenderConcurrently(t *testing.T) {
	want := renderConsole(t, iaoPass(), Options{})
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			var b bytes.Buffer
			var err error
			switch i % 3 {
			case 0:
				err = Console(&b, iaoPass(), Options{Color: i%2 == 0})
				if err == nil && stripANSI(b.String()) != want {
					err = fmt.Errorf("concurrent console output differs")
				}
			case 1:
				err = JUnit(&b, iaoFail(), Options{JUnitCases: true})
			default:
				err = Markdown(&b, quickstart(), Options{Baseline: quickstart()})
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
