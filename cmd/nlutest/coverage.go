package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/assert/coverage"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/botmodel"
	"github.com/nlutest/nlutest/spec/diagfmt"
)

// coverageFlags are `nlutest coverage`'s flags.
type coverageFlags struct {
	runFlags
	suite                      string
	domain, nlu, flows, items  listFlag
	format, html, markdownFile string
}

// cmdCoverage is `nlutest coverage RUN_DIR [--domain FILE …]`: which
// items of the bot's own model (the suite's coverage block, or the model
// the flags name) a saved run exercised, exercised only in failing
// cases, or never exercised — metrics.coverage of the run (assert/coverage)
// laid out item by item (reporters.CoverageView), offline, as eval
// re-evaluates a run.
func (a *App) cmdCoverage(_ context.Context, args []string) int {
	var cf coverageFlags
	fs := newFlagSet(a, "coverage", "coverage [flags] RUN_DIR")
	cf.loadFlags.register(fs)
	fs.StringVar(&cf.suite, "suite", "", "the suite to evaluate with (default: the one recorded in RUN_DIR/run.json)")
	fs.Var(&cf.domain, "domain", "a Rasa domain file or directory (repeatable); replaces the suite's coverage block")
	fs.Var(&cf.nlu, "nlu", "Rasa NLU training data, a file or directory (repeatable)")
	fs.Var(&cf.flows, "flows", "Rasa Pro flows, a file or directory (repeatable)")
	fs.Var(&cf.items, "items", "a plain list of items for another engine (repeatable; docs/language.md#coverage)")
	fs.StringVar(&cf.format, "format", "table", "output: table (console), markdown or json")
	fs.StringVar(&cf.html, "report-html", "", "also write the report as HTML to FILE")
	fs.StringVar(&cf.markdownFile, "report-markdown", "", "also write the report as Markdown to FILE")
	fs.BoolVar(&cf.unreviewed, "include-unreviewed", false, "count cases of unreviewed templates (reviewed = false)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 1 {
		return a.fail(usagef("coverage takes one run directory, got %d", len(pos)))
	}
	if cf.format != "table" && cf.format != "markdown" && cf.format != "json" {
		return a.fail(usagef("--format takes table, markdown or json, not %q", cf.format))
	}
	runDir := pos[0]
	if err := checkReportPaths(runDir, nonEmpty(cf.html, cf.markdownFile)); err != nil {
		return a.fail(err)
	}
	meta, err := pipeline.ReadMeta(runDir)
	if err != nil {
		return a.fail(usagef("%v", err))
	}
	if cf.suite == "" {
		cf.suite = meta.Suite
	}
	s, code := a.load(cf.suite, &cf.loadFlags)
	if s == nil {
		return code
	}
	if code := a.coverageModel(s, &cf); code != ExitPass {
		return code
	}
	_, rep, code := a.evaluateRuns(s, []string{runDir}, meta, &cf.runFlags)
	if rep == nil {
		return code
	}
	cr := coverage.Report(coverage.Of(s).Model, schema.CoverageOf(&rep.Metrics.Node))
	cr.Suite, cr.Run, cr.Cases = s.Name, runDir, rep.Metrics.Total
	a.relativePaths(cr)
	return a.writeCoverage(cr, &cf)
}

// relativePaths writes the model's files, and where each item is
// declared, relative to the working directory when they are under it.
func (a *App) relativePaths(cr *schema.CoverageReport) {
	wd := a.Getwd
	if wd == "" {
		wd, _ = os.Getwd()
	}
	rel := func(p string) string {
		abs, err1 := filepath.Abs(p)
		r, err2 := filepath.Rel(wd, abs)
		if err1 != nil || err2 != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return p
		}
		return r
	}
	for i, f := range cr.Files {
		cr.Files[i] = rel(f)
	}
	for k := range cr.Kinds {
		for i := range cr.Kinds[k].Rows {
			r := &cr.Kinds[k].Rows[i]
			if file, line, ok := cutLast(r.At, ":"); ok {
				r.At = rel(file) + ":" + line
			}
		}
	}
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

