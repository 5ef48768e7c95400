package main

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nlutest/nlutest/importer"
	"github.com/nlutest/nlutest/spec"
)

// A test-only import format, added as a new format is: this file and the
// one line in testExtensions (extensions_test.go). It reads a labelled
// utterance list, one "utterance<TAB>intent" a line (blank lines and #
// comments skipped), as many NLU consoles export it; each line becomes a
// template expecting its intent, checked against the test-only echo
// target:
//
//	nlutest import tsv 意图.tsv -o SUITE_DIR

type tsvFormat struct{}

func (tsvFormat) Name() string { return "tsv" }
func (tsvFormat) Args() string { return "FILE" }
func (tsvFormat) Help() string { return "a suite from an utterance<TAB>intent list (test-only)" }

// tsvTarget answers every case with the intent greet (echoKind).
const tsvTarget = `target "回声" {
  echo {
    intent = "greet"
  }
}
`

func (tsvFormat) Read(args []string, o importer.Options) (*importer.Result, []importer.Skipped, error) {
	if len(args) != 1 {
		return nil, nil, &importer.ArgError{Msg: fmt.Sprintf("import tsv takes one file, got %d paths", len(args))}
	}
	src, _, err := spec.OwnFiles.Read("", args[0], importer.MaxImportBytes)
	if err != nil {
		return nil, nil, err
	}
	name := filepath.Base(args[0])
	b := importer.NewSuite(args[0], "the utterance list "+name)
	b.Source(name, src)
	// A line that is not one is noted above the next test (the last
	// test, after the last line).
	var tests []importer.Test
	var notes []string
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, len(src)+1)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		text, intent, ok := strings.Cut(line, "\t")
		text, intent = strings.TrimSpace(text), strings.TrimSpace(intent)
		if !ok || text == "" || intent == "" {
			notes = append(notes, b.Untranslated(name, n, line, "Not an utterance and an intent", `the line is not "utterance<TAB>intent"`))
			continue
		}
		tests = append(tests, importer.Test{Name: intent, File: name, Line: n, Comments: notes, Turns: []importer.Turn{{
			User: text, Line: n, Expect: []importer.Expect{{Path: "$.intent.name", Value: intent}},
		}}})
		notes = nil
	}
	if len(tests) > 0 {
		last := &tests[len(tests)-1]
		last.Comments = append(last.Comments, notes...)
	}
	for _, t := range tests {
		b.Add(t)
	}
	res, err := b.Result(o.Features, tsvTarget)
	return res, nil, err
}
