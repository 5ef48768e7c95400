package main

import (
	"crypto/rand"
	"encoding/hex"
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
	out := fs.String("o", "", "the suite directory to write (must not exist, or be an empty directory or a link to one, which is kept)")
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
	dest, err := outDir(a.abs(*out))
	if err != nil {
		return a.fail(usagef("%s", err))
	}
	res, skipped, err := a.readImport(pos, *domain)
	for _, p := range skipped {
		fmt.Fprintf(a.Stderr, "nlutest: skipped %s: %s\n", p.Path, p.Why)
	}
	colored := a.useColor(*color, a.StderrTTY)
	var ie *importer.InputError
	var be *importer.BugError
	switch {
	case errors.As(err, &ie):
		spec.WriteDiagnostics(a.Stderr, ie.Diags, ie.Sources, colored)
		fmt.Fprintf(a.Stderr, "nlutest: nothing was imported.\n")
		return ExitInvalid
	case errors.As(err, &be):
		fmt.Fprintf(a.Stderr, "nlutest: internal error: %s; nothing was written. Please report this with the files you imported.\n", be)
		return ExitCannotRun
	case errors.As(err, new(usageError)):
		return a.fail(err)
	case err != nil:
		fmt.Fprintf(a.Stderr, "nlutest: %s\n", spec.FileError(err))
		return ExitInvalid
	}
	return a.writeImport(res, *out, dest, *partial, colored)
}

// readImport reads what pos names (a format and its paths) into a suite.
func (a *App) readImport(pos []string, domain string) (*importer.Result, []importer.Skipped, error) {
	switch pos[0] {
	case "botium":
		if len(pos) != 2 {
			return nil, nil, usagef("import botium takes one directory of convos, got %d paths", len(pos)-1)
		}
		if domain != "" {
			return nil, nil, usagef("--domain is for import rasa-e2e; Botium convos check the bot's text")
		}
		return importer.ReadBotium(a.abs(pos[1]), importFeatures)
	case "rasa-e2e":
		var d string
		if domain != "" {
			d = a.abs(domain)
		}
		files := make([]string, len(pos)-1)
		for i, p := range pos[1:] {
			files[i] = a.abs(p)
		}
		return importer.ReadRasa(files, d, importFeatures)
	}
	return nil, nil, usagef("import reads botium or rasa-e2e, not %q", pos[0])
}

// abs resolves a command-line path against the app's working directory.
func (a *App) abs(p string) string {
	if filepath.IsAbs(p) || a.Getwd == "" {
		return p
	}
	return filepath.Join(a.Getwd, p)
}

// importDest is where an import writes: the directory -o names, or the
// directory a symbolic link -o names points to (the link stays).
type importDest struct {
	dir    string // the directory to write into, links followed
	exists bool   // it exists (empty): the suite's files are moved into it, its mode kept
}

// outDir checks -o: a directory that does not exist, or an empty one (or a
// link to one), is written into; anything else is refused.
func outDir(dir string) (importDest, error) {
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return importDest{dir: dir}, nil
	case err != nil:
		return importDest{}, fmt.Errorf("-o %s: %s", dir, spec.FileError(err))
	case st.Mode()&fs.ModeSymlink != 0:
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			to, _ := os.Readlink(dir)
			return importDest{}, fmt.Errorf("-o %s is a symbolic link to %s, which does not exist: create that directory, or name another -o", dir, to)
		}
		d, err := outDir(real)
		if err == nil && !d.exists {
			err = fmt.Errorf("-o %s is a symbolic link to %s, which does not exist: create that directory, or name another -o", dir, real)
		}
		return d, err
	case !st.IsDir():
		return importDest{}, fmt.Errorf("-o %s is a file; import writes a new suite directory: name one that does not exist, or an empty one", dir)
	}
	entries, err := os.ReadDir(dir)
	switch {
	case err != nil:
		return importDest{}, fmt.Errorf("-o %s: %s", dir, spec.FileError(err))
	case len(entries) > 0:
		return importDest{}, fmt.Errorf("-o %s already holds files; import writes a new suite directory: name one that does not exist, or an empty one", dir)
	}
	return importDest{dir: dir, exists: true}, nil
}

