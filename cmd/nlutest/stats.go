package main

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fatih/color"
	"github.com/mattn/go-runewidth"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/spec/stats"
	"github.com/olekukonko/tablewriter/tw"
)

// cmdStats prints seed 000 §4.1.6's distributions of a suite: materials
// by tag and level, cases by template, template level, scene, split and
// core / non-core, and the coverage of each schema dimension's values.
func (a *App) cmdStats(args []string) int {
	var lf loadFlags
	fs := newFlagSet(a, "stats", "stats [flags] PATH")
	lf.register(fs)
	format := fs.String("format", "table", "output format: table (console) or markdown")
	split := fs.String("split", "", "count only the cases of split NAME (materials are always counted whole)")
	top := fs.Int("top", 50, "show at most N values per dimension coverage table, most exercised first; 0 shows all")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 1 {
		return a.fail(usagef("stats takes one suite path, got %d", len(pos)))
	}
	if *format != "table" && *format != "markdown" {
		return a.fail(usagef("--format takes table or markdown, not %q", *format))
	}
	if *top < 0 {
		return a.fail(usagef("--top takes a number of values, 0 for all; %d is negative", *top))
	}
	s, code := a.load(pos[0], &lf)
	if s == nil {
		return code
	}
	if *split != "" && s.SplitByName(*split) == nil {
		return a.fail(usagef("the suite has no split %q (splits: %s)", *split, strings.Join(s.SplitNames(), ", ")))
	}
	st, err := stats.Compute(s, *split)
	if err != nil {
		fmt.Fprintf(a.Stderr, "nlutest: generating cases: %s\n", err)
		return ExitInvalid
	}
	var out bytes.Buffer
	if *format == "markdown" {
		err = writeStatsMarkdown(&out, st, *top)
	} else {
		err = writeStatsTables(&out, st, *top, a.useColor(lf.color, a.StdoutTTY))
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "nlutest: stats: %s\n", err)
		return ExitCannotRun
	}
	if _, err := a.Stdout.Write(out.Bytes()); err != nil {
		return ExitCannotRun
	}
	return ExitPass
}

// statTable is one table of the statistics, rendered as a console table or
// a Markdown table.
type statTable struct {
	title  string
	header []string
	align  string // 'l' or 'r' per column
	rows   [][]string
	note   string // a line under the table
}

