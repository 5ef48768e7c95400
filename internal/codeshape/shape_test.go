// Package codeshape holds a test that keeps nlutest's functions readable:
// none over 80 lines or cyclomatic complexity 25 outside the parsers and
// the pairwise algorithm (docs/architecture.md). It has no code of its own.
package codeshape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

const (
	maxLines      = 80
	maxComplexity = 25
)

// exempt are the functions allowed past the limits: hand-written parsers
// (one state machine each, clearer whole) and the pairwise algorithm.
var exempt = map[string]bool{
	"spec/combine/pairwise.go:(*array).extend":          true,
	"jsondoc/doc.go:(*Doc).parse":                       true,
	"spec/materials/materials.go:(*matReader).parseRow": true,
	"spec/materials/materials.go:(*matReader).readCSV":  true,
}

func TestFunctionShape(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
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
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := filepath.ToSlash(rel) + ":" + funcName(fd)
			if exempt[name] {
				continue
			}
			lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if lines > maxLines {
				t.Errorf("%s is %d lines long (at most %d): split it into named steps", name, lines, maxLines)
			}
			if c := complexity(fd); c > maxComplexity {
				t.Errorf("%s has cyclomatic complexity %d (at most %d): split it into named steps", name, c, maxComplexity)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	return "(" + typeName(fd.Recv.List[0].Type) + ")." + fd.Name.Name
}

func typeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "*" + typeName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return typeName(t.X)
	case *ast.IndexListExpr:
		return typeName(t.X)
	}
	return "?"
}

// complexity counts as gocyclo does: 1, plus one per if, for, range,
// non-default case or comm clause, && and ||.
func complexity(fd *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}
