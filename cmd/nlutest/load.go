package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/internal/csvcell"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/diagfmt"
)

// loadFlags are the flags of every command that reads a suite.
type loadFlags struct {
	vars         listFlag
	varFiles     listFlag
	color        string
	allowOutside bool
}

func (lf *loadFlags) register(fs *flag.FlagSet) {
	fs.Var(&lf.vars, "var", "set a variable: NAME=VALUE (repeatable)")
	fs.Var(&lf.varFiles, "var-file", "read variables from a file: HCL NAME = VALUE lines, or a JSON object when it ends in .json (repeatable)")
	fs.StringVar(&lf.color, "color", "auto", "colour: auto, always or never (NO_COLOR and TERM=dumb also turn it off)")
	fs.BoolVar(&lf.allowOutside, "allow-outside", false, "let the files a suite names (sources, TREC and TLS files, file()) be outside the suite directory (trusted suites only)")
}

// useColor decides colour for one stream once, so every writer agrees.
func (a *App) useColor(flagValue string, tty bool) bool {
	switch flagValue {
	case "always":
		return true
	case "never":
		return false
	}
	if a.getenv("NO_COLOR") != "" || a.getenv("TERM") == "dumb" {
		return false
	}
	return tty
}

// load reads and checks a suite, printing diagnostics to stderr. It returns
// nil and exit code 2 when the suite has errors.
func (a *App) load(path string, lf *loadFlags) (*spec.Suite, int) {
	if lf.color != "auto" && lf.color != "always" && lf.color != "never" {
		fmt.Fprintf(a.Stderr, "nlutest: --color takes auto, always or never, not %q\n", lf.color)
		return nil, ExitInvalid
	}
	s, diags := spec.Load(path, a.ext().LoadOptions(spec.Options{Vars: lf.vars, VarFiles: lf.varFiles, Env: a.Env, AllowOutside: lf.allowOutside}))
	var sources map[string][]byte
	if s != nil {
		sources = s.Sources
	}
	if len(diags) > 0 {
		diagfmt.Write(a.Stderr, diags, sources, a.useColor(lf.color, a.StderrTTY))
	}
	if diags.HasErrors() || s == nil {
		n := 0
		for _, d := range diags {
			if d.Severity == hcl.DiagError {
				n++
			}
		}
		fmt.Fprintf(a.Stderr, "nlutest: %s has %d error%s; nothing ran.\n", path, n, plural(n))
		return nil, ExitInvalid
	}
	return s, ExitPass
}

// genWarnings collects the warnings of generating a suite's cases (a
// limit or the product cap dropping cases, a template generating none).
type genWarnings struct{ diags hcl.Diagnostics }

func (g *genWarnings) add(rng hcl.Range, msg string) {
	g.diags = append(g.diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: msg, Subject: &rng})
}