// statsTables lays the statistics out as tables, in the order of seed 000
// §4.1.6: materials, cases by template, scene and split, then coverage.
func statsTables(st *stats.Stats, top int) []statTable {
	var ts []statTable

	// 素材库概况: values per materials block and level, then per tag.
	mt := statTable{title: "Materials (素材库概况)", header: []string{"materials", "tag", "values"}, align: "llr"}
	for _, l := range st.Levels {
		mt.header = append(mt.header, levelName(l))
		mt.align += "r"
	}
	mt.header = append(mt.header, "from")
	mt.align += "l"
	totals := make([]int, len(st.Levels))
	sum := 0
	for _, m := range st.Materials {
		row := []string{m.Name, dash(m.Tag), itoa(m.Values)}
		for i, l := range st.Levels {
			row = append(row, itoa(m.ByLevel[l]))
			totals[i] += m.ByLevel[l]
		}
		sum += m.Values
		row = append(row, materialFrom(m))
		mt.rows = append(mt.rows, row)
	}
	total := []string{"total", "", itoa(sum)}
	for _, n := range totals {
		total = append(total, itoa(n))
	}
	mt.rows = append(mt.rows, append(total, ""))
	ts = append(ts, mt)

	tt := statTable{title: "Materials by tag", header: []string{"tag", "materials", "values"}, align: "lrr"}
	for _, tc := range st.MaterialTags {
		tt.rows = append(tt.rows, []string{dash(tc.Tag), itoa(tc.Materials), itoa(tc.Values)})
	}
	ts = append(ts, tt)
	if len(st.ValueTags) > 0 {
		vt := statTable{title: "Material values by value tag", header: []string{"value tag", "values"}, align: "lr"}
		for _, c := range st.ValueTags {
			vt.rows = append(vt.rows, []string{c.Name, itoa(c.Count)})
		}
		ts = append(ts, vt)
	}

	// 模板生成句子统计.
	ct := statTable{title: "Cases by template (模板生成句子统计)", header: []string{"template", "level", "core", "scene", "strategy", "cases", "share", "at"}, align: "lllllrrl"}
	for _, t := range st.Templates {
		core := "no"
		if t.Core {
			core = "yes"
		}
		ct.rows = append(ct.rows, []string{t.Name, dash(t.Level), core, dash(strings.Join(t.Scene, "/")), t.Strategy, itoa(t.Cases), share(t.Cases, st.Cases), fmt.Sprintf("%s:%d", t.File, t.Line)})
	}
	ct.rows = append(ct.rows, []string{"total", "", "", "", "", itoa(st.Cases), share(st.Cases, st.Cases), ""})
	ts = append(ts, ct)

	lt := statTable{title: "Cases by template level", header: []string{"level", "templates", "cases", "share"}, align: "lrrr"}
	for _, l := range st.TemplateLevels {
		lt.rows = append(lt.rows, []string{levelName(l.Level), itoa(l.Templates), itoa(l.Cases), share(l.Cases, st.Cases)})
	}
	ts = append(ts, lt)

	// 业务场景维度句子统计.
	if len(st.Scenes) > 0 {
		sc := statTable{title: "Cases by scene (业务场景维度句子统计)", header: []string{"scene", "cases", "share"}, align: "lrr"}
		for _, c := range st.Scenes {
			sc.rows = append(sc.rows, []string{c.Name, itoa(c.Count), share(c.Count, st.Cases)})
		}
		ts = append(ts, sc)
	}
	if len(st.Splits) > 0 {
		sp := statTable{title: "Cases by split", header: []string{"split", "cases", "share"}, align: "lrr",
			note: "A case may be in several splits."}
		for _, c := range st.Splits {
			sp.rows = append(sp.rows, []string{c.Name, itoa(c.Count), share(c.Count, st.Cases)})
		}
		if st.Split == "" {
			sp.rows = append(sp.rows, []string{"(no split)", itoa(st.NoSplit), share(st.NoSplit, st.Cases)})
		}
		ts = append(ts, sp)
	}
	ts = append(ts, statTable{title: "Core and non-core scenes", header: []string{"scope", "cases", "share"}, align: "lrr",
		rows: [][]string{{"core", itoa(st.Core), share(st.Core, st.Cases)}, {"non-core", itoa(st.NonCore), share(st.NonCore, st.Cases)}}})

	// Coverage of each dimension's expected values.
	if len(st.Dimensions) > 0 {
		dt := statTable{title: "Dimension coverage", header: []string{"dimension", "kind", "cases", "expectations", "values"}, align: "llrrr",
			note: "expectations counts expected items for items dimensions; values counts distinct expected values."}
		for _, d := range st.Dimensions {
			dt.rows = append(dt.rows, []string{d.Name, d.Kind, itoa(d.Cases), itoa(d.Expectations), itoa(len(d.Values))})
		}
		ts = append(ts, dt)
	}
	for _, d := range st.Dimensions {
		if len(d.Values) == 0 {
			continue
		}
		vt := statTable{title: fmt.Sprintf("Coverage: %s (%s)", d.Name, d.Kind)}
		unit := "expectations"
		if d.Kind == "items" {
			unit = "items"
		}
		withField := d.Kind == "leaf" || d.Kind == "case"
		if withField {
			vt.header, vt.align = []string{"field", "value", unit, "share"}, "llrr"
		} else {
			vt.header, vt.align = []string{"value", unit, "share"}, "lrr"
		}
		vals := d.Values
		if top > 0 && len(vals) > top {
			vt.note = fmt.Sprintf("… and %d more values (--top 0 shows all).", len(vals)-top)
			vals = vals[:top]
		}
		for _, v := range vals {
			row := []string{v.Value, itoa(v.Count), share(v.Count, d.Expectations)}
			if withField {
				row = append([]string{v.Field}, row...)
			}
			vt.rows = append(vt.rows, row)
		}
		ts = append(ts, vt)
	}
	return ts
}

