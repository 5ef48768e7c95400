// Package annotate owns pre-annotation (`nlutest annotate`): drafting a
// template's expect map from the target's answers to sample cases
// (DraftExpect, with probe calls for doubtful placeholders), and writing
// the drafts into suite files (SetTemplateExpect, UpdateAnnotations) or
// as new template blocks. It is a tool over the language, built on spec's
// exported API and spec/format's layout.
package annotate

// Pre-annotation (SPEC §7, the IAO corpus-factory write-up §4.1.4): turn live responses into a
// draft `expect` map whose values name the template's slots.
//
// The rule, in short (docs/annotate.md explains it for users):
//
//   - Only strings are replaced, and only by a slot's *expected* value — the
//     value a {slot} placeholder expands to in `expect`: the value normalised
//     for the suite's schema when the material value has one, else the raw
//     value. A raw value of a slot that has a different normalised value
//     cannot be named by a placeholder and stays literal (with a note).
//   - Occurrences are found leftmost-longest, so 酒店同房间同宿 becomes
//     {伴随关系} rather than {伴随关系}同宿; a string shared by two slots
//     stays literal with a note naming both.
//   - A whole string equal to a slot's normalised value is the answer the
//     suite itself declares (normalize = { IAO = … }): replaced outright.
//   - Any other replacement — a raw value, or a value inside a longer
//     string — may be a coincidence (查询 is the operation word the user
//     typed and also the operation the service answers for 查一下), so it is
//     checked with a probe: the same case with only that slot changed is
//     sent to the target. The placeholder stays when the probe's answer
//     follows the slot, is dropped (literal kept) when the answer did not
//     change, and stays with a note when the probe is inconclusive.

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/nlutest/nlutest/spec/materials"
	"github.com/ohler55/ojg/jp"
	"golang.org/x/text/unicode/norm"
)

// ObservedLeaf is one path = value pair of a flattened response: Path is a
// normalised path of children and indexes, Value a scalar or a list of
// scalars in generic JSON form (string, int64, float64, bool, []any).
type ObservedLeaf struct {
	Path  jp.Expr
	Value any
}

// Observation is what one call answered: the response's leaves with ignored
// paths already dropped, or, when there was no usable response, Err.
type Observation struct {
	Leaves []ObservedLeaf
	// Err describes a call that produced no usable response ("" when the
	// call succeeded).
	Err string
}

// CallFunc calls the target with one case and returns the flattened
// response. DraftExpect calls it sequentially.
type CallFunc func(c *schema.Case) Observation

// Draft is the pre-annotation of one template: the expectations the samples
// agree on, and the notes a reviewer needs.
type Draft struct {
	Template *spec.Template
	// Samples are the generated cases whose responses were annotated.
	Samples []*schema.Case
	// Usable counts the samples whose call gave a usable response.
	Usable int
	// Probes counts the extra calls made to check placeholders.
	Probes int
	// Entries are the proposed expectations, in response order.
	Entries []DraftEntry
	// Notes are comments not tied to a proposed path: failed calls,
	// disagreements between samples, paths only some samples have.
	Notes []string
}

// DraftEntry is one proposed `path = value` expectation.
type DraftEntry struct {
	// Path is the canonical JSONPath, e.g. $.data[0].content.ont.
	Path string
	// Value is the expected value in generic JSON form; its strings are in
	// placeholder syntax ({slot}, with literal braces doubled).
	Value any
	// Placeholders counts the {slot} placeholders in Value.
	Placeholders int
	// Notes are reviewer comments about this entry.
	Notes []string
}

// Placeholders counts the placeholders of every entry of the draft.
func (d *Draft) Placeholders() int {
	n := 0
	for _, e := range d.Entries {
		n += e.Placeholders
	}
	return n
}

// Comments counts the reviewer comments of the draft.
func (d *Draft) Comments() int {
	n := len(d.Notes)
	for _, e := range d.Entries {
		n += len(e.Notes)
	}
	return n
}

// NeedsAnnotation reports whether `nlutest annotate` drafts expectations
// for t without being asked by name: t has none, or they are not reviewed.
func NeedsAnnotation(t *spec.Template) bool { return !t.Reviewed || len(t.Expect) == 0 }

