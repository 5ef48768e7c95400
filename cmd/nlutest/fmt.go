package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/diagfmt"
	"github.com/nlutest/nlutest/spec/format"
)

// cmdFmt rewrites suite files in the canonical layout (docs/annotate.md#fmt).
func (a *App) cmdFmt(args []string) int {
	fs := newFlagSet(a, "fmt", "fmt [--check] PATH...")
	check := fs.Bool("check", false, "write nothing; list the files that are not formatted and exit 1 when there are any")
	color := fs.String("color", "auto", "colour of diagnostics: auto, always or never")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return a.flagErr(err)
	}
	if len(pos) == 0 {
		return a.fail(usagef("fmt takes one or more paths: a suite directory, a suite file or a directory of suites"))
	}
	if *color != "auto" && *color != "always" && *color != "never" {
		return a.fail(usagef("--color takes auto, always or never, not %q", *color))
	}
	var files []string
	for _, p := range pos {
		fs, err := fmtFiles(p)
		if err != nil {
			fmt.Fprintf(a.Stderr, "nlutest: %s\n", err)
			return ExitInvalid
		}
		files = append(files, fs...)
	}
	var diags hcl.Diagnostics
	sources := map[string][]byte{}
	changed, broken, failed := 0, 0, 0
	for _, f := range files {
		src, _, err := spec.OwnFiles.Read("", f, spec.MaxSuiteFileBytes)
		if errors.Is(err, spec.ErrNotRegular) || errors.Is(err, spec.ErrTooBig) {
			// A FIFO or a device named like a suite file, or a huge one:
			// a mistake in the input, not a failure to run.
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read suite file", Detail: spec.FileError(err) + "."})
			broken++
			continue
		}
		if err != nil {
			fmt.Fprintf(a.Stderr, "nlutest: %s\n", spec.FileError(err))
			failed++
			continue
		}
		out, d := format.FormatSource(src, f)
		if d.HasErrors() {
			sources[f] = src
			diags = append(diags, d...)
			broken++
			continue
		}
		if bytes.Equal(out, src) {
			continue
		}
		changed++
		if !*check {
			if err := reporters.WriteFile(f, func(w io.Writer) error { _, err := w.Write(out); return err }); err != nil {
				fmt.Fprintf(a.Stderr, "nlutest: %s\n", err)
				failed++
				continue
			}
		}
		fmt.Fprintln(a.Stdout, f)
	}
	if len(diags) > 0 {
		diagfmt.Write(a.Stderr, diags, sources, a.useColor(*color, a.StderrTTY))
		fmt.Fprintf(a.Stderr, "nlutest: %d file%s could not be parsed and were left untouched.\n", broken, plural(broken))
	}
	switch {
	case failed > 0:
		return ExitCannotRun
	case broken > 0:
		return ExitInvalid
	case *check && changed > 0:
		fmt.Fprintf(a.Stderr, "nlutest: %d of %d suite file%s not formatted; run nlutest fmt %s\n", changed, len(files), plural(len(files)), strings.Join(pos, " "))
		return ExitFail
	}
	return ExitPass
}

// fmtFiles lists the suite files under path: path itself when it is a
// file, else every *.nlutest.hcl below it, skipping hidden directories and
// testdata, vendor and node_modules below the starting point. Symlinks to
// suite files and to directories are followed, as run follows them (each
// directory once, so a link loop ends).
func fmtFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	var files []string
	if err := walkSuites(path, map[string]bool{}, &files); err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no %s files in %s", spec.FileSuffix, path)
	}
	sort.Strings(files)
	return files, nil
}

// walkSuites adds the suite files under root to files; visited holds the
// real paths of the directories walked.
func walkSuites(root string, visited map[string]bool, files *[]string) error {
	if real, err := filepath.EvalSymlinks(root); err == nil {
		if visited[real] {
			return nil
		}
		visited[real] = true
	}
	// A trailing separator makes WalkDir enter a root that is a symlink.
	start := root + string(filepath.Separator)
	return filepath.WalkDir(start, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p != start && skipDir(e.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if e.Type()&fs.ModeSymlink != 0 {
			st, err := os.Stat(p)
			switch {
			case err != nil: // a dangling link
				return nil
			case st.IsDir():
				if skipDir(e.Name()) {
					return nil
				}
				return walkSuites(p, visited, files)
			case st.Mode().IsRegular() && strings.HasSuffix(e.Name(), spec.FileSuffix):
				*files = append(*files, p)
			}
			return nil
		}
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), spec.FileSuffix) {
			*files = append(*files, p)
		}
		return nil
	})
}

// skipDir reports whether fmt skips a directory of this name below its
// starting point.
func skipDir(n string) bool {
	return strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" || n == "vendor" || n == "node_modules"
}
