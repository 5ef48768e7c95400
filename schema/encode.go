package schema

import (
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/nlutest/nlutest/jsondoc"
)

// This file holds the JSON encoder of the case record, the hot path of
// `nlutest generate` (SPEC §11: 1,000,000 cases in under 5 s). It writes
// exactly the bytes encoding/json writes for the same value with HTML
// escaping off (field order, omitempty, sorted map keys, string escapes,
// ES6 number formatting) — encode_test.go checks that byte for byte — at a
// fraction of the cost, because it needs no reflection and no compaction of
// the Expectations marshaller's output.

// AppendCaseLine appends c as one JSON line (with the trailing newline), the
// same bytes EncodeLine(c) returns, to dst.
func AppendCaseLine(dst []byte, c *Case) ([]byte, error) {
	b, err := appendCase(dst, c)
	if err != nil {
		return dst, err
	}
	return append(b, '\n'), nil
}

// scratch holds reusable encoding buffers: EncodeLine encodes into one and
// copies the line out, so each line costs one exact-size allocation.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// encodeCaseLine is EncodeLine for a case.
func encodeCaseLine(c *Case) ([]byte, error) {
	bp := scratch.Get().(*[]byte)
	b, err := AppendCaseLine((*bp)[:0], c)
	var line []byte
	if err == nil {
		line = make([]byte, len(b))
		copy(line, b)
	}
	if cap(b) <= 1<<20 { // do not keep a huge case's buffer around
		*bp = b
		scratch.Put(bp)
	}
	return line, err
}

func appendCase(b []byte, c *Case) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = jsondoc.AppendString(b, c.ID)
	b = append(b, `,"suite":`...)
	b = jsondoc.AppendString(b, c.Suite)
	b = append(b, `,"template":`...)
	b = jsondoc.AppendString(b, c.Template)
	if c.Source != "" {
		b = append(b, `,"source":`...)
		b = jsondoc.AppendString(b, c.Source)
	}
	if c.SourceKind != "" {
		b = append(b, `,"source_kind":`...)
		b = jsondoc.AppendString(b, c.SourceKind)
	}
	b = append(b, `,"text":`...)
	b = jsondoc.AppendString(b, c.Text)
	if c.Level != "" {
		b = append(b, `,"level":`...)
		b = jsondoc.AppendString(b, c.Level)
	}
	b = append(b, `,"core":`...)
	b = strconv.AppendBool(b, c.Core)
	if len(c.Scene) > 0 {
		b = append(b, `,"scene":`...)
		b = appendStrings(b, c.Scene)
	}
	if len(c.Tags) > 0 {
		b = append(b, `,"tags":`...)
		b = appendStrings(b, c.Tags)
	}
	if len(c.Split) > 0 {
		b = append(b, `,"split":`...)
		b = appendStrings(b, c.Split)
	}
	if c.Schema != "" {
		b = append(b, `,"schema":`...)
		b = jsondoc.AppendString(b, c.Schema)
	}
	if len(c.Slots) > 0 {
		b = append(b, `,"slots":`...)
		b = appendSlots(b, c.Slots)
	}
	if len(c.Expect) > 0 {
		b = append(b, `,"expect":`...)
		var err error
		if b, err = c.Expect.appendJSON(b); err != nil {
			return b, fmt.Errorf("json: error calling MarshalJSON for type schema.Expectations: %w", err)
		}
	}
	b = appendDatasetFields(b, c)
	if c.Unreviewed {
		b = append(b, `,"unreviewed":true`...)
	}
	return appendTurnFields(b, c), nil
}

func appendStrings(b []byte, xs []string) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsondoc.AppendString(b, x)
	}
	return append(b, ']')
}

