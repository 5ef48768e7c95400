package jsonpath

import "testing"

// Normalize writes the corpus write-up's `.[` spelling and a path without
// its `$` as standard JSONPath ojg compiles, and leaves quoted keys,
// `..[` descent, Chinese keys and filters as written.
func TestNormalize(t *testing.T) {
	cases := map[string]string{
		"$.data.[0].content":                "$.data[0].content",
		"$.data.[0].content.rel.[0].ont":    "$.data[0].content.rel[0].ont",
		"$['a.[b]'].[1]":                    "$['a.[b]'][1]",
		"$..[0]":                            "$..[0]",
		"$.x.['y']":                         "$.x['y']",
		"code":                              "$.code",
		"data[0].content_op":                "$.data[0].content_op",
		"$.槽位.城市":                           "$.槽位.城市",
		"$.entities[?(@.entity == 'city')]": "$.entities[?(@.entity == 'city')]",
	}
	for in, want := range cases {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
		if _, _, err := Compile(in); err != nil {
			t.Errorf("Compile(%q): %v", in, err)
		}
	}
}

// FuzzNormalize normalises and compiles arbitrary paths. Neither may
// panic, and normalising is idempotent: a normalised path normalises to
// itself.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"$.data.[0].content.des.phone_number",
		"$.data.[0].content.rel.[0].rel.[0].relName",
		"data.[0].content",
		"$..ont", "$..[0]", "$.data[*].intent", "$.entities[?(@.entity == '城市')].value",
		"$.槽位.城市", "$['a.b']", "$['a.[b']", `$["键.[0]"]`, "$.data[-1]", "code", "[0].x", "@.a",
		"  $.意图.名称  ", "$.a\\.[0]", "'.[", "$.", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		n := Normalize(p)
		if nn := Normalize(n); nn != n {
			t.Errorf("Normalize is not idempotent: %q → %q → %q", p, n, nn)
		}
		x, n2, err := Compile(p)
		if n2 != n {
			t.Errorf("Compile normalised %q to %q, Normalize to %q", p, n2, n)
		}
		if err == nil && x == nil {
			t.Errorf("Compile(%q) returned neither a path nor an error", p)
		}
		if err != nil {
			pe, ok := err.(*Error)
			if !ok || pe.From < 0 || pe.From > pe.To || pe.To > len(p) || pe.Reason == "" || pe.Error() == "" {
				t.Errorf("Compile(%q): error %#v does not point inside the path", p, err)
			}
		}
	})
}
