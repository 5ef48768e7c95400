package spec

import "github.com/hashicorp/hcl/v2"

// This file is the public API the metric families' settings blocks
// (SettingsBlock: assert's text_metrics and statistics, assert/coverage's
// coverage, the ratings family's ratings) use from outside spec.

// Errors is the number of errors the load has reported so far: a settings
// block that checks its attributes first and reads files only when they
// are sound compares it before and after its checks.
func (d *Decoder) Errors() int {
	n := 0
	for _, x := range d.l.diags {
		if x.Severity == hcl.DiagError {
			n++
		}
	}
	return n
}

// SetSettings makes v the suite's settings of the block type block, in
// place of what its block (or the block's default) gave: a command that
// takes them from its flags (coverage --domain) sets them after the load.
// Call it before the suite is run or evaluated, never during.
func (s *Suite) SetSettings(block string, v any) {
	if s.settings == nil {
		s.settings = map[string]any{}
	}
	s.settings[block] = v
}

// Inside checks that path, with every symlink followed, is inside the
// suite directory (fa.Dir); the error says how to allow it. It does not
// look at AllowOutside: the caller decides whether the check applies.
func (fa FileAccess) Inside(path string) error { return fa.inside(path) }
