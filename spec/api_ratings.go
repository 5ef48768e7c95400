package spec

// This file is the public API a family's named, repeatable settings block
// (the ratings family's ratings blocks, ratings/sheet) declares itself
// with; settings.go decodes it.

// LabelledSettingsBlock is a SettingsBlock whose blocks are named and
// repeatable (`NAME "LABEL" { … }`, any number per suite): a family that
// reads several files or sets of one kind (the ratings family's ratings
// blocks, one per rating sheet) implements it besides SettingsBlock. Its
// settings start as Default and each block's are added by Append, in
// declaration order, after Decode read the block (a block Decode gives nil
// for adds nothing). The loader checks the label as every labelled
// block's: a name a block of the type already has is refused ("Duplicate
// NAME block" at the label, with the first as context, the repeated block
// not decoded) and an empty one is refused by d.Content.
type LabelledSettingsBlock interface {
	SettingsBlock
	// LabelName names the block's label ("name"): hcl's diagnostic for a
	// block without one says "Missing LabelName for NAME".
	LabelName() string
	// Append returns settings (Default's value, or what Append returned
	// for the blocks before) with v, what Decode gave for the next block.
	Append(settings, v any) any
}
