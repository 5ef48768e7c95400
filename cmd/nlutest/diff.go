package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/mattn/go-runewidth"
	"github.com/nlutest/nlutest/schema"
)

// cmdDiff compares two runs: metric deltas, thresholds that changed, and
// the cases that flipped.
func (a *App) cmdDiff(args []string) int {
	fs := newFlagSet(a, "diff", "diff [flags] RUN_A RUN_B")
	format := fs.String("format", "text", "output: text or markdown")
	all := fs.Bool("all", false, "list unchanged metrics too")
	maxCases := fs.Int("max-cases", 50, "flipped cases listed per direction (0 = all)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 2 {
		return a.fail(usagef("diff takes two runs (directories or report.json files), got %d", len(pos)))
	}
	if *format != "text" && *format != "markdown" {
		return a.fail(usagef("--format takes text or markdown, not %q", *format))
	}
	ra, err := readReport(pos[0])
	if err != nil {
		return a.fail(usagef("%v", err))
	}
	rb, err := readReport(pos[1])
	if err != nil {
		return a.fail(usagef("%v", err))
	}
	d := diffReports(ra, rb, *all)
	d.render(a.Stdout, pos[0], pos[1], *format == "markdown", *maxCases)
	return ExitPass
}

type metricDelta struct {
	name   string
	a, b   *float64
	na, nb string // num/den text
}

type flip struct {
	id, template, text string
	from, to           schema.Outcome
}

type reportDiff struct {
	metrics    []metricDelta
	thresholds [][3]string // name, A outcome, B outcome
	worse      []flip      // pass → fail/error
	better     []flip      // fail/error → pass
	changed    []flip      // fail ↔ error
	onlyA      int
	onlyB      int
	omittedA   int
	omittedB   int
}

func metricValues(m *schema.Metrics) map[string]metricDelta {
	out := map[string]metricDelta{}
	eachMetric(m, func(addr string, v *float64, ratio string) {
		out[addr] = metricDelta{name: addr, a: v, na: ratio}
	})
	return out
}

func diffReports(a, b *schema.Report, all bool) *reportDiff {
	d := &reportDiff{omittedA: a.CasesOmitted, omittedB: b.CasesOmitted}
	ma, mb := metricValues(a.Metrics), metricValues(b.Metrics)
	names := map[string]bool{}
	for k := range ma {
		names[k] = true
	}
	for k := range mb {
		names[k] = true
	}
	for k := range names {
		x, y := ma[k], mb[k]
		md := metricDelta{name: k, a: x.a, b: y.a, na: x.na, nb: y.na}
		same := (md.a == nil) == (md.b == nil) && (md.a == nil || math.Abs(*md.a-*md.b) < 1e-12)
		if !all && (same || noisy(k)) {
			continue
		}
		d.metrics = append(d.metrics, md)
	}
	sort.Slice(d.metrics, func(i, j int) bool { return d.metrics[i].name < d.metrics[j].name })
	tb := map[string]schema.Outcome{}
	for _, t := range b.Thresholds {
		tb[t.Name] = t.Outcome
	}
	for _, t := range a.Thresholds {
		if o, ok := tb[t.Name]; ok && o != t.Outcome {
			d.thresholds = append(d.thresholds, [3]string{t.Name, t.Outcome.String(), o.String()})
		}
	}
	ca := map[string]schema.CaseReport{}
	for _, c := range a.Cases {
		ca[c.ID] = c
	}
	seen := map[string]bool{}
	for _, c := range b.Cases {
		seen[c.ID] = true
		old, ok := ca[c.ID]
		if !ok {
			d.onlyB++
			continue
		}
		f := flip{id: c.ID, template: c.Template, text: c.Text, from: old.Outcome, to: c.Outcome}
		switch {
		case old.Outcome == c.Outcome:
		case old.Outcome == schema.Pass:
			d.worse = append(d.worse, f)
		case c.Outcome == schema.Pass:
			d.better = append(d.better, f)
		default:
			d.changed = append(d.changed, f)
		}
	}
	for id := range ca {
		if !seen[id] {
			d.onlyA++
		}
	}
	for _, l := range [][]flip{d.worse, d.better, d.changed} {
		sort.Slice(l, func(i, j int) bool {
			if l[i].template != l[j].template {
				return l[i].template < l[j].template
			}
			return l[i].id < l[j].id
		})
	}
	return d
}