// DraftExpect calls the target with each sample case of template t of
// suite s, turns every response into path = value pairs with slot values
// replaced by their placeholders, checks doubtful placeholders with probe
// calls, and keeps the pairs all usable samples agree on.
func DraftExpect(s *spec.Suite, t *spec.Template, samples []*schema.Case, call CallFunc) *Draft {
	d := &Draft{Template: t, Samples: samples}
	a := &annotator{s: s, t: t, call: call, d: d, obs: map[string]Observation{}}
	var drafts []*sampleDraft
	for _, c := range samples {
		o := a.observe(c, false)
		if o.Err != "" {
			d.Notes = append(d.Notes, fmt.Sprintf("case %s %s: the call failed, so it is left out: %s", c.ID, spec.QuoteString(c.Text), o.Err))
			continue
		}
		drafts = append(drafts, a.draftSample(c, o))
	}
	d.Usable = len(drafts)
	a.merge(drafts)
	return d
}

type annotator struct {
	s    *spec.Suite
	t    *spec.Template
	call CallFunc
	d    *Draft
	// obs caches calls by case id, so a probe equal to a sample (or to an
	// earlier probe) is not sent twice.
	obs map[string]Observation
}

func (a *annotator) observe(c *schema.Case, probe bool) Observation {
	if o, ok := a.obs[c.ID]; ok {
		return o
	}
	o := a.call(c)
	if probe {
		a.d.Probes++
	}
	a.obs[c.ID] = o
	return o
}

// sampleDraft is one sample's proposal: path → value, in leaf order.
type sampleDraft struct {
	c     *schema.Case
	paths []string
	value map[string]any
	notes map[string][]string
	// skipped lists paths that cannot be written as expectation paths.
	skipped []string
	// exprs holds each path's parsed form.
	exprs []jp.Expr
}

// slotCandidate is a string a placeholder can stand for.
type slotCandidate struct {
	text string
	key  string
	// declared is true when text is the slot's normalised value, which the
	// suite declares as the service's answer.
	declared bool
}

func (a *annotator) candidates(c *schema.Case) []slotCandidate {
	var out []slotCandidate
	for _, k := range annotSortedKeys(c.Slots) {
		sl := c.Slots[k]
		if e := norm.NFC.String(sl.Expected()); e != "" {
			out = append(out, slotCandidate{text: e, key: k, declared: sl.Normalized != ""})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].text) > len(out[j].text) })
	return out
}

// slotUse is one placeholder put into a leaf.
type slotUse struct {
	key string
	// sure is true for a whole string equal to a declared normalised
	// value; other uses are probed.
	sure bool
}

func (a *annotator) draftSample(c *schema.Case, o Observation) *sampleDraft {
	sd := &sampleDraft{c: c, value: map[string]any{}, notes: map[string][]string{}}
	cands := a.candidates(c)
	for _, lf := range o.Leaves {
		path, ok := canonicalPath(lf.Path)
		if !ok {
			sd.skipped = append(sd.skipped, lf.Path.String())
			continue
		}
		if _, dup := sd.value[path]; dup {
			continue
		}
		var uses []slotUse
		var notes []string
		v := templatize(lf.Value, cands, func(u slotUse) { uses = append(uses, u) }, func(text string, keys []string) {
			notes = append(notes, fmt.Sprintf("%s: %s is the value of %s: kept literal; write the placeholder that is meant", path, spec.QuoteString(text), braceList(keys)))
		})
		for _, key := range probeKeys(uses) {
			var note string
			v, note = a.check(c, key, path, v)
			if note != "" {
				notes = append(notes, note)
			}
		}
		notes = append(notes, rawValueNotes(path, v, c, a.s.SchemaName)...)
		sd.paths = append(sd.paths, path)
		sd.value[path] = v
		sd.notes[path] = notes
		sd.exprs = append(sd.exprs, lf.Path)
	}
	sd.collectItems(a.s.Schema)
	return sd
}

// collectItems rewrites the leaves of the items of a dimension with a
// collection path ($.entities[0].entity, $.entities[0].value, …) as the
// one expectation that lists them, compared in any order:
// "$.entities" = [{ entity = "city", value = "{城市}" }, …] (docs/metrics.md).
func (sd *sampleDraft) collectItems(sc *spec.Schema) {
	if sc == nil {
		return
	}
	var paths []string
	lists := map[string][]map[string]any{}
	for i, path := range sd.paths {
		x := sd.exprs[i]
		n := len(x)
		var dim *spec.Dimension
		if n >= 3 {
			dim = sc.CollectionOf(x[:n-2])
		}
		isNth := false
		var idx int
		var key string
		if dim != nil {
			if at, ok := x[n-2].(jp.Nth); ok {
				if k, ok := x[n-1].(jp.Child); ok {
					idx, key, isNth = int(at), string(k), true
				}
			}
		}
		if !isNth {
			paths = append(paths, path)
			continue
		}
		coll := dim.Collection.Source
		if _, ok := lists[coll]; !ok {
			paths = append(paths, coll)
		}
		for len(lists[coll]) <= idx {
			lists[coll] = append(lists[coll], map[string]any{})
		}
		lists[coll][idx][key] = sd.value[path]
		sd.notes[coll] = append(sd.notes[coll], sd.notes[path]...)
		delete(sd.value, path)
		delete(sd.notes, path)
	}
	for coll, objs := range lists {
		list := make([]any, 0, len(objs))
		for _, o := range objs {
			if len(o) > 0 {
				list = append(list, o)
			}
		}
		sd.value[coll] = list
	}
	sd.paths = paths
}

