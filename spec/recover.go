package spec

import (
	"bytes"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// This file keeps a load going past a block it cannot read, so that one
// validate reports every independent mistake (docs/language.md, "What
// validate reports"):
//
//   - HCL's parser reports only the first syntax error of a file (it
//     stays in recovery mode after it) and misreads what follows an
//     unclosed quote or a stray brace. A file with syntax errors is parsed
//     again top-level block by top-level block (parseBlocks), so every
//     block's first syntax error is reported, once, and the blocks without
//     one are decoded and checked as usual.
//   - A block that could not be read at all (a syntax error in it, or its
//     file is not text) is recorded as broken by type and name
//     (markBroken): a reference to it (a {placeholder} naming broken
//     materials, var.NAME of a broken variable, a threshold naming a broken
//     template or split, a targets list naming a broken target) is not
//     reported again as unknown, since fixing the block fixes it.

// markBroken records that the block typ NAME has a mistake already
// reported that left it unread or unusable.
func (l *loader) markBroken(typ, name string) {
	if l.broken == nil {
		l.broken = map[string][]string{}
	}
	if !slices.Contains(l.broken[typ], name) {
		l.broken[typ] = append(l.broken[typ], name)
	}
}

// isBroken reports whether the block typ NAME is broken (markBroken).
func (l *loader) isBroken(typ, name string) bool {
	return slices.Contains(l.broken[typ], name)
}

// declareBrokenVariables declares the variables whose blocks could not be
// read, without a value: var.NAME of one is neither undeclared nor
// evaluated (usesUnset). A value set for one (--var) is hidden from the
// diagnostics, as it may be a secret.
func (l *loader) declareBrokenVariables() {
	for _, n := range l.broken["variable"] {
		if _, ok := l.varDecl[n]; !ok {
			l.varDecl[n] = &Variable{Name: n, Default: cty.NullVal(cty.DynamicPseudoType)}
			l.unset[n] = true
			l.suite.Vars[n] = cty.DynamicVal
		}
	}
}

// declareBrokenMaterials declares the materials whose blocks could not be
// read, without values: a {placeholder} naming one is not unknown.
func (l *loader) declareBrokenMaterials() {
	for _, n := range l.broken["materials"] {
		if _, ok := l.suite.Materials[n]; !ok {
			l.suite.Materials[n] = &Materials{Name: n, broken: true}
			l.suite.MatOrder = append(l.suite.MatOrder, n)
		}
	}
}

// declareBrokenSources adds the fragments and case-source blocks that could
// not be read to those whose errors left nothing usable (brokenFragments,
// brokenSources).
func (l *loader) declareBrokenSources() {
	l.brokenFragments = append(l.brokenFragments, l.broken[fragmentBlock]...)
	for _, k := range l.suite.SourceKindNames() {
		for _, n := range l.broken[k] {
			if l.brokenSources == nil {
				l.brokenSources = map[string][]string{}
			}
			l.brokenSources[k] = append(l.brokenSources[k], n)
		}
	}
}

// usesUnset reports whether e reads a variable that has no value: one
// without default and not set, whose default has an error, or whose block
// could not be read. Its value is not evaluated at load (the variable's
// own diagnostic says what to fix), so it gives no second error.
func (l *loader) usesUnset(e hcl.Expression) bool {
	if len(l.unset) == 0 || e == nil {
		return false
	}
	for _, tr := range e.Variables() {
		if tr.RootName() != "var" || len(tr) < 2 {
			continue
		}
		if name, ok := stepName(tr[1]); ok && l.unset[name] {
			return true
		}
	}
	return false
}

// topBlock is a line of a file that starts a top-level block: its byte
// offset, line number, block type and name (the first label).
type topBlock struct {
	off, line int
	typ, name string
}

// topBlocks finds the lines of src that start, at column 1, with a block
// type of types followed by a label or a brace: where top-level blocks
// begin in any suite file laid out as nlutest fmt lays it out. Lines
// inside a heredoc are skipped.
func topBlocks(src []byte, types []string) []topBlock {
	var out []topBlock
	heredoc := ""
	line := 0
	for off := 0; off < len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += off
		}
		line++
		text := src[off:end]
		switch {
		case heredoc != "":
			if string(bytes.TrimSpace(text)) == heredoc {
				heredoc = ""
			}
		default:
			if typ, name, ok := blockHeader(text, types); ok {
				out = append(out, topBlock{off: off, line: line, typ: typ, name: name})
			}
			heredoc = heredocStart(text)
		}
		off = end + 1
	}
	return out
}

