package spec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/spec/turnstream"
)

// This file is the loader's glue to package turnstream (issue 35): the
// turn blocks of a long file's conversations are read in batches. The
// batches are parsed once first, before anything is decoded, so a syntax
// error in a turn is found as the whole-file parse finds it. When the
// skim cannot follow a file, or any batch or the masked file has a syntax
// error, the file is parsed whole: its diagnostics are HCL's own.

// streamTurns turns the streaming on (tests compare it with the whole
// parse).
var streamTurns = true

// streamKey names a conversation block by where it starts.
type streamKey struct {
	file string
	at   int
}

// parseStreamed parses a suite file with the turn blocks of its
// conversations streamed: the file's body without them (masked), and
// their batches parsed once to find syntax errors and check the names
// they call (checkEnvCalls, checkFunctionNames; those diagnostics are
// turnDiags). ok is false when there is nothing to stream, the skim
// cannot follow the file or any part has a syntax error: readFile then
// parses the file whole, and a file with syntax errors block by block
// (recover.go), so its diagnostics are exactly those of an unstreamed
// load.
func (l *loader) parseStreamed(src []byte, name string) (body *hclsyntax.Body, diags, turnDiags hcl.Diagnostics, ok bool) {
	if !streamTurns {
		return nil, nil, nil, false
	}
	streams, masked := turnstream.Skim(src, name)
	if len(streams) == 0 {
		return nil, nil, nil, false
	}
	file, diags := hclsyntax.ParseConfig(masked, name, hcl.Pos{Line: 1, Column: 1})
	body, isBody := file.Body.(*hclsyntax.Body)
	if diags.HasErrors() || !isBody {
		return nil, nil, nil, false
	}
	envMark := len(l.envCalls)
	outer := l.diags
	l.diags = nil
	defer func() { l.diags = outer }()
	for _, ts := range streams {
		for i := range ts.Batches() {
			_, batch, bd := ts.Parse(i)
			if bd.HasErrors() {
				l.envCalls = l.envCalls[:envMark]
				return nil, nil, nil, false
			}
			diags = append(diags, bd...)
			l.checkEnvCalls(batch)
			l.checkFunctionNames(batch)
		}
	}
	if l.streams == nil {
		l.streams = map[streamKey]*turnstream.Stream{}
	}
	for _, ts := range streams {
		l.streams[streamKey{ts.File(), ts.At()}] = ts
	}
	return body, diags, l.diags, true
}
