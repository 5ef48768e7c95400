package extensions

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/spec"
)

// The rule for sensitive variables (docs/security.md, "Where a secret may
// go"), tested on every attribute of the suite language rather than
// attribute by attribute: testdata/every_attribute holds every block and
// attribute the code's schemas declare (TestEveryAttributeCovered keeps it
// so), and TestSensitiveEveryAttribute puts a sensitive variable in each
// of its attributes in turn.

const (
	everyDir    = "testdata/every_attribute"
	everyFile   = "every.nlutest.hcl"
	everySecret = "Zk-机密-4417-qv"
)

// secretAllowedAt are the places where docs/security.md lets a secret go:
// block types from the top level, then the attribute ("*" any blocks
// before). Every other attribute must refuse it.
var secretAllowedAt = [][]string{
	{"target", "http", "url"}, {"target", "http", "headers"}, {"target", "http", "body"},
	{"target", "rasa", "url"}, {"target", "rasa", "headers"}, {"target", "rasa", "tracker_token"},
	{"target", "openai", "url"}, {"target", "openai", "headers"}, {"target", "openai", "api_key"},
	{"target", "exec", "env"},
	{"*", "assert", "condition"}, {"scenario", "success", "condition"},
	{"threshold", "condition"}, {"split", "where"},
}

func allowedAt(place []string) bool {
	for _, p := range secretAllowedAt {
		if p[0] == "*" && len(place) >= len(p)-1 && slices.Equal(place[len(place)-len(p)+1:], p[1:]) || slices.Equal(p, place) {
			return true
		}
	}
	return false
}

// fixtureAttr is one attribute of the fixture and its place.
type fixtureAttr struct {
	place []string
	expr  hcl.Range
	attr  *hclsyntax.Attribute
}

// fixtureAttrs lists every attribute of the fixture file in source order,
// walking the syntax tree on its own (not with the loader's walk).
func fixtureAttrs(t *testing.T, src []byte) ([]fixtureAttr, map[string][]string) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig(src, everyFile, hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var out []fixtureAttr
	byPath := map[string][]string{} // block path → attribute names
	var walk func(b *hclsyntax.Body, path []string)
	walk = func(b *hclsyntax.Body, path []string) {
		key := strings.Join(path, ".")
		if _, ok := byPath[key]; !ok {
			byPath[key] = []string{}
		}
		for _, a := range b.Attributes {
			out = append(out, fixtureAttr{append(slices.Clone(path), a.Name), a.Expr.Range(), a})
			byPath[key] = append(byPath[key], a.Name)
		}
		for _, nb := range b.Blocks {
			walk(nb.Body, append(slices.Clone(path), nb.Type))
		}
	}
	walk(f.Body.(*hclsyntax.Body), nil)
	slices.SortFunc(out, func(a, b fixtureAttr) int { return a.expr.Start.Byte - b.expr.Start.Byte })
	return out, byPath
}