func nonEmpty(xs ...string) []string {
	var out []string
	for _, x := range xs {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// coverageModel sets the suite's coverage model from the flags, when they
// name one (paths from the working directory, read as the user's own
// files); without them the suite's coverage block must name it.
func (a *App) coverageModel(s *spec.Suite, cf *coverageFlags) int {
	p := botmodel.Paths{Domain: cf.domain, NLU: cf.nlu, Flows: cf.flows, Items: cf.items}
	if len(p.Domain) == 0 && len(p.Items) == 0 {
		if len(p.NLU) > 0 || len(p.Flows) > 0 {
			return a.fail(usagef("--nlu and --flows add to a model named by --domain (or --items); give --domain FILE too"))
		}
		if coverage.Of(s) == nil {
			return a.fail(usagef("coverage needs the bot's model: --domain FILE (a Rasa domain, with --nlu and --flows if you have them) or --items FILE (a plain list), or a coverage block in the suite (docs/language.md#coverage)"))
		}
		return ExitPass
	}
	m, diags := botmodel.Load(p, func(path string) ([]byte, error) {
		b, _, err := spec.OwnFiles.Read("", path, spec.MaxSuiteFileBytes)
		return b, err
	})
	if len(diags) > 0 {
		diagfmt.Write(a.Stderr, diags, m.Sources, a.useColor(cf.color, a.StderrTTY))
	}
	if diags.HasErrors() {
		n := 0
		for _, d := range diags {
			if d.Severity == hcl.DiagError {
				n++
			}
		}
		fmt.Fprintf(a.Stderr, "nlutest: the bot's model has %d error%s; nothing was evaluated.\n", n, plural(n))
		return ExitInvalid
	}
	cov := &coverage.Settings{Paths: p, Model: m, IntentDimension: "intent", EntityDimension: "entity"}
	if old := coverage.Of(s); old != nil {
		cov.IntentDimension, cov.EntityDimension = old.IntentDimension, old.EntityDimension
	}
	coverage.SetOf(s, cov)
	return ExitPass
}

// writeCoverage prints the report in the chosen format and writes the
// report files.
func (a *App) writeCoverage(cr *schema.CoverageReport, cf *coverageFlags) int {
	v := reporters.CoverageView(cr)
	var out strings.Builder
	var err error
	switch cf.format {
	case "markdown":
		err = reporters.MarkdownView(&out, v, reporters.Options{})
	case "json":
		err = reporters.CoverageJSON(&out, cr)
	default:
		err = reporters.ConsoleView(&out, v, reporters.Options{Color: a.useColor(cf.color, a.StdoutTTY)})
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "nlutest: coverage: %s\n", err)
		return ExitCannotRun
	}
	if _, err := a.Stdout.Write([]byte(out.String())); err != nil && !closedPipe(err) {
		return ExitCannotRun
	}
	for _, f := range []struct {
		path   string
		render func(w *strings.Builder) error
	}{
		{cf.html, func(w *strings.Builder) error { return reporters.HTMLView(w, v, reporters.Options{}) }},
		{cf.markdownFile, func(w *strings.Builder) error { return reporters.MarkdownView(w, v, reporters.Options{}) }},
	} {
		if f.path == "" {
			continue
		}
		var b strings.Builder
		if err := f.render(&b); err != nil {
			fmt.Fprintf(a.Stderr, "nlutest: coverage: %s\n", err)
			return ExitCannotRun
		}
		if err := reporters.WriteFile(f.path, func(w io.Writer) error { _, err := io.WriteString(w, b.String()); return err }); err != nil {
			fmt.Fprintf(a.Stderr, "nlutest: cannot write %s: %s\n", f.path, err)
			return ExitCannotRun
		}
		fmt.Fprintf(a.Stderr, "nlutest: wrote %s\n", f.path)
	}
	return ExitPass
}
