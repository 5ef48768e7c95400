package spec

import "github.com/hashicorp/hcl/v2"

// How spec's own tests reach the case source kinds. The built-in kinds
// live in packages of their own (sources/…) that import spec, so an
// internal test of spec cannot import them (an import cycle). Instead the
// external test file kinds_ext_test.go (package spec_test, which may import
// extensions) hands extensions.Default().Sources to SetTestSourceKinds in
// its init, before any test runs, and the internal tests load suites with
// testLoad, which passes them when the test gives no SourceKinds of its
// own. A test of one kind's own behaviour belongs in that kind's package.
// The metric families' settings blocks reach testLoad the same way
// (SetTestSettings).

// testKinds are the source kinds testLoad passes; set by
// SetTestSourceKinds.
var testKinds []SourceKind

// SetTestSourceKinds sets the source kinds spec's internal tests load
// suites with (exported to the external test package only).
func SetTestSourceKinds(kinds []SourceKind) { testKinds = kinds }

// testSettings are the settings blocks testLoad passes (the metric
// families' text_metrics, statistics …, decoded outside spec); set by
// SetTestSettings.
var testSettings []SettingsBlock

// SetTestSettings sets the settings blocks spec's internal tests load
// suites with (exported to the external test package only).
func SetTestSettings(settings []SettingsBlock) { testSettings = settings }

// testLoad is Load with the test source kinds and settings blocks when
// opts names none.
func testLoad(path string, opts Options) (*Suite, hcl.Diagnostics) {
	if opts.SourceKinds == nil {
		opts.SourceKinds = testKinds
	}
	if opts.Settings == nil {
		opts.Settings = testSettings
	}
	return Load(path, opts)
}