// loadEvery loads the fixture with src as its suite file.
func loadEvery(t *testing.T, dir string, src []byte) hcl.Diagnostics {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, everyFile), src, 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := spec.Load(dir, Default().LoadOptions(spec.Options{Vars: []string{"secret=" + everySecret}}))
	return diags
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSensitiveEveryAttribute puts var.secret (a sensitive variable) in
// every attribute of the fixture in turn — through a function, inside a
// string, inside a string that nlutest parses as an expression — and
// expects the one rule: where docs/security.md lets a secret go the suite
// still loads without an error; everywhere else the load refuses it with
// "Sensitive variable outside a target" at the variable's
// file:line:col, and no diagnostic quotes the value.
func TestSensitiveEveryAttribute(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, everyDir, dir)
	src, err := os.ReadFile(filepath.Join(everyDir, everyFile))
	if err != nil {
		t.Fatal(err)
	}
	if diags := loadEvery(t, dir, src); diags.HasErrors() {
		t.Fatalf("the fixture does not load: %v", diags)
	}
	attrs, _ := fixtureAttrs(t, src)
	allowed, refused := 0, 0
	for _, fa := range attrs {
		place := strings.Join(fa.place, ".")
		if fa.place[0] == "variable" && fa.expr.Start.Line < secretDeclEnd(t, src) {
			// The secret's own declaration: a variable is not declared
			// (nor sensitive) while its attributes are read, so var.secret
			// there is another error. The other variable's attributes test
			// the rule for variable blocks.
			continue
		}
		for _, in := range injections(fa, src) {
			mutated := slices.Concat(src[:in.at.Start.Byte], []byte(in.text), src[in.at.End.Byte:])
			diags := loadEvery(t, dir, mutated)
			for _, d := range diags {
				if strings.Contains(d.Summary+d.Detail, "4417-qv") || strings.Contains(d.Detail, "%!") {
					t.Errorf("%s: %s: a diagnostic quotes the secret or is malformed: %s: %s", place, in.text, d.Summary, d.Detail)
				}
			}
			if allowedAt(fa.place) {
				allowed++
				if diags.HasErrors() {
					t.Errorf("%s: %s (line %d): a secret is allowed here, but the load failed: %v", place, in.text, in.at.Start.Line, diags)
				}
				continue
			}
			refused++
			checkRefused(t, place, fa, in, diags)
		}
	}
	t.Logf("%d attributes: %d loads with a secret allowed, %d refused", len(attrs), allowed, refused)
}

// injection is a text put in place of the range at.
type injection struct {
	at   hcl.Range
	text string
}

// injections are the ways var.secret is put in attribute fa: its whole
// value replaced by a condition on upper(var.secret) that gives the value
// (so the suite still loads where a secret is allowed), and the same in
// place of the first element of a map or list (where decoders read the
// elements one by one, as goal's inform); a string replaced by
// "${var.secret}", and by an expression using it when the load parses the
// string as one (rubric pass). A credential written var.NAME (api_key,
// tracker_token) is replaced by var.secret.
func injections(fa fixtureAttr, src []byte) []injection {
	wrap := func(r hcl.Range) injection {
		old := string(r.SliceBytes(src))
		return injection{r, "(upper(var.secret) == \"\" ? " + old + " : " + old + ")"}
	}
	switch e := fa.attr.Expr.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		if e.Traversal.RootName() == "var" {
			return []injection{{fa.expr, "var.secret"}}
		}
	case *hclsyntax.ObjectConsExpr:
		if len(e.Items) > 0 {
			return []injection{wrap(fa.expr), wrap(e.Items[0].ValueExpr.Range())}
		}
	case *hclsyntax.TupleConsExpr:
		if len(e.Exprs) > 0 {
			return []injection{wrap(fa.expr), wrap(e.Exprs[0].Range())}
		}
	case *hclsyntax.TemplateExpr:
		if e.IsStringLiteral() && !allowedAt(fa.place) {
			out := []injection{wrap(fa.expr), {fa.expr, `"${var.secret}"`}}
			if fa.place[len(fa.place)-1] == "pass" {
				out = append(out, injection{fa.expr, `"score >= length(var.secret)"`})
			}
			return out
		}
	}
	return []injection{wrap(fa.expr)}
}

// secretDeclEnd is the line after the fixture's variable "secret" block.
func secretDeclEnd(t *testing.T, src []byte) int {
	t.Helper()
	i := strings.Index(string(src), "variable \"secret\" {")
	j := strings.Index(string(src[i:]), "\n}\n")
	if i < 0 || j < 0 {
		t.Fatal("the fixture declares no variable \"secret\"")
	}
	return strings.Count(string(src[:i+j]), "\n") + 2
}

