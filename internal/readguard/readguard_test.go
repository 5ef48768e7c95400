package readguard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// opens are the calls that open or read a file by name, by package and
// function (os.OpenFile with O_WRONLY writes, and is left out).
var opens = map[string][]string{
	"os":     {"Open", "OpenFile", "ReadFile"},
	"ioutil": {"ReadFile"},
	"tls":    {"LoadX509KeyPair"},
}

// allowed are the functions that may call them, and why. Everything else
// opens a file through spec.FileAccess.Open, Read or spec.OwnFiles.
var allowed = map[string]string{
	"spec/paths.go:FileAccess.Open": "the one opening function: checks the rules, opens without blocking, checks again",
	// Files nlutest writes, or reads back from its own run directory (the
	// response cache's entries and key are read through FileAccess.Open:
	// whoever shares the working directory may put a FIFO there).
	"runner/results.go:ReadLinesAt":   "reads a run directory's results.jsonl, which nlutest wrote",
	"ratings/sheet.go:ReadSheetItems": "reads a run's results.jsonl back by span for ratings export",
	"runner/repair.go:RepairResults":  "truncates the run's torn last line",
	"pipeline/lock.go:lockDir":        "creates the run directory's lock file",
	// Test support.
	"internal/browsertest/browsertest.go:Load": "reads back the screenshot it asked the browser for (tests only)",
}

// TestEveryReadGoesThroughFileAccess fails when a function outside
// allowed opens a file by name: a new path attribute, flag or command
// must read through spec.FileAccess, or FIFOs hang it, /dev/zero exhausts
// memory and a suite reads outside its directory (the 2026-12-01 audit's
// finding H).
func TestEveryReadGoesThroughFileAccess(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	found := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, c := range openCalls(f) {
			name := filepath.ToSlash(rel) + ":" + c.fn
			found[name] = true
			if _, ok := allowed[name]; !ok {
				t.Errorf("%s: %s calls %s: open the file with spec.FileAccess.Open or Read (spec.OwnFiles for a path the user gave on the command line), or add the function to allowed with the reason it may not", fset.Position(c.pos), c.fn, c.call)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range allowed {
		if !found[name] {
			t.Errorf("allowed lists %s, which opens no file any more: remove it", name)
		}
	}
}

type openCall struct {
	fn, call string
	pos      token.Pos
}

// openCalls lists the calls in opens made in f's functions, with the
// function (Type.Method for a method) that makes each.
func openCalls(f *ast.File) []openCall {
	var out []openCall
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		fn := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			fn = recvName(fd.Recv.List[0].Type) + "." + fn
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if ok && slices.Contains(opens[pkg.Name], sel.Sel.Name) && !writeOnly(call) {
				out = append(out, openCall{fn: fn, call: pkg.Name + "." + sel.Sel.Name, pos: call.Pos()})
			}
			return true
		})
	}
	return out
}

// writeOnly reports whether call is os.OpenFile with O_WRONLY in its
// flags: a file written, not read (reports, the results file).
func writeOnly(call *ast.CallExpr) bool {
	if len(call.Args) < 2 {
		return false
	}
	found := false
	ast.Inspect(call.Args[1], func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "O_WRONLY" {
			found = true
		}
		return !found
	})
	return found
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}
