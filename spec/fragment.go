package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// This file holds shared turns (SPEC §14.3): a top-level
//
//	fragment "确认下单" { turn {…} turn {…} }
//
// is a named run of turns, and a conversation's `turn { use = "确认下单" }`
// stands for them, in its place. A fragment is not a case source: its
// turns join the conversation that uses them, so their placeholders take
// that conversation's slot assignment and their diagnostics point into the
// fragment's own file. A fragment may use another one, never itself.

// fragmentBlock is the type of a fragment block.
const fragmentBlock = "fragment"

var fragmentSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "turn"}}}

// turnBody is one turn block of a conversation after its fragments are
// expanded, and its content.
type turnBody struct {
	block   *hcl.Block
	content *hcl.BodyContent
}

// collectFragments checks every fragment block's body once (so a broken
// fragment is reported even when nothing uses it) and keeps the usable ones
// by name.
func (l *loader) collectFragments(blocks []*hcl.Block) {
	l.fragments = map[string]*hcl.BodyContent{}
	for _, b := range blocks {
		if !l.checkLabel(b) {
			continue
		}
		c, diags := b.Body.Content(fragmentSchema)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			l.brokenFragments = append(l.brokenFragments, label(b))
			continue
		}
		if len(c.Blocks) == 0 {
			l.errorf(b.DefRange.Ptr(), "Fragment without turns", "A fragment is a named run of turns: give it at least one turn block, fragment %q { turn { user = \"…\" } }.", label(b))
			l.brokenFragments = append(l.brokenFragments, label(b))
			continue
		}
		l.fragments[label(b)] = c
		l.fragOrder = append(l.fragOrder, label(b))
	}
}

// expandTurns reads a conversation's (or a fragment's) turn blocks,
// replacing each `turn { use = "NAME" }` by the turns of fragment NAME, in
// place. using are the fragments being expanded (outermost first), to
// refuse a cycle. ok is false when a turn could not be read.
func (l *loader) expandTurns(blocks []*hcl.Block, using []string) (out []turnBody, ok bool) {
	ok = true
	for _, tb := range blocks {
		tc, good := l.content(tb.Body, turnSchema)
		if !good {
			ok = false
			continue
		}
		a, uses := tc.Attributes["use"]
		if !uses {
			out = append(out, turnBody{block: tb, content: tc})
			continue
		}
		turns, good := l.useFragment(a, tc, using)
		out = append(out, turns...)
		ok = ok && good
	}
	return out, ok
}

// useFragment expands one `turn { use = "NAME" }`.
func (l *loader) useFragment(a *hcl.Attribute, tc *hcl.BodyContent, using []string) ([]turnBody, bool) {
	for name, other := range tc.Attributes {
		if name != "use" {
			l.errorf(other.NameRange.Ptr(), "Use with other turn attributes",
				"A turn with use = \"…\" stands for the fragment's turns and has nothing else; move %q into the fragment's turns or into a turn of its own.", name)
			return nil, false
		}
	}
	if len(tc.Blocks) > 0 {
		l.errorf(tc.Blocks[0].DefRange.Ptr(), "Use with other turn blocks",
			"A turn with use = \"…\" stands for the fragment's turns and has nothing else; move the %s block into the fragment's turns or into a turn of its own.", tc.Blocks[0].Type)
		return nil, false
	}
	v, ok := l.static(a, cty.String, "\"use\" attribute")
	if !ok || v.IsNull() {
		return nil, false
	}
	name := v.AsString()
	if slices.Contains(l.brokenFragments, name) {
		return nil, false // its own diagnostics say why
	}
	if slices.Contains(using, name) {
		chain := append(slices.Clone(using), name)
		l.errorf(a.Expr.Range().Ptr(), "Fragment uses itself",
			"The fragment %q uses itself (%s), so its turns would never end; remove the use = %q from the fragment's turns.", name, strings.Join(chain, " → "), name)
		return nil, false
	}
	fc, known := l.fragments[name]
	if !known {
		hint := didYouMean(name, l.fragOrder)
		if hint == "" && len(l.fragOrder) > 0 {
			hint = fmt.Sprintf(" The suite's fragments: %s.", strings.Join(l.fragOrder, ", "))
		}
		l.errorf(a.Expr.Range().Ptr(), "Unknown fragment",
			"No fragment block is named %q.%s Declare fragment %q { turn { … } } or fix the name.", name, hint, name)
		return nil, false
	}
	return l.expandTurns(fc.Blocks, append(using, name))
}

// uniqueDiags drops a diagnostic that repeats an earlier one (the same
// severity, place, summary and detail): a mistake in a fragment's turns is
// found once per conversation that uses it, and reported once.
func uniqueDiags(diags hcl.Diagnostics) hcl.Diagnostics {
	type key struct {
		sev             hcl.DiagnosticSeverity
		rng             hcl.Range
		summary, detail string
	}
	seen := make(map[key]bool, len(diags))
	out := diags[:0]
	for _, d := range diags {
		k := key{sev: d.Severity, summary: d.Summary, detail: d.Detail}
		if d.Subject != nil {
			k.rng = *d.Subject
		}
		if d.Subject != nil && seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	return out
}
