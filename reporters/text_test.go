package reporters

import (
	"bytes"
	"encoding/xml"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nlutest/nlutest/schema"
)

func TestStripANSI(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain 中文", "plain 中文"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"\x1b[1;38;5;196mbold\x1b[22m", "bold"},
		{"\x1b]0;window title\x07after", "after"},
		{"\x1b]8;;http://example.com\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"\x1bPdcs data\x1b\\x", "x"},
		{"a\x1bcb", "ab"}, // ESC c (reset) is a two-byte sequence
		{"end\x1b", "end"},
		{"\x1b[", ""},
	} {
		if got := stripANSI(tc.in); got != tc.want {
			t.Errorf("stripANSI(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"tab\tnl\ncr\r", "tab\tnl\ncr\r"},
		{"nul\x00soh\x01bel\x07", "nulsohbel"},
		{"del\x7fc1\u0085", "delc1"},
		{"nonchar\uFFFE\uFFFF", "nonchar"},
		{"bad \xff\xfe bytes", "bad \uFFFD bytes"},
		{"lone surrogate \xed\xa0\x80!", "lone surrogate \uFFFD!"},
		{"emoji 😀 and 𠀀", "emoji 😀 and 𠀀"},
		{"\x1b[31m酒店\x1b[0m\x00", "酒店"},
	} {
		if got := clean(tc.in); got != tc.want {
			t.Errorf("clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzClean: whatever the input, clean's output is valid UTF-8 made only of
// XML 1.0 characters without ESC, and a JUnit report carrying it parses.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "\x1b[31mx", "\x00\x01\x1f", "\xed\xa0\x80", "a]]>b", "\uFFFE", "查询\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := clean(s)
		if !utf8.ValidString(out) {
			t.Fatalf("clean(%q) = %q is not valid UTF-8", s, out)
		}
		for _, r := range out {
			if !legalXMLRune(r) || r == 0x1b {
				t.Fatalf("clean(%q) keeps %U", s, r)
			}
		}
		r := quickstart()
		r.Cases[2].Text = s
		r.Cases[2].Response = s
		r.Cases[2].Failures[1].Message = s
		r.Verdict.Reasons = []string{s}
		var b bytes.Buffer
		if err := JUnit(&b, r, Options{}); err != nil {
			t.Fatal(err)
		}
		var doc xTestsuites
		if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatalf("JUnit with %q does not parse: %v", s, err)
		}
	})
}

func TestCapBytes(t *testing.T) {
	s := strings.Repeat("酒店", 1000) // 6000 bytes
	got := capBytes(s, 100)
	if len(got) > 100 || !utf8.ValidString(got) || !strings.Contains(got, "… (truncated: ") {
		t.Errorf("capBytes: %d bytes %q", len(got), got)
	}
	if capBytes("short", 100) != "short" {
		t.Error("capBytes changed a short string")
	}
	if got := capLine(s, 10); len(got) > 10 || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Errorf("capLine: %q", got)
	}
}

func TestFormatting(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{fmtNum(48), "48"},
		{fmtNum(2.6015873), "2.602"},
		{fmtNum(-0.0001), "0"},
		{fmtRatio(schema.R(35, 40)), "0.875 (35/40)"},
		{fmtRatio(schema.R(0, 0)), "n/a (0/0)"},
		{fmtRatio(schema.Ratio{Num: 68.0/72 + 12.0/15 + 8.0/9, Den: 3}), "0.878 (2.633/3)"},
		{fmtSeconds(0.031), "31ms"},
		{fmtSeconds(3.2), "3.2s"},
		{fmtSeconds(125), "2m05s"},
		{fmtSeconds(3720), "1h02m"},
		{junitSeconds(1.2345), "1.234"},
		{junitSeconds(-1), "0.000"},
		{junitSeconds(1234.5), "1234.500"},
		{fmtDelta(fp(0.76087), fp(0.85417)), "-0.093"},
		{fmtDelta(fp(1), fp(0.9)), "+0.1"},
		{fmtDelta(fp(0.5), fp(0.5)), "±0"},
		{fmtDelta(nil, fp(0.5)), ""},
		{fmtValue("酒店<同宿>"), `"酒店<同宿>"`},
		{fmtValue(int64(200)), "200"},
		{fmtValue(nil), "null"},
		{metricKey("metrics.split", "smoke"), "metrics.split.smoke"},
		{metricKey("metrics.scene", "关系分析/伴随分析"), `metrics.scene["关系分析/伴随分析"]`},
		{metricKey("metrics.latency.bucket", "<=20"), `metrics.latency.bucket["<=20"]`},
		{metricKey("metrics.level", "S1"), "metrics.level.S1"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestNaturalOrder(t *testing.T) {
	in := []string{"S10", "S2", "S1", "level", "关系分析/伴随分析", "关系分析", "S02", "a10b2", "a10b10", "a9"}
	sort.Slice(in, func(i, j int) bool { return naturalLess(in[i], in[j]) })
	want := "[S1 S02 S2 S10 a9 a10b2 a10b10 level 关系分析 关系分析/伴随分析]"
	if got := strings.Join(in, " "); "["+got+"]" != want {
		t.Errorf("natural order %v, want %s", in, want)
	}
}
