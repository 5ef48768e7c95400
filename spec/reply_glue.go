package spec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec/reply"
	"github.com/zclconf/go-cty/cty"
)

// ReplyBlock decodes a reply block whose texts may use the placeholders
// slots; nil when it has errors (reported through d). Any source kind
// with reply checks calls it for its `reply {}` blocks.
func (d *Decoder) ReplyBlock(b *hcl.Block, slots []string) *reply.Check {
	return d.l.replyBlock(b, slots, false)
}

// replyBlocks decodes the one reply block among blocks (nil without
// one); a second is an error. references: the source's cases carry
// references, which `similar` without `to` compares with.
func (l *loader) replyBlocks(blocks hcl.Blocks, slots []string, references bool) *reply.Check {
	var out *reply.Check
	for _, b := range blocks {
		if b.Type != "reply" {
			continue
		}
		if out != nil {
			l.errorf(b.DefRange.Ptr(), "Duplicate reply block", "A case has one reply block, first at %s; put every check in it.", rangeString(out.DeclRange))
			continue
		}
		out = l.replyBlock(b, slots, references)
		if out == nil {
			out = &reply.Check{DeclRange: b.DefRange} // errors reported; stops a second report
		}
	}
	if out != nil && out.Lines == nil {
		return nil
	}
	return out
}

func (l *loader) replyBlock(b *hcl.Block, slots []string, references bool) *reply.Check {
	c, ok := l.content(b.Body, reply.Schema)
	if !ok {
		return nil
	}
	rc, diags := reply.Decode(b.DefRange, c, slots, references, l.replyEnv())
	l.diags = append(l.diags, diags...)
	return rc
}

// replyEnv is what the reply block's decoder needs from the loader.
func (l *loader) replyEnv() reply.Env {
	return reply.Env{
		Static:       l.staticDiags,
		Placeholders: placeholderKeys,
		Locate:       l.subRange,
		Suggest:      suggest,
		SlotsUnknown: l.slotsUnknown,
	}
}

// staticDiags is static returning its diagnostics instead of reporting
// them, for a leaf's decoder.
func (l *loader) staticDiags(a *hcl.Attribute, ty cty.Type, what string) (v cty.Value, ok bool, diags hcl.Diagnostics) {
	diags = l.collect(func() { v, ok = l.static(a, ty, what) })
	return v, ok, diags
}

// placeholderKeys is ParsePlaceholders giving each placeholder's key.
func placeholderKeys(text string) (lits, keys []string, err error) {
	lits, phs, err := ParsePlaceholders(text)
	for _, ph := range phs {
		keys = append(keys, ph.Key)
	}
	return lits, keys, err
}
