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
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errSyntax
}

// unquote decodes a JSON string token (with its quotes).
func unquote(tok []byte) (string, error) {
	if len(tok) < 2 || tok[0] != '"' {
		return "", errSyntax
	}
	inner := tok[1 : len(tok)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' || c < 0x20 {
			plain = false
			break
		}
	}
	if plain && utf8.Valid(inner) {
		return string(inner), nil
	}
	var s string
	err := json.Unmarshal(tok, &s)
	return s, err
}

// eachMember calls fn for every member of the JSON object in b, with the
// raw bytes of its value.
func eachMember(b []byte, fn func(key string, val []byte) error) error {
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
		key, err := unquote(b[ks:ke])
		if err != nil {
			return err
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

func stringList(val []byte) ([]string, error) {
	if string(val) == "null" {
		return nil, nil
	}
	var out []string
	err := json.Unmarshal(val, &out)
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
func (c *Case) decodeField(key string, val []byte) (bool, error) {
	var err error
	switch key {
	case "id":
		c.ID, err = unquote(val)
	case "suite":
		c.Suite, err = unquote(val)
	case "template":
		c.Template, err = unquote(val)
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
	default:
		return false, nil
	}
	return true, err
}

// UnmarshalJSON reads a case record.
func (c *Case) UnmarshalJSON(b []byte) error {
	*c = Case{}
	return eachMember(b, func(key string, val []byte) error {
		_, err := c.decodeField(key, val)
		return err
	})
}

// UnmarshalJSON reads a result record (a case record plus the call).
func (r *Result) UnmarshalJSON(b []byte) error {
	return r.decode(b, nil)
}

// DecodeForEval reads a result record for re-evaluation: the recorded
// expectations and failures, which evaluation recomputes, are not decoded;
// the raw expectations are returned for the caller to decode with
// DecodeExpectations when it cannot rebuild the case from the suite.
func (r *Result) DecodeForEval(b []byte) (rawExpect []byte, err error) {
	err = r.decode(b, &rawExpect)
	return rawExpect, err
}

// DecodeExpectations decodes an `expect` object.
func DecodeExpectations(raw []byte) (Expectations, error) {
	var e Expectations
	if len(raw) == 0 {
		return nil, nil
	}
	err := e.UnmarshalJSON(raw)
	return e, err
}

func (r *Result) decode(b []byte, lazyExpect *[]byte) error {
	*r = Result{}
	return eachMember(b, func(key string, val []byte) error {
		if lazyExpect != nil {
			switch key {
			case "expect":
				*lazyExpect = val
				return nil
			case "failures":
				return nil
			}
		}
		if ok, err := r.Case.decodeField(key, val); ok {
			return err
		}
		var err error
		switch key {
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
	if string(val) == "null" {
		return nil, nil
	}
	out := map[string]Slot{}
	err := eachMember(val, func(key string, sv []byte) error {
		var sl Slot
		err := eachMember(sv, func(k string, v []byte) error {
			var err error
			switch k {
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
		out[key] = sl
		return err
	})
	return out, err
}

func decodeStringMap(val []byte) (map[string]string, error) {
	if string(val) == "null" {
		return nil, nil
	}
	out := map[string]string{}
	err := eachMember(val, func(k string, v []byte) error {
		s, err := unquote(v)
		out[k] = s
		return err
	})
	return out, err
}

func decodeRequest(val []byte) (*Request, error) {
	q := &Request{}
	err := eachMember(val, func(k string, v []byte) error {
		var err error
		switch k {
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
