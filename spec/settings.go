package spec

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// SettingsBlock is the settings block a metric family brings to the suite
// language: an unlabelled top-level block (`NAME { … }`, at most one per
// suite; a named, repeatable one implements LabelledSettingsBlock too) that the family, not the loader, declares and decodes. A family
// outside assert offers one (assert.SettingsFamily) and the program's
// extension set passes it to Load (Options.Settings), so a suite may
// write the block, validate checks it with located diagnostics, and the
// family reads the decoded value back (Suite.Settings) when it makes its
// accumulators.
type SettingsBlock interface {
	// Block is the block type; it may not be a block the language or a
	// source kind already has.
	Block() string
	// Default is the settings of a suite without the block.
	Default() any
	// Decode reads the block with d (d.Content, d.Number, d.String,
	// d.Errorf …, so its diagnostics read like every other block's) and
	// returns the settings, or nil when its errors leave none (the
	// default is kept; the errors fail the load).
	Decode(d *Decoder, b *hcl.Block) any
}

// CheckSettingsBlocks reports settings blocks that cannot join the
// language with the source kinds sources: a block type the language has
// (suite, target, threshold …), one a source kind declares, or two
// blocks of one type. The error names every clash; it is the program's
// mistake, not its user's.
func CheckSettingsBlocks(settings []SettingsBlock, sources []SourceKind) error {
	taken := map[string]string{}
	for _, b := range fileSchemaBase.Blocks {
		taken[b.Type] = "a block of the suite language"
	}
	for _, k := range sources {
		taken[k.Block()] = "a case source kind's block"
	}
	var clashes []string
	for _, sb := range settings {
		if what, ok := taken[sb.Block()]; ok {
			clashes = append(clashes, fmt.Sprintf("the settings block %q is already %s", sb.Block(), what))
			continue
		}
		taken[sb.Block()] = "another family's settings block"
	}
	if len(clashes) > 0 {
		return errors.New(strings.Join(clashes, "; "))
	}
	return nil
}

// Settings returns the settings the suite's block of type block gave (its
// Default without a block), or nil when the suite was loaded without a
// settings block of that type.
func (s *Suite) Settings(block string) any {
	return s.settings[block]
}

// settingsSchema adds the settings blocks' types to a file's schema.
func settingsSchema(blocks []hcl.BlockHeaderSchema, settings []SettingsBlock) []hcl.BlockHeaderSchema {
	for _, sb := range settings {
		if slices.ContainsFunc(blocks, func(h hcl.BlockHeaderSchema) bool { return h.Type == sb.Block() }) {
			continue
		}
		h := hcl.BlockHeaderSchema{Type: sb.Block()}
		if lb, ok := sb.(LabelledSettingsBlock); ok {
			h.LabelNames = []string{lb.LabelName()}
		}
		blocks = append(blocks, h)
	}
	return blocks
}

// decodeSettings decodes each settings block of the load's options from
// the suite's blocks by type: the default without a block, at most one
// block of an unlabelled type, every block of a labelled one (their
// repeated names were dropped by blocksByType).
func (l *loader) decodeSettings(byType map[string][]*hcl.Block) {
	if len(l.opts.Settings) == 0 {
		return
	}
	l.suite.settings = map[string]any{}
	d := &Decoder{l: l}
	for _, sb := range l.opts.Settings {
		name := sb.Block()
		l.suite.settings[name] = sb.Default()
		blocks := byType[name]
		if lb, ok := sb.(LabelledSettingsBlock); ok {
			for _, b := range blocks {
				if v := sb.Decode(d, b); v != nil {
					l.suite.settings[name] = lb.Append(l.suite.settings[name], v)
				}
			}
			continue
		}
		if len(blocks) == 0 {
			continue
		}
		for _, extra := range blocks[1:] {
			l.errorf(extra.DefRange.Ptr(), "Duplicate "+name+" block", "A suite has one %s block; the first is at %s.", name, rangeString(blocks[0].DefRange))
		}
		if v := sb.Decode(d, blocks[0]); v != nil {
			l.suite.settings[name] = v
		}
	}
}