// appendSlots writes the slots map with its keys sorted, as encoding/json
// does. Small maps (every template has a handful of slots) sort on the
// stack.
func appendSlots(b []byte, slots map[string]Slot) []byte {
	var arr [8]string
	keys := arr[:0]
	for k := range slots {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		s := slots[k]
		b = jsondoc.AppendString(b, k)
		b = append(b, `:{"value":`...)
		b = jsondoc.AppendString(b, s.Value)
		if s.Normalized != "" {
			b = append(b, `,"normalized":`...)
			b = jsondoc.AppendString(b, s.Normalized)
		}
		if s.Tag != "" {
			b = append(b, `,"tag":`...)
			b = jsondoc.AppendString(b, s.Tag)
		}
		if s.Level != "" {
			b = append(b, `,"level":`...)
			b = jsondoc.AppendString(b, s.Level)
		}
		if s.Source != "" {
			b = append(b, `,"source":`...)
			b = jsondoc.AppendString(b, s.Source)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendJSON writes the expectations as one JSON object in order.
func (e Expectations) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	for i, x := range e {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsondoc.AppendString(b, x.Path)
		b = append(b, ':')
		var err error
		if b, err = appendJSONValue(b, x.Value); err != nil {
			return b, fmt.Errorf("expectation %s: %w", x.Path, err)
		}
	}
	return append(b, '}'), nil
}

// CanonicalJSON is the JSON text of a generic value exactly as
// encoding/json writes it (see jsondoc.CanonicalJSON).
func CanonicalJSON(v any) string { return jsondoc.CanonicalJSON(v) }

// AppendCanonicalJSON appends CanonicalJSON(v) to b.
func AppendCanonicalJSON(b []byte, v any) []byte { return jsondoc.AppendCanonical(b, v) }

// AppendCanonicalString appends the canonical JSON text of a string given
// as text or as bytes: the same as AppendCanonicalJSON of the string.
func AppendCanonicalString[T ~string | ~[]byte](b []byte, s T) []byte {
	return jsondoc.AppendString(b, s)
}

// appendJSONValue writes a generic JSON value as encoding/json does.
func appendJSONValue(b []byte, v any) ([]byte, error) { return jsondoc.AppendValue(b, v) }

// appendTurnFields writes the fields of a conversation's turn and a
// repetition, and closes the case object.
func appendTurnFields(b []byte, c *Case) []byte {
	if c.Script != "" {
		b = append(b, `,"script":`...)
		b = jsondoc.AppendString(b, c.Script)
	}
	if c.Turn != 0 {
		b = append(b, `,"turn":`...)
		b = strconv.AppendInt(b, int64(c.Turn), 10)
	}
	if c.Conversation != "" {
		b = append(b, `,"conversation":`...)
		b = jsondoc.AppendString(b, c.Conversation)
	}
	if c.Event != "" {
		b = append(b, `,"event":`...)
		b = jsondoc.AppendString(b, c.Event)
	}
	if c.Repeat != 0 {
		b = append(b, `,"repeat":`...)
		b = strconv.AppendInt(b, int64(c.Repeat), 10)
	}
	if len(c.Captures) > 0 {
		b = append(b, `,"captures":`...)
		b = appendStringMap(b, c.Captures)
	}
	if c.Fact != "" {
		b = append(b, `,"fact":`...)
		b = jsondoc.AppendString(b, c.Fact)
	}
	if c.Expected != "" {
		b = append(b, `,"expected":`...)
		b = jsondoc.AppendString(b, c.Expected)
	}
	if c.Distance != 0 {
		b = append(b, `,"distance":`...)
		b = strconv.AppendInt(b, int64(c.Distance), 10)
	}
	if c.Reason != "" {
		b = append(b, `,"reason":`...)
		b = jsondoc.AppendString(b, c.Reason)
	}
	return append(b, '}')
}

// appendDatasetFields writes the references and the perturbation of a
// case, when it has them.
func appendDatasetFields(b []byte, c *Case) []byte {
	if len(c.References) > 0 {
		b = append(b, `,"references":`...)
		b = appendStrings(b, c.References)
	}
	if c.Perturbation != "" {
		b = append(b, `,"perturbation":`...)
		b = jsondoc.AppendString(b, c.Perturbation)
	}
	if c.Original != "" {
		b = append(b, `,"original":`...)
		b = jsondoc.AppendString(b, c.Original)
	}
	if len(c.Meta) > 0 {
		b = append(b, `,"meta":`...)
		b = appendStringMap(b, c.Meta)
	}
	if c.Candidate != "" {
		b = append(b, `,"candidate":`...)
		b = jsondoc.AppendString(b, c.Candidate)
	}
	if len(c.Candidates) > 0 {
		b = append(b, `,"candidates":`...)
		b = appendStrings(b, c.Candidates)
	}
	return b
}