// noisy reports metrics left out of a diff unless --all: latency below the
// root (timings always move a little) and raw counts that ratios already show.
func noisy(name string) bool {
	if strings.Contains(name, ".latency.") && !strings.HasPrefix(name, "metrics.latency.") {
		return true
	}
	for _, suffix := range []string{".count", ".total", ".support", ".expected", ".recognized", ".correct", ".wrong", ".passed", ".failed", ".errored"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

func fmtVal(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.4g", *v)
}

func fmtDelta(a, b *float64) string {
	if a == nil || b == nil {
		return ""
	}
	return fmt.Sprintf("%+.4g", *b-*a)
}

func (d *reportDiff) render(w io.Writer, nameA, nameB string, md bool, maxCases int) {
	head := fmt.Sprintf("%d metrics changed · %d cases got worse (pass → fail/error) · %d got better · %d thresholds changed",
		len(d.metrics), len(d.worse), len(d.better), len(d.thresholds))
	rows := [][]string{}
	for _, m := range d.metrics {
		va, vb := fmtVal(m.a), fmtVal(m.b)
		if m.na != "" {
			va += " (" + m.na + ")"
		}
		if m.nb != "" {
			vb += " (" + m.nb + ")"
		}
		rows = append(rows, []string{m.name, va, vb, fmtDelta(m.a, m.b)})
	}
	flips := func(title string, l []flip) {
		if len(l) == 0 {
			return
		}
		shown := l
		if maxCases > 0 && len(shown) > maxCases {
			shown = shown[:maxCases]
		}
		if md {
			fmt.Fprintf(w, "\n### %s (%d)\n\n| Template | Case | Id | %s | %s |\n|---|---|---|---|---|\n", title, len(l), "A", "B")
			for _, f := range shown {
				fmt.Fprintf(w, "| %s | %s | `%s` | %s | %s |\n", mdCell(f.template), mdCell(f.text), f.id, f.from, f.to)
			}
		} else {
			fmt.Fprintf(w, "\n%s (%d)\n", title, len(l))
			for _, f := range shown {
				fmt.Fprintf(w, "  %s → %s  %s  [%s]  template %s\n", f.from, f.to, f.text, f.id, f.template)
			}
		}
		if len(shown) < len(l) {
			fmt.Fprintf(w, "  … and %d more\n", len(l)-len(shown))
		}
	}
	if md {
		fmt.Fprintf(w, "## nlutest diff: %s\n\n<sub>A = `%s` · B = `%s`</sub>\n", head, nameA, nameB)
		if len(d.thresholds) > 0 {
			fmt.Fprintf(w, "\n### Thresholds\n\n| Threshold | A | B |\n|---|---|---|\n")
			for _, t := range d.thresholds {
				fmt.Fprintf(w, "| %s | %s | %s |\n", mdCell(t[0]), t[1], t[2])
			}
		}
		if len(rows) > 0 {
			fmt.Fprintf(w, "\n### Metrics\n\n| Metric | A | B | Δ |\n|---|---:|---:|---:|\n")
			for _, r := range rows {
				fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", r[0], r[1], r[2], r[3])
			}
		}
	} else {
		fmt.Fprintf(w, "nlutest diff: %s\n  A = %s\n  B = %s\n", head, nameA, nameB)
		if len(d.thresholds) > 0 {
			fmt.Fprintf(w, "\nThresholds\n")
			for _, t := range d.thresholds {
				fmt.Fprintf(w, "  %s: %s → %s\n", t[0], t[1], t[2])
			}
		}
		if len(rows) > 0 {
			fmt.Fprintln(w)
			writeAligned(w, append([][]string{{"metric", "A", "B", "Δ"}}, rows...))
		}
	}
	flips("Worse: pass → fail or error", d.worse)
	flips("Better: fail or error → pass", d.better)
	flips("Changed between fail and error", d.changed)
	if d.onlyA+d.onlyB > 0 {
		fmt.Fprintf(w, "\n%d cases only in A, %d only in B\n", d.onlyA, d.onlyB)
	}
	if d.omittedA+d.omittedB > 0 {
		fmt.Fprintf(w, "\n%d cases of A and %d of B are not listed in their reports (over %d), so they were not compared\n", d.omittedA, d.omittedB, schema.MaxReportCases)
	}
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", "<br>", "<", "&lt;", ">", "&gt;").Replace(s)
}

// writeAligned prints rows as columns padded by display width (CJK-safe).
func writeAligned(w io.Writer, rows [][]string) {
	widths := map[int]int{}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], runewidth.StringWidth(c))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		b.WriteString(" ")
		for i, c := range r {
			b.WriteString(" " + c + strings.Repeat(" ", widths[i]-runewidth.StringWidth(c)) + " ")
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
