package codeshape

import (
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/nlutest/nlutest/"

// imports maps each package of the module (its path under the module) to
// the module's packages its non-test files import.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string][]string{}
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
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if dep, ok := strings.CutPrefix(p, module); ok && !slices.Contains(out[pkg], dep) {
				out[pkg] = append(out[pkg], dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// deps returns every module package pkg depends on, directly or not.
func deps(graph map[string][]string, pkg string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, d := range graph[p] {
			if !seen[d] {
				seen[d] = true
				walk(d)
			}
		}
	}
	walk(pkg)
	return seen
}

// TestDependenciesPointOneWay keeps the package graph of
// docs/architecture.md: the suite language never reaches the network or
// the evaluation, the runner never the reports, and the reporters render
// finished reports from schema alone.
func TestDependenciesPointOneWay(t *testing.T) {
	graph := imports(t)
	for _, rule := range []struct {
		pkg    string
		never  []string
		reason string
	}{
		{"reporters", []string{"spec", "spec/stats", "assert", "runner", "pipeline"}, "reporters render a finished report (schema) and need no suite"},
		{"spec", []string{"runner", "runner/targets", "runner/transport", "assert", "pipeline", "reporters", "spec/format", "spec/annotate", "spec/generate", "ratings", "ratings/sheet"}, "spec never touches the network and knows nothing of evaluation; the tools over the language (fmt, annotate), the template generation engine and the rating sheets are built on it, not in it"},
		{"spec/format", []string{"runner", "assert", "pipeline", "reporters", "spec/annotate"}, "fmt lays suite files out; it never runs or evaluates them"},
		{"spec/annotate", []string{"runner", "assert", "pipeline", "reporters"}, "annotate drafts from the observations its caller makes; calling the target is the command's"},
		{"spec/generate", []string{"runner", "runner/targets", "runner/transport", "assert", "pipeline", "reporters", "extensions", "sources/template", "sources/dataset", "sources/memory", "sources/conversation", "sources/scenario"}, "the template generation engine makes cases for the kinds built on templates; it never calls, evaluates or prints, and the kinds import it, not the other way"},
		{"ratings", []string{"assert", "pipeline", "reporters"}, "rating sheets are read and written for pipeline and the command, which import ratings, never the other way"},
		{"ratings/sheet", []string{"runner", "runner/targets", "runner/transport", "assert", "pipeline", "reporters", "ratings", "extensions"}, "the ratings block and its sheet reader are the suite language's leaf the ratings family (assert), ratings export and the command read; they never call, evaluate or print"},
		{"schema", []string{"spec", "runner", "assert", "pipeline", "reporters"}, "schema is the records every stage shares"},
		{"runner", []string{"assert", "pipeline", "reporters"}, "runner calls targets; it never evaluates or prints"},
		{"assert", []string{"runner", "pipeline", "reporters"}, "assert evaluates results, whoever made them"},
		{"pipeline", []string{"reporters"}, "pipeline never prints"},
		{"sources/template", []string{"runner", "runner/targets", "runner/transport", "assert", "pipeline", "reporters", "extensions"}, "a source kind makes cases; it never calls, evaluates or prints"},
		{"sources/dataset", []string{"runner", "runner/targets", "runner/transport", "assert", "pipeline", "reporters", "extensions"}, "a source kind reads files and makes cases; it never calls, evaluates or prints"},
		{"sources/memory", []string{"runner", "runner/targets", "runner/transport", "assert", "pipeline", "reporters", "extensions"}, "the memory kind makes scripts and judges answers from what its cases record; it never calls, evaluates or prints"},
		{"sources/conversation", []string{"runner", "runner/targets", "runner/transport", "assert", "pipeline", "reporters", "extensions"}, "a source kind reads files and makes cases; it never calls, evaluates or prints"},
		{"sources/scenario", []string{"runner", "runner/targets", "runner/transport", "assert", "pipeline", "reporters", "extensions"}, "a source kind reads files and makes cases; it never calls, evaluates or prints"},
	} {
		d := deps(graph, rule.pkg)
		if len(graph[rule.pkg]) == 0 && len(d) == 0 {
			t.Errorf("package %s not found", rule.pkg)
		}
		for _, bad := range rule.never {
			if d[bad] {
				t.Errorf("%s depends on %s: %s", rule.pkg, bad, rule.reason)
			}
		}
	}
}

// TestRatingsSheetIsALeaf: the ratings block's package (issue 38 item 4)
// imports only the suite language's public API, schema and the CSV cell
// rules, so assert's ratings family can decode through it.
func TestRatingsSheetIsALeaf(t *testing.T) {
	graph := imports(t)
	if len(graph["ratings/sheet"]) == 0 {
		t.Fatal("package ratings/sheet not found")
	}
	for _, im := range graph["ratings/sheet"] {
		if !slices.Contains([]string{"spec", "schema", "internal/csvcell"}, im) {
			t.Errorf("ratings/sheet imports %s: it imports only spec, schema and internal/csvcell", im)
		}
	}
}

// specLeaves are the leaf packages under spec (issue 38): each imports
// only what it may (the records and leaves every stage shares), never
// spec or a stage. spec imports them (spec/diagfmt, which the command
// prints the language's diagnostics with, only for its one-line Text).
var specLeaves = map[string][]string{
	"spec/materials":  {"jsondoc", "spec/combine"},
	"spec/nesting":    {},
	"spec/reply":      {"schema", "spec/attr"},
	"spec/tools":      {"schema", "spec/attr", "spec/diagfmt"},
	"spec/attr":       nil,
	"spec/jsonpath":   {}, // JSONPath keys: compile, explain, match, key order (ojg only)
	"spec/diagfmt":    {}, // how a person reads hcl diagnostics (hcl, go-runewidth only)
	"spec/litrange":   {}, // where part of a string literal's value is written (hcl, textseg only)
	"spec/imeslip":    {}, // a Chinese input method's punctuation slips, explained (hcl only)
	"spec/turnstream": nil,
	"spec/perturb":    {"schema"},
	"spec/rubric":     {"schema"},
	"spec/drift":      nil,
}

// TestSpecLeavesImportNoStage keeps spec's leaves leaves: a leaf that
// imported spec, the runner, the evaluation or the reports would no
// longer be a room spec's loader builds on.
func TestSpecLeavesImportNoStage(t *testing.T) {
	graph := imports(t)
	for leaf, may := range specLeaves {
		if len(graph[leaf]) == 0 && !slices.ContainsFunc(slices.Collect(maps.Values(graph)), func(ims []string) bool { return slices.Contains(ims, leaf) }) {
			t.Errorf("package %s not found (or no package imports it)", leaf)
		}
		for _, im := range graph[leaf] {
			if !slices.Contains(may, im) {
				t.Errorf("%s imports %s: a leaf of spec imports only %s", leaf, im, strings.Join(may, ", "))
			}
		}
	}
}

// sourceKindImports are the module's packages a built-in case source kind
// (a package under sources/) may import: spec's public API, the template
// generation engine built on it (spec/generate) and the records and
// leaves every stage shares. A kind that reached the loader
// through another door, or the runner, evaluation or reports, would no
// longer be one a program could add through spec.Decoder alone.
var sourceKindImports = []string{"spec", "spec/generate", "spec/combine", "spec/stats", "spec/botmodel", "spec/reply", "spec/tools", "spec/jsonpath", "spec/perturb", "spec/rubric", "schema", "jsondoc", "redact", "assert/metrics", "internal/nfc", "internal/csvcell"}

// kindReaders are the packages besides extensions (which builds nlutest's
// set) that may import a source kind, and which: the ranking family reads
// the ranking source's questions and graded candidates; internal/kindtest,
// the kinds' shared test helpers, loads suites with the template kind.
var kindReaders = map[string][]string{"assert": {"sources/ranking"}, "internal/kindtest": {"sources/template"}}

// TestSourceKindsImportOnlyThePublicAPI walks the imports of every package
// under sources/ (issue 38): each imports only sourceKindImports and the
// other kinds, and nothing imports a kind but extensions, kindReaders and
// the kinds' own tests.
func TestSourceKindsImportOnlyThePublicAPI(t *testing.T) {
	graph := imports(t)
	var kinds []string
	for pkg, ims := range graph {
		if strings.HasPrefix(pkg, "sources/") {
			kinds = append(kinds, pkg)
			for _, im := range ims {
				if !slices.Contains(sourceKindImports, im) && !strings.HasPrefix(im, "sources/") {
					t.Errorf("%s imports %s: a source kind imports only %s", pkg, im, strings.Join(sourceKindImports, ", "))
				}
			}
			continue
		}
		for _, im := range ims {
			if strings.HasPrefix(im, "sources/") && pkg != "extensions" && !slices.Contains(kindReaders[pkg], im) {
				t.Errorf("%s imports %s: only extensions puts the source kinds together", pkg, im)
			}
			if im == "internal/kindtest" {
				t.Errorf("%s imports internal/kindtest: it is the kinds' test helpers, for tests only", pkg)
			}
		}
	}
	for _, want := range []string{"sources/template", "sources/dataset", "sources/ranking", "sources/memory", "sources/conversation", "sources/scenario"} {
		if !slices.Contains(kinds, want) {
			t.Errorf("no package %s among %v", want, kinds)
		}
	}
}
