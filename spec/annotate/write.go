package annotate

// Writing drafts as HCL: the rendering of drafted expectations, and the
// in-place edit of a template's expect attribute (`nlutest annotate
// --write`) through hclwrite.

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/format"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/zclconf/go-cty/cty"
)

// renderNote writes a value for a comment: HCL syntax, on one line.
func renderNote(v any) string { return format.Value(v) }

// Comment prefixes of the lines annotate writes; a later annotate --write
// drops them instead of carrying them over as the user's comments.
const (
	draftedPrefix      = "drafted by nlutest annotate"
	notePrefix         = "note: "
	disagreementPrefix = "disagreement: "
	partialPrefix      = "only in some samples: "
	orphanHeading      = "comments of the replaced expect on paths no longer proposed:"
	samplePrefix       = "sample "
)

func generatedComment(text string) bool {
	for _, p := range []string{draftedPrefix, notePrefix, disagreementPrefix, partialPrefix, orphanHeading, samplePrefix} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

func commentLine(text string) string {
	text = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(text)
	return "# " + text
}

// keptComments are the user's comments of a replaced expect map.
type keptComments struct {
	lead     map[string][]string // canonical path → comment lines before it
	trailing map[string]string   // canonical path → comment at its line end
	orphans  []string            // comments of no key, or of keys no longer proposed
	dropped  bool                // the orphans were under the heading already
}

// renderExpect writes the draft's expect map (unformatted) with header
// comment lines at its top.
func (d *Draft) renderExpect(header []string, kept *keptComments) string {
	var b strings.Builder
	b.WriteString("{\n")
	line := func(s string) { b.WriteString(s); b.WriteByte('\n') }
	for _, h := range header {
		line(commentLine(h))
	}
	for _, n := range d.Notes {
		if strings.HasPrefix(n, disagreementPrefix) || strings.HasPrefix(n, partialPrefix) {
			line(commentLine(n))
		} else {
			line(commentLine(notePrefix + n))
		}
	}
	if kept != nil {
		proposed := map[string]bool{}
		for _, e := range d.Entries {
			proposed[e.Path] = true
		}
		var orphans []string
		orphans = append(orphans, kept.orphans...)
		for _, p := range annotSortedKeys(kept.lead) {
			if !proposed[p] {
				orphans = append(orphans, kept.lead[p]...)
			}
		}
		for _, p := range annotSortedKeys(kept.trailing) {
			if !proposed[p] {
				orphans = append(orphans, kept.trailing[p])
			}
		}
		if len(orphans) > 0 {
			if len(orphans) > len(kept.orphans) || kept.dropped {
				line(commentLine(orphanHeading))
			}
			for _, o := range orphans {
				line(o)
			}
		}
	}
	for _, e := range d.Entries {
		if kept != nil {
			for _, c := range kept.lead[e.Path] {
				line(c)
			}
		}
		for _, n := range e.Notes {
			line(commentLine(notePrefix + n))
		}
		s := spec.QuoteString(e.Path) + " = " + format.Value(e.Value)
		if kept != nil && kept.trailing[e.Path] != "" {
			s += " " + kept.trailing[e.Path]
		}
		line(s)
	}
	b.WriteString("}")
	return b.String()
}

// TemplateBlock renders the draft as a formatted `template "NAME" { expect
// = {…} reviewed = false }` block, ready to paste into a suite, with header
// comment lines at the top of the expect map.
func (d *Draft) TemplateBlock(header []string) []byte {
	return d.templateBlock(header, nil)
}

func (d *Draft) templateBlock(header []string, kept *keptComments) []byte {
	src := "template " + spec.QuoteString(d.Template.Name) + " {\n  expect = " + d.renderExpect(header, kept) + "\n  reviewed = false\n}\n"
	return hclwrite.Format([]byte(src))
}

// SetTemplateExpect edits a suite file's source in place: the expect
// attribute of template name becomes the draft's map (replaced where it
// is, or added at the end of the block) and reviewed becomes false. The
// user's comments inside a replaced expect map are carried over to the
// paths they annotate; every other byte of the file is kept. A BOM and
// CRLF line ends are kept.
func SetTemplateExpect(src []byte, filename, name string, d *Draft, header []string) ([]byte, error) {
	body, bom, crlf := format.SplitSource(src)
	f, diags := hclwrite.ParseConfig(body, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s does not parse: %s", filename, diags.Error())
	}
	var blk *hclwrite.Block
	for _, b := range f.Body().Blocks() {
		if b.Type() == "template" && len(b.Labels()) == 1 && b.Labels()[0] == name {
			blk = b
			break
		}
	}
	if blk == nil {
		return nil, fmt.Errorf("%s has no template %q", filename, name)
	}
	tb := blk.Body()
	indent := bodyIndent(tb)
	if expandSingleLine(blk) {
		indent = 2
	}
	var kept *keptComments
	if old := tb.GetAttribute("expect"); old != nil {
		kept = collectComments(old.Expr().BuildTokens(nil))
	}
	snippet, sd := hclwrite.ParseConfig(d.templateBlock(header, kept), "annotate", hcl.InitialPos)
	if sd.HasErrors() {
		return nil, fmt.Errorf("internal error: the drafted expect does not parse: %s", sd.Error())
	}
	sb := snippet.Body().Blocks()[0].Body()
	expTokens := sb.GetAttribute("expect").Expr().BuildTokens(nil)
	reindent(expTokens, indent)
	falseTokens := sb.GetAttribute("reviewed").Expr().BuildTokens(nil)

	lastIsBlock := endsWithBlock(tb)
	if tb.GetAttribute("expect") == nil {
		if lastIsBlock {
			tb.AppendNewline()
			lastIsBlock = false
		}
		fixNewAttribute(tb.SetAttributeRaw("expect", expTokens), indent)
	} else {
		tb.SetAttributeRaw("expect", expTokens)
	}
	if tb.GetAttribute("reviewed") == nil {
		if lastIsBlock {
			tb.AppendNewline()
		}
		fixNewAttribute(tb.SetAttributeRaw("reviewed", falseTokens), indent)
	} else {
		tb.SetAttributeRaw("reviewed", falseTokens)
	}
	var out bytes.Buffer
	if _, err := f.BuildTokens(nil).WriteTo(&out); err != nil {
		return nil, err
	}
	return format.JoinSource(out.Bytes(), bom, crlf), nil
}

// reindent scales the indentation of every line after the first of toks
// from a body indented by two (the snippet's) to one indented by indent.
func reindent(toks hclwrite.Tokens, indent int) {
	if indent == 2 {
		return
	}
	for i := 1; i < len(toks); i++ {
		prev := toks[i-1]
		if prev.Type == hclsyntax.TokenNewline || prev.Type == hclsyntax.TokenComment && bytes.HasSuffix(prev.Bytes, []byte("\n")) {
			toks[i].SpacesBefore = toks[i].SpacesBefore * indent / 2
		}
	}
}

// expandSingleLine turns a one-line block (`template "x" { text = "…" }`,
// which may hold at most one attribute) into the multi-line form, so
// attributes can be added to it. It reports whether it did.
func expandSingleLine(blk *hclwrite.Block) bool {
	b := blk.Body()
	for _, t := range b.BuildTokens(nil) {
		if t.Type == hclsyntax.TokenNewline || t.Type == hclsyntax.TokenComment && bytes.HasSuffix(t.Bytes, []byte("\n")) {
			return false
		}
	}
	attrs := b.Attributes()
	names := annotSortedKeys(attrs)
	exprs := make([]hclwrite.Tokens, len(names))
	for i, n := range names {
		exprs[i] = attrs[n].Expr().BuildTokens(nil)
	}
	// Body.Clear leaves the attributes findable, so remove them one by one.
	for _, n := range names {
		b.RemoveAttribute(n)
	}
	b.Clear()
	b.AppendNewline()
	for i, n := range names {
		fixNewAttribute(b.SetAttributeRaw(n, exprs[i]), 2)
	}
	toks := blk.BuildTokens(nil)
	for i := len(toks) - 1; i >= 0; i-- {
		if toks[i].Type == hclsyntax.TokenCBrace {
			toks[i].SpacesBefore = 0
			break
		}
	}
	return true
}

// bodyIndent is the indentation of a block body's attributes (the
// smallest), or 2 when it has none.
func bodyIndent(b *hclwrite.Body) int {
	ind := -1
	for _, name := range annotSortedKeys(b.Attributes()) {
		for _, t := range b.GetAttribute(name).BuildTokens(nil) {
			if t.Type == hclsyntax.TokenIdent {
				if ind < 0 || t.SpacesBefore < ind {
					ind = t.SpacesBefore
				}
				break
			}
		}
	}
	if ind <= 0 {
		return 2
	}
	return ind
}

// endsWithBlock reports whether the body's last item is a nested block
// (then an appended attribute gets a blank line before it).
func endsWithBlock(b *hclwrite.Body) bool {
	blocks := b.Blocks()
	if len(blocks) == 0 {
		return false
	}
	all := b.BuildTokens(nil)
	last := blocks[len(blocks)-1].BuildTokens(nil)
	if len(last) == 0 {
		return false
	}
	// The block's tokens are the same pointers as the body's.
	end := last[len(last)-1]
	for i := len(all) - 1; i >= 0; i-- {
		if all[i] == end {
			for _, t := range all[i+1:] {
				if t.Type != hclsyntax.TokenNewline {
					return false
				}
			}
			return true
		}
	}
	return false
}

// fixNewAttribute gives an attribute hclwrite appended the body's
// indentation and one space around `=`.
func fixNewAttribute(a *hclwrite.Attribute, indent int) {
	toks := a.BuildTokens(nil)
	for i, t := range toks {
		if t.Type == hclsyntax.TokenIdent {
			t.SpacesBefore = indent
			if i+1 < len(toks) && toks[i+1].Type == hclsyntax.TokenEqual {
				toks[i+1].SpacesBefore = 1
				if i+2 < len(toks) {
					toks[i+2].SpacesBefore = 1
				}
			}
			return
		}
	}
}

// collectComments reads the comments of an expect map's tokens and ties
// each to the path on its line (trailing) or on the next key line (lead).
// annotate's own comments are left out.
func collectComments(toks hclwrite.Tokens) *keptComments {
	cc := &commentCollector{k: &keptComments{lead: map[string][]string{}, trailing: map[string]string{}}, lineStart: true}
	for _, t := range toks {
		cc.token(t)
	}
	cc.k.orphans = append(cc.k.orphans, cc.pending...)
	return cc.k
}

// commentCollector is the state of collectComments' walk over the tokens.
type commentCollector struct {
	k     *keptComments
	depth int
	// lineStart: no token yet on this line; keyPos: the next token starts
	// a key (after { or a comma).
	lineStart, keyPos bool
	// pending are comments waiting for the next key (lead comments).
	pending []string
	// cur is the canonical path of the current key ("" before the first).
	cur string
	// keyToks are the tokens of the key being read, while collecting.
	keyToks    hclwrite.Tokens
	collecting bool
	// inOrphans: under the heading of comments kept from an earlier expect.
	inOrphans bool
}

func (cc *commentCollector) token(t *hclwrite.Token) {
	switch t.Type {
	case hclsyntax.TokenComment:
		cc.comment(t)
		return
	case hclsyntax.TokenNewline:
		cc.lineStart = true
		if cc.collecting {
			cc.finishKey()
		}
		return
	}
	if cc.collecting {
		if cc.depth == 1 && (t.Type == hclsyntax.TokenEqual || t.Type == hclsyntax.TokenColon) {
			cc.finishKey()
		} else {
			cc.keyToks = append(cc.keyToks, t)
		}
		cc.lineStart = false
		return
	}
	if cc.depth == 1 && (cc.lineStart || cc.keyPos) && t.Type != hclsyntax.TokenCBrace {
		cc.collecting = true
		cc.keyToks = append(cc.keyToks[:0], t)
		cc.lineStart, cc.keyPos = false, false
		return
	}
	cc.keyPos = false
	switch t.Type {
	case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen, hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl:
		cc.depth++
		if cc.depth == 1 {
			cc.keyPos = true
		}
	case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenTemplateSeqEnd:
		cc.depth--
	case hclsyntax.TokenComma:
		if cc.depth == 1 {
			cc.keyPos = true
		}
	}
	cc.lineStart = false
}

// comment files one comment token: trailing the key on its line, leading
// the next key, or kept under the orphans heading.
func (cc *commentCollector) comment(t *hclwrite.Token) {
	k := cc.k
	text := strings.TrimRight(string(t.Bytes), "\r\n")
	body := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(text, "#"), "//"), " "))
	if strings.TrimSpace(body) == orphanHeading {
		// What follows, up to the first key, was kept from an earlier
		// expect: it stays under the heading.
		cc.inOrphans, k.dropped = true, true
	} else if !generatedComment(strings.TrimSpace(body)) {
		switch {
		case cc.inOrphans && cc.cur == "":
			k.orphans = append(k.orphans, text)
		case cc.depth > 1 && cc.cur != "":
			k.lead[cc.cur] = append(k.lead[cc.cur], text)
		case cc.lineStart || cc.cur == "":
			cc.pending = append(cc.pending, text)
		case k.trailing[cc.cur] == "":
			k.trailing[cc.cur] = text
		default:
			k.lead[cc.cur] = append(k.lead[cc.cur], text)
		}
	}
	if strings.HasSuffix(string(t.Bytes), "\n") {
		cc.lineStart = true
	}
}

