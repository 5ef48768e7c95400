package schema

import (
	"embed"
	"sort"
	"strings"
)

//go:embed presets/*.nlutest.hcl
var presetFS embed.FS

// Preset returns the source of a built-in response schema preset, written in
// the suite language (a `schema` block), by case-insensitive name.
func Preset(name string) (src []byte, file string, ok bool) {
	file = "presets/" + strings.ToLower(name) + ".nlutest.hcl"
	b, err := presetFS.ReadFile(file)
	if err != nil {
		return nil, "", false
	}
	return b, "builtin:" + file, true
}

// PresetNames lists the built-in presets.
func PresetNames() []string {
	entries, _ := presetFS.ReadDir("presets")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".nlutest.hcl"))
	}
	sort.Strings(out)
	return out
}
