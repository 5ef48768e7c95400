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
	"strings"

	"github.com/nlutest/nlutest/importer"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/diagfmt"
)

// importFeatures are the parts of the suite language the imported suites
// use (importer.Features): the forms this nlutest reads.
var importFeatures = importer.Features{ReplyBlocks: true, BotFirst: true, State: true}

// cmdImport translates another tool's test set — Botium convos, Rasa
// end-to-end tests, or a format of the app's set (extensions.Set's
// Importers) — into a new suite directory (docs/cli.md#import).
func (a *App) cmdImport(args []string) int {
	fs := newFlagSet(a, "import", a.importSynopsis())
	out := fs.String("o", "", "the suite directory to write (must not exist, or be an empty directory or a link to one, which is kept)")
	partial := fs.Bool("partial", false, "write the suite even when steps cannot be translated: they become UNTRANSLATED comments, each with a warning")
	domain := fs.String("domain", "", "the bot's model for the formats that read one ("+orList(a.domainFormats())+"): a Rasa domain (a file or a directory of them) whose responses turn utter: steps into reply checks")
	color := fs.String("color", "auto", "colour of diagnostics: auto, always or never")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if *color != "auto" && *color != "always" && *color != "never" {
		return a.fail(usagef("--color takes auto, always or never, not %q", *color))
	}
	if len(a.ext().Importers) == 0 {
		return a.fail(usagef("this program imports no test set format"))
	}
	if len(pos) < 2 {
		first := a.ext().Importers[0]
		return a.fail(usagef("import takes a format (%s) and what to import: nlutest import %s %s -o SUITE_DIR", orList(a.formatNames()), first.Name(), first.Args()))
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
		diagfmt.Write(a.Stderr, ie.Diags, ie.Sources, colored)
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
	var f importer.Format
	for _, g := range a.ext().Importers {
		if g.Name() == pos[0] {
			f = g
		}
	}
	if f == nil {
		return nil, nil, usagef("import reads %s, not %q", orList(a.formatNames()), pos[0])
	}
	o := importer.Options{Features: importFeatures}
	if domain != "" {
		if !importer.TakesDomain(f) {
			if with := a.domainFormats(); len(with) > 0 {
				return nil, nil, usagef("--domain is for import %s; import %s reads no bot model", orList(with), f.Name())
			}
			return nil, nil, usagef("--domain: no import format reads a bot model")
		}
		o.Domain = a.abs(domain)
	}
	paths := make([]string, len(pos)-1)
	for i, p := range pos[1:] {
		paths[i] = a.abs(p)
	}
	res, skipped, err := f.Read(paths, o)
	if ae := (*importer.ArgError)(nil); errors.As(err, &ae) {
		return nil, skipped, usagef("%s", ae.Msg)
	}
	return res, skipped, err
}

// importSynopsis is import's usage: a line per format of the app's set.
func (a *App) importSynopsis() string {
	var lines []string
	for _, f := range a.ext().Importers {
		line := "import " + f.Name() + " " + f.Args() + " -o SUITE_DIR"
		if importer.TakesDomain(f) {
			line += " [--domain DOMAIN]"
		}
		lines = append(lines, line+" [--partial]")
	}
	return strings.Join(lines, "\n       nlutest ")
}

// formatNames are the names of the app's import formats.
func (a *App) formatNames() []string {
	var out []string
	for _, f := range a.ext().Importers {
		out = append(out, f.Name())
	}
	return out
}

// domainFormats are the names of the app's import formats that read
// --domain.
func (a *App) domainFormats() []string {
	var out []string
	for _, f := range a.ext().Importers {
		if importer.TakesDomain(f) {
			out = append(out, f.Name())
		}
	}
	return out
}

// orList joins names for a message: "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
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
		diagfmt.Write(a.Stderr, res.Problems, res.Sources, color)
		fmt.Fprintf(a.Stderr, "nlutest: %d step%s cannot be translated; nothing was written. Pass --partial to write the suite with them as UNTRANSLATED comments.\n", len(errs), plural(len(errs)))
		return ExitInvalid
	}
	if len(res.Problems) > 0 {
		diagfmt.Write(a.Stderr, res.Warnings(), res.Sources, color)
	}
	tmp, names, err := stageImport(res, dest.dir)
	if tmp != "" {
		defer os.RemoveAll(tmp)
	}
	if err != nil {
		return a.fail(err)
	}
	if s, diags := spec.Load(tmp, a.ext().LoadOptions(spec.Options{Env: a.Env})); s == nil || diags.HasErrors() {
		diagfmt.Write(a.Stderr, diags, nil, color)
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