// writeImport prints the untranslatable steps and writes the suite: into
// a temporary directory beside the destination, checked by loading it,
// then moved into place (the directory renamed, or into an existing empty
// directory its files), so a failure leaves nothing half-written.
func (a *App) writeImport(res *importer.Result, shown string, dest importDest, partial, color bool) int {
	if errs := res.Problems.Errs(); len(errs) > 0 && !partial {
		spec.WriteDiagnostics(a.Stderr, res.Problems, res.Sources, color)
		fmt.Fprintf(a.Stderr, "nlutest: %d step%s cannot be translated; nothing was written. Pass --partial to write the suite with them as UNTRANSLATED comments.\n", len(errs), plural(len(errs)))
		return ExitInvalid
	}
	if len(res.Problems) > 0 {
		spec.WriteDiagnostics(a.Stderr, res.Warnings(), res.Sources, color)
	}
	tmp, names, err := stageImport(res, dest.dir)
	if tmp != "" {
		defer os.RemoveAll(tmp)
	}
	if err != nil {
		return a.fail(err)
	}
	if s, diags := spec.Load(tmp, a.ext().LoadOptions(spec.Options{Env: a.Env})); s == nil || diags.HasErrors() {
		spec.WriteDiagnostics(a.Stderr, diags, nil, color)
		fmt.Fprintf(a.Stderr, "nlutest: internal error: the imported suite does not validate; nothing was written. Please report this with the files you imported.\n")
		return ExitCannotRun
	}
	if err := placeImport(tmp, names, dest); err != nil {
		return a.fail(err)
	}
	fmt.Fprintf(a.Stdout, "Wrote %s: %d conversation%s, %d template%s, %d turn%s",
		filepath.Join(shown, names[0]), res.Convos, plural(res.Convos), res.Templates, plural(res.Templates), res.Turns, plural(res.Turns))
	if n := len(res.Problems); n > 0 {
		fmt.Fprintf(a.Stdout, "; %d step%s left as UNTRANSLATED comments", n, plural(n))
	}
	fmt.Fprintf(a.Stdout, ".\nNext: nlutest validate %s\n", shellQuote(shown))
	return ExitPass
}

// stageImport writes the suite's files into a new directory beside dest
// (on its file system, so they can be renamed into place), made as a
// fresh directory would be: mode 0755 less the umask.
func stageImport(res *importer.Result, dest string) (tmp string, names []string, err error) {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", nil, fmt.Errorf("cannot create %s: %s", filepath.Dir(dest), spec.FileError(err))
	}
	for i := 0; ; i++ {
		var b [6]byte
		_, _ = rand.Read(b[:])
		tmp = filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".import-"+hex.EncodeToString(b[:]))
		if err = os.Mkdir(tmp, 0o755); err == nil || !errors.Is(err, fs.ErrExist) || i == 9 {
			break
		}
	}
	if err != nil {
		return "", nil, fmt.Errorf("cannot write beside %s: %s", dest, spec.FileError(err))
	}
	for name := range res.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		// The importer names its files after what it read (the convo
		// directory's name): none may leave the suite directory.
		if !filepath.IsLocal(name) {
			return tmp, nil, fmt.Errorf("internal error: the importer named a file %q outside the suite directory; nothing was written. Please report this with the files you imported", name)
		}
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return tmp, nil, fmt.Errorf("cannot create %s: %s", filepath.Dir(p), spec.FileError(err))
		}
		if err := os.WriteFile(p, res.Files[name], 0o644); err != nil {
			return tmp, nil, fmt.Errorf("cannot write %s: %s", p, spec.FileError(err))
		}
	}
	return tmp, names, nil
}

// placeImport moves the staged suite into place: the directory renamed
// to dest, or, when dest exists (empty), each file moved into it, the
// directory and its mode kept. A failure takes back the files moved.
func placeImport(tmp string, names []string, dest importDest) error {
	if !dest.exists {
		if err := os.Rename(tmp, dest.dir); err != nil {
			return fmt.Errorf("cannot move the suite into %s: %s", dest.dir, spec.FileError(err))
		}
		return nil
	}
	var moved []string
	for _, name := range names {
		to := filepath.Join(dest.dir, name)
		err := os.MkdirAll(filepath.Dir(to), 0o755)
		if _, lerr := os.Lstat(to); err == nil && lerr == nil {
			err = fmt.Errorf("%s appeared while importing", to)
		}
		if err == nil {
			err = os.Rename(filepath.Join(tmp, name), to)
		}
		if err != nil {
			for _, m := range moved {
				_ = os.Remove(m)
			}
			return fmt.Errorf("cannot move the suite into %s: %s", dest.dir, spec.FileError(err))
		}
		moved = append(moved, to)
	}
	return nil
}
