package reporters

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// defaultComparedCases caps the cases a comparison lists in the console
// and Markdown (differing ones come first); --max-failures overrides it.
const defaultComparedCases = 50

// ComparisonView sets the runs of one suite against several targets side
// by side: the verdict (fail when any target's fails), a row per target
// (verdict, counts, accuracy, error rate, p95 latency), the thresholds
// with each target's observed value and mark, then the cases, those whose
// outcome differs between the targets first.
func ComparisonView(c *schema.Comparison, o Options) *View {
	var names []string
	passing := 0
	for _, t := range c.Targets {
		names = append(names, t.Name)
		if t.Verdict.Outcome == schema.Pass {
			passing++
		}
	}
	head := fmt.Sprintf("%s: %d/%d targets pass · %d of %d cases differ between %s",
		c.Suite.Name, passing, len(c.Targets), c.Differing, len(c.Cases), strings.Join(names, ", "))
	v := &View{Verdict: &Verdict{Pass: c.Outcome == schema.Pass, Headline: head, Description: c.Suite.Description},
		Level: 2}
	for _, t := range c.Targets {
		if t.Verdict.Outcome != schema.Pass {
			v.Verdict.Reasons = append(v.Verdict.Reasons, fmt.Sprintf("target %s fails: %s", t.Name, strings.Join(t.Verdict.Reasons, "; ")))
		}
	}
	if c.Dir != "" {
		v.Context = append(v.Context, Field{Label: "run", Value: c.Dir, Code: true})
	}
	v.Sections = append(v.Sections, targetsSection(c))
	v.Sections = append(v.Sections, significanceSections(c)...)
	if s := comparedThresholdsSection(c); s != nil {
		v.Sections = append(v.Sections, *s)
	}
	v.Sections = append(v.Sections, comparedCasesSection(c, o))
	if s := comparedWarningsSection(c); s != nil {
		v.Sections = append(v.Sections, *s)
	}
	return v
}

// comparedWarningsSection lists each target's report's warnings, named
// by target; nil when there are none.
func comparedWarningsSection(c *schema.Comparison) *Section {
	s := Section{ID: "warnings", Title: "Warnings"}
	for _, t := range c.Targets {
		for _, w := range t.Warnings {
			s.Notes = append(s.Notes, Note{Mark: MarkAlert, Text: "target " + t.Name + ": " + w})
		}
	}
	if len(s.Notes) == 0 {
		return nil
	}
	return &s
}

func targetsSection(c *schema.Comparison) Section {
	t := Table{Columns: []Column{{Header: ""}, col("target"), rcol("total"), rcol("passed"), rcol("failed"), rcol("errored"),
		rcol("accuracy"), rcol("error rate"), rcol("p95 ms"), {Header: "run", Wide: true}}}
	for _, x := range c.Targets {
		p95 := noData
		if x.P95MS != nil {
			p95 = fmtMS(*x.P95MS)
		}
		t.Rows = append(t.Rows, []Cell{mark(outcomeMark(x.Verdict.Outcome)), code(x.Name), num(x.Total), num(x.Passed), num(x.Failed), num(x.Errored),
			text(fmtRatio(x.Accuracy)), text(fmtRatio(x.ErrorRate)), text(p95), code(x.Dir)})
	}
	return Section{ID: "targets", Title: "Targets", Tables: []Table{t},
		Intro: "Each target's run of the same cases: its verdict and headline metrics; each run's own report is report.json in its run directory."}
}

// significanceSections say, for each target after the first, how it
// differs from the first (the baseline): the headline, then its gated
// metrics and every metric found better or worse, with the interval of
// the difference, the p-values and the verdict.
func significanceSections(c *schema.Comparison) []Section {
	var out []Section
	for _, t := range c.Targets {
		sig := t.Significance
		if sig == nil {
			continue
		}
		s := Section{ID: "significance", Title: SignificanceHeadline(sig, t.Name, c.Baseline),
			Intro: fmt.Sprintf("%s against %s (the first target), paired on the cases both ran: the gated metrics (⚑: accuracy, error rate and the metrics thresholds name) and every metric found better or worse; comparison.json lists every metric compared.", t.Name, c.Baseline)}
		tb := Table{Columns: []Column{col("metric"), rcol(c.Baseline), rcol(t.Name), rcol("Δ"),
			{Header: fmt.Sprintf("%g %% CI of Δ", 100*sig.Confidence), Brief: "CI of Δ", Align: Right}, rcol("p"), rcol("p (Holm)"), col("verdict")}}
		for i := range sig.Metrics {
			m := &sig.Metrics[i]
			if !m.Gated && m.Verdict != schema.VerdictWorse && m.Verdict != schema.VerdictBetter {
				continue
			}
			tb.Rows = append(tb.Rows, metricRow(metricDelta{name: WrittenAddress(m.Metric), a: m.Baseline, b: m.Candidate, sig: m}, true))
		}
		if len(tb.Rows) > 0 {
			s.Tables = []Table{tb}
		}
		out = append(out, s)
	}
	return out
}