// blockHeader reads `TYPE "NAME" {`, `TYPE NAME {` or `TYPE {` at the start
// of a line.
func blockHeader(text []byte, types []string) (typ, name string, ok bool) {
	id := identPrefix(text)
	if id == "" || !slices.Contains(types, id) {
		return "", "", false
	}
	rest := bytes.TrimLeft(text[len(id):], " \t")
	switch {
	case len(rest) == 0:
		return "", "", false
	case rest[0] == '{':
		return id, "", true
	case rest[0] == '"':
		if end := closingQuote(rest[1:]); end >= 0 {
			return id, string(rest[1 : 1+end]), true
		}
		return id, "", true
	}
	if n := identPrefix(rest); n != "" {
		return id, n, true
	}
	return "", "", false
}

// identPrefix is the HCL identifier that text starts with ("" for none).
func identPrefix(text []byte) string {
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRune(text[i:])
		if !(unicode.IsLetter(r) || r == '_' || i > 0 && (unicode.IsDigit(r) || r == '-' || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r))) {
			break
		}
		i += n
	}
	return string(text[:i])
}

// closingQuote is the index in s of the quote that ends a string begun
// before s (-1 when the line has none); a backslash escapes.
func closingQuote(s []byte) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// heredocStart is the marker of a heredoc that a line opens (`<<EOT` or
// `<<-EOT` at its end), or "".
func heredocStart(text []byte) string {
	i := bytes.LastIndex(text, []byte("<<"))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimPrefix(text[i+2:], []byte("-"))
	id := identPrefix(rest)
	if id == "" || len(bytes.TrimSpace(rest[len(id):])) > 0 {
		return ""
	}
	return id
}

// parseBlocks parses a file whose whole parse had errors one top-level
// block at a time (each from its header line to the next header line, with
// its own positions). It returns the bodies of the blocks that parsed
// without error and the diagnostics of the others: for each broken block,
// those of the line of its first error (one mistake; HCL's further errors
// in the block are that mistake seen again). Broken blocks are marked
// broken. ok is false when the blocks cannot be told apart (no block has
// an error on its own), and the whole-file diagnostics stand.
func (l *loader) parseBlocks(filename string, src []byte, types []string) (bodies []*hclsyntax.Body, diags hcl.Diagnostics, ok bool) {
	heads := topBlocks(src, types)
	if len(heads) == 0 || heads[0].off > 0 {
		heads = append([]topBlock{{off: 0, line: 1}}, heads...)
	}
	var broken []topBlock
	for i, h := range heads {
		end := len(src)
		if i+1 < len(heads) {
			end = heads[i+1].off
		}
		f, d := hclsyntax.ParseConfig(src[h.off:end], filename, hcl.Pos{Line: h.line, Column: 1, Byte: h.off})
		if !d.HasErrors() {
			if body, isBody := f.Body.(*hclsyntax.Body); isBody {
				bodies = append(bodies, body)
			}
			diags = append(diags, d...)
			continue
		}
		diags = append(diags, firstErrorLine(d)...)
		broken = append(broken, h)
	}
	if len(broken) == 0 {
		return nil, nil, false
	}
	for _, h := range broken {
		if h.typ != "" {
			l.markBroken(h.typ, h.name)
		}
	}
	return bodies, diags, true
}

// firstErrorLine keeps the diagnostics on the line of the first error of
// d (by position).
func firstErrorLine(d hcl.Diagnostics) hcl.Diagnostics {
	var first *hcl.Diagnostic
	for _, x := range d {
		if x.Severity == hcl.DiagError && x.Subject != nil && (first == nil || x.Subject.Start.Byte < first.Subject.Start.Byte) {
			first = x
		}
	}
	if first == nil {
		return d
	}
	var out hcl.Diagnostics
	seen := map[hcl.Range]bool{}
	for _, x := range d {
		if x.Subject != nil && x.Subject.Start.Line == first.Subject.Start.Line && !seen[*x.Subject] {
			seen[*x.Subject] = true
			out = append(out, x)
		}
	}
	return out
}

// markUnreadable marks every block a file that could not be parsed (not
// text, nested too deep) declares as broken.
func (l *loader) markUnreadable(src []byte, types []string) {
	for _, h := range topBlocks(src, types) {
		if h.typ != "" {
			l.markBroken(h.typ, h.name)
		}
	}
}

// checkLooseAsserts checks the names used by the assert conditions of
// templates left unusable by their errors (looseAsserts): a slot is any
// materials name, as the template's own slots are not known.
func (l *loader) checkLooseAsserts() {
	roots := []string{"var", "case", "slot", "response", "http", "latency_ms", "reply", "capture", "state"}
	for _, a := range l.looseAsserts {
		l.checkExpr(a.Condition, "template assert condition", roots, nil)
	}
}
