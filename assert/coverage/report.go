package coverage

import (
	"fmt"
	"slices"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/botmodel"
)

// Report lays out a node's metrics.coverage item by item for `nlutest
// coverage`: each kind the model has, its items in declaration order
// with their status, the cases that exercised and showed them and where
// the model declares them, then the undeclared items cases checked.
func Report(m *botmodel.Model, v *schema.Coverage) *schema.CoverageReport {
	out := &schema.CoverageReport{Files: m.Files}
	if v == nil {
		v = &schema.Coverage{}
	}
	out.Totals = v.CoverageCounts
	for k := botmodel.Kind(0); k < botmodel.NumKinds; k++ {
		ck := *v.Kind(k.String())
		if m.Count(k) == 0 && (ck == nil || len(ck.UndeclaredItem) == 0) {
			continue
		}
		kr := schema.CoverageKindReport{Kind: k.String()}
		if ck != nil {
			kr.CoverageCounts = ck.CoverageCounts
		}
		for _, it := range m.Items {
			if it.Kind != k {
				continue
			}
			var c schema.CoverageItem
			if ck != nil {
				c = ck.Item[it.Name]
			}
			kr.Rows = append(kr.Rows, schema.CoverageRow{Name: it.Name, Status: c.Status(), CoverageItem: c, Detail: detail(it),
				At: fmt.Sprintf("%s:%d", it.At.Filename, it.At.Start.Line)})
		}
		if ck != nil {
			names := make([]string, 0, len(ck.UndeclaredItem))
			for n := range ck.UndeclaredItem {
				names = append(names, n)
			}
			slices.Sort(names)
			for _, n := range names {
				kr.Rows = append(kr.Rows, schema.CoverageRow{Name: n, Status: schema.CoverageUndeclared, CoverageItem: ck.UndeclaredItem[n]})
			}
		}
		out.Kinds = append(out.Kinds, kr)
	}
	return out
}

// detail is what the report says of an item beside its name.
func detail(it botmodel.Item) string {
	switch {
	case it.Kind == botmodel.FlowStep:
		return it.Detail
	case it.Kind == botmodel.Intent && it.Examples > 0:
		return fmt.Sprintf("%d NLU examples", it.Examples)
	case it.Kind == botmodel.Response && len(it.Texts) > 0:
		return it.Texts[0]
	}
	return ""
}
