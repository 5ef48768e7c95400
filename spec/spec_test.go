package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
)

func TestParsePlaceholders(t *testing.T) {
	cases := []struct {
		in      string
		lits    []string
		keys    []string
		wantErr string
	}{
		{in: "{查询操作}{手机号11位}的{伴随关系}人员", lits: []string{"", "", "的", "人员"}, keys: []string{"查询操作", "手机号11位", "伴随关系"}},
		{in: "从{城市}到{城市#2}", lits: []string{"从", "到", ""}, keys: []string{"城市", "城市#2"}},
		{in: "literal {{braces}} only", lits: []string{"literal {braces} only"}},
		{in: "no placeholders", lits: []string{"no placeholders"}},
		{in: "open {城市", wantErr: "unterminated"},
		{in: "empty {} here", wantErr: "empty placeholder"},
		{in: "stray } brace", wantErr: "unmatched }"},
		{in: "{城市#x}", wantErr: "draw number"},
		{in: "{城市#0}", wantErr: "draw number"},
	}
	for _, c := range cases {
		lits, phs, err := ParsePlaceholders(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q: error %v, want one containing %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if strings.Join(lits, "|") != strings.Join(c.lits, "|") {
			t.Errorf("%q: literals %q, want %q", c.in, lits, c.lits)
		}
		var keys []string
		for _, p := range phs {
			keys = append(keys, p.Key)
		}
		if strings.Join(keys, "|") != strings.Join(c.keys, "|") {
			t.Errorf("%q: keys %q, want %q", c.in, keys, c.keys)
		}
	}
	_, phs, _ := ParsePlaceholders("从{城市}到{城市#2}")
	if phs[1].Material != "城市" || phs[1].Draw != 2 {
		t.Errorf("{城市#2} parsed as %+v", phs[1])
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func findDiag(diags hcl.Diagnostics, summary string) *hcl.Diagnostic {
	for _, d := range diags {
		if d.Summary == summary {
			return d
		}
	}
	return nil
}

func TestMaterialSources(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"s.nlutest.hcl": `
suite "素材" { schema = "iao" }
materials "城市" { source = "m/cities.txt" }
materials "关系" { source = "m/rel.csv" }
materials "姓名" { source = "m/names.jsonl" }
template "t" { text = "{城市}{关系}{姓名}" }
`,
		"m/cities.txt":  "# 城市\n北京\n\n上海\r\n北京\n",
		"m/rel.csv":     "value,level,normalize.IAO,tags\n酒店同房间,M1,酒店同房间同宿,住宿|伴随\n同行,M2,,\n",
		"m/names.jsonl": "{\"value\": \"张三\", \"level\": \"M2\"}\n{\"value\": \"李四\", \"normalize\": {\"IAO\": \"李四\"}}\n",
	})
	s, diags := testLoad(dir, Options{})
	if diags.HasErrors() {
		t.Fatalf("unexpected errors: %v", diags)
	}
	if d := findDiag(diags, "Duplicate material value"); d == nil || d.Subject.Start.Line != 5 {
		t.Errorf("want a duplicate warning on line 5 of cities.txt, got %v", diags)
	}
	c := s.Materials["城市"]
	if len(c.Values) != 2 || c.Values[1].Value != "上海" || c.Values[1].Origin != "m/cities.txt:4" {
		t.Errorf("cities: %+v", c.Values)
	}
	r := s.Materials["关系"].Values
	if len(r) != 2 || r[0].Normalize["iao"] != "酒店同房间同宿" || r[0].Level != "M1" || strings.Join(r[0].Tags, ",") != "住宿,伴随" {
		t.Errorf("csv: %+v", r)
	}
	n := s.Materials["姓名"].Values
	if len(n) != 2 || n[0].Level != "M2" || n[1].Normalize["iao"] != "李四" {
		t.Errorf("jsonl: %+v", n)
	}
}

func TestBadMaterialRows(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"s.nlutest.hcl": `
suite "坏素材" {}
materials "关系" { source = "rel.csv" }
materials "姓名" { source = "names.jsonl" }
materials "无" { source = "missing.txt" }
template "t" { text = "{关系}{姓名}{无}" }
`,
		"rel.csv":     "value,level\n酒店同房间,M1\n\"unterminated,M2\n",
		"names.jsonl": "{\"value\": \"张三\"}\n{\"value\": 3}\n{\"name\": \"李四\"}\nnot json\n",
	})
	_, diags := testLoad(dir, Options{})
	want := map[string]int{"rel.csv": 3, "names.jsonl": 2}
	for file, line := range want {
		found := false
		for _, d := range diags {
			if d.Subject != nil && strings.HasSuffix(d.Subject.Filename, file) && d.Subject.Start.Line == line && d.Severity == hcl.DiagError {
				found = true
			}
		}
		if !found {
			t.Errorf("no error at %s:%d in %v", file, line, diags)
		}
	}
	if d := findDiag(diags, "Cannot read materials file"); d == nil || d.Subject == nil || !strings.HasSuffix(d.Subject.Filename, "s.nlutest.hcl") {
		t.Errorf("a missing source file should point at the source attribute: %v", d)
	}
	var jsonlLines []int
	for _, d := range diags {
		if d.Subject != nil && strings.HasSuffix(d.Subject.Filename, "names.jsonl") {
			jsonlLines = append(jsonlLines, d.Subject.Start.Line)
		}
	}
	if len(jsonlLines) != 3 {
		t.Errorf("want 3 bad jsonl rows (2, 3, 4) reported in one pass, got lines %v", jsonlLines)
	}
}

