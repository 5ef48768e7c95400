package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/ohler55/ojg/oj"
)

// The decoders in this file read nlutest's own records without reflection:
// `nlutest eval` reads a million results, and encoding/json's reflective
// decoding of each line (with its 1 KiB response validated twice) was most
// of that time.

var errSyntax = errors.New("invalid JSON")

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// structural marks the bytes a container scan stops at: quotes and
// brackets. stringStop marks the bytes a string scan stops at.
var structural, stringStop [256]bool

func init() {
	for _, c := range []byte(`"{}[]`) {
		structural[c] = true
	}
	stringStop['"'], stringStop['\\'] = true, true
}

// scanValue returns the end of the JSON value starting at b[i] (after
// spaces). It checks structure only as far as finding the end needs.
func scanValue(b []byte, i int) (start, end int, err error) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return 0, 0, errSyntax
	}
	start = i
	switch b[i] {
	case '"':
		end, err = scanString(b, i)
		return start, end, err
	case '{', '[':
		depth := 0
		for i < len(b) {
			for i < len(b) && !structural[b[i]] {
				i++
			}
			if i >= len(b) {
				break
			}
			switch b[i] {
			case '"':
				e, err := scanString(b, i)
				if err != nil {
					return 0, 0, err
				}
				i = e
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return start, i + 1, nil
				}
			}
			i++
		}
		return 0, 0, errSyntax
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return start, i, nil
			}
			i++
		}
		return start, i, nil
	}
}

func scanString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		for j < len(b) && !stringStop[b[j]] {
			j++
		}
		if j >= len(b) {
			break
		}
		if b[j] == '"' {
			return j + 1, nil
		}
		j++ // the byte after a backslash
	}
	return 0, errSyntax
}

// unquote decodes a JSON string token (with its quotes).
func unquote(tok []byte) (string, error) {
	if len(tok) < 2 || tok[0] != '"' {
		return "", errSyntax
	}
	if inner := tok[1 : len(tok)-1]; plainBytes(inner) {
		return string(inner), nil
	}
	var s string
	err := json.Unmarshal(tok, &s)
	return s, err
}

// eachMember calls fn for every member of the JSON object in b, with the
// member's key (its text: the raw bytes when the key has no escapes, so
// reading a record allocates no keys) and the raw bytes of its value.
func eachMember(b []byte, fn func(key []byte, val []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return fmt.Errorf("want a JSON object")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for i < len(b) {
		ks, ke, err := scanValue(b, i)
		if err != nil || b[ks] != '"' {
			return errSyntax
		}
		key := b[ks+1 : ke-1]
		if !plainBytes(key) {
			k, err := unquote(b[ks:ke])
			if err != nil {
				return err
			}
			key = []byte(k)
		}
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return errSyntax
		}
		vs, ve, err := scanValue(b, i+1)
		if err != nil {
			return err
		}
		if err := fn(key, b[vs:ve]); err != nil {
			if err == errFound {
				return err // a search that ended, not a failure
			}
			return fmt.Errorf("%s: %w", key, err)
		}
		i = skipSpace(b, ve)
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		if i < len(b) && b[i] == '}' {
			return nil
		}
		return errSyntax
	}
	return errSyntax
}

// plainBytes reports whether a string body is its own text: no escapes, no
// control characters, valid UTF-8.
func plainBytes(inner []byte) bool {
	for _, c := range inner {
		if c == '\\' || c < 0x20 {
			return false
		}
	}
	return utf8.Valid(inner)
}