// probeKeys lists, in first-use order, the slots whose use needs a probe.
func probeKeys(uses []slotUse) []string {
	var keys []string
	for _, u := range uses {
		if !u.sure && !slices.Contains(keys, u.key) {
			keys = append(keys, u.key)
		}
	}
	return keys
}

// check probes the placeholder {key} in v (the templated value of path in
// case c) and returns v, with the placeholder reverted to its literal when
// the probe shows the answer does not follow the slot, and a note.
func (a *annotator) check(c *schema.Case, key, path string, v any) (any, string) {
	p := ProbeCase(a.s, a.t, c, key)
	if p == nil {
		// Every value the template may draw for this slot expects the
		// same string: placeholder and literal mean the same thing.
		return v, ""
	}
	literal := revertKey(v, key, norm.NFC.String(c.Slots[key].Expected()))
	o := a.observe(p, true)
	with := fmt.Sprintf("{%s} = %s", key, p.Slots[key].Value)
	if o.Err != "" {
		return v, fmt.Sprintf("%s: {%s} not confirmed: with %s the call failed: %s", path, key, with, o.Err)
	}
	var got any
	found := false
	for _, lf := range o.Leaves {
		if q, ok := canonicalPath(lf.Path); ok && q == path {
			got, found = lf.Value, true
			break
		}
	}
	predicted := fillPlaceholders(v, p.Slots)
	switch {
	case found && sameValue(got, predicted):
		return v, ""
	case found && sameValue(got, fillPlaceholders(literal, p.Slots)):
		return literal, fmt.Sprintf("%s: kept literal %s: it equals {%s} here, but the answer stayed the same with %s", path, renderNote(fillPlaceholders(literal, c.Slots)), key, with)
	case !found:
		return v, fmt.Sprintf("%s: {%s} not confirmed: with %s the response has no %s", path, key, with, path)
	default:
		return v, fmt.Sprintf("%s: {%s} not confirmed: with %s the answer was %s, not %s", path, key, with, renderNote(got), renderNote(predicted))
	}
}

func sameValue(a, b any) bool {
	return reflect.DeepEqual(nfcGeneric(a), nfcGeneric(b))
}

func nfcGeneric(v any) any {
	switch t := v.(type) {
	case string:
		return norm.NFC.String(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = nfcGeneric(e)
		}
		return out
	}
	return v
}

// templatize returns v with every string in placeholder syntax: slot values
// replaced by {slot} (leftmost-longest), literal braces doubled. onUse is
// called for each placeholder put in, onAmbiguous for a string two slots
// share.
func templatize(v any, cands []slotCandidate, onUse func(slotUse), onAmbiguous func(string, []string)) any {
	switch t := v.(type) {
	case string:
		return templatizeString(t, cands, onUse, onAmbiguous)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = templatize(e, cands, onUse, onAmbiguous)
		}
		return out
	}
	return v
}

