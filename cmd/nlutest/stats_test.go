package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

var iaoHotel = filepath.Join("..", "..", "suites", "iao-hotel")

// statSections splits the console output of `nlutest stats` into its
// tables: title → the table's lines (header, rule, rows), as printed.
func statSections(out string) map[string][]string {
	secs := map[string][]string{}
	title := ""
	for _, line := range strings.Split(out, "\n") {
		switch {
		case line == "":
		case !strings.HasPrefix(line, " "):
			title = line
		default:
			secs[title] = append(secs[title], line)
		}
	}
	return secs
}

// squeeze collapses runs of spaces, so rows compare as words.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestStatsIAOHotel checks `nlutest stats suites/iao-hotel` against counts
// worked out by hand from the suite file:
//
//   - hotel-roommates is uniq over 查询操作 (3 values), 手机号11位 (6, the
//     walking slot) and 伴随关系 (6, one shuffled cycle): 6 cases, every
//     relation value once. prefixed-phone is uniq over 查询操作 (3, walking)
//     and 带区号手机号 (2): 3 cases, so one of the two numbers twice — the
//     run report shows +8613532340976 expected 2 times.
//   - Dimensions come from the iao preset, first match wins: content_op,
//     intentPro and des.intent belong to intent (case), ont to ontology,
//     des.phone_number to attribute, relName to relation, behavior[0].* to
//     behaviour (items); $.code to none.
//   - ontology: each of hotel-roommates' three ont expectations in its 6
//     cases, so SIM_Card, ["SIM_Card","Person"] and ["Person","Person"] 6
//     times each.
//   - relation: 使用人 in 6 cases; {伴随关系} normalised for IAO gives
//     酒店同房间同宿 once plus prefixed-phone's literal 3 times = 4, 酒店同住
//     twice (同住酒店 and 同一酒店开房 normalise to it), 同航班, 同车次,
//     网吧同上网 once: 15 expectations.
//   - attribute: 9 phone numbers expected over 9 cases.
func TestStatsIAOHotel(t *testing.T) {
	code, out, errs := runCLI(t, ".", nil, "stats", iaoHotel)
	if code != ExitPass {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	secs := statSections(out)
	want := map[string][]string{
		"Materials (素材库概况)": {
			"materials tag values M1 M2 M3 M4 from",
			"查询操作 辅助操作 3 3 0 0 0",
			"手机号11位 手机号 6 6 0 0 0 materials/phones.txt",
			"带区号手机号 手机号 2 0 0 2 0",
			"伴随关系 伴随关系 6 1 4 0 1",
			"total 17 10 4 2 1",
		},
		"Materials by tag": {"伴随关系 1 6", "手机号 2 8", "辅助操作 1 3"},
		"Cases by template (模板生成句子统计)": {
			"hotel-roommates S1 yes 关系分析/伴随分析/酒店同宿 uniq 6 66.7% " + filepath.Join(iaoHotel, "iao-hotel.nlutest.hcl") + ":85",
			"prefixed-phone S2 no 关系分析/伴随分析/酒店同宿 uniq 3 33.3% " + filepath.Join(iaoHotel, "iao-hotel.nlutest.hcl") + ":111",
			"total 9 100.0%",
		},
		"Cases by template level":     {"S1 1 6 66.7%", "S2 1 3 33.3%"},
		"Cases by scene (业务场景维度句子统计)": {"关系分析 9 100.0%", "关系分析/伴随分析 9 100.0%", "关系分析/伴随分析/酒店同宿 9 100.0%"},
		"Cases by split":              {"smoke 6 66.7%", "(no split) 3 33.3%"},
		"Core and non-core scenes":    {"core 6 66.7%", "non-core 3 33.3%"},
		"Dimension coverage": {
			"intent case 6 18 3",
			"ontology leaf 6 18 3",
			"attribute leaf 9 9 8",
			"relation leaf 9 15 6",
			"behaviour items 6 6 1",
		},
		"Coverage: intent (case)": {"content_op 查询 6 33.3%", `intent ["full"] 6 33.3%`, `intentPro ["entity"] 6 33.3%`},
		"Coverage: ontology (leaf)": {
			"ont SIM_Card 6 33.3%", `ont ["Person","Person"] 6 33.3%`, `ont ["SIM_Card","Person"] 6 33.3%`,
		},
		"Coverage: attribute (leaf)": {
			"phone_number +8613532340976 2 22.2%", "phone_number 8613368366846 1 11.1%", "phone_number 13301791708 1 11.1%",
		},
		"Coverage: relation (leaf)": {
			"relName 使用人 6 40.0%", "relName 酒店同房间同宿 4 26.7%", "relName 酒店同住 2 13.3%",
			"relName 同航班 1 6.7%", "relName 同车次 1 6.7%", "relName 网吧同上网 1 6.7%",
		},
		"Coverage: behaviour (items)": {"category=伴随分析 6 100.0%"},
	}
	for title, rows := range want {
		lines, ok := secs[title]
		if !ok {
			t.Errorf("no table %q in\n%s", title, out)
			continue
		}
		var got []string
		for _, l := range lines {
			got = append(got, squeeze(l))
		}
		for _, r := range rows {
			found := false
			for _, g := range got {
				if g == r {
					found = true
				}
			}
			if !found {
				t.Errorf("table %q lacks the row %q; it has\n%s", title, r, strings.Join(lines, "\n"))
			}
		}
	}
	if !strings.HasPrefix(out, `Statistics of suite "iao-hotel": 4 materials, 2 templates, 9 cases`) {
		t.Errorf("headline: %q", strings.SplitN(out, "\n", 2)[0])
	}
	// CJK alignment: every line of a table has the same display width
	// (Han characters two columns, box drawing one), so columns line up.
	w := &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}
	for title, lines := range secs {
		if title == "" {
			continue
		}
		width := -1
		for _, l := range lines {
			if strings.HasPrefix(l, "  A case") || strings.HasPrefix(l, "  expectations counts") || strings.HasPrefix(l, "  …") {
				continue // notes under tables
			}
			if n := w.StringWidth(l); width < 0 {
				width = n
			} else if n != width {
				t.Errorf("table %q: line %q is %d columns wide, the header %d", title, l, n, width)
			}
		}
	}
	golden(t, "stats-iao-hotel.txt", out)
}

