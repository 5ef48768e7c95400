package schema

import "slices"

// FieldKind is the kind of value a case field holds.
type FieldKind uint8

// Case field kinds.
const (
	FieldString    FieldKind = iota
	FieldBool                // true or false
	FieldStrings             // a list of strings
	FieldSlots               // the slots object (Slot per placeholder)
	FieldExpect              // the expectations object
	FieldInt                 // a whole number
	FieldStringMap           // an object of strings
)

// CaseField describes one field of the case record. CaseFields is the one
// list of them: the `case` object of per-case expressions (spec), which of
// its names a split may memoise per source, and the columns of `generate
// --format csv` derive from it. The JSON encoder and decoders of this
// package stay hand-written for speed; fields_test.go fails when one of them,
// or this list, misses a field of Case.
type CaseField struct {
	// Name is the JSON member, the `case.NAME` attribute and the CSV column.
	Name string
	Kind FieldKind
	Doc  string
	// Expr: per-case expressions read it as case.NAME.
	Expr bool
	// PerSource: every case of one source has the same value (a template's
	// level, scene…), so a condition reading only such fields is computed
	// once per source.
	PerSource bool
	// CSV is the field's column in `generate --format csv` (1 is the
	// first); 0 leaves it out (the same for every case of a suite).
	CSV int
	// Str, Bool and List read the field of the matching kind.
	Str  func(*Case) string
	Bool func(*Case) bool
	List func(*Case) []string
	Int  func(*Case) int
}

// CaseFields lists the case record's fields, in the order the `case`
// object lists its attributes.
var CaseFields = []CaseField{
	{Name: "id", Kind: FieldString, Doc: "stable case id", Expr: true, CSV: 1, Str: func(c *Case) string { return c.ID }},
	{Name: "text", Kind: FieldString, Doc: "the utterance sent", Expr: true, CSV: 3, Str: func(c *Case) string { return c.Text }},
	{Name: "template", Kind: FieldString, Doc: "template name (empty for other source kinds)", Expr: true, PerSource: true, CSV: 2, Str: func(c *Case) string { return c.Template }},
	{Name: "level", Kind: FieldString, Doc: "level (S1, S2…)", Expr: true, PerSource: true, CSV: 4, Str: func(c *Case) string { return c.Level }},
	{Name: "core", Kind: FieldBool, Doc: "core business scene", Expr: true, PerSource: true, CSV: 5, Bool: func(c *Case) bool { return c.Core }},
	{Name: "scene", Kind: FieldStrings, Doc: "scene path, outermost first", Expr: true, PerSource: true, CSV: 6, List: func(c *Case) []string { return c.Scene }},
	{Name: "tags", Kind: FieldStrings, Doc: "tags", Expr: true, PerSource: true, CSV: 7, List: func(c *Case) []string { return c.Tags }},
	{Name: "split", Kind: FieldStrings, Doc: "the splits the case belongs to", Expr: true, CSV: 8, List: func(c *Case) []string { return c.Split }},
	{Name: "slots", Kind: FieldSlots, Doc: "per placeholder: value, normalized, tag, level, source", Expr: true, CSV: 9},
	{Name: "schema", Kind: FieldString, Doc: "the suite's response schema", Expr: true, PerSource: true, Str: func(c *Case) string { return c.Schema }},
	{Name: "suite", Kind: FieldString, Doc: "suite name", Str: func(c *Case) string { return c.Suite }},
	{Name: "source", Kind: FieldString, Doc: "case source name", CSV: 11, Str: func(c *Case) string { return c.Source }},
	{Name: "source_kind", Kind: FieldString, Doc: "case source kind", CSV: 12, Str: func(c *Case) string { return c.SourceKind }},
	{Name: "expect", Kind: FieldExpect, Doc: "resolved expectations, in source order", CSV: 10},
	{Name: "references", Kind: FieldStrings, Doc: "reference answers or replies for the text metrics", Expr: true, List: func(c *Case) []string { return c.References }},
	{Name: "perturbation", Kind: FieldString, Doc: "the perturbation kind that made the case (empty for an original)", Expr: true, Str: func(c *Case) string { return c.Perturbation }},
	{Name: "original", Kind: FieldString, Doc: "the id of the case it perturbs (empty for an original)", Expr: true, Str: func(c *Case) string { return c.Original }},
	{Name: "meta", Kind: FieldStringMap, Doc: "a dataset row's extra fields (the dataset's meta map)", Expr: true},
	{Name: "candidate", Kind: FieldString, Doc: "the candidate response a ranking case scores (empty for other cases)", Expr: true, Str: func(c *Case) string { return c.Candidate }},
	{Name: "candidates", Kind: FieldStrings, Doc: "the candidate responses a ranking case orders, in the file's order", Expr: true, List: func(c *Case) []string { return c.Candidates }},
	{Name: "unreviewed", Kind: FieldBool, Doc: "the expectations are drafts", Bool: func(c *Case) bool { return c.Unreviewed }},
	{Name: "script", Kind: FieldString, Doc: "the conversation instance the case is a turn of (empty for a single case)", Str: func(c *Case) string { return c.Script }},
	{Name: "turn", Kind: FieldInt, Doc: "the turn's index in its conversation, from 1 (0 for a single case)", Expr: true, Int: func(c *Case) int { return c.Turn }},
	{Name: "conversation", Kind: FieldString, Doc: "the conversation's session id (new each run of it; empty for a single case)", Expr: true, Str: func(c *Case) string { return c.Conversation }},
	{Name: "event", Kind: FieldString, Doc: "\"start\" on a conversation's bot-first turn (no user message); empty otherwise", Expr: true, Str: func(c *Case) string { return c.Event }},
	{Name: "repeat", Kind: FieldInt, Doc: "the repetition under --repeat, from 1 (0 without it)", Int: func(c *Case) int { return c.Repeat }},
	{Name: "fact", Kind: FieldString, Doc: "on a memory question turn: the fact told earlier", Expr: true, Str: func(c *Case) string { return c.Fact }},
	{Name: "expected", Kind: FieldString, Doc: "on a memory question turn: what a right answer states", Expr: true, Str: func(c *Case) string { return c.Expected }},
	{Name: "distance", Kind: FieldInt, Doc: "in a memory case: filler turns between the last fact and the first question", Expr: true, Int: func(c *Case) int { return c.Distance }},
	{Name: "reason", Kind: FieldString, Doc: "in a scenario: why the simulated user said this turn (answered ask \"city\", volunteered \"date\", affirmed…)", Expr: true, Str: func(c *Case) string { return c.Reason }},
	{Name: "captures", Kind: FieldStringMap, Doc: "values earlier turns captured (capture.NAME)"},
}

// CaseField returns the field named name, or nil.
func CaseFieldByName(name string) *CaseField {
	for i := range CaseFields {
		if CaseFields[i].Name == name {
			return &CaseFields[i]
		}
	}
	return nil
}

// ExprCaseFields lists the names of the `case` object's attributes, in
// order.
func ExprCaseFields() []string {
	var out []string
	for _, f := range CaseFields {
		if f.Expr {
			out = append(out, f.Name)
		}
	}
	return out
}

// CSVCaseFields lists the fields of `generate --format csv`, in column
// order.
func CSVCaseFields() []*CaseField {
	var out []*CaseField
	for i := range CaseFields {
		if CaseFields[i].CSV > 0 {
			out = append(out, &CaseFields[i])
		}
	}
	slices.SortFunc(out, func(a, b *CaseField) int { return a.CSV - b.CSV })
	return out
}