func materialFrom(m stats.Material) string {
	var parts []string
	if m.Source != "" {
		parts = append(parts, m.Source)
	}
	if len(m.Compose) > 0 {
		parts = append(parts, "compose "+strings.Join(m.Compose, " "))
	}
	return strings.Join(parts, "; ")
}

func levelName(l string) string {
	if l == "" {
		return "(none)"
	}
	return l
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

// share is n of total as a percentage with one decimal.
func share(n, total int) string {
	if total == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(n)/float64(total), 'f', 1, 64) + "%"
}

func statsHeadline(st *stats.Stats) string {
	h := fmt.Sprintf("Statistics of suite %q: %d materials, %d templates, %d cases", st.Suite, len(st.Materials), len(st.Templates), st.Cases)
	if st.Split != "" {
		h += fmt.Sprintf(" in split %q", st.Split)
	}
	return h
}

// statCellWidth caps a console cell's display width, so one huge value
// cannot push a table off the screen.
const statCellWidth = 60

var statWidth = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// consoleCell makes user text safe for a console table: one line, no
// control characters, at most statCellWidth columns.
func consoleCell(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if statWidth.StringWidth(s) > statCellWidth {
		s = statWidth.Truncate(s, statCellWidth, "…")
	}
	return s
}

// writeStatsTables renders the statistics as console tables: no borders, a
// rule under the header, East Asian ambiguous width off and headers as
// written (tablewriter gotchas #17 and #18), so Chinese text lines up.
func writeStatsTables(w io.Writer, st *stats.Stats, top int, useColor bool) error {
	bold := color.New(color.Bold)
	if useColor {
		bold.EnableColor()
	} else {
		bold.DisableColor()
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n\n", bold.Sprint(statsHeadline(st)))
	for _, t := range statsTables(st, top) {
		fmt.Fprintf(&b, "%s\n", bold.Sprint(t.title))
		var buf bytes.Buffer
		tbl := reporters.ConsoleTable(&buf, statAligns(t.align))
		tbl.Header(t.header)
		for _, row := range t.rows {
			cells := make([]string, len(row))
			for i, c := range row {
				cells[i] = consoleCell(c)
			}
			if err := tbl.Append(cells); err != nil {
				return fmt.Errorf("table %s: %w", t.title, err)
			}
		}
		if err := tbl.Render(); err != nil {
			return fmt.Errorf("table %s: %w", t.title, err)
		}
		for _, line := range strings.SplitAfter(buf.String(), "\n") {
			if line != "" {
				b.WriteString("  " + line)
			}
		}
		if t.note != "" {
			fmt.Fprintf(&b, "  %s\n", t.note)
		}
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}

func statAligns(spec string) []tw.Align {
	out := make([]tw.Align, len(spec))
	for i, ch := range spec {
		if ch == 'r' {
			out[i] = tw.AlignRight
		} else {
			out[i] = tw.AlignLeft
		}
	}
	return out
}

// statsMD escapes user text for a GitHub Markdown table cell: no raw HTML,
// no code spans or emphasis, `|` escaped, one line.
var statsMD = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", "|", `\|`, "`", "&#96;", "\\", `\\`,
	"*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "\r\n", " ", "\n", " ", "\r", " ", "\t", " ",
).Replace

// writeStatsMarkdown renders the statistics as GitHub Markdown: a heading
// per table, numeric columns right-aligned.
func writeStatsMarkdown(w io.Writer, st *stats.Stats, top int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", statsMD(statsHeadline(st)))
	for _, t := range statsTables(st, top) {
		fmt.Fprintf(&b, "## %s\n\n", statsMD(t.title))
		b.WriteString("|")
		for _, h := range t.header {
			b.WriteString(" " + statsMD(h) + " |")
		}
		b.WriteString("\n|")
		for i := range t.header {
			if i < len(t.align) && t.align[i] == 'r' {
				b.WriteString("---:|")
			} else {
				b.WriteString("---|")
			}
		}
		b.WriteByte('\n')
		for _, row := range t.rows {
			b.WriteString("|")
			for _, c := range row {
				b.WriteString(" " + statsMD(c) + " |")
			}
			b.WriteByte('\n')
		}
		if t.note != "" {
			fmt.Fprintf(&b, "\n%s\n", statsMD(t.note))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
