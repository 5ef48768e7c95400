package spec

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/nlutest/nlutest/spec/materials"
	"github.com/nlutest/nlutest/spec/tools"
	"github.com/zclconf/go-cty/cty"
)

var materialsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "tag"}, {Name: "level"}, {Name: "values"}, {Name: "source"}, {Name: "compose"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "value", LabelNames: []string{"value"}}},
}

var valueSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "level"}, {Name: "normalize"}, {Name: "tags"}},
}

func (l *loader) decodeMaterials(b *hcl.Block) {
	from := len(l.diags)
	c, diags := b.Body.Content(materialsSchema)
	l.diags = append(l.diags, diags...)
	if !l.checkLabel(b) {
		return
	}
	m := &Materials{Name: label(b), DeclRange: b.DefRange}
	if strings.ContainsAny(m.Name, "{}#") {
		l.errorf(b.LabelRanges[0].Ptr(), "Invalid materials name", "A materials name is used as {NAME} in texts, so it cannot contain {, } or #; %q does.", m.Name)
	}
	m.Tag = l.str(c.Attributes, "tag", "")
	m.Level = l.str(c.Attributes, "level", "")
	for _, v := range l.strList(c.Attributes, "values") {
		m.Values = append(m.Values, materials.Value{Value: v, Level: m.Level})
	}
	seen := map[string]hcl.Range{}
	for _, vb := range c.Blocks {
		vc, diags := vb.Body.Content(valueSchema)
		l.diags = append(l.diags, diags...)
		mv := materials.Value{Value: vb.Labels[0], Level: l.str(vc.Attributes, "level", m.Level), Tags: l.strList(vc.Attributes, "tags")}
		if prev, ok := seen[mv.Value]; ok {
			l.errorf(vb.LabelRanges[0].Ptr(), "Duplicate material value", "The value %q is already declared at %s.", mv.Value, rangeString(prev))
			continue
		}
		seen[mv.Value] = vb.LabelRanges[0]
		if nm := l.strMap(vc.Attributes, "normalize"); nm != nil {
			mv.Normalize = map[string]string{}
			for k, v := range nm {
				mv.Normalize[strings.ToLower(k)] = v
				if !l.knownSchemaName(k) {
					l.warnf(vc.Attributes["normalize"].Expr.Range().Ptr(), "Unknown schema in normalize",
						"normalize names the schema %q, which this suite neither uses nor declares (its schema is %q), so the value is never used. Check the spelling.", k, l.suite.SchemaName)
				}
			}
		}
		m.Values = append(m.Values, mv)
	}
	if a, ok := c.Attributes["source"]; ok {
		rel := l.str(c.Attributes, "source", "")
		if rel != "" {
			m.Source = rel
			base := filepath.Dir(b.DefRange.Filename)
			path := rel
			if !filepath.IsAbs(path) {
				path = filepath.Join(base, rel)
			}
			vals, diags := readMaterials(l.suite.Access, base, rel, m.Level)
			if len(diags) > 0 && diags[0].Subject == nil {
				diags[0].Subject = a.Expr.Range().Ptr()
			}
			if slices.ContainsFunc(diags, func(d *hcl.Diagnostic) bool { return d.Subject != nil && d.Subject.Filename == path }) {
				// Keep the file's text for the diagnostics' source lines.
				if src, _, err := l.suite.Access.Read(base, rel, MaxMaterialBytes); err == nil {
					l.suite.Sources[path] = src
				}
			}
			l.diags = append(l.diags, diags...)
			m.Values = append(m.Values, vals...)
		}
	}
	l.dedupeValues(m, c.Attributes, len(c.Blocks))
	// A block with errors may have lost values to them (valuez for
	// values): its having none is not a second error.
	m.broken = l.diags[from:].HasErrors()
	if _, ok := c.Attributes["compose"]; ok {
		l.decodeCompose(m, c.Attributes) // values added by resolveCompose, once every block is known
	} else if len(m.Values) == 0 && !m.broken {
		l.errorf(b.DefRange.Ptr(), "Materials without values", "The materials %q has no values. Give it values = [...], value \"…\" { } blocks or a source file.", m.Name)
	}
	l.suite.Materials[m.Name] = m
	l.suite.MatOrder = append(l.suite.MatOrder, m.Name)
}

// readMaterials reads the materials source name (relative to base) under
// fa's rules; values' origins name it relative to the suite directory.
func readMaterials(fa FileAccess, base, name, defLevel string) ([]materials.Value, hcl.Diagnostics) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, name)
	}
	if d := materials.CheckType(path); d != nil {
		return nil, d
	}
	data, rel, err := fa.Read(base, name, MaxMaterialBytes)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read materials file", Detail: fmt.Sprintf("%s. The path is resolved from the directory of the suite file that names it.", err)}}
	}
	return materials.Parse(data, path, rel, defLevel)
}

