package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/annotate"
	"github.com/nlutest/nlutest/spec/diagfmt"
)

// AnnotationsSuffix ends the file `nlutest annotate` writes beside a suite
// file. It does not end in .nlutest.hcl, so the suite never loads it.
const AnnotationsSuffix = ".annotations.hcl"

var errEnoughSamples = errors.New("enough samples")

// annotateFlags are the flags of `nlutest annotate`.
type annotateFlags struct {
	loadFlags
	only   string
	n      int
	write  bool
	target string
}

// cmdAnnotate drafts expectations from live responses (SPEC §7, the IAO corpus-factory write-up
// §4.1.4): docs/annotate.md.
func (a *App) cmdAnnotate(ctx context.Context, args []string) int {
	var af annotateFlags
	fs := newFlagSet(a, "annotate", "annotate [flags] PATH")
	af.register(fs)
	fs.StringVar(&af.only, "template", "", "draft expectations for template NAME only, even when they are reviewed")
	fs.IntVar(&af.n, "n", 1, "draft from the first N cases of each template and keep only what they agree on")
	fs.BoolVar(&af.write, "write", false, "edit the suite file in place (expect and reviewed = false) instead of writing SUITE.annotations.hcl")
	fs.StringVar(&af.target, "target", "", "target block to call (default: the first one)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 1 {
		return a.fail(usagef("annotate takes one suite path, got %d", len(pos)))
	}
	if af.n < 1 {
		return a.fail(usagef("-n must be at least 1, not %d", af.n))
	}
	s, code := a.load(pos[0], &af.loadFlags)
	if s == nil {
		return code
	}
	todo, err := a.templatesToAnnotate(s, af.only)
	if err != nil || len(todo) == 0 {
		if err == nil {
			fmt.Fprintf(a.Stdout, "Every template of %s has reviewed expectations; nothing to annotate. Use --template NAME to draft one anew.\n", pos[0])
		}
		return a.fail(err)
	}
	target, err := pickTarget(s, af.target, "docs/language.md#target")
	if err != nil {
		return a.fail(err)
	}
	jobs, code := a.annotateJobs(s, todo, af.n)
	if jobs == nil {
		return code
	}
	caller, code := a.openTarget(ctx, s, target, runner.CallerOptions{Concurrency: 1}, af.color, "Nothing was annotated")
	if caller == nil {
		return code
	}
	defer caller.Close()
	drafts, failed, interrupted := a.draftAll(ctx, s, caller, jobs, af.n)
	if interrupted {
		fmt.Fprintln(a.Stderr, "nlutest: interrupted; nothing was written.")
		return ExitInterrupted
	}
	if len(drafts) > 0 {
		var werr error
		if af.write {
			werr = a.writeInPlace(s, pos[0], &af.loadFlags, drafts, target.Name)
		} else {
			werr = a.writeAnnotations(s, drafts, target.Name)
		}
		if werr != nil {
			fmt.Fprintf(a.Stderr, "nlutest: %s\n", werr)
			return ExitCannotRun
		}
	}
	if failed > 0 {
		return ExitCannotRun
	}
	return ExitPass
}

// templatesToAnnotate is the template --template names (an error when the
// suite has none of that name), or else every template that needs
// annotation (none: nil, nil).
func (a *App) templatesToAnnotate(s *spec.Suite, only string) ([]*spec.Template, error) {
	var todo []*spec.Template
	if only == "" {
		for _, t := range s.Templates {
			if annotate.NeedsAnnotation(t) {
				todo = append(todo, t)
			}
		}
		return todo, nil
	}
	var names []string
	for _, t := range s.Templates {
		names = append(names, t.Name)
		if t.Name == only {
			todo = append(todo, t)
		}
	}
	if len(todo) == 0 {
		hint := ""
		if sg := spec.SuggestName(only, names); sg != "" {
			hint = fmt.Sprintf(" Did you mean %q?", sg)
		}
		return nil, usagef("the suite has no template %q.%s (templates: %s)", only, hint, strings.Join(names, ", "))
	}
	if !annotate.NeedsAnnotation(todo[0]) {
		fmt.Fprintf(a.Stderr, "nlutest: template %q already has reviewed expectations; drafting new ones because --template names it.\n", only)
	}
	return todo, nil
}

// annotateJob is a template to annotate with the cases sampled from it.
type annotateJob struct {
	t       *spec.Template
	samples []*schema.Case
}

