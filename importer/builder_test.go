package importer_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/importer"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/conversation"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/format"
)

const builderTarget = `target "bot" {
  rasa {
    url  = "http://127.0.0.1:5005"
    mode = "webhook"
  }
}
`

// A format outside this package builds its suite with the exported API
// alone: user texts are quoted for it (braces stay text, not {slot}
// placeholders; quotes and template openers escaped), one turn makes a
// template and several a conversation, a step it cannot translate is an
// error at its file:line with the --partial hint and an UNTRANSLATED
// comment where it stood, and the suite loads.
func TestBuilderSuite(t *testing.T) {
	b := importer.NewSuite("/tmp/导出/意图.tsv", "the utterance list 意图.tsv")
	b.Source("意图.tsv", []byte("订{城市}的票\tbook\n\"${x}\"\tquote\n坏行\n"))
	note := b.Untranslated("意图.tsv", 3, "坏行", "Not an utterance and an intent", "the line has no tab")
	b.Add(importer.Test{Name: "book", File: "意图.tsv", Line: 1, Turns: []importer.Turn{{
		User: "订{城市}的票", Line: 1, Expect: []importer.Expect{{Path: "$.intent.name", Value: "book"}}, Comments: []string{note},
	}}})
	b.Add(importer.Test{Name: "对话", File: "意图.tsv", Line: 2, Turns: []importer.Turn{
		{User: `"${x}" 100%{y}`, Line: 2, Contains: []string{"好的"}},
		{User: "谢谢", Line: 2, Expect: []importer.Expect{{Path: "$.intent.confidence", Value: 0.9}}},
	}})
	res, err := b.Result(importer.Features{ReplyBlocks: true}, builderTarget)
	if err != nil {
		t.Fatal(err)
	}
	if res.Templates != 1 || res.Convos != 1 || res.Turns != 3 {
		t.Errorf("counts: %d templates, %d conversations, %d turns; want 1, 1, 3", res.Templates, res.Convos, res.Turns)
	}
	if len(res.Problems) != 1 {
		t.Fatalf("problems: %v", res.Problems)
	}
	p := res.Problems[0]
	if p.Severity != hcl.DiagError || p.Subject == nil || p.Subject.Filename != "意图.tsv" || p.Subject.Start.Line != 3 ||
		!strings.Contains(p.Detail, `"坏行" cannot be translated: the line has no tab.`) || !strings.Contains(p.Detail, "--partial") {
		t.Errorf("problem: %s at %v: %s", p.Summary, p.Subject, p.Detail)
	}
	if w := res.Warnings()[0]; !strings.Contains(w.Detail, "UNTRANSLATED comment") {
		t.Errorf("the --partial warning: %s", w.Detail)
	}
	out := string(res.Files["意图.nlutest.hcl"])
	for _, want := range []string{
		`text = "订{{城市}}的票"`, `"$.intent.name" = "book"`, "# UNTRANSLATED 意图.tsv:3 坏行 (the line has no tab)",
		`conversation "对话"`, `user = "\"$${{x}}\" 100%%{{y}}"`, `contains = ["好的"]`, "# from 意图.tsv:2",
		"1 step could not be translated",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the suite lacks %s:\n%s", want, out)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "意图.nlutest.hcl"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}, conversation.Kind{}}})
	if s == nil || diags.HasErrors() {
		t.Fatalf("the suite does not load: %v\n%s", diags, out)
	}
	if fmtd, d := format.FormatSource([]byte(out), "x.nlutest.hcl"); d.HasErrors() || string(fmtd) != out {
		t.Errorf("the suite is not in the canonical layout")
	}
	var texts []string
	if err := s.Generate(spec.GenOptions{}, func(c *schema.Case) error { texts = append(texts, c.Text); return nil }); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(texts, "|"); got != `订{城市}的票|"${x}" 100%{y}|谢谢` {
		t.Errorf("the suite sends %q", got)
	}

	// A suite of no test with a turn is refused, with the problems.
	empty := importer.NewSuite("空.tsv", "an empty list")
	empty.Untranslated("空.tsv", 1, "x", "Not an utterance and an intent", "the line has no tab")
	_, err = empty.Result(importer.Features{}, builderTarget)
	var ie *importer.InputError
	if !errors.As(err, &ie) || len(ie.Diags) != 2 || ie.Diags[1].Summary != "Nothing to import" {
		t.Errorf("an empty suite: %v", err)
	}
}
