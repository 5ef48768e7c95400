package spec

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/internal/cputime"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/diagfmt"
)

// loadText loads one suite file holding src.
func loadText(t *testing.T, src string) (*Suite, string, []byte) {
	t.Helper()
	dir := writeFiles(t, map[string]string{"x" + FileSuffix: src})
	s, diags := testLoad(dir, Options{})
	var out bytes.Buffer
	var sources map[string][]byte
	if s != nil {
		sources = s.Sources
	}
	diagfmt.Write(&out, diags, sources, false)
	var sums []string
	for _, d := range diags {
		sums = append(sums, d.Summary)
	}
	return s, strings.Join(sums, "|"), out.Bytes()
}

func TestHostileSuiteFiles(t *testing.T) {
	deep := func(open, close string, n int) string {
		return "suite \"x\" {}\nvariable \"v\" { default = " + strings.Repeat(open, n) + "1" + strings.Repeat(close, n) + " }\n"
	}
	tests := []struct {
		name, src string
		summary   string // wanted in the summaries; "" means no error
		maxOut    int    // bound on the printed diagnostics
	}{
		{"200 KB of [", strings.Repeat("[", 200_000), "Nesting too deep", 2000},
		{"200 KB of [[[ in an attribute", "a = " + strings.Repeat("[[[", 70_000), "Nesting too deep", 2000},
		{"!!! chain", "a = " + strings.Repeat("!", 200_000) + "true", "Nesting too deep", 2000},
		{"- - - chain", "a = " + strings.Repeat("- ", 100_000) + "1", "Nesting too deep", 2000},
		{"nested blocks", strings.Repeat("a {\n", 50_000), "Nesting too deep", 2000},
		{"nested parentheses", deep("(", ")", 150), "Nesting too deep", 2000},
		{"nested interpolations", "a = \"" + strings.Repeat("${\"", 100) + "x" + strings.Repeat("\"}", 100) + "\"", "Nesting too deep", 2000},
		{"nesting 40 deep is fine", deep("(", ")", 40), "", 0},
		{"brackets inside strings do not nest", "suite \"x\" {}\nvariable \"v\" { default = \"" + strings.Repeat("((([[[{{{", 200) + "\" }\n" +
			"variable \"w\" {\n  default = <<EOT\n" + strings.Repeat("(", 500) + "\nEOT\n}\n# " + strings.Repeat("[", 500) + "\n", "", 0},
		{"1 MB of NUL", strings.Repeat("\x00", 1<<20), "Not a text file", 2000},
		{"1 MB of garbage", strings.Repeat("@ ~ ` ", 1<<18), "Too many errors", 40_000},
		{"a 1 MB line with escapes", "a = " + strings.Repeat("\x1b[31m", 1<<17) + " @", "Nesting too deep", 40_000},
		{"escapes in a line", "a = 1 \x1b]0;x\x07\x1b[2J @", "", 40_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Hangs are what this guards against, not speed: 1 MB of
			// garbage takes 10-20 s of wall-clock time on a loaded
			// machine, so the bound is on CPU time, far above its cost.
			start := time.Now()
			cpu0, cpuOK := cputime.Process()
			_, sums, out := loadText(t, tt.src)
			cpu1, _ := cputime.Process()
			t.Logf("%s, %s of CPU time", time.Since(start).Round(time.Millisecond), (cpu1 - cpu0).Round(time.Millisecond))
			if cpuOK && cpu1-cpu0 > time.Minute {
				t.Errorf("took %s of CPU time", cpu1-cpu0)
			}
			if tt.summary == "" {
				if strings.Contains(sums, "Nesting too deep") || strings.Contains(sums, "Not a text file") {
					t.Errorf("false alarm: %s", sums)
				}
			} else if !strings.Contains(sums, tt.summary) {
				t.Errorf("diagnostics %q, want %q", sums, tt.summary)
			}
			if tt.maxOut > 0 && len(out) > tt.maxOut {
				t.Errorf("printed %d bytes of diagnostics, want at most %d", len(out), tt.maxOut)
			}
			if bytes.ContainsAny(out, "\x00\x1b") {
				t.Errorf("diagnostics quote raw control bytes:\n%.500q", out)
			}
		})
	}
}