// annotateJobs samples the first n cases of each template, before anything
// is called (generation is cheap, and a template with no case is reported
// first). On failure it prints why and returns nil and the exit code.
func (a *App) annotateJobs(s *spec.Suite, todo []*spec.Template, n int) ([]annotateJob, int) {
	var jobs []annotateJob
	for _, t := range todo {
		var samples []*schema.Case
		err := s.Generate(spec.GenOptions{Templates: func(name string) bool { return name == t.Name }}, func(c *schema.Case) error {
			samples = append(samples, c)
			if len(samples) >= n {
				return errEnoughSamples
			}
			return nil
		})
		if err != nil && !errors.Is(err, errEnoughSamples) {
			fmt.Fprintf(a.Stderr, "nlutest: generating cases: %s\n", err)
			return nil, ExitInvalid
		}
		if len(samples) == 0 {
			fmt.Fprintf(a.Stderr, "nlutest: template %q generates no case (check material_levels); skipped.\n", t.Name)
			continue
		}
		jobs = append(jobs, annotateJob{t, samples})
	}
	if len(jobs) == 0 {
		return nil, a.fail(usagef("no template to annotate generates a case"))
	}
	return jobs, ExitPass
}

// draftAll drafts each job's expectations from the target's responses,
// printing a line per draft (and why a template got none). It stops when
// ctx is cancelled (interrupted). failed counts templates with no usable
// response.
func (a *App) draftAll(ctx context.Context, s *spec.Suite, caller runner.Caller, jobs []annotateJob, n int) (drafts []*annotate.Draft, failed int, interrupted bool) {
	call := func(c *schema.Case) annotate.Observation {
		return observe(runner.CallOne(ctx, caller, c), s.Schema)
	}
	for _, j := range jobs {
		d := annotate.DraftExpect(s, j.t, j.samples, call)
		if ctx.Err() != nil {
			return nil, 0, true
		}
		if len(j.samples) < n {
			d.Notes = append(d.Notes, fmt.Sprintf("asked for %d samples; the template generates only %d", n, len(j.samples)))
		}
		if d.Usable == 0 {
			failed++
			fmt.Fprintf(a.Stderr, "nlutest: template %q: no usable response, nothing drafted:\n", j.t.Name)
			for _, note := range d.Notes {
				fmt.Fprintf(a.Stderr, "  %s\n", note)
			}
			continue
		}
		drafts = append(drafts, d)
		fmt.Fprintf(a.Stdout, "%s: %d expectation%s, %d placeholder%s, %d comment%s (%d sample%s, %d probe call%s)\n",
			j.t.Name, len(d.Entries), plural(len(d.Entries)), d.Placeholders(), plural(d.Placeholders()),
			d.Comments(), plural(d.Comments()), len(d.Samples), plural(len(d.Samples)), d.Probes, plural(d.Probes))
	}
	return drafts, failed, false
}

// observe turns a call's result into the flattened response annotate
// reads: ignored paths dropped, empty values skipped (assert.Flatten).
func observe(r *schema.Result, sc *spec.Schema) annotate.Observation {
	if r.Error != nil {
		return annotate.Observation{Err: r.Error.Type + ": " + r.Error.Message}
	}
	// Values typed as the evaluator types them (jsondoc), so a drafted
	// number equals the response it came from.
	var doc jsondoc.Doc
	if err := doc.Parse(r.Response); err != nil {
		return annotate.Observation{Err: schema.ErrInvalidJSON + ": " + err.Error()}
	}
	var o annotate.Observation
	for _, lf := range assert.Flatten(doc.Value(doc.Root()), sc.Ignored) {
		o.Leaves = append(o.Leaves, annotate.ObservedLeaf{Path: lf.Path, Value: lf.Value})
	}
	return o
}

// draftHeader is the comment block at the top of a drafted expect map.
func draftHeader(d *annotate.Draft, target string, where bool) []string {
	first := fmt.Sprintf("drafted by nlutest annotate from target %q (%d sample%s, %d probe call%s); review every line, then remove reviewed = false",
		target, len(d.Samples), plural(len(d.Samples)), d.Probes, plural(d.Probes))
	if where {
		file, line := spec.FileLine(d.Template.DeclRange)
		first = fmt.Sprintf("drafted by nlutest annotate for %s:%d from target %q (%d sample%s, %d probe call%s); review every line, then paste expect and reviewed = false into the template",
			filepath.Base(file), line, target, len(d.Samples), plural(len(d.Samples)), d.Probes, plural(d.Probes))
	}
	h := []string{first}
	for _, c := range d.Samples {
		h = append(h, fmt.Sprintf("sample %s: %s", c.ID, jsonString(c.Text)))
	}
	return h
}

