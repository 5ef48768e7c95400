package annotate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/format"
)

// draftFixture is a hand-made draft of the IAO corpus-factory write-up's example, with a note and
// a disagreement, for the rendering and editing tests.
func draftFixture() *Draft {
	return &Draft{
		Template: &spec.Template{Name: "hotel-roommates"},
		Samples:  []*schema.Case{{ID: "6d47b2342ceb4c34", Text: "查询13301791708的酒店同房间人员"}},
		Usable:   1,
		Probes:   2,
		Notes:    []string{`disagreement: $.data[0].content.rel[0].relIdx is [0, "13-19"] in case a, [0, "14-19"] in case b`},
		Entries: []DraftEntry{
			{Path: "$.code", Value: int64(200)},
			{Path: "$.data[0].content.des.phone_number", Value: "{手机号11位}", Placeholders: 1},
			{Path: "$.data[0].content.rel[0].ont", Value: []any{"SIM_Card", "Person"}},
			{Path: "$.data[0].content.rel[0].rel[0].relName", Value: "{伴随关系}", Placeholders: 1},
			{Path: "$.data[0].content_op", Value: "查询", Notes: []string{`$.data[0].content_op: kept literal "查询": it equals {查询操作} here, but the answer stayed the same with {查询操作} = 查一下`}},
			{Path: "$.data[0].tpl", Value: "${{x}} %{{y}} {{z}}"},
		},
	}
}

func TestSetTemplateExpect(t *testing.T) {
	path := filepath.Join("testdata", "annotate", "commented.nlutest.hcl")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := draftFixture()
	header := []string{"drafted by nlutest annotate from target \"demo\" (1 sample, 2 probe calls)", "sample 6d47b2342ceb4c34: \"查询13301791708的酒店同房间人员\""}
	out, err := SetTemplateExpect(src, path, "hotel-roommates", d, header)
	if err != nil {
		t.Fatal(err)
	}
	d2 := draftFixture()
	d2.Template = &spec.Template{Name: "without-expect"}
	d2.Entries = d2.Entries[:2]
	d2.Notes = nil
	out, err = SetTemplateExpect(out, path, "without-expect", d2, header[:1])
	if err != nil {
		t.Fatal(err)
	}
	annotGolden(t, filepath.Join("annotate", "commented.golden.hcl"), out)

	// Every comment of the original is still there.
	for _, c := range commentLines(src) {
		if !bytes.Contains(out, []byte(c)) {
			t.Errorf("comment %q lost", c)
		}
	}
	// Everything outside the two edited templates is byte for byte the same.
	before, _, _ := bytes.Cut(src, []byte("// the template under review"))
	if !bytes.HasPrefix(out, before) {
		t.Error("the part before the template changed")
	}
	if !bytes.HasSuffix(out, []byte("}\n\n# trailing comment at the end of the file\n")) {
		t.Error("the end of the file changed")
	}

	// The edited file loads, with the drafted expectations, unreviewed.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}}})
	if diags.HasErrors() {
		t.Fatalf("the edited suite does not load:\n%s", diags.Error())
	}
	for _, tm := range s.Templates {
		if tm.Reviewed {
			t.Errorf("template %s: reviewed, want false", tm.Name)
		}
	}
	tm := s.Templates[0]
	if len(tm.Expect) != len(d.Entries) {
		t.Fatalf("loaded %d expectations, want %d", len(tm.Expect), len(d.Entries))
	}
	for i, e := range tm.Expect {
		if e.Path != d.Entries[i].Path {
			t.Errorf("expect %d: path %s, want %s", i, e.Path, d.Entries[i].Path)
		}
		if got := spec.GenericValue(e.Value); format.Value(got) != format.Value(d.Entries[i].Value) {
			t.Errorf("expect %s = %s, want %s", e.Path, format.Value(got), format.Value(d.Entries[i].Value))
		}
	}

	// Annotating again gives the same file: annotate's own comments are
	// replaced, not piled up, and the user's stay once.
	again, err := SetTemplateExpect(out, path, "hotel-roommates", d, header)
	if err != nil {
		t.Fatal(err)
	}
	again, err = SetTemplateExpect(again, path, "without-expect", d2, header[:1])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, out) {
		t.Errorf("a second annotate --write changed the file:\n%s", again)
	}

	// CRLF line ends and a BOM are kept.
	crlf := append([]byte("\xef\xbb\xbf"), bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))...)
	got, err := SetTemplateExpect(crlf, path, "hotel-roommates", d, header)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := SetTemplateExpect(src, path, "hotel-roommates", d, header)
	if want := append([]byte("\xef\xbb\xbf"), bytes.ReplaceAll(first, []byte("\n"), []byte("\r\n"))...); !bytes.Equal(got, want) {
		t.Error("CRLF/BOM file: line ends or BOM not kept")
	}

	if _, err := SetTemplateExpect(src, path, "hotel-roomates", d, header); err == nil || !strings.Contains(err.Error(), `no template "hotel-roomates"`) {
		t.Errorf("unknown template: %v", err)
	}
}

