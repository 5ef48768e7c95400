package extensions

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/importer"
	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// The default set has every built-in family, in the tree's order, and the
// one defined in a package of its own (assert/usage) counts: a result's
// usage reaches metrics.usage, as it did when the family lived in assert.
// A collector given no families (nil) has the tree's usage with no figures.
func TestDefaultFamilies(t *testing.T) {
	x := Default()
	// Every shape schema lists (what a reader without the program's set
	// knows) has its family, first and in that order: a shape without
	// one would be a family that never has figures.
	builtin := schema.BuiltinFamilies()
	if len(x.Families) < len(builtin) {
		t.Fatalf("%d families, want at least the %d shapes schema lists", len(x.Families), len(builtin))
	}
	for i, sh := range builtin {
		if got := x.Families[i].Shape(); got != sh {
			t.Errorf("family %d is %q, want %q: schema.BuiltinFamilies names a shape no built-in family has", i, got.Name, sh.Name)
		}
	}
	dir := t.TempDir()
	src := "suite \"用量\" {}\ntemplate \"问候\" {\n  text = \"你好\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "s"+spec.FileSuffix), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, x.LoadOptions(spec.Options{}))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	usage := func(fams assert.Families) string {
		col := assert.NewCollector(s, fams)
		ev := assert.NewEvaluator(s)
		for i, n := range []int{10, 32} {
			r := &schema.Result{Case: schema.Case{ID: string(rune('a' + i)), Text: "你好", Template: "问候", Source: "问候", SourceKind: schema.KindTemplate},
				Response: json.RawMessage(`{}`), Usage: &schema.Usage{PromptTokens: n, CompletionTokens: 5, TotalTokens: n + 5}}
			col.Add(r, ev.Evaluate(r))
		}
		b, _ := json.Marshal(assert.BuildReport(s, col, schema.RunInfo{}, "test", nil).Metrics.Families["usage"])
		return string(b)
	}
	if got := usage(x.Families); got != `{"calls":2,"prompt_tokens":42,"completion_tokens":10,"total_tokens":52}` {
		t.Errorf("metrics.usage with the default set = %s", got)
	}
	if got := usage(nil); got != "null" {
		t.Errorf("metrics.usage with assert's families alone = %s, want none", got)
	}
}

// errorsFamily is a family of this test only, defined as the recipe
// says a new built-in family is: one file with its shape beside its
// accumulator, and one line in a list (here, the test's copy of
// builtinFamilies). Its shape is in no list of schema's. It counts the
// calls that failed.
type errorsFamily struct{}

var errorsShape = &schema.Family{Name: "errors", Subs: []*schema.Sub{{
	Name: "errors", Doc: "calls without a usable response",
	Shape: &schema.Shape{Attrs: []schema.Attr{
		{Name: "calls", Kind: schema.MetricCount, Doc: "calls counted"},
		{Name: "failed", Kind: schema.MetricRatio, Doc: "calls with an error / calls"},
	}},
}}}

func (errorsFamily) Shape() *schema.Family         { return errorsShape }
func (errorsFamily) NewAcc(*spec.Suite) assert.Acc { return &errorsAcc{} }

type errorsAcc struct{ calls, failed int }

type errorsValue struct {
	Calls  int          `json:"calls"`
	Failed schema.Ratio `json:"failed"`
}

func (a *errorsAcc) Add(o *assert.Observation) {
	a.calls++
	if o.Result.Error != nil {
		a.failed++
	}
}

func (a *errorsAcc) Merge(o assert.Acc) {
	b := o.(*errorsAcc)
	a.calls, a.failed = a.calls+b.calls, a.failed+b.failed
}

func (a *errorsAcc) Fill(n *schema.Node) {
	assert.SetFamily(n, "errors", &errorsValue{a.calls, schema.R(a.failed, a.calls)})
}

// The trap of the fourth review's family recipe: a built-in family whose
// shape is not in schema.BuiltinFamilies was dropped by the default set
// without a word (validate: There is no metric "errors" here). The set
// now takes each family's shape from the family, so the one the recipe
// adds is in the tree after the listed ones: validate knows its names,
// the collector fills it and the report has its figures.
func TestFamilyWithoutSchemaShapeIsKept(t *testing.T) {
	fams := assert.InOrder(schema.BuiltinFamilies(), append(builtinFamilies(), errorsFamily{}))
	if last := fams[len(fams)-1]; last.Shape() != errorsShape {
		t.Fatalf("the last family is %q, want the new errors family after the listed ones", last.Shape().Name)
	}
	x := Default()
	x.Families = fams
	if err := x.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := "suite \"错误\" {}\ntemplate \"问候\" {\n  text = \"你好\"\n}\nthreshold \"失败\" { condition = metrics.errors.failed <= 0.5 }\n"
	if err := os.WriteFile(filepath.Join(dir, "s"+spec.FileSuffix), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, x.LoadOptions(spec.Options{}))
	if diags.HasErrors() {
		t.Fatalf("a threshold on the new family does not validate: %v", diags)
	}
	col := assert.NewCollector(s, x.Families)
	ev := assert.NewEvaluator(s)
	for i, failed := range []bool{false, true, false, false} {
		r := &schema.Result{Case: schema.Case{ID: string(rune('a' + i)), Text: "你好", Template: "问候", Source: "问候", SourceKind: schema.KindTemplate}, Response: json.RawMessage(`{}`)}
		if failed {
			r.Response, r.Error = nil, &schema.CallError{Type: schema.ErrTimeout, Message: "超时"}
		}
		col.Add(r, ev.Evaluate(r))
	}
	rep := assert.BuildReport(s, col, schema.RunInfo{}, "test", nil)
	if b, _ := json.Marshal(rep.Metrics.Families["errors"]); string(b) != `{"calls":4,"failed":{"value":0.25,"num":1,"den":4}}` {
		t.Errorf("metrics.errors = %s", b)
	}
	if len(rep.Thresholds) != 1 || rep.Thresholds[0].Outcome != schema.Pass {
		t.Errorf("the threshold on metrics.errors: %+v", rep.Thresholds)
	}
}

