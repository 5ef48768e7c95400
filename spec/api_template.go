package spec

import "github.com/hashicorp/hcl/v2"

// This file is the part of Decoder's public API the template kind
// (sources/template) decodes its block with, besides the
// template-generation API (template_api.go): ranges inside a text,
// materials left broken by their errors, and the asserts of a template
// its errors left unusable.

// SubRange returns the range of needle inside the suite source rng
// covers (a placeholder "{城市}" inside a text attribute), for a
// diagnostic that points at it; rng itself when needle is not there.
func (d *Decoder) SubRange(rng hcl.Range, needle string) hcl.Range { return d.l.subRange(rng, needle) }

// Broken reports whether the materials block had errors that may have
// lost it values (reported already), so having too few is not a second
// error.
func (m *Materials) Broken() bool { return m.broken }

// KeepLooseAsserts keeps the assert blocks of a template its errors left
// unusable (no source is made of it), so the load still checks what they
// name against the suite, with any slot allowed.
func (d *Decoder) KeepLooseAsserts(asserts []*Assert) {
	d.l.looseAsserts = append(d.l.looseAsserts, asserts...)
}