// checkRefused expects the rule's diagnostic inside the injected text,
// naming the attribute.
func checkRefused(t *testing.T, place string, fa fixtureAttr, in injection, diags hcl.Diagnostics) {
	t.Helper()
	start, end := in.at.Start.Byte, in.at.Start.Byte+len(in.text)
	for _, d := range diags {
		if d.Summary != "Sensitive variable outside a target" || d.Subject == nil {
			continue
		}
		s := d.Subject
		if filepath.Base(s.Filename) == everyFile && start <= s.Start.Byte && s.End.Byte <= end &&
			strings.Contains(d.Detail, "var.secret is sensitive") && strings.Contains(d.Detail, strconv.Quote(fa.place[len(fa.place)-1])) {
			return
		}
	}
	t.Errorf("%s: %s (line %d): want \"Sensitive variable outside a target\" at the variable, got %d diagnostics: %v", place, in.text, in.at.Start.Line, len(diags), diags)
}

// TestEveryAttributeCovered reads every hcl.AttributeSchema and
// hcl.BlockHeaderSchema the module's code declares (its Go sources, so a
// new attribute cannot be missed) and fails when the fixture lacks one:
// each attribute name must appear, each schema's attributes together in
// blocks of one place, each block type and every source and target kind
// of the default set.
func TestEveryAttributeCovered(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(everyDir, everyFile))
	if err != nil {
		t.Fatal(err)
	}
	_, byPath := fixtureAttrs(t, src)
	blockTypes := map[string]bool{}
	for p := range byPath {
		if p != "" {
			parts := strings.Split(p, ".")
			blockTypes[parts[len(parts)-1]] = true
		}
	}
	groups, types := declaredSchemas(t, "..")
	if len(groups) < 30 {
		t.Fatalf("found only %d attribute schemas in the code; the scan is broken", len(groups))
	}
	for _, g := range groups {
		covered := false
		for _, names := range byPath {
			if !slices.ContainsFunc(g.names, func(n string) bool { return !slices.Contains(names, n) }) {
				covered = true
				break
			}
		}
		if !covered {
			t.Errorf("%s declares the attributes %q, which no block of %s has together: add them to the fixture", g.at, g.names, everyFile)
		}
	}
	for _, ty := range types {
		if !blockTypes[ty.name] {
			t.Errorf("%s declares the block type %q, which %s lacks: add it to the fixture", ty.at, ty.name, everyFile)
		}
	}
	x := Default()
	for _, k := range x.Sources {
		if !blockTypes[k.Block()] {
			t.Errorf("the source kind %q has no block in %s", k.Block(), everyFile)
		}
	}
	for _, k := range x.Targets {
		if !blockTypes[k.Name()] {
			t.Errorf("the target kind %q has no block in %s", k.Name(), everyFile)
		}
	}
}

// schemaGroup is the attribute names one literal (or one call's
// arguments) declares, and where.
type schemaGroup struct {
	at    string
	names []string
}

type blockType struct{ at, name string }

// dynamicNames are the attribute names the code computes, by the file
// that computes them: the scan reads every other name from a literal.
var dynamicNames = map[string]func() []string{
	"spec/text_minimums.go": func() []string {
		var out []string
		for _, m := range metrics.CaseTextScores {
			out = append(out, "min_"+m)
		}
		return out
	},
}

// declaredSchemas scans the Go sources under root (tests and testdata
// aside) for hcl.AttributeSchema and hcl.BlockHeaderSchema literals.
func declaredSchemas(t *testing.T, root string) ([]schemaGroup, []blockType) {
	t.Helper()
	fset := token.NewFileSet()
	files := map[string][]*ast.File{} // by directory
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		files[filepath.Dir(p)] = append(files[filepath.Dir(p)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var groups []schemaGroup
	var types []blockType
	for _, pkg := range files {
		consts := stringConsts(pkg)
		for _, f := range pkg {
			g, ty := scanFile(t, fset, root, f, consts)
			groups, types = append(groups, g...), append(types, ty...)
		}
	}
	return groups, types
}

// stringConsts are a package's constants and variables whose value is a
// string literal.
func stringConsts(fs []*ast.File) map[string]string {
	out := map[string]string{}
	for _, f := range fs {
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, name := range vs.Names {
				if i < len(vs.Values) {
					if bl, ok := vs.Values[i].(*ast.BasicLit); ok && bl.Kind == token.STRING {
						out[name.Name], _ = strconv.Unquote(bl.Value)
					}
				}
			}
			return true
		})
	}
	return out
}

