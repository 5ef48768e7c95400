package reporters

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./reporters -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./reporters -update rewrites it after review)\n--- got ---\n%s", path, got)
	}
}

type renderCase struct {
	golden string
	render func(*bytes.Buffer) error
}

func renderCases() []renderCase {
	return renderCasesOf(func(r *schema.Report) *schema.Report { return r })
}

// renderCasesOf is renderCases with each report (baselines too) passed
// through conv first.
func renderCasesOf(conv func(*schema.Report) *schema.Report) []renderCase {
	pass, fail, qs := conv(iaoPass()), conv(iaoFail()), conv(quickstart())
	rep, gated := conv(repeatRun()), conv(repeatGated())
	console := func(r *schema.Report, o Options) func(*bytes.Buffer) error {
		return func(b *bytes.Buffer) error { return Console(b, r, o) }
	}
	junit := func(r *schema.Report, o Options) func(*bytes.Buffer) error {
		return func(b *bytes.Buffer) error { return JUnit(b, r, o) }
	}
	md := func(r *schema.Report, o Options) func(*bytes.Buffer) error {
		return func(b *bytes.Buffer) error { return Markdown(b, r, o) }
	}
	page := func(r *schema.Report, o Options) func(*bytes.Buffer) error {
		return func(b *bytes.Buffer) error { return HTML(b, r, o) }
	}
	js := func(r *schema.Report) func(*bytes.Buffer) error {
		return func(b *bytes.Buffer) error { return JSON(b, r) }
	}
	return []renderCase{
		{"iao_pass.console.txt", console(pass, Options{})},
		{"iao_pass.console-color.txt", console(pass, Options{Color: true})},
		{"iao_pass.junit.xml", junit(pass, Options{})},
		{"iao_pass.junit-cases.xml", junit(pass, Options{JUnitCases: true})},
		{"iao_pass.md", md(pass, Options{})},
		{"iao_pass.json", js(pass)},
		{"iao_pass.html", page(pass, Options{})},

		{"iao_fail.console.txt", console(fail, Options{})},
		{"iao_fail.baseline.console.txt", console(fail, Options{Baseline: pass, MaxFailures: 3})},
		{"iao_fail.junit.xml", junit(fail, Options{})},
		{"iao_fail.md", md(fail, Options{})},
		{"iao_fail.baseline.md", md(fail, Options{Baseline: pass, MaxFailures: 3})},
		{"iao_fail.json", js(fail)},
		{"iao_fail.baseline.html", page(fail, Options{Baseline: pass})},

		{"quickstart.console.txt", console(qs, Options{})},
		{"quickstart.junit.xml", junit(qs, Options{})},
		{"quickstart.md", md(qs, Options{})},
		{"quickstart.json", js(qs)},
		{"quickstart.html", page(qs, Options{})},

		{"repeat.console.txt", console(rep, Options{})},
		{"repeat.junit.xml", junit(rep, Options{})},
		{"repeat.junit-cases.xml", junit(gated, Options{JUnitCases: true})},
		{"repeat.md", md(rep, Options{})},
		{"repeat.json", js(rep)},
		{"repeat.html", page(gated, Options{})},
	}
}

func TestGolden(t *testing.T) {
	for _, rc := range renderCases() {
		t.Run(rc.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := rc.render(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, rc.golden, b.Bytes())
			// Rendering is deterministic: a second run gives the same bytes
			// (map keys are sorted, never iterated in map order).
			var again bytes.Buffer
			if err := rc.render(&again); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), again.Bytes()) {
				t.Errorf("two renderings differ")
			}
		})
	}
}