func TestVariablePrecedence(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"s.nlutest.hcl": `
suite "变量" {}
variable "url" { default = "http://default" }
variable "token" {
  default   = env("TOKEN", "none")
  sensitive = true
}
variable "rate" { default = 2 }
target "t" {
  http { url = var.url }
  rate = var.rate
}
`,
		"vars.hcl": "url = \"http://file\"\nrate = 5\n",
	})
	env := map[string]string{"TOKEN": "s3cret-token", "NLUTEST_VAR_url": "http://env"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	s, diags := testLoad(dir, Options{Env: lookup})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := s.Vars["url"].AsString(); got != "http://env" {
		t.Errorf("env should override default: %s", got)
	}
	if s.Vars["token"].AsString() != "s3cret-token" || len(s.Secrets) != 1 {
		t.Errorf("env() in default: %v, secrets %v", s.Vars["token"], s.Secrets)
	}
	s, diags = testLoad(dir, Options{Env: lookup, VarFiles: []string{filepath.Join(dir, "vars.hcl")}, Vars: []string{"rate=7"}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if s.Vars["url"].AsString() != "http://file" {
		t.Errorf("var file should override env: %v", s.Vars["url"])
	}
	if r := s.Targets[0].Rate; r != 7 {
		t.Errorf("--var should override the var file and convert to a number: rate %v", r)
	}
	_, diags = testLoad(dir, Options{Vars: []string{"urll=x", "rate=fast"}})
	if d := findDiag(diags, "Undeclared variable"); d == nil || !strings.Contains(d.Detail, `Did you mean "url"`) {
		t.Errorf("want an undeclared variable diagnostic with did-you-mean, got %v", diags)
	}
	if d := findDiag(diags, "Invalid variable value"); d == nil {
		t.Errorf("rate=fast should not convert to a number: %v", diags)
	}
}

func TestEnvOnlyInDefaults(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.nlutest.hcl": `
suite "环境" {}
target "t" {
  http { url = env("URL") }
}
`})
	_, diags := testLoad(dir, Options{})
	d := findDiag(diags, "env() outside a variable default")
	if d == nil || d.Subject.Start.Line != 4 {
		t.Fatalf("want env() rejected at line 4, got %v", diags)
	}
}

func TestExpectPlaceholdersResolveNormalized(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.nlutest.hcl": `
suite "归一化" { schema = "IAO" }
materials "伴随关系" {
  value "酒店同房间" {
    normalize = { iao = "酒店同房间同宿" }
  }
  value "同行" {}
}
template "t" {
  text = "查询{伴随关系}人员"
  expect = {
    "$.data.[0].content.rel.[0].rel.[0].relName" = "{伴随关系}"
    "$.code" = 200
    "$.list" = ["{伴随关系}", "x{{y}}"]
  }
}
`})
	s, diags := testLoad(dir, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got []*schema.Case
	if err := s.Generate(GenOptions{}, func(c *schema.Case) error { got = append(got, c); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("want 2 cases, got %d", len(got))
	}
	c := got[0]
	if c.Text != "查询酒店同房间人员" || c.Expect[0].Path != "$.data[0].content.rel[0].rel[0].relName" || c.Expect[0].Value != "酒店同房间同宿" {
		t.Errorf("case 0: %q %+v", c.Text, c.Expect)
	}
	if v, ok := c.Expect[1].Value.(int64); !ok || v != 200 {
		t.Errorf("numbers stay numbers: %#v", c.Expect[1].Value)
	}
	if l, ok := c.Expect[2].Value.([]any); !ok || l[0] != "酒店同房间同宿" || l[1] != "x{y}" {
		t.Errorf("lists resolve placeholders and escapes: %#v", c.Expect[2].Value)
	}
	if got[1].Expect[0].Value != "同行" {
		t.Errorf("without normalize the raw value is expected: %v", got[1].Expect[0].Value)
	}
}

func TestFractionSplitsPartition(t *testing.T) {
	src := `
suite "划分" {}
materials "n" { values = [%s] }
template "t" { text = "{n}" }
split "train" { fraction = 0.8 }
split "dev"   { fraction = 0.1 }
split "test"  { fraction = 0.1 }
`
	var vals []string
	for i := range 1000 {
		vals = append(vals, `"v`+strings.Repeat("x", i%7)+string(rune('a'+i%26))+itoa(i)+`"`)
	}
	dir := writeFiles(t, map[string]string{"s.nlutest.hcl": strings.Replace(src, "%s", strings.Join(vals, ","), 1)})
	s, diags := testLoad(dir, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	counts := map[string]int{}
	if err := s.Generate(GenOptions{}, func(c *schema.Case) error {
		if len(c.Split) != 1 {
			t.Fatalf("case %s in %d splits; train/dev/test must partition", c.ID, len(c.Split))
		}
		counts[c.Split[0]]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if counts["train"] < 760 || counts["train"] > 840 || counts["dev"] < 70 || counts["test"] < 70 {
		t.Errorf("80/10/10 split of 1000 cases came out %v", counts)
	}
}

// itoa writes i's last three digits, zero-padded ("007").
func itoa(i int) string { return fmt.Sprintf("%03d", i%1000) }

// loadAnnotSuite loads the suite file src, failing the test on an error.
func loadAnnotSuite(t *testing.T, src string) *Suite {
	t.Helper()
	dir := writeFiles(t, map[string]string{"s.nlutest.hcl": src})
	s, diags := testLoad(dir, Options{})
	if diags.HasErrors() {
		t.Fatalf("load: %s", diags.Error())
	}
	return s
}
