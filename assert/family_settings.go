package assert

import "github.com/nlutest/nlutest/spec"

// SettingsFamily is a Family with a settings block of its own: a block
// the suite may write (`NAME { … }`) that the family declares and decodes
// (spec.SettingsBlock) and reads back in NewAcc through
// s.Settings(NAME). The program's extension set hands the blocks to the
// loader (Families.SettingsBlocks, extensions.Set.LoadOptions), so a family
// from outside assert brings its settings without a line in spec.
type SettingsFamily interface {
	Family
	Settings() spec.SettingsBlock
}

// SettingsBlocks returns the settings blocks of the families that have
// one (SettingsFamily), in the families' order, and assert's own
// statistics block (the intervals' settings of every family's figures):
// right after the text family's text_metrics, the order the loader has
// always decoded them in (so validate lists their mistakes as it did),
// or first without the text family.
func (fs Families) SettingsBlocks() []spec.SettingsBlock {
	var out []spec.SettingsBlock
	placed := false
	for _, f := range fs {
		if sf, ok := f.(SettingsFamily); ok {
			out = append(out, sf.Settings())
		}
		if _, ok := f.(textFamily); ok {
			out = append(out, statisticsSettings{})
			placed = true
		}
	}
	if !placed {
		out = append([]spec.SettingsBlock{statisticsSettings{}}, out...)
	}
	return out
}
