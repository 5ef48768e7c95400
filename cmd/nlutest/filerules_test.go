package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nlutest/nlutest/spec"
)

// fileRulesSuite is the suite every path attribute is tried in; PATHBLOCK
// is replaced with the block naming the path.
const fileRulesSuite = `suite "文件规则" {}
target "demo" {
  demo {}
}
materials "城市" { values = ["北京", "上海"] }
template "查天气" { text = "{城市}天气怎么样" }
PATHBLOCK
`

// pathAttr is one attribute that names a file: the block naming it (P for
// the path), the file's extension, the size cap it is read under.
type pathAttr struct {
	name, block, ext string
	limit            int64
}

var pathAttrs = []pathAttr{
	{"dataset source", "dataset \"集\" {\n  source = \"P\"\n  text   = row.text\n}", ".jsonl", spec.MaxDataBytes},
	{"materials source", "materials \"名\" { source = \"P\" }", ".txt", spec.MaxMaterialBytes},
	{"file()", "variable \"文\" { default = file(\"P\") }", ".txt", spec.MaxFileBytes},
	{"ranking source", "ranking \"排\" {\n  source = \"P\"\n  score  = 1\n}", ".jsonl", spec.MaxDataBytes},
	{"ranking qrels", "ranking \"排\" {\n  qrels = \"P\"\n  run   = \"run.txt\"\n}", ".txt", spec.MaxDataBytes},
	{"ranking run", "ranking \"排\" {\n  qrels = \"qrels.txt\"\n  run   = \"P\"\n}", ".txt", spec.MaxDataBytes},
	{"ratings source", "ratings \"评\" { source = \"P\" }", ".csv", spec.MaxDataBytes},
	{"replay source", "target \"回放\" {\n  replay { source = \"P\" }\n}", ".jsonl", spec.MaxDataBytes},
	{"http ca_file", "target \"tls\" {\n  http {\n    url     = \"https://127.0.0.1:9/x\"\n    ca_file = \"P\"\n  }\n}", ".pem", spec.MaxCertBytes},
	{"http client_cert", "target \"tls\" {\n  http {\n    url         = \"https://127.0.0.1:9/x\"\n    client_cert = \"P\"\n    client_key  = \"key.pem\"\n  }\n}", ".pem", spec.MaxCertBytes},
	{"rasa client_key", "target \"tls\" {\n  rasa {\n    url         = \"https://127.0.0.1:9\"\n    client_cert = \"cert.pem\"\n    client_key  = \"P\"\n  }\n}", ".pem", spec.MaxCertBytes},
	{"openai ca_file", "target \"tls\" {\n  openai {\n    url     = \"https://127.0.0.1:9/v1\"\n    model   = \"m\"\n    ca_file = \"P\"\n  }\n}", ".pem", spec.MaxCertBytes},
}

// fileKinds are the hostile files each attribute is tried with: a FIFO
// (it used to hang validate or run), /dev/zero through a symlink in the
// suite (a Go out-of-memory crash), a file outside the suite (read without
// --allow-outside), and a sparse file one byte over the cap.
var fileKinds = []struct {
	name, file string
	allow      bool   // with --allow-outside
	want       string // in the diagnostic
}{
	{"FIFO", "fifo", false, "named pipe (FIFO), not a regular file"},
	{"/dev/zero symlink", "zero", false, "outside the suite directory"},
	{"/dev/zero symlink, --allow-outside", "zero", true, "is a device, not a regular file"},
	{"outside file", "../outside/secret", false, "outside the suite directory"},
	{"oversize", "big", false, "over the"},
}

