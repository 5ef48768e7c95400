package targets

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

func TestKindsInMessageOrder(t *testing.T) {
	var names []string
	for _, k := range Kinds() {
		names = append(names, k.Name())
	}
	if got := strings.Join(names, " "); !strings.HasPrefix(got, "http rasa exec replay demo") {
		t.Errorf("kinds %q: the built-in kinds come first, in the order diagnostics list them", got)
	}
}

// Two kinds of one name are a mistake of the program that loads the
// suite: Load says so instead of letting the second shadow the first.
func TestKindTwiceIsRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s"+spec.FileSuffix), []byte(suiteSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}}, TargetKinds: Decoders(append(DefaultKinds(), httpKind{}))})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), `target kind "http" is given twice`) {
		t.Errorf("a second http kind: %v", diags)
	}
}

func load(t *testing.T, src string, kinds []spec.TargetKind) *spec.Suite {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s"+spec.FileSuffix), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}}, TargetKinds: kinds})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s
}

const suiteSrc = `
suite "s" {}
variable "dir" { default = "tools" }
target "t" {
  exec {
    command = ["sh", "-c", "cat"]
    dir     = var.dir
    env     = { A = "1" }
  }
  timeout = "3s"
}
`

func TestDecodeIntoConfig(t *testing.T) {
	s := load(t, suiteSrc, Kinds())
	tg := s.Target("")
	cfg, ok := tg.Config.(*execConfig)
	if !ok {
		t.Fatalf("exec target's Config is %T", tg.Config)
	}
	if want := filepath.Join(filepath.Dir(tg.DeclRange.Filename), "tools"); cfg.Dir != want || cfg.Env["A"] != "1" || len(cfg.Command) != 3 {
		t.Errorf("exec config %+v; dir want %s (relative to the suite file)", cfg, want)
	}
	if tg.Kind != "exec" || tg.Body == nil || tg.KindRange.Start.Line != 5 || tg.Timeout.Seconds() != 3 {
		t.Errorf("target %+v", tg)
	}
}

func TestNewCallerNeedsDecodedKind(t *testing.T) {
	// Loaded without kinds, the kind block is kept but not decoded: a
	// command that calls the target must load with the Decoders of its kinds.
	s := load(t, suiteSrc, nil)
	tg := s.Target("")
	if tg.Kind != "exec" || tg.Config != nil {
		t.Fatalf("undecoded target: kind %q, config %v", tg.Kind, tg.Config)
	}
	_, err := NewCaller(context.Background(), s, tg, runner.CallerOptions{})
	if err == nil || !strings.Contains(err.Error(), "targets.Decoders") {
		t.Errorf("NewCaller of an undecoded target: %v", err)
	}
}