func templatizeString(s string, cands []slotCandidate, onUse func(slotUse), onAmbiguous func(string, []string)) string {
	s = norm.NFC.String(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		best := -1
		var keys []string
		declared := false
		for _, c := range cands {
			if best >= 0 && len(c.text) < best {
				break
			}
			if strings.HasPrefix(s[i:], c.text) && !slices.Contains(keys, c.key) {
				best = len(c.text)
				keys = append(keys, c.key)
				declared = c.declared
			}
		}
		switch {
		case best < 0:
			j := i + 1
			for j < len(s) && !utf8RuneStart(s[j]) {
				j++
			}
			b.WriteString(doubleBraces(s[i:j]))
			i = j
			continue
		case len(keys) > 1:
			sort.Strings(keys)
			onAmbiguous(s[i:i+best], keys)
			b.WriteString(doubleBraces(s[i : i+best]))
		default:
			onUse(slotUse{key: keys[0], sure: declared && i == 0 && best == len(s)})
			b.WriteString("{" + keys[0] + "}")
		}
		i += best
	}
	return b.String()
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

func doubleBraces(s string) string {
	s = strings.ReplaceAll(s, "{", "{{")
	return strings.ReplaceAll(s, "}", "}}")
}

// revertKey replaces every {key} placeholder in v's strings by the literal
// value it stood for.
func revertKey(v any, key, literal string) any {
	switch t := v.(type) {
	case string:
		lits, phs, err := spec.ParsePlaceholders(t)
		if err != nil {
			return t
		}
		var b strings.Builder
		for i, ph := range phs {
			b.WriteString(doubleBraces(lits[i]))
			if ph.Key == key {
				b.WriteString(doubleBraces(literal))
			} else {
				b.WriteString("{" + ph.Key + "}")
			}
		}
		b.WriteString(doubleBraces(lits[len(lits)-1]))
		return b.String()
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = revertKey(e, key, literal)
		}
		return out
	}
	return v
}

// fillPlaceholders replaces the placeholders in v's strings by the slots'
// expected values.
func fillPlaceholders(v any, slots map[string]schema.Slot) any {
	switch t := v.(type) {
	case string:
		return spec.FillExpected(t, slots)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = fillPlaceholders(e, slots)
		}
		return out
	}
	return v
}

// countPlaceholders counts the placeholders in v's strings.
func countPlaceholders(v any) int {
	switch t := v.(type) {
	case string:
		_, phs, err := spec.ParsePlaceholders(t)
		if err != nil {
			return 0
		}
		return len(phs)
	case []any:
		n := 0
		for _, e := range t {
			n += countPlaceholders(e)
		}
		return n
	}
	return 0
}

// rawValueNotes notes a literal part of v holding the raw value of a slot
// whose placeholder means its (different) normalised value.
func rawValueNotes(path string, v any, c *schema.Case, schemaName string) []string {
	var lits []string
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case string:
			if ls, _, err := spec.ParsePlaceholders(t); err == nil {
				lits = append(lits, ls...)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	var out []string
	for _, k := range annotSortedKeys(c.Slots) {
		sl := c.Slots[k]
		if sl.Normalized == "" || sl.Value == "" || sl.Value == sl.Normalized {
			continue
		}
		raw := norm.NFC.String(sl.Value)
		if slices.ContainsFunc(lits, func(l string) bool { return strings.Contains(l, raw) }) {
			out = append(out, fmt.Sprintf("%s holds {%s}'s raw value %s, but in expect {%s} means its %s value %s: kept literal", path, k, spec.QuoteString(sl.Value), k, schemaName, spec.QuoteString(sl.Normalized)))
		}
	}
	return out
}

// merge keeps the pairs every usable sample agrees on and notes the rest.
func (a *annotator) merge(drafts []*sampleDraft) {
	d := a.d
	if len(drafts) == 0 {
		return
	}
	var order []string
	seen := map[string]bool{}
	skipped := map[string]bool{}
	for _, sd := range drafts {
		for _, p := range sd.paths {
			if !seen[p] {
				seen[p] = true
				order = append(order, p)
			}
		}
		for _, p := range sd.skipped {
			if !skipped[p] {
				skipped[p] = true
				d.Notes = append(d.Notes, fmt.Sprintf("%s cannot be written as an expectation path: left out", p))
			}
		}
	}
	for _, p := range order {
		var missing []string
		groups := map[string][]string{}
		var groupOrder []string
		for _, sd := range drafts {
			v, ok := sd.value[p]
			if !ok {
				missing = append(missing, sd.c.ID)
				continue
			}
			r := renderNote(v)
			if _, ok := groups[r]; !ok {
				groupOrder = append(groupOrder, r)
			}
			groups[r] = append(groups[r], sd.c.ID)
		}
		if len(missing) > 0 {
			var parts []string
			for _, r := range groupOrder {
				parts = append(parts, fmt.Sprintf("%s in %s", r, caseList(groups[r])))
			}
			d.Notes = append(d.Notes, fmt.Sprintf("only in some samples: %s is %s; missing in %s", p, strings.Join(parts, ", "), caseList(missing)))
			continue
		}
		if len(groupOrder) > 1 {
			var parts []string
			for _, r := range groupOrder {
				parts = append(parts, fmt.Sprintf("%s in %s", r, caseList(groups[r])))
			}
			d.Notes = append(d.Notes, fmt.Sprintf("disagreement: %s is %s", p, strings.Join(parts, ", ")))
			continue
		}
		v := drafts[0].value[p]
		e := DraftEntry{Path: p, Value: v, Placeholders: countPlaceholders(v)}
		for _, sd := range drafts {
			for _, n := range sd.notes[p] {
				if !slices.Contains(e.Notes, n) {
					e.Notes = append(e.Notes, n)
				}
			}
		}
		d.Entries = append(d.Entries, e)
	}
}

func caseList(ids []string) string {
	if len(ids) == 1 {
		return "case " + ids[0]
	}
	return "cases " + strings.Join(ids, ", ")
}

func braceList(keys []string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = "{" + k + "}"
	}
	if len(parts) == 2 {
		return "both " + parts[0] + " and " + parts[1]
	}
	return "each of " + strings.Join(parts, ", ")
}