// finishKey reads the collected key tokens as a path; the pending lead
// comments go to it.
func (cc *commentCollector) finishKey() {
	cc.collecting = false
	var src bytes.Buffer
	for _, t := range cc.keyToks {
		src.Write(t.Bytes)
	}
	cc.keyToks = nil
	cc.cur = ""
	expr, diags := hclsyntax.ParseExpression(src.Bytes(), "key", hcl.InitialPos)
	if diags.HasErrors() {
		return
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return
	}
	x, _, err := jsonpath.Compile(v.AsString())
	if err != nil {
		return
	}
	cc.cur = x.String()
	if p, ok := canonicalPath(x); ok {
		cc.cur = p
	}
	if len(cc.pending) > 0 {
		cc.k.lead[cc.cur] = append(cc.k.lead[cc.cur], cc.pending...)
		cc.pending = nil
	}
}

// UpdateAnnotations returns the annotations file src (empty for a new file)
// with the draft's template block replaced or appended. The file's header
// comment is written when the file is new.
func UpdateAnnotations(src []byte, filename string, header []string, drafts []*Draft, draftHeader func(*Draft) []string) ([]byte, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		var b strings.Builder
		for _, h := range header {
			b.WriteString(commentLine(h))
			b.WriteByte('\n')
		}
		src = []byte(b.String())
	}
	for _, d := range drafts {
		body, _, _ := format.SplitSource(src)
		f, diags := hclwrite.ParseConfig(body, filename, hcl.InitialPos)
		if diags.HasErrors() {
			return nil, fmt.Errorf("%s does not parse, so it cannot be updated (%s); move it away and annotate again", filename, diags.Error())
		}
		found := false
		for _, b := range f.Body().Blocks() {
			if b.Type() == "template" && len(b.Labels()) == 1 && b.Labels()[0] == d.Template.Name {
				found = true
			}
		}
		if found {
			out, err := SetTemplateExpect(src, filename, d.Template.Name, d, draftHeader(d))
			if err != nil {
				return nil, err
			}
			src = out
			continue
		}
		out := append(bytes.TrimRight(src, "\n"), '\n')
		if len(bytes.TrimSpace(out)) > 0 {
			out = append(out, '\n')
		} else {
			out = out[:0]
		}
		src = append(out, d.TemplateBlock(draftHeader(d))...)
	}
	out, diags := format.FormatSource(src, filename)
	if diags.HasErrors() {
		return nil, fmt.Errorf("internal error: the annotations file does not parse: %s", diags.Error())
	}
	return out, nil
}