// printWarnings prints the collected warnings as diagnostics on stderr.
func (a *App) printWarnings(s *spec.Suite, lf *loadFlags, g *genWarnings) {
	if len(g.diags) > 0 {
		diagfmt.Write(a.Stderr, g.diags, s.Sources, a.useColor(lf.color, a.StderrTTY))
		g.diags = nil
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (a *App) cmdValidate(args []string) int {
	var lf loadFlags
	fs := newFlagSet(a, "validate", "validate [flags] PATH")
	lf.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 1 {
		return a.fail(usagef("validate takes one suite path, got %d", len(pos)))
	}
	s, code := a.load(pos[0], &lf)
	if s == nil {
		return code
	}
	var counts scriptCounts
	var warns genWarnings
	err = s.GenerateScripts(spec.GenOptions{Warn: warns.add}, counts.add)
	a.printWarnings(s, &lf, &warns)
	if err != nil {
		if !a.dataDiagnostics(err, s, &lf) {
			fmt.Fprintf(a.Stderr, "nlutest: generating cases: %s\n", err)
		}
		return ExitInvalid
	}
	parts := append([]string{count(len(s.Files), "file")}, sourceCounts(s)...)
	parts = append(parts, count(len(s.Materials), "material"))
	parts = append(parts, counts.parts()...)
	parts = append(parts, count(len(s.Thresholds), "threshold"))
	fmt.Fprintf(a.Stdout, "✓ suite %q is valid: %s (%s).\n", s.Name, strings.Join(parts, ", "), pos[0])
	return ExitPass
}

// count is "1 file", "2 files".
func count(n int, noun string) string {
	if n != 1 {
		if strings.HasSuffix(noun, "y") {
			noun = noun[:len(noun)-1] + "ie"
		}
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}

// sourceCounts counts the suite's case-source blocks by kind, in the order
// the kinds first appear: "2 templates", "4 conversation blocks". A suite
// of templates alone (or of none) says "N templates" as it always did.
func sourceCounts(s *spec.Suite) []string {
	var kinds []string
	by := map[string]int{}
	for _, src := range s.CaseSources {
		k := src.Kind()
		if by[k] == 0 {
			kinds = append(kinds, k)
		}
		by[k]++
	}
	if len(kinds) == 0 {
		return []string{count(0, "template")}
	}
	out := make([]string, len(kinds))
	for i, k := range kinds {
		if k == schema.KindTemplate {
			out[i] = count(by[k], k)
		} else {
			out[i] = count(by[k], k+" block")
		}
	}
	return out
}

// scriptCounts counts what a suite generates in cases, as run counts
// them (docs/cli.md, "Counting"): a single case is one, a script of
// several turns (conversation, memory script, …) one per turn, a
// scenario at least one (its turns are known as it runs). The scripts
// are named with the cases in them: "56 cases in 15 conversations",
// "8 cases (2 single-turn, 6 in 2 conversations)".
type scriptCounts struct {
	single int
	kinds  []string
	multi  map[string]*[2]int // kind → scripts, cases
}

func (c *scriptCounts) add(sc *schema.Script) error {
	if sc.Len() == 1 && sc.SourceKind != "conversation" && sc.SourceKind != "scenario" && sc.Next == nil {
		c.single++
		return nil
	}
	if c.multi == nil {
		c.multi = map[string]*[2]int{}
	}
	m := c.multi[sc.SourceKind]
	if m == nil {
		m = &[2]int{}
		c.multi[sc.SourceKind] = m
		c.kinds = append(c.kinds, sc.SourceKind)
	}
	m[0]++
	m[1] += sc.Len()
	return nil
}

func (c *scriptCounts) parts() []string {
	total, atLeast := c.single, false
	var parts, scripts []string
	if c.single > 0 {
		parts = append(parts, fmt.Sprintf("%d single-turn", c.single))
	}
	for _, k := range c.kinds {
		m := c.multi[k]
		total += m[1]
		noun, least := k+" script", ""
		switch k {
		case "scenario": // its turns are known as it runs
			noun, least, atLeast = k, "at least ", true
		case "conversation":
			noun = k
		}
		scripts = append(scripts, count(m[0], noun))
		parts = append(parts, fmt.Sprintf("%s%d in %s", least, m[1], count(m[0], noun)))
	}
	s := count(total, "case")
	if atLeast {
		s = "at least " + s
	}
	switch {
	case len(c.kinds) == 0:
	case len(parts) == 1: // "56 cases in 15 conversations"
		s += " in " + scripts[0]
	default:
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return []string{s}
}

func (a *App) cmdGenerate(args []string) int {
	var lf loadFlags
	fs := newFlagSet(a, "generate", "generate [flags] PATH")
	lf.register(fs)
	out := fs.String("o", "", "write the cases to FILE (atomically) instead of stdout")
	format := fs.String("format", "jsonl", "output format: jsonl or csv")
	split := fs.String("split", "", "export only the cases of split NAME")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) != 1 {
		return a.fail(usagef("generate takes one suite path, got %d", len(pos)))
	}
	if *format != "jsonl" && *format != "csv" {
		return a.fail(usagef("--format takes jsonl or csv, not %q", *format))
	}
	s, code := a.load(pos[0], &lf)
	if s == nil {
		return code
	}
	if *split != "" && s.SplitByName(*split) == nil {
		return a.fail(usagef("the suite has no split %q (splits: %s)", *split, strings.Join(s.SplitNames(), ", ")))
	}
	var warns genWarnings
	defer a.printWarnings(s, &lf, &warns)
	render := func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		var err error
		if *format == "csv" {
			err = writeCasesCSV(bw, s, spec.GenOptions{Split: *split, Warn: warns.add})
		} else {
			err = s.Generate(spec.GenOptions{Split: *split, Warn: warns.add}, func(c *schema.Case) error {
				b, err := schema.EncodeLine(c)
				if err != nil {
					return err
				}
				_, err = bw.Write(b)
				return err
			})
		}
		if err != nil {
			return err
		}
		return bw.Flush()
	}
	if *out == "" {
		if err = render(a.Stdout); closedPipe(err) {
			return ExitPass // `generate | head -1`
		}
	} else {
		err = reporters.WriteFile(*out, render)
	}
	if err != nil {
		if a.dataDiagnostics(err, s, &lf) {
			return ExitInvalid
		}
		fmt.Fprintf(a.Stderr, "nlutest: generate: %s\n", err)
		return ExitCannotRun
	}
	return ExitPass
}

// dataDiagnostics prints a generation error that is a bad data row (a
// spec.DiagnosticError) as diagnostics, with the problems of the rows of
// every dataset (spec.Suite.CheckData: generation stopped at the first);
// false for other errors.
func (a *App) dataDiagnostics(err error, s *spec.Suite, lf *loadFlags) bool {
	var de *spec.DiagnosticError
	if err == nil || !errors.As(err, &de) {
		return false
	}
	diags := s.CheckData()
	if !slices.ContainsFunc(diags, func(d *hcl.Diagnostic) bool { return sameSubject(d, de.Diags[0]) }) {
		diags = append(de.Diags, diags...)
	}
	diagfmt.Write(a.Stderr, diags, s.Sources, a.useColor(lf.color, a.StderrTTY))
	n := len(diags.Errs())
	fmt.Fprintf(a.Stderr, "nlutest: %s has %d error%s in its data; nothing ran.\n", s.Dir, n, plural(n))
	return true
}

// sameSubject reports whether two diagnostics are at the same place.
func sameSubject(a, b *hcl.Diagnostic) bool {
	return a.Subject != nil && b.Subject != nil && *a.Subject == *b.Subject
}

// writeCasesCSV writes the cases as CSV, one column per field
// schema.CaseFields gives a CSV position: lists joined by "/" (scene) or
// "|", slots and expect as JSON. A cell that begins with = + - @ TAB CR or
// LF gets a leading single quote (csvcell.Neutral, OWASP's CSV Injection
// rule), so a spreadsheet shows it as text.
func writeCasesCSV(w io.Writer, s *spec.Suite, opts spec.GenOptions) error {
	cw := csv.NewWriter(w)
	fields := schema.CSVCaseFields()
	row := make([]string, len(fields))
	for i, f := range fields {
		row[i] = f.Name
	}
	if err := cw.Write(row); err != nil {
		return err
	}
	err := s.Generate(opts, func(c *schema.Case) error {
		for i, f := range fields {
			v, err := csvValue(f, c)
			if err != nil {
				return err
			}
			row[i] = csvcell.Neutral(v)
		}
		return cw.Write(row)
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// csvValue is field f of c as a CSV cell.
func csvValue(f *schema.CaseField, c *schema.Case) (string, error) {
	switch f.Kind {
	case schema.FieldString:
		return f.Str(c), nil
	case schema.FieldBool:
		return strconv.FormatBool(f.Bool(c)), nil
	case schema.FieldInt:
		return strconv.Itoa(f.Int(c)), nil
	case schema.FieldStrings:
		sep := "|"
		if f.Name == "scene" {
			sep = "/"
		}
		return strings.Join(f.List(c), sep), nil
	case schema.FieldSlots:
		b, err := json.Marshal(c.Slots)
		return string(b), err
	case schema.FieldExpect:
		b, err := c.Expect.MarshalJSON()
		return string(b), err
	}
	return "", fmt.Errorf("case field %s has no CSV form", f.Name)
}