func TestStatsMarkdownSplit(t *testing.T) {
	code, out, errs := runCLI(t, ".", nil, "stats", "--format", "markdown", "--split", "smoke", iaoHotel)
	if code != ExitPass {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	// smoke holds hotel-roommates' 6 cases only (where = S1 && core).
	for _, row := range []string{
		`# Statistics of suite "iao-hotel": 4 materials, 2 templates, 6 cases in split "smoke"`,
		"| smoke | 6 | 100.0% |",
		"| S1 | 1 | 6 | 100.0% |",
		"| 关系分析/伴随分析/酒店同宿 | 6 | 100.0% |",
		"| core | 6 | 100.0% |",
		"| non-core | 0 | 0.0% |",
		"| relation | leaf | 6 | 12 | 6 |",
		"| relName | 使用人 | 6 | 50.0% |",
		"| relName | 酒店同房间同宿 | 1 | 8.3% |",
		"| content\\_op | 查询 | 6 | 33.3% |",
		"|---|---|---:|---:|---:|---:|---:|---|",
	} {
		if !strings.Contains(out, row+"\n") {
			t.Errorf("markdown lacks %q:\n%s", row, out)
		}
	}
	if regexp.MustCompile(`(?m)^\| prefixed-phone .*\| 3 \|`).MatchString(out) || strings.Contains(out, "(no split)") {
		t.Errorf("--split smoke counts only smoke's cases:\n%s", out)
	}
	golden(t, "stats-iao-hotel-smoke.md", out)
}

func TestStatsTopAndUsage(t *testing.T) {
	code, out, _ := runCLI(t, ".", nil, "stats", "--top", "2", iaoHotel)
	if code != ExitPass {
		t.Fatalf("exit %d", code)
	}
	secs := statSections(out)
	rel := secs["Coverage: relation (leaf)"]
	// header, rule, the 2 most exercised values, the note
	if len(rel) != 5 || squeeze(rel[2]) != "relName 使用人 6 40.0%" || !strings.Contains(rel[4], "and 4 more values") {
		t.Errorf("--top 2:\n%s", strings.Join(rel, "\n"))
	}
	for _, args := range [][]string{
		{"stats"},
		{"stats", iaoHotel, iaoHotel},
		{"stats", "--format", "xml", iaoHotel},
		{"stats", "--split", "没有", iaoHotel},
		{"stats", "--top", "-1", iaoHotel},
	} {
		if code, _, errs := runCLI(t, ".", nil, args...); code != ExitInvalid {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errs)
		}
	}
	dir := writeSuite(t, "materials \"城市\" {\n  values = [\"北京\"]\n}\ntemplate \"t\" {\n  text = \"{城}\"\n}\n")
	if code, _, errs := runCLI(t, ".", nil, "stats", dir); code != ExitInvalid || !strings.Contains(errs, "Unknown materials") {
		t.Errorf("an invalid suite: exit %d\n%s", code, errs)
	}
}

// golden compares out with testdata/NAME, rewriting it under -update.
func golden(t *testing.T, name, out string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != out {
		t.Errorf("output differs from %s (run with -update if intended):\n%s", path, out)
	}
}