func TestUpdateAnnotations(t *testing.T) {
	d := draftFixture()
	hdr := func(*Draft) []string { return []string{"drafted by nlutest annotate for s.nlutest.hcl:15"} }
	out, err := UpdateAnnotations(nil, "s.annotations.hcl", []string{"Expectations drafted by `nlutest annotate`."}, []*Draft{d}, hdr)
	if err != nil {
		t.Fatal(err)
	}
	other := draftFixture()
	other.Template = &spec.Template{Name: "订机票"}
	other.Entries = []DraftEntry{{Path: "$.intent.name", Value: "book_flight"}}
	other.Notes = nil
	out2, err := UpdateAnnotations(out, "s.annotations.hcl", nil, []*Draft{other}, hdr)
	if err != nil {
		t.Fatal(err)
	}
	// Replacing the first template's draft keeps the second.
	d.Entries = d.Entries[:1]
	out3, err := UpdateAnnotations(out2, "s.annotations.hcl", nil, []*Draft{d}, hdr)
	if err != nil {
		t.Fatal(err)
	}
	annotGolden(t, filepath.Join("annotate", "annotations.golden.hcl"), out3)
	if !bytes.Contains(out3, []byte(`template "订机票"`)) || bytes.Contains(out3, []byte("phone_number")) {
		t.Errorf("update did not replace one block and keep the other:\n%s", out3)
	}
	if n := bytes.Count(out3, []byte("Expectations drafted by")); n != 1 {
		t.Errorf("file header %d times", n)
	}
	if _, err := UpdateAnnotations([]byte("template {"), "s.annotations.hcl", nil, []*Draft{d}, hdr); err == nil {
		t.Error("a broken annotations file was overwritten")
	}
	if _, diags := format.FormatSource(out3, "x"); diags.HasErrors() {
		t.Error(diags.Error())
	}
}

func TestSetTemplateExpectSingleLineBlocks(t *testing.T) {
	src := "materials \"城市\" { values = [\"北京\", \"上海\"] }\ntemplate \"单行\" { text = \"去{城市}\" } # 单行模板\ntemplate \"空\" { text = \"空\" }\n"
	d := &Draft{Template: &spec.Template{Name: "单行"}, Entries: []DraftEntry{{Path: "$.intent", Value: "去{城市}"}}}
	out, err := SetTemplateExpect([]byte(src), "s.nlutest.hcl", "单行", d, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "materials \"城市\" { values = [\"北京\", \"上海\"] }\ntemplate \"单行\" {\n  text = \"去{城市}\"\n  expect = {\n    \"$.intent\" = \"去{城市}\"\n  }\n  reviewed = false\n} # 单行模板\ntemplate \"空\" { text = \"空\" }\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	dir := writeFiles(t, map[string]string{"s.nlutest.hcl": string(out)})
	if _, diags := spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}}}); diags.HasErrors() {
		t.Errorf("does not load: %s", diags.Error())
	}
}