func comparedThresholdsSection(c *schema.Comparison) *Section {
	if len(c.Thresholds) == 0 {
		return nil
	}
	t := Table{Columns: []Column{col("threshold"), {Header: "condition", Wide: true}}}
	for _, x := range c.Targets {
		t.Columns = append(t.Columns, Column{Header: x.Name}, rcol(x.Name+" observed"))
	}
	for _, th := range c.Thresholds {
		row := []Cell{text(th.Name), code(th.Condition)}
		for i := range c.Targets {
			m := outcomeMark(th.Outcomes[i])
			if th.Severity == "warn" && th.Outcomes[i] != schema.Pass {
				m = MarkWarn
			}
			row = append(row, mark(m), text(observedText(th.Observed[i])))
		}
		t.Rows = append(t.Rows, row)
	}
	return &Section{ID: "thresholds", Title: "Thresholds", Tables: []Table{t}}
}

func comparedCasesSection(c *schema.Comparison, o Options) Section {
	// The id is shown by every renderer: a conversation's turns repeat
	// their text in every instance, and only the id tells them apart.
	t := Table{Columns: []Column{col("source"), col("case"), col("id")}, Ranked: true}
	for _, x := range c.Targets {
		t.Columns = append(t.Columns, Column{Header: x.Name, Align: Center})
	}
	limit := o.failureCap(defaultComparedCases)
	for i, cc := range c.Cases {
		if limit > 0 && i >= limit {
			t.Note = fmt.Sprintf("… and %d more cases (comparison.json lists them all)", len(c.Cases)-limit)
			break
		}
		txt := cc.Text
		if cc.Turn > 0 {
			txt = fmt.Sprintf("turn %d: %s", cc.Turn, txt)
		}
		row := []Cell{clip(cc.Source), clip(txt), {Text: cc.ID, Style: Code | Clip}}
		for i, out := range cc.Outcomes {
			m := outcomeMark(out)
			if out == schema.Fail && c.Targets[i].Verdict.ByThresholds {
				m = MarkWarn // the thresholds, not this case, decide the target's verdict
			}
			row = append(row, mark(m))
		}
		t.Rows = append(t.Rows, row)
	}
	return Section{ID: "cases", Title: fmt.Sprintf("Cases (%d differ between targets, listed first)", c.Differing), Tables: []Table{t}}
}

// ComparisonJSON writes the comparison as indented JSON
// (docs/report-json.md#comparison).
func ComparisonJSON(w io.Writer, c *schema.Comparison) error {
	var b bytes.Buffer
	if err := newJSONEncoder(&b, "").Encode(c); err != nil {
		return fmt.Errorf("json comparison: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// ComparisonJUnit writes one JUnit document holding every target's
// testsuites, each named SUITE@TARGET (its testcases' classnames too), so
// CI shows the targets apart and fails when any target's verdict fails.
func ComparisonJUnit(w io.Writer, reps []*schema.Report, targets []string, o Options) error {
	if len(reps) != len(targets) {
		return fmt.Errorf("junit comparison: %d reports for %d targets", len(reps), len(targets))
	}
	var body bytes.Buffer
	for i, r := range reps {
		q := *r
		q.Suite.Name = suiteName(r) + "@" + targets[i]
		var one bytes.Buffer
		if err := JUnit(&one, &q, o); err != nil {
			return err
		}
		s := one.String()
		start, end := strings.Index(s, "<testsuite "), strings.LastIndex(s, "</testsuites>")
		if start < 0 || end < 0 {
			return fmt.Errorf("junit comparison: no testsuite for target %s", targets[i])
		}
		body.WriteString("  " + strings.Replace(strings.TrimRight(s[start:end], "\n "), `id="0"`, fmt.Sprintf(`id="%d"`, i), 1) + "\n")
	}
	_, err := fmt.Fprintf(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"nlutest comparison\">\n%s</testsuites>\n", body.String())
	return err
}

func compareJUnit(w io.Writer, c *schema.Comparison, reps []*schema.Report, o Options) error {
	var names []string
	for _, t := range c.Targets {
		names = append(names, t.Name)
	}
	return ComparisonJUnit(w, reps, names, o)
}
