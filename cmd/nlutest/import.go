package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/nlutest/nlutest/importer"
	"github.com/nlutest/nlutest/spec"
)

// importFeatures are the parts of the suite language the imported suites
// use (importer.Features): the forms this nlutest reads.
var importFeatures = importer.Features{ReplyBlocks: true, BotFirst: true, State: true}

// cmdImport translates Botium convos or Rasa end-to-end tests into a new
// suite directory (docs/cli.md#import).
func (a *App) cmdImport(args []string) int {
	fs := newFlagSet(a, "import", "import botium DIR -o SUITE_DIR | import rasa-e2e FILE... -o SUITE_DIR [--partial]")
	out := fs.String("o", "", "the suite directory to write (must not exist, or be empty)")
	partial := fs.Bool("partial", false, "write the suite even when steps cannot be translated: they become UNTRANSLATED comments, each with a warning")
	domain := fs.String("domain", "", "rasa-e2e: the Rasa domain (a file or a directory of them) whose responses turn utter: steps into reply checks")
	color := fs.String("color", "auto", "colour of diagnostics: auto, always or never")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if *color != "auto" && *color != "always" && *color != "never" {
		return a.fail(usagef("--color takes auto, always or never, not %q", *color))
	}
	if len(pos) < 2 {
		return a.fail(usagef("import takes a format (botium or rasa-e2e) and what to import: nlutest import botium DIR -o SUITE_DIR"))
	}
	if *out == "" {
		return a.fail(usagef("import needs -o SUITE_DIR, the new suite's directory"))
	}
	dest := a.abs(*out)
	if err := freshDir(dest); err != nil {
		return a.fail(usagef("%s", err))
	}
	var res *importer.Result
	var skipped []string
	switch pos[0] {
	case "botium":
		if len(pos) != 2 {
			return a.fail(usagef("import botium takes one directory of convos, got %d paths", len(pos)-1))
		}
		if *domain != "" {
			return a.fail(usagef("--domain is for import rasa-e2e; Botium convos check the bot's text"))
		}
		res, skipped, err = importer.ReadBotium(a.abs(pos[1]), importFeatures)
	case "rasa-e2e":
		var d string
		if *domain != "" {
			d = a.abs(*domain)
		}
		files := make([]string, len(pos)-1)
		for i, p := range pos[1:] {
			files[i] = a.abs(p)
		}
		res, err = importer.ReadRasa(files, d, importFeatures)
	default:
		return a.fail(usagef("import reads botium or rasa-e2e, not %q", pos[0]))
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "nlutest: %s\n", spec.FileError(err))
		return ExitInvalid
	}
	for _, p := range skipped {
		fmt.Fprintf(a.Stderr, "nlutest: skipped %s: not a Botium convo, partial convo or utterances file\n", p)
	}
	return a.writeImport(res, *out, dest, *partial, a.useColor(*color, a.StderrTTY))
}

// abs resolves a command-line path against the app's working directory.
func (a *App) abs(p string) string {
	if filepath.IsAbs(p) || a.Getwd == "" {
		return p
	}
	return filepath.Join(a.Getwd, p)
}

// freshDir refuses an output directory that holds anything: an import
// never mixes its suite with other files.
func freshDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("-o %s: %s", dir, spec.FileError(err))
	case len(entries) > 0:
		return fmt.Errorf("-o %s already holds files; import writes a new suite directory: name one that does not exist, or an empty one", dir)
	}
	return nil
}

// writeImport prints the untranslatable steps and writes the suite: into
// a temporary directory beside the destination, checked by loading it,
// then renamed into place, so a failure leaves nothing half-written.
func (a *App) writeImport(res *importer.Result, shown, dest string, partial, color bool) int {
	if errs := res.Problems.Errs(); len(errs) > 0 && !partial {
		spec.WriteDiagnostics(a.Stderr, res.Problems, res.Sources, color)
		fmt.Fprintf(a.Stderr, "nlutest: %d step%s cannot be translated; nothing was written. Pass --partial to write the suite with them as UNTRANSLATED comments.\n", len(errs), plural(len(errs)))
		return ExitInvalid
	}
	if len(res.Problems) > 0 {
		spec.WriteDiagnostics(a.Stderr, res.Warnings(), res.Sources, color)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return a.fail(fmt.Errorf("cannot create %s: %s", filepath.Dir(dest), spec.FileError(err)))
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".import-")
	if err != nil {
		return a.fail(fmt.Errorf("cannot write beside %s: %s", dest, spec.FileError(err)))
	}
	defer os.RemoveAll(tmp)
	names := make([]string, 0, len(res.Files))
	for name := range res.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		// The importer names its files after what it read (the convo
		// directory's name): none may leave the suite directory.
		if !filepath.IsLocal(name) {
			return a.fail(fmt.Errorf("internal error: the importer named a file %q outside the suite directory; nothing was written. Please report this with the files you imported", name))
		}
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return a.fail(fmt.Errorf("cannot create %s: %s", filepath.Dir(p), spec.FileError(err)))
		}
		if err := os.WriteFile(p, res.Files[name], 0o644); err != nil {
			return a.fail(fmt.Errorf("cannot write %s: %s", p, spec.FileError(err)))
		}
	}
	if s, diags := spec.Load(tmp, a.ext().LoadOptions(spec.Options{Env: a.Env})); s == nil || diags.HasErrors() {
		spec.WriteDiagnostics(a.Stderr, diags, nil, color)
		fmt.Fprintf(a.Stderr, "nlutest: internal error: the imported suite does not validate; nothing was written. Please report this with the files you imported.\n")
		return ExitCannotRun
	}
	if err := os.Remove(dest); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return a.fail(fmt.Errorf("cannot replace the empty directory %s: %s", dest, spec.FileError(err)))
	}
	if err := os.Rename(tmp, dest); err != nil {
		return a.fail(fmt.Errorf("cannot move the suite into %s: %s", dest, spec.FileError(err)))
	}
	fmt.Fprintf(a.Stdout, "Wrote %s: %d conversation%s, %d template%s, %d turn%s",
		filepath.Join(shown, names[0]), res.Convos, plural(res.Convos), res.Templates, plural(res.Templates), res.Turns, plural(res.Turns))
	if n := len(res.Problems); n > 0 {
		fmt.Fprintf(a.Stdout, "; %d step%s left as UNTRANSLATED comments", n, plural(n))
	}
	fmt.Fprintf(a.Stdout, ".\nNext: nlutest validate %s\n", shellQuote(shown))
	return ExitPass
}