func jsonString(s string) string {
	b, err := schema.EncodeLine(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// byFile groups drafts by the suite file that holds their template, in
// file order.
func byFile(drafts []*annotate.Draft) ([]string, map[string][]*annotate.Draft) {
	m := map[string][]*annotate.Draft{}
	var files []string
	for _, d := range drafts {
		f := d.Template.DeclRange.Filename
		if _, ok := m[f]; !ok {
			files = append(files, f)
		}
		m[f] = append(m[f], d)
	}
	sort.Strings(files)
	return files, m
}

// AnnotationsPath is the file annotate writes for suite file f:
// x.nlutest.hcl → x.annotations.hcl, in the same directory.
func AnnotationsPath(f string) string {
	base := strings.TrimSuffix(f, spec.FileSuffix)
	if base == f {
		base = strings.TrimSuffix(f, filepath.Ext(f))
	}
	return base + AnnotationsSuffix
}

func (a *App) writeAnnotations(s *spec.Suite, drafts []*annotate.Draft, target string) error {
	files, m := byFile(drafts)
	for _, f := range files {
		out := AnnotationsPath(f)
		old, _, err := spec.OwnFiles.Read("", out, spec.MaxSuiteFileBytes)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cannot read %s", spec.FileError(err))
		}
		header := []string{
			fmt.Sprintf("Expectations drafted by `nlutest annotate` for suite %q (%s).", s.Name, filepath.Base(f)),
			"This file is not part of the suite: its name does not end in .nlutest.hcl.",
			"Review each template's expect map, then paste it and reviewed = false into the",
			"template of the same name, or run `nlutest annotate --write` to edit the suite file.",
		}
		src, err := annotate.UpdateAnnotations(old, out, header, m[f], func(d *annotate.Draft) []string { return draftHeader(d, target, true) })
		if err != nil {
			return err
		}
		if err := reporters.WriteFile(out, func(w io.Writer) error { _, err := w.Write(src); return err }); err != nil {
			return err
		}
		var names []string
		for _, d := range m[f] {
			names = append(names, d.Template.Name)
		}
		fmt.Fprintf(a.Stdout, "Wrote %s (%s).\n", out, strings.Join(names, ", "))
	}
	fmt.Fprintln(a.Stdout, "Review the drafts, then paste each expect map with reviewed = false into its template (or run again with --write). The suite ignores *.annotations.hcl files.")
	return nil
}

// writeInPlace sets each drafted template's expect and reviewed = false
// in its suite file, writes the files atomically, and loads the suite
// again; when it no longer loads, the files are restored.
func (a *App) writeInPlace(s *spec.Suite, path string, lf *loadFlags, drafts []*annotate.Draft, target string) error {
	files, m := byFile(drafts)
	originals := map[string][]byte{}
	edited := map[string][]byte{}
	for _, f := range files {
		src, _, err := spec.OwnFiles.Read("", f, spec.MaxSuiteFileBytes)
		if err != nil {
			return fmt.Errorf("cannot read %s", spec.FileError(err))
		}
		originals[f] = src
		for _, d := range m[f] {
			src, err = annotate.SetTemplateExpect(src, f, d.Template.Name, d, draftHeader(d, target, false))
			if err != nil {
				return err
			}
		}
		edited[f] = src
	}
	var written []string
	restore := func() {
		for _, f := range written {
			orig := originals[f]
			_ = reporters.WriteFile(f, func(w io.Writer) error { _, err := w.Write(orig); return err })
		}
	}
	for _, f := range files {
		src := edited[f]
		if err := reporters.WriteFile(f, func(w io.Writer) error { _, err := w.Write(src); return err }); err != nil {
			restore()
			return err
		}
		written = append(written, f)
	}
	if _, diags := spec.Load(path, a.ext().LoadOptions(spec.Options{Vars: lf.vars, VarFiles: lf.varFiles, Env: a.Env, AllowOutside: lf.allowOutside})); diags.HasErrors() {
		var sources = map[string][]byte{}
		for f, src := range edited {
			sources[f] = src
		}
		diagfmt.Write(a.Stderr, diags, sources, a.useColor(lf.color, a.StderrTTY))
		restore()
		return fmt.Errorf("the edited suite does not load, so the files were restored; please report this with the suite")
	}
	for _, f := range files {
		var names []string
		for _, d := range m[f] {
			names = append(names, d.Template.Name)
		}
		fmt.Fprintf(a.Stdout, "Updated %s: expect and reviewed = false for %s.\n", f, strings.Join(names, ", "))
	}
	fmt.Fprintln(a.Stdout, "Review the drafted expectations, then remove reviewed = false. `nlutest run` reports unreviewed templates apart until then.")
	return nil
}
