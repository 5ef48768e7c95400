package format

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/spec"
)

func TestFormatSource(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "fmt", "messy.input.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	out, diags := FormatSource(src, "messy.input.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	golden(t, filepath.Join("fmt", "messy.golden.hcl"), out)
	again, _ := FormatSource(out, "messy.golden.hcl")
	if !bytes.Equal(again, out) {
		t.Errorf("formatting twice differs from once:\n%s\n---\n%s", out, again)
	}
	for _, c := range commentLines(src) {
		if !bytes.Contains(out, []byte(c)) {
			t.Errorf("comment %q lost", c)
		}
	}

	// A BOM and CRLF line ends stay as they were.
	crlf := append([]byte("\xef\xbb\xbf"), bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))...)
	got, diags := FormatSource(crlf, "crlf.nlutest.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	want := append([]byte("\xef\xbb\xbf"), bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))...)
	if !bytes.Equal(got, want) {
		t.Errorf("CRLF+BOM file:\n%q\nwant\n%q", got, want)
	}
}

func TestFormatSourceBroken(t *testing.T) {
	src := []byte("suite \"坏\" {\n  description = \"未闭合\n}\n")
	out, diags := FormatSource(src, "bad.nlutest.hcl")
	if !diags.HasErrors() {
		t.Fatal("no diagnostics for a file that does not parse")
	}
	if !bytes.Equal(out, src) {
		t.Error("a broken file was changed")
	}
	d := diags[0]
	if d.Subject == nil || d.Subject.Filename != "bad.nlutest.hcl" || d.Subject.Start.Line != 2 {
		t.Errorf("diagnostic %+v does not point at bad.nlutest.hcl:2", d)
	}
}

// TestFormatExampleSuites: every example suite is formatted, and formatting
// it again changes nothing, byte for byte.
func TestFormatExampleSuites(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "suites", "*", "*"+spec.FileSuffix))
	presets, _ := filepath.Glob(filepath.Join("..", "..", "schema", "presets", "*"+spec.FileSuffix))
	files = append(files, presets...)
	if len(files) < 3 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		once, diags := FormatSource(src, f)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", f, diags.Error())
		}
		twice, _ := FormatSource(once, f)
		if !bytes.Equal(once, twice) {
			t.Errorf("%s: fmt is not idempotent", f)
		}
		for _, c := range commentLines(src) {
			if !bytes.Contains(once, []byte(c)) {
				t.Errorf("%s: comment %q lost", f, c)
			}
		}
	}
}

var commentRE = regexp.MustCompile(`(#|//)[^\n]*|/\*(?s:.*?)\*/`)

// commentLines returns the text of every comment of src (approximately:
// '#' inside strings counts too, which only makes the check stricter).
func commentLines(src []byte) []string {
	var out []string
	for _, m := range commentRE.FindAll(src, -1) {
		out = append(out, strings.TrimSpace(string(m)))
	}
	return out
}

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./spec/format -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./spec/format -update refreshes it)\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}
