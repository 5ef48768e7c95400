package reporters

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// statsCellWidth caps a stats cell's display width on the console, so one
// huge value cannot push a table off the screen.
const statsCellWidth = 60

// StatsView lays out `nlutest stats` (the IAO corpus-factory write-up §4.1.6) as a view: materials,
// cases by template, level, scene and split, core and non-core, then the
// coverage of each dimension's values, at most top values each (0: all).
func StatsView(st *schema.Stats, top int) *View {
	v := &View{Title: statsHeadline(st), Level: 1, CellWidth: statsCellWidth}
	v.Sections = append(v.Sections, statsMaterialTables(st)...)
	v.Sections = append(v.Sections, statsCaseTables(st)...)
	v.Sections = append(v.Sections, statsCoverageTables(st, top)...)
	return v
}

func statsHeadline(st *schema.Stats) string {
	h := fmt.Sprintf("Statistics of suite %q: %d materials, %d templates, %d cases", st.Suite, len(st.Materials), len(st.Templates), st.Cases)
	if st.Split != "" {
		h += fmt.Sprintf(" in split %q", st.Split)
	}
	return h
}

// statsTable is a section holding one table: every cell is user text or a
// count, clipped on the console.
func statsTable(title, note string, header []string, align string, rows [][]string) Section {
	t := Table{Note: note}
	for i, h := range header {
		c := Column{Header: h, Align: Left}
		if i < len(align) && align[i] == 'r' {
			c.Align = Right
		}
		t.Columns = append(t.Columns, c)
	}
	t.Rows = make([][]Cell, len(rows))
	for i, row := range rows {
		cells := make([]Cell, len(row))
		for j, s := range row {
			cells[j] = clip(s)
		}
		t.Rows[i] = cells
	}
	return Section{Title: title, Tables: []Table{t}}
}

// statsMaterialTables: 素材库概况, values per materials block and level,
// then per tag and per value tag.
func statsMaterialTables(st *schema.Stats) []Section {
	header, align := []string{"materials", "tag", "values"}, "llr"
	for _, l := range st.Levels {
		header = append(header, levelName(l))
		align += "r"
	}
	header, align = append(header, "from"), align+"l"
	var rows [][]string
	totals := make([]int, len(st.Levels))
	sum := 0
	for _, m := range st.Materials {
		row := []string{m.Name, dash(m.Tag), itoa(m.Values)}
		for i, l := range st.Levels {
			row = append(row, itoa(m.ByLevel[l]))
			totals[i] += m.ByLevel[l]
		}
		sum += m.Values
		rows = append(rows, append(row, materialFrom(m)))
	}
	total := []string{"total", "", itoa(sum)}
	for _, n := range totals {
		total = append(total, itoa(n))
	}
	rows = append(rows, append(total, ""))
	out := []Section{statsTable("Materials (素材库概况)", "", header, align, rows)}

	rows = nil
	for _, tc := range st.MaterialTags {
		rows = append(rows, []string{dash(tc.Tag), itoa(tc.Materials), itoa(tc.Values)})
	}
	out = append(out, statsTable("Materials by tag", "", []string{"tag", "materials", "values"}, "lrr", rows))
	if len(st.ValueTags) > 0 {
		rows = nil
		for _, c := range st.ValueTags {
			rows = append(rows, []string{c.Name, itoa(c.Count)})
		}
		out = append(out, statsTable("Material values by value tag", "", []string{"value tag", "values"}, "lr", rows))
	}
	return out
}

// statsCaseTables: 模板生成句子统计 and 业务场景维度句子统计, cases by
// template, level, scene, split and core / non-core.
func statsCaseTables(st *schema.Stats) []Section {
	var rows [][]string
	for _, t := range st.Templates {
		core := "no"
		if t.Core {
			core = "yes"
		}
		rows = append(rows, []string{t.Name, dash(t.Level), core, dash(strings.Join(t.Scene, "/")), t.Strategy,
			itoa(t.Cases), share(t.Cases, st.Cases), fmt.Sprintf("%s:%d", t.File, t.Line)})
	}
	rows = append(rows, []string{"total", "", "", "", "", itoa(st.Cases), share(st.Cases, st.Cases), ""})
	out := []Section{statsTable("Cases by template (模板生成句子统计)", "",
		[]string{"template", "level", "core", "scene", "strategy", "cases", "share", "at"}, "lllllrrl", rows)}

	rows = nil
	for _, l := range st.TemplateLevels {
		rows = append(rows, []string{levelName(l.Level), itoa(l.Templates), itoa(l.Cases), share(l.Cases, st.Cases)})
	}
	out = append(out, statsTable("Cases by template level", "", []string{"level", "templates", "cases", "share"}, "lrrr", rows))
	counts := func(title, note, first string, cs []schema.StatsCount, extra ...[]string) {
		rows := [][]string{}
		for _, c := range cs {
			rows = append(rows, []string{c.Name, itoa(c.Count), share(c.Count, st.Cases)})
		}
		out = append(out, statsTable(title, note, []string{first, "cases", "share"}, "lrr", append(rows, extra...)))
	}
	if len(st.Scenes) > 0 {
		counts("Cases by scene (业务场景维度句子统计)", "", "scene", st.Scenes)
	}
	if len(st.Splits) > 0 {
		var none [][]string
		if st.Split == "" {
			none = append(none, []string{"(no split)", itoa(st.NoSplit), share(st.NoSplit, st.Cases)})
		}
		counts("Cases by split", "A case may be in several splits.", "split", st.Splits, none...)
	}
	counts("Core and non-core scenes", "", "scope", nil,
		[]string{"core", itoa(st.Core), share(st.Core, st.Cases)}, []string{"non-core", itoa(st.NonCore), share(st.NonCore, st.Cases)})
	return out
}

// statsCoverageTables: how many cases expect each dimension, then each
// dimension's values, most exercised first, at most top of them.
func statsCoverageTables(st *schema.Stats, top int) []Section {
	if len(st.Dimensions) == 0 {
		return nil
	}
	var rows [][]string
	for _, d := range st.Dimensions {
		rows = append(rows, []string{d.Name, d.Kind, itoa(d.Cases), itoa(d.Expectations), itoa(len(d.Values))})
	}
	out := []Section{statsTable("Dimension coverage",
		"expectations counts expected items for items dimensions; values counts distinct expected values.",
		[]string{"dimension", "kind", "cases", "expectations", "values"}, "llrrr", rows)}
	for _, d := range st.Dimensions {
		if len(d.Values) == 0 {
			continue
		}
		unit := "expectations"
		if d.Kind == "items" {
			unit = "items"
		}
		withField := d.Kind == "leaf" || d.Kind == "case"
		header, align := []string{"value", unit, "share"}, "lrr"
		if withField {
			header, align = []string{"field", "value", unit, "share"}, "llrr"
		}
		vals, note := d.Values, ""
		if top > 0 && len(vals) > top {
			note = fmt.Sprintf("… and %d more values (--top 0 shows all).", len(vals)-top)
			vals = vals[:top]
		}
		rows = nil
		for _, v := range vals {
			row := []string{v.Value, itoa(v.Count), share(v.Count, d.Expectations)}
			if withField {
				row = append([]string{v.Field}, row...)
			}
			rows = append(rows, row)
		}
		out = append(out, statsTable(fmt.Sprintf("Coverage: %s (%s)", d.Name, d.Kind), note, header, align, rows))
	}
	return out
}

func materialFrom(m schema.StatsMaterial) string {
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