// canonicalPath writes a flattened path as the JSONPath nlutest reads back
// to the same path: $.data[0].content.ont, $['a b'], $.槽位.城市.
func canonicalPath(x jp.Expr) (string, bool) {
	s := x.String()
	if back, _, err := jsonpath.Compile(s); err == nil && reflect.DeepEqual(back, x) {
		return s, true
	}
	var b strings.Builder
	b.WriteString("$")
	for _, f := range x {
		switch t := f.(type) {
		case jp.Root:
		case jp.Child:
			b.WriteString("['")
			b.WriteString(strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(string(t)))
			b.WriteString("']")
		case jp.Nth:
			fmt.Fprintf(&b, "[%d]", int(t))
		default:
			return "", false
		}
	}
	s = b.String()
	if back, _, err := jsonpath.Compile(s); err == nil && reflect.DeepEqual(back, x) {
		return s, true
	}
	return "", false
}

// ProbeCase returns a copy of case c of template t of suite s in which only the slot
// key takes another value of its materials — one whose raw and expected
// values differ from the current ones and from the other slots' — with the
// text and id rebuilt. It prefers a value of the same material level. It
// returns nil when the materials offer no such value.
func ProbeCase(s *spec.Suite, t *spec.Template, c *schema.Case, key string) *schema.Case {
	cur, ok := c.Slots[key]
	if !ok {
		return nil
	}
	var ref *spec.SlotRef
	for i := range t.Slots {
		if t.Slots[i].Key == key {
			ref = &t.Slots[i]
		}
	}
	if ref == nil || s.Materials[ref.Material] == nil {
		return nil
	}
	m := s.Materials[ref.Material]
	schemaKey := strings.ToLower(s.SchemaName)
	pick := -1
	for i, mv := range m.Values {
		if probeUsable(t, c, key, cur, mv, schemaKey) && (pick < 0 || mv.Level == cur.Level && m.Values[pick].Level != cur.Level) {
			pick = i
		}
	}
	if pick < 0 {
		return nil
	}
	mv := m.Values[pick]
	p := *c
	p.Slots = make(map[string]schema.Slot, len(c.Slots))
	for k, v := range c.Slots {
		p.Slots[k] = v
	}
	src := ref.Material
	if mv.Origin != "" {
		src += " (" + mv.Origin + ")"
	}
	p.Slots[key] = schema.Slot{Value: mv.Value, Normalized: mv.Normalize[schemaKey], Tag: m.Tag, Level: mv.Level, Source: src}
	var b strings.Builder
	for _, part := range t.Parts {
		if part.Slot < 0 {
			b.WriteString(part.Literal)
		} else {
			b.WriteString(p.Slots[t.Slots[part.Slot].Key].Value)
		}
	}
	p.Text = b.String()
	p.ID = spec.CaseID(t.Name, p.Slots)
	p.Expect = nil
	return &p
}

// probeUsable reports whether material value mv can replace slot key's
// current value cur in case c for a probe: a level the template allows,
// and raw and expected values that differ from the current ones and from
// the other slots'.
func probeUsable(t *spec.Template, c *schema.Case, key string, cur schema.Slot, mv materials.Value, schemaKey string) bool {
	if len(t.MaterialLevels) > 0 && !slices.Contains(t.MaterialLevels, mv.Level) {
		return false
	}
	exp := mv.Normalize[schemaKey]
	if exp == "" {
		exp = mv.Value
	}
	if mv.Value == cur.Value || exp == cur.Expected() || exp == "" {
		return false
	}
	for k, sl := range c.Slots {
		if k != key && (sl.Value == mv.Value || sl.Expected() == exp) {
			return false
		}
	}
	return true
}

func annotSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
