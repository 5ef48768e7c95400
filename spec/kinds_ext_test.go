package spec_test

import (
	"github.com/nlutest/nlutest/extensions"
	"github.com/nlutest/nlutest/spec"
)

// init gives spec's internal tests the source kinds and the families'
// settings blocks nlutest ships (see export_test.go): they live outside
// spec, so only an external test file may import them.
func init() {
	x := extensions.Default()
	spec.SetTestSourceKinds(x.Sources)
	spec.SetTestSettings(x.Families.SettingsBlocks())
}