func TestDiagnosticExcerptIsCutAndEscaped(t *testing.T) {
	src := "suite \"x\" {}\nvariable \"v\" { default = \"" + strings.Repeat("长", 5000) + "\x1b]0;pwned\x07\" + nope }\n"
	_, _, out := loadText(t, src)
	for _, line := range strings.Split(string(out), "\n") {
		if len(line) > 1000 {
			t.Errorf("an excerpt line of %d bytes", len(line))
		}
	}
	if !strings.Contains(string(out), "…") {
		t.Errorf("a cut excerpt is not marked:\n%s", out)
	}
}

func TestCRLFHeredoc(t *testing.T) {
	src := "suite \"x\" {}\r\nmaterials \"城市\" { values = [\"北京\"] }\r\ntemplate \"t\" {\r\n  text = <<EOT\r\n查{城市}天气\r\nEOT\r\n}\r\n"
	s, sums, out := loadText(t, src)
	if sums != "" {
		t.Fatalf("diagnostics:\n%s", out)
	}
	var texts []string
	if err := s.Generate(GenOptions{}, func(c *schema.Case) error { texts = append(texts, c.Text); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(texts) != 1 || texts[0] != "查北京天气\n" && texts[0] != "查北京天气" {
		t.Errorf("texts %q: a CRLF heredoc keeps \\r", texts)
	}
}

func TestMaterialAndFilePaths(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "passwd.txt")
	if err := os.WriteFile(secret, []byte("root\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	suite := func(src string) string {
		return `suite "x" {}
materials "m" { source = "` + src + `" }
template "t" { text = "{m}" }
`
	}
	dir := writeFiles(t, map[string]string{"in/ok.txt": "甲\n"})
	if err := os.Symlink(secret, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, src  string
		allow      bool
		want       string // in the diagnostics; "" for none
		wantOrigin string
	}{
		{"inside", "in/ok.txt", false, "", "in/ok.txt:1"},
		{"dot dot", "../" + filepath.Base(outside) + "/passwd.txt", false, "outside the suite directory", ""},
		{"absolute", secret, false, "outside the suite directory", ""},
		{"symlink out", "link.txt", false, "outside the suite directory", ""},
		{"symlink out, allowed", "link.txt", true, "", "link.txt:1"},
		{"absolute, allowed", secret, true, "", ""},
		{"fifo", "fifo.txt", false, "not a regular file", ""},
		{"device", "/dev/zero.txt", true, "no such file", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, "x"+FileSuffix)
			if err := os.WriteFile(p, []byte(suite(tt.src)), 0o644); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			var s *Suite
			var diags hcl.Diagnostics
			go func() { s, diags = testLoad(p, Options{AllowOutside: tt.allow}); close(done) }()
			select {
			case <-done:
			case <-time.After(3 * time.Minute): // only a blocked Load gets here
				t.Fatal("Load blocked")
			}
			got := diags.Error()
			if tt.want == "" && diags.HasErrors() || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Fatalf("diagnostics %q, want %q", got, tt.want)
			}
			if tt.wantOrigin != "" && s.Materials["m"].Values[0].Origin != tt.wantOrigin {
				t.Errorf("origin %q, want %q (relative to the suite directory)", s.Materials["m"].Values[0].Origin, tt.wantOrigin)
			}
		})
	}
}

func TestFileFunctionRules(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("hunter2"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ok"), []byte("fine"), 0o644); err != nil {
		t.Fatal(err)
	}
	fa := FileAccess{Dir: dir}
	if b, rel, err := fa.Read(dir, "ok", MaxFileBytes); err != nil || string(b) != "fine" || rel != "ok" {
		t.Errorf("inside: %q %q %v", b, rel, err)
	}
	for _, name := range []string{secret, "../" + filepath.Base(outside) + "/secret", "/dev/zero"} {
		if _, _, err := fa.Read(dir, name, MaxFileBytes); err == nil || !strings.Contains(err.Error(), "outside") {
			t.Errorf("%s: %v, want outside the suite directory", name, err)
		}
	}
	fa.AllowOutside = true
	if _, _, err := fa.Read(dir, "/dev/zero", MaxFileBytes); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("/dev/zero allowed outside: %v, want not a regular file", err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := fa.Read(dir, "big", 1024); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("over the cap: %v", err)
	}
}
