package materials

import (
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestResolve: a block composes after the blocks it names, whatever the
// order; a cycle is one diagnostic at its first block, which stands for
// its blocks (they are not marked Broken), and breaks those composing
// from it; an unknown name goes to
// unknown; a broken plain block breaks its composers without a second
// diagnostic.
func TestResolve(t *testing.T) {
	at := func(line int) hcl.Range {
		return hcl.Range{Filename: "s.nlutest.hcl", Start: hcl.Pos{Line: line, Column: 1}}
	}
	one := func(name string) []Pattern {
		return []Pattern{{Lits: []string{"", "先生"}, Refs: []Ref{{name, name}}, Parts: []int{0}}}
	}
	comp := func(name string, line int) *Composition { return &Composition{Patterns: one(name), At: at(line)} }
	blocks := map[string]*Block{
		"称呼": {Name: "称呼", Composition: comp("全名", 1)},
		"全名": {Name: "全名", Composition: comp("姓", 2)},
		"姓":  {Name: "姓", Values: []Value{{Value: "张"}, {Value: "李"}}},
		"甲":  {Name: "甲", Composition: comp("乙", 4)},
		"乙":  {Name: "乙", Composition: comp("甲", 5)},
		"丙":  {Name: "丙", Composition: comp("甲", 6)},
		"丁":  {Name: "丁", Composition: comp("城市", 7)},
		"坏":  {Name: "坏", Broken: true},
		"戊":  {Name: "戊", Composition: comp("坏", 9)},
	}
	order := []string{"称呼", "全名", "姓", "甲", "乙", "丙", "丁", "坏", "戊"}
	var unknown []string
	diags := Resolve(order, blocks, func(ref Ref, rng hcl.Range) *hcl.Diagnostic {
		unknown = append(unknown, ref.Key)
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown materials", Subject: rng.Ptr()}
	})
	var got []string
	for _, v := range blocks["称呼"].Values {
		got = append(got, v.Value)
	}
	if !slices.Equal(got, []string{"张先生先生", "李先生先生"}) {
		t.Errorf("称呼 values %q", got)
	}
	if len(diags) != 2 || diags[0].Summary != "Compose cycle" || !strings.Contains(diags[0].Detail, "甲 → 乙 → 甲") || diags[0].Subject.Start.Line != 4 ||
		diags[1].Summary != "Unknown materials" || diags[1].Subject.Start.Line != 7 || !slices.Equal(unknown, []string{"城市"}) {
		t.Errorf("diagnostics %v, unknown %q", diags, unknown)
	}
	for name, broken := range map[string]bool{"称呼": false, "全名": false, "姓": false, "甲": false, "乙": false, "丙": true, "丁": true, "坏": true, "戊": true} {
		if blocks[name].Broken != broken {
			t.Errorf("%s broken %v, want %v", name, blocks[name].Broken, broken)
		}
	}
}