// dedupeValues keeps the first of equal values when a block's values come
// from more than one place (the values list, value blocks, the source
// file), or the list repeats one: two cases with the same slot values would
// share one case id. Each repeat is a warning.
func (l *loader) dedupeValues(m *Materials, attrs hcl.Attributes, blocks int) {
	list, hasList := attrs["values"]
	places := 0
	for _, n := range []bool{hasList, blocks > 0, m.Source != ""} {
		if n {
			places++
		}
	}
	if places == 0 || (places == 1 && !hasList) {
		return // a source file and value blocks each report their own repeats
	}
	seen := make(map[string]struct{}, len(m.Values))
	out := m.Values[:0]
	for _, v := range m.Values {
		if _, dup := seen[v.Value]; dup {
			rng := m.DeclRange
			if hasList {
				rng = list.Expr.Range()
			}
			l.warnf(&rng, "Duplicate material value", "The materials %q has the value %q more than once (its values list, value blocks and source file add up); it is used once.", m.Name, v.Value)
			continue
		}
		seen[v.Value] = struct{}{}
		out = append(out, v)
	}
	m.Values = out
}

// decodeExpect reads an expect map whose values may use the placeholders
// slots.
func (l *loader) decodeExpect(a *hcl.Attribute, slots []string) []*ExpectSpec {
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() {
		l.errorf(a.Expr.Range().Ptr(), "Invalid expect", "expect is a map from JSONPath to expected value, e.g. expect = { \"$.intent.name\" = \"book_flight\" }.")
		return nil
	}
	var out []*ExpectSpec
	seen := map[string]hcl.Range{}
	for _, p := range pairs {
		kv, diags := p.Key.Value(l.staticCtx())
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		if kv.IsNull() || kv.Type() != cty.String {
			l.errorf(p.Key.Range().Ptr(), "Invalid expect key", "Each expect key is a JSONPath string such as \"$.intent.name\".")
			continue
		}
		raw := kv.AsString()
		if where := tools.Reserved(raw); where != "" {
			l.errorf(p.Key.Range().Ptr(), "Reserved expect key", "Keys starting with tool: or final: are how nlutest records the checks of %s; write the check there.", where)
			continue
		}
		x, norm, state, err := jsonpath.CompileExpect(raw)
		if err != nil {
			l.pathError(p.Key, raw, err)
			continue
		}
		if prev, ok := seen[norm]; ok {
			l.errorf(p.Key.Range().Ptr(), "Duplicate expectation", "The path %s is already expected at %s.", norm, rangeString(prev))
			continue
		}
		seen[norm] = p.Key.Range()
		if !l.onlyRoots(p.Value, "expected value", "var") || !l.noSensitive(p.Value) {
			continue
		}
		v, diags := p.Value.Value(l.staticCtx())
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		es := &ExpectSpec{Path: norm, Expr: x, State: state, Value: v, Range: p.Key.Range()}
		ok := true
		walkStrings(v, func(s string) {
			_, phs, err := ParsePlaceholders(s)
			if err != nil {
				l.errorf(p.Value.Range().Ptr(), "Invalid placeholder", "%s.", capitalize(err.Error()))
				ok = false
				return
			}
			for _, ph := range phs {
				es.HasPlaceholders = true
				if !slices.Contains(slots, ph.Key) && !l.slotsUnknown {
					rng := l.subRange(p.Value.Range(), "{"+ph.Key+"}")
					l.errorf(&rng, "Unknown placeholder in expect",
						"{%s} does not appear in the template's text, so it has no value here.%s", ph.Key, didYouMeanBrace(ph.Key, slots))
					ok = false
				}
			}
		})
		if ok {
			out = append(out, es)
		}
	}
	return out
}

func walkStrings(v cty.Value, fn func(string)) {
	if v.IsNull() || !v.IsKnown() {
		return
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		fn(v.AsString())
	case ty.IsListType() || ty.IsTupleType() || ty.IsSetType() || ty.IsMapType() || ty.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			walkStrings(e, fn)
		}
	}
}

// subRange finds needle inside the source of rng and returns its range,
// falling back to rng when it cannot be found.
func (l *loader) subRange(rng hcl.Range, needle string) hcl.Range {
	src := l.suite.Sources[rng.Filename]
	if src == nil || rng.End.Byte > len(src) || rng.Start.Byte > rng.End.Byte {
		return rng
	}
	i := bytes.Index(src[rng.Start.Byte:rng.End.Byte], []byte(needle))
	if i < 0 {
		return rng
	}
	start := rng.Start
	pre := src[rng.Start.Byte : rng.Start.Byte+i]
	for _, r := range string(pre) {
		if r == '\n' {
			start.Line++
			start.Column = 1
		} else {
			start.Column++
		}
	}
	start.Byte += i
	end := start
	end.Byte += len(needle)
	end.Column += utf8.RuneCountInString(needle)
	return hcl.Range{Filename: rng.Filename, Start: start, End: end}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func didYouMeanBrace(name string, options []string) string {
	if s := suggest(name, options); s != "" {
		return fmt.Sprintf(" Did you mean {%s}?", s)
	}
	return ""
}