// eachElement calls fn for every element of the JSON array in b.
func eachElement(b []byte, fn func(val []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return fmt.Errorf("want a JSON array")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for i < len(b) {
		vs, ve, err := scanValue(b, i)
		if err != nil {
			return err
		}
		if err := fn(b[vs:ve]); err != nil {
			return err
		}
		i = skipSpace(b, ve)
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		if i < len(b) && b[i] == ']' {
			return nil
		}
		return errSyntax
	}
	return errSyntax
}

func stringList(val []byte) ([]string, error) {
	if string(val) == "null" {
		return nil, nil
	}
	out := []string{}
	err := eachElement(val, func(v []byte) error {
		s, err := unquote(v)
		out = append(out, s)
		return err
	})
	return out, err
}

// decodeGeneric parses a JSON value into ojg's generic form.
func decodeGeneric(val []byte) (any, error) {
	switch string(val) {
	case "null":
		return nil, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	if val[0] == '"' {
		return unquote(val)
	}
	if val[0] == '-' || val[0] >= '0' && val[0] <= '9' {
		if i, err := strconv.ParseInt(string(val), 10, 64); err == nil {
			return i, nil
		}
		if f, err := strconv.ParseFloat(string(val), 64); err == nil {
			return f, nil
		}
	}
	// ojg's parser accepts some invalid JSON ({"a":}); a corrupt record
	// must be an error, not a silently different value.
	if !json.Valid(val) {
		return nil, errSyntax
	}
	return oj.Parse(val)
}

// decodeCaseField decodes one member of a case record; it reports false
// for keys that are not case fields.
func (c *Case) decodeField(key []byte, val []byte) (bool, error) {
	var err error
	switch string(key) {
	case "id":
		c.ID, err = unquote(val)
	case "suite":
		c.Suite, err = unquote(val)
	case "template":
		c.Template, err = unquote(val)
	case "source":
		c.Source, err = unquote(val)
	case "source_kind":
		c.SourceKind, err = unquote(val)
	case "text":
		c.Text, err = unquote(val)
	case "level":
		c.Level, err = unquote(val)
	case "schema":
		c.Schema, err = unquote(val)
	case "core":
		c.Core = string(val) == "true"
	case "unreviewed":
		c.Unreviewed = string(val) == "true"
	case "script":
		c.Script, err = unquote(val)
	case "turn":
		c.Turn, err = strconv.Atoi(string(val))
	case "conversation":
		c.Conversation, err = unquote(val)
	case "repeat":
		c.Repeat, err = strconv.Atoi(string(val))
	case "captures":
		c.Captures, err = decodeStringMap(val)
	case "scene":
		c.Scene, err = stringList(val)
	case "tags":
		c.Tags, err = stringList(val)
	case "split":
		c.Split, err = stringList(val)
	case "slots":
		c.Slots, err = decodeSlots(val)
	case "expect":
		err = c.Expect.UnmarshalJSON(val)
	case "references":
		c.References, err = stringList(val)
	case "perturbation":
		c.Perturbation, err = unquote(val)
	case "original":
		c.Original, err = unquote(val)
	default:
		return false, nil
	}
	return true, err
}

// UnmarshalJSON reads a case record.
func (c *Case) UnmarshalJSON(b []byte) error {
	*c = Case{}
	return eachMember(b, func(key []byte, val []byte) error {
		_, err := c.decodeField(key, val)
		return err
	})
}

// UnmarshalJSON reads a result record (a case record plus the call).
func (r *Result) UnmarshalJSON(b []byte) error {
	return r.decode(b, nil)
}

// Deferred holds the case fields of a result record that re-evaluation
// reads only when the suite cannot rebuild the case: DecodeCase fills them
// in. The bytes alias the record.
type Deferred struct {
	// Slots is the raw slots object (see EachSlotValue).
	Slots  []byte
	fields [][2][]byte // key, raw value
}

// DecodeForEval reads a result record for re-evaluation: the call and the
// case's id, template and text; the other case fields wait in the returned
// Deferred, and the recorded outcome and failures, which evaluation
// recomputes, are not read. r.Response aliases b.
func (r *Result) DecodeForEval(b []byte, d *Deferred) error {
	d.Slots, d.fields = nil, d.fields[:0]
	return r.decode(b, d)
}

// DecodeCase decodes the deferred case fields into c, expectations included.
func (d *Deferred) DecodeCase(c *Case) error {
	var err error
	if c.Slots, err = decodeSlots(d.Slots); err != nil {
		return fmt.Errorf("slots: %w", err)
	}
	for _, f := range d.fields {
		if _, err := c.decodeField(f[0], f[1]); err != nil {
			return fmt.Errorf("%s: %w", f[0], err)
		}
	}
	return nil
}

// EachSlotValue calls fn with the name and the raw value text of every slot
// of a slots object (the bytes of the JSON string without its quotes when it
// has no escapes, else its decoded text).
func EachSlotValue(slots []byte, fn func(name, value []byte) error) error {
	if len(slots) == 0 || string(slots) == "null" {
		return nil
	}
	return eachMember(slots, func(name []byte, sv []byte) error {
		return eachMember(sv, func(k []byte, v []byte) error {
			if string(k) != "value" {
				return nil
			}
			if len(v) < 2 || v[0] != '"' {
				return errSyntax
			}
			if inner := v[1 : len(v)-1]; plainBytes(inner) {
				return fn(name, inner)
			}
			s, err := unquote(v)
			if err != nil {
				return err
			}
			return fn(name, []byte(s))
		})
	})
}

// isCaseField reports whether key is a case field DecodeForEval defers.
func isCaseField(key []byte) bool {
	switch string(key) {
	case "suite", "level", "schema", "core", "unreviewed", "scene", "tags", "split", "expect",
		"references", "perturbation", "original":
		return true
	}
	return false
}

// defer1 handles one member of a record DecodeForEval reads: it keeps the
// deferred case fields and the slots in lazy, aliases the response, skips
// what evaluation recomputes, and reports false for members to decode now.
func (r *Result) defer1(lazy *Deferred, key, val []byte) bool {
	switch string(key) {
	case "id", "template", "source", "source_kind", "text", "script", "turn", "conversation", "repeat", "captures":
		return false
	case "slots":
		lazy.Slots = val
	case "failures", "outcome":
	case "response":
		if string(val) != "null" {
			r.Response = json.RawMessage(val)
		}
	default:
		if !isCaseField(key) {
			return false
		}
		lazy.fields = append(lazy.fields, [2][]byte{key, val})
	}
	return true
}

func (r *Result) decode(b []byte, lazy *Deferred) error {
	*r = Result{}
	return eachMember(b, func(key []byte, val []byte) error {
		if lazy != nil && r.defer1(lazy, key, val) {
			return nil
		}
		if ok, err := r.Case.decodeField(key, val); ok {
			return err
		}
		var err error
		switch string(key) {
		case "target":
			r.Target, err = unquote(val)
		case "request":
			if string(val) != "null" {
				r.Request, err = decodeRequest(val)
			}
		case "status":
			r.Status, err = strconv.Atoi(string(val))
		case "headers":
			r.Headers, err = decodeStringMap(val)
		case "response":
			if string(val) != "null" {
				r.Response = append(json.RawMessage(nil), val...)
			}
		case "body":
			r.Body, err = unquote(val)
		case "reply":
			r.Reply, err = unquote(val)
		case "latency_ms":
			r.LatencyMS, err = strconv.ParseFloat(string(val), 64)
		case "attempts":
			r.Attempts, err = strconv.Atoi(string(val))
		case "cached":
			r.Cached = string(val) == "true"
		case "started":
			err = r.Started.UnmarshalJSON(val)
		case "error":
			if string(val) != "null" {
				r.Error = &CallError{}
				err = json.Unmarshal(val, r.Error)
			}
		case "outcome":
			var s string
			if s, err = unquote(val); err == nil {
				r.Outcome, err = ParseOutcome(s)
			}
		case "failures":
			err = json.Unmarshal(val, &r.Failures)
		}
		return err
	})
}

// decodeSlots reads the slots object without reflection.
func decodeSlots(val []byte) (map[string]Slot, error) {
	if len(val) == 0 || string(val) == "null" {
		return nil, nil
	}
	out := map[string]Slot{}
	err := eachMember(val, func(key []byte, sv []byte) error {
		var sl Slot
		err := eachMember(sv, func(k []byte, v []byte) error {
			var err error
			switch string(k) {
			case "value":
				sl.Value, err = unquote(v)
			case "normalized":
				sl.Normalized, err = unquote(v)
			case "tag":
				sl.Tag, err = unquote(v)
			case "level":
				sl.Level, err = unquote(v)
			case "source":
				sl.Source, err = unquote(v)
			}
			return err
		})
		out[string(key)] = sl
		return err
	})
	return out, err
}

func decodeStringMap(val []byte) (map[string]string, error) {
	if string(val) == "null" {
		return nil, nil
	}
	out := map[string]string{}
	err := eachMember(val, func(k []byte, v []byte) error {
		s, err := unquote(v)
		out[string(k)] = s
		return err
	})
	return out, err
}

func decodeRequest(val []byte) (*Request, error) {
	q := &Request{}
	err := eachMember(val, func(k []byte, v []byte) error {
		var err error
		switch string(k) {
		case "method":
			q.Method, err = unquote(v)
		case "url":
			q.URL, err = unquote(v)
		case "body":
			q.Body, err = unquote(v)
		case "headers":
			q.Headers, err = decodeStringMap(v)
		}
		return err
	})
	return q, err
}

var errFound = errors.New("found")

// RecordID returns the id of a case or result record, reading no further
// than its "id" member (the first, as nlutest writes records).
func RecordID(b []byte) (string, error) {
	var id string
	err := eachMember(b, func(key []byte, val []byte) error {
		if string(key) != "id" {
			return nil
		}
		var err error
		if id, err = unquote(val); err != nil {
			return err
		}
		return errFound
	})
	if err == nil {
		return "", errors.New("record has no id")
	}
	if !errors.Is(err, errFound) {
		return "", err
	}
	return id, nil
}