// Validate refuses a set whose parts clash, naming each clash: before,
// two renderers of one name crashed run, eval and merge ("flag
// redefined", internal error), and only spec.Load caught two target kinds
// of one name.
func TestSetValidate(t *testing.T) {
	csv := reporters.Renderer{Name: "csv", Help: "cases as CSV", Write: func(io.Writer, *schema.Report, reporters.Options) error { return nil }}
	for _, c := range []struct {
		name   string
		change func(x *Set)
		want   []string // "" for a set that fits
	}{
		{"the default set", func(*Set) {}, nil},
		{"a renderer of its own", func(x *Set) { x.Renderers = append(x.Renderers, csv) }, nil},
		{"two renderers of one name", func(x *Set) { x.Renderers = append(x.Renderers, csv, csv) },
			[]string{fmt.Sprintf(`renderers %d and %d are both named "csv", so both would be --report-csv`, len(reporters.DefaultRenderers())+1, len(reporters.DefaultRenderers())+2)}},
		{"a renderer named as a built-in one", func(x *Set) { r := csv; r.Name = "json"; x.Renderers = append(x.Renderers, r) },
			[]string{`are both named "json", so both would be --report-json`}},
		{"a renderer name that is no flag", func(x *Set) { r := csv; r.Name = "CSV 表"; x.Renderers = append(x.Renderers, r) },
			[]string{`is named "CSV 表": a renderer's name makes the flag --report-NAME`}},
		{"a renderer that writes nothing", func(x *Set) { r := csv; r.Write = nil; x.Renderers = append(x.Renderers, r) },
			[]string{`renderer "csv" has no Write`}},
		{"two target kinds of one name", func(x *Set) { x.Targets = append(x.Targets, x.Targets[0]) },
			[]string{fmt.Sprintf(`target kinds 1 and %d are both named "http"`, len(Default().Targets)+1)}},
		{"two families of one name", func(x *Set) { x.Families = append(x.Families, errorsFamily{}, errorsFamily{}) },
			[]string{`"errors"`}},
		{"a source kind whose block is taken", func(x *Set) { x.Sources = append(x.Sources, x.Sources[1]) },
			[]string{`source kind "dataset": the block type is taken`}},
		{"a family's settings block named as a language block", func(x *Set) { x.Families = append(x.Families, settingsFamily{"threshold"}) },
			[]string{`the settings block "threshold" is already a block of the suite language`}},
		{"a family's settings block named as a built-in family's", func(x *Set) { x.Families = append(x.Families, settingsFamily{"text_metrics"}) },
			[]string{`the settings block "text_metrics" is already another family's settings block`}},
		{"a family's settings block named as a source kind", func(x *Set) { x.Families = append(x.Families, settingsFamily{"dataset"}) },
			[]string{`the settings block "dataset" is already a case source kind's block`}},
		{"a family's settings block of its own", func(x *Set) { x.Families = append(x.Families, settingsFamily{"errors"}) }, nil},
		{"two importers of one name", func(x *Set) { x.Importers = append(x.Importers, x.Importers[0]) },
			[]string{fmt.Sprintf("importers 1 and %d are both named \"botium\", so both would be `import botium`", len(importer.DefaultFormats())+1)}},
		{"three problems at once", func(x *Set) {
			x.Renderers = append(x.Renderers, csv, csv)
			x.Targets = append(x.Targets, x.Targets[0])
			x.Sources = append(x.Sources, x.Sources[0])
		}, []string{`both named "csv"`, `both named "http"`, `source kind "template"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := Default()
			c.change(x)
			err := x.Validate()
			if len(c.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}

// settingsFamily is errorsFamily with a settings block of the given type.
type settingsFamily struct{ block string }

func (settingsFamily) Shape() *schema.Family           { return errorsFamily{}.Shape() }
func (settingsFamily) NewAcc(s *spec.Suite) assert.Acc { return errorsFamily{}.NewAcc(s) }
func (f settingsFamily) Settings() spec.SettingsBlock  { return blockOnly(f.block) }

// blockOnly is a settings block that takes no attributes.
type blockOnly string

func (b blockOnly) Block() string { return string(b) }
func (blockOnly) Default() any    { return nil }
func (blockOnly) Decode(d *spec.Decoder, b *hcl.Block) any {
	d.Content(b, &hcl.BodySchema{})
	return nil
}