// TestPathAttributesFollowFileRules: every attribute that names a file a
// suite reads refuses a FIFO, a device, a path outside the suite directory
// and a file over its cap, in validate, at the attribute (file:line:col),
// with exit 2 — never a hang, a crash or a read. (The 2026-12-01 audit's
// finding H: ranking, ratings, replay, TREC and TLS paths read with
// os.Open; internal/readguard keeps new ones from doing so.)
func TestPathAttributesFollowFileRules(t *testing.T) {
	root := t.TempDir()
	dir, outside := filepath.Join(root, "suite"), filepath.Join(root, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{"run.txt": "q1 Q0 d1 1 1.0 x\n", "qrels.txt": "q1 0 d1 1\n", "key.pem": "k", "cert.pem": "c"}
	for name, body := range files {
		writeFile(t, filepath.Join(dir, name), body)
	}
	for _, a := range pathAttrs {
		t.Run(a.name, func(t *testing.T) {
			prepareHostileFiles(t, dir, outside, a)
			for _, k := range fileKinds {
				path := k.file + a.ext
				src := strings.Replace(fileRulesSuite, "PATHBLOCK", strings.Replace(a.block, "P", path, 1), 1)
				suite := filepath.Join(dir, "s.nlutest.hcl")
				writeFile(t, suite, src)
				args := []string{"validate", dir}
				if k.allow {
					args = append(args, "--allow-outside")
				}
				code, errs := runCLIWithin(t, root, args...)
				if code != ExitInvalid || !strings.Contains(errs, k.want) {
					t.Errorf("%s: exit %d, want %d with %q:\n%s", k.name, code, ExitInvalid, k.want, errs)
				}
				// At the quoted path, or at its text (file()'s argument).
				at, in := "s.nlutest.hcl:"+position(src, `"`+path+`"`), "s.nlutest.hcl:"+position(src, path)
				if !strings.Contains(errs, at) && !strings.Contains(errs, in) {
					t.Errorf("%s: the diagnostic is not at the attribute (%s):\n%s", k.name, at, errs)
				}
				if strings.Contains(errs, "TOP-SECRET") {
					t.Errorf("%s: the outside file was read:\n%s", k.name, errs)
				}
			}
		})
	}
}

// prepareHostileFiles makes fifo.EXT, zero.EXT (→ /dev/zero), big.EXT
// (one byte over the cap, sparse) in dir and outside/secret.EXT.
func prepareHostileFiles(t *testing.T, dir, outside string, a pathAttr) {
	t.Helper()
	p := func(name string) string { return filepath.Join(dir, name+a.ext) }
	for _, f := range []string{p("fifo"), p("zero"), p("big")} {
		_ = os.Remove(f)
	}
	if err := syscall.Mkfifo(p("fifo"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := os.Symlink("/dev/zero", p("zero")); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(p("big"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(a.limit + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	writeFile(t, filepath.Join(outside, "secret"+a.ext), "TOP-SECRET\n")
}

// TestVarFileFollowsFileRules: --var-file is the user's own path, so it
// may be anywhere, but it must be a regular file under 16 MiB: a FIFO
// used to hang validate, /dev/zero to crash it out of memory.
func TestVarFileFollowsFileRules(t *testing.T) {
	dir := writeSuite(t, "suite \"变量\" {}\nvariable \"城市\" { default = \"北京\" }\n")
	other := t.TempDir()
	fifoPath := filepath.Join(other, "vars.hcl")
	if err := syscall.Mkfifo(fifoPath, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	big := filepath.Join(other, "big.hcl")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(spec.MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	fine := filepath.Join(other, "fine.hcl")
	writeFile(t, fine, "城市 = \"上海\"\n")
	tests := []struct {
		name, path string
		code       int
		want       string
	}{
		{"FIFO", fifoPath, ExitInvalid, "named pipe (FIFO), not a regular file"},
		{"/dev/zero", "/dev/zero", ExitInvalid, "is a device, not a regular file"},
		{"oversize", big, ExitInvalid, fmt.Sprintf("%d bytes, over the 16 MiB limit", spec.MaxFileBytes+1)},
		{"outside the suite: the user's own path", fine, ExitPass, ""},
	}
	for _, tt := range tests {
		code, errs := runCLIWithin(t, other, "validate", dir, "--var-file", tt.path)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%s: exit %d, want %d with %q:\n%s", tt.name, code, tt.code, tt.want, errs)
		}
		if tt.want != "" && !strings.Contains(errs, "--var-file: "+tt.path) {
			t.Errorf("%s: the diagnostic does not name the flag and path:\n%s", tt.name, errs)
		}
	}
	// fmt of a FIFO named like a suite file is refused too.
	pipe := filepath.Join(other, "p.nlutest.hcl")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, errs := runCLIWithin(t, other, "fmt", pipe); code != ExitInvalid || !strings.Contains(errs, "not a regular file") {
		t.Errorf("fmt FIFO: exit %d\n%s", code, errs)
	}
}

// runCLIWithin is runCLI that fails the test, instead of hanging it, when
// the command blocks (reading a FIFO) for a minute.
func runCLIWithin(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	type result struct {
		code int
		errs string
	}
	done := make(chan result, 1)
	go func() {
		code, _, errs := runCLI(t, dir, nil, args...)
		done <- result{code, errs}
	}()
	select {
	case r := <-done:
		return r.code, r.errs
	case <-time.After(time.Minute):
		t.Fatalf("%v blocked", args)
	}
	return 0, ""
}

// position is the "line:col" of the first occurrence of sub in src.
func position(src, sub string) string {
	i := strings.Index(src, sub)
	if i < 0 {
		return "?"
	}
	line := 1 + strings.Count(src[:i], "\n")
	col := 1 + len([]rune(src[strings.LastIndex(src[:i], "\n")+1:i]))
	return fmt.Sprintf("%d:%d", line, col)
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