// isSel reports whether e is hcl.NAME.
func isSel(e ast.Expr, name string) bool {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := s.X.(*ast.Ident)
	return ok && x.Name == "hcl" && s.Sel.Name == name
}

// fieldValue is the value of the field key of a keyed literal.
func fieldValue(cl *ast.CompositeLit, key string) ast.Expr {
	for _, e := range cl.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == key {
				return kv.Value
			}
		}
	}
	return nil
}

func scanFile(t *testing.T, fset *token.FileSet, root string, f *ast.File, consts map[string]string) ([]schemaGroup, []blockType) {
	var groups []schemaGroup
	var types []blockType
	seen := map[*ast.CompositeLit]bool{}
	where := func(n ast.Node) string {
		p := fset.Position(n.Pos())
		rel, _ := filepath.Rel(root, p.Filename)
		return filepath.ToSlash(rel) + ":" + strconv.Itoa(p.Line)
	}
	name := func(e ast.Expr) (string, bool) {
		switch v := e.(type) {
		case *ast.BasicLit:
			s, err := strconv.Unquote(v.Value)
			return s, err == nil
		case *ast.Ident:
			s, ok := consts[v.Name]
			return s, ok
		}
		return "", false
	}
	attrGroup := func(lits []*ast.CompositeLit, at string) {
		g := schemaGroup{at: at}
		for _, cl := range lits {
			seen[cl] = true
			n, ok := name(fieldValue(cl, "Name"))
			if !ok {
				file := strings.SplitN(at, ":", 2)[0]
				dyn, known := dynamicNames[file]
				if !known {
					t.Errorf("%s: an attribute schema whose name is not a literal or a constant; list the names it makes in dynamicNames", at)
					continue
				}
				g.names = append(g.names, dyn()...)
				continue
			}
			g.names = append(g.names, n)
		}
		if len(g.names) > 0 {
			groups = append(groups, g)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch v := n.(type) {
		case *ast.CompositeLit:
			if at, ok := v.Type.(*ast.ArrayType); ok && isSel(at.Elt, "AttributeSchema") {
				var lits []*ast.CompositeLit
				for _, e := range v.Elts {
					if cl, ok := e.(*ast.CompositeLit); ok {
						lits = append(lits, cl)
					}
				}
				attrGroup(lits, where(v))
			}
			if at, ok := v.Type.(*ast.ArrayType); ok && isSel(at.Elt, "BlockHeaderSchema") {
				for _, e := range v.Elts {
					if cl, ok := e.(*ast.CompositeLit); ok {
						seen[cl] = true
						if ty, ok := name(fieldValue(cl, "Type")); ok {
							types = append(types, blockType{where(cl), ty})
						}
					}
				}
			}
			if isSel(v.Type, "BlockHeaderSchema") && !seen[v] {
				seen[v] = true
				if ty, ok := name(fieldValue(v, "Type")); ok {
					types = append(types, blockType{where(v), ty})
				}
			}
			if isSel(v.Type, "AttributeSchema") && !seen[v] {
				attrGroup([]*ast.CompositeLit{v}, where(v))
			}
		case *ast.CallExpr:
			var lits []*ast.CompositeLit
			for _, a := range v.Args {
				if cl, ok := a.(*ast.CompositeLit); ok && isSel(cl.Type, "AttributeSchema") && !seen[cl] {
					lits = append(lits, cl)
				}
			}
			if len(lits) > 0 {
				attrGroup(lits, where(v))
			}
		}
		return true
	})
	return groups, types
}
