package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nlutest/nlutest/jsondoc"
	"github.com/ohler55/ojg/oj"
)

// The decoders in this file read nlutest's own records without reflection:
// `nlutest eval` reads a million results, and encoding/json's reflective
// decoding of each line (with its 1 KiB response validated twice) was most
// of that time.

var errSyntax = jsondoc.ErrSyntax

// The record readers below scan with jsondoc's tokenizer (Members,
// Elements, Unquote): specialised to nlutest's records, they find each
// member's value without building the parse tape, which eval's million
// records would pay for with nothing to show.

func stringList(val []byte) ([]string, error) {
	if string(val) == "null" {
		return nil, nil
	}
	out := []string{}
	err := jsondoc.Elements(val, func(v []byte) error {
		s, err := jsondoc.Unquote(v)
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
		return jsondoc.Unquote(val)
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

// errDuplicateID is the error of a record with two "id" members.
var errDuplicateID = errors.New(`the key "id" appears twice`)

// decodeID decodes a record's "id" member; prev is the id already read.
// Readers that stop at the first "id" and readers that keep the last would
// count a record with two of them twice, so it is refused.
func decodeID(prev string, val []byte) (string, error) {
	if prev != "" {
		return prev, errDuplicateID
	}
	return jsondoc.Unquote(val)
}

// decodeCaseField decodes one member of a case record; it reports false
// for keys that are not case fields.
func (c *Case) decodeField(key []byte, val []byte) (bool, error) {
	var err error
	switch string(key) {
	case "id":
		c.ID, err = decodeID(c.ID, val)
	case "suite":
		c.Suite, err = jsondoc.Unquote(val)
	case "template":
		c.Template, err = jsondoc.Unquote(val)
	case "source":
		c.Source, err = jsondoc.Unquote(val)
	case "source_kind":
		c.SourceKind, err = jsondoc.Unquote(val)
	case "text":
		c.Text, err = jsondoc.Unquote(val)
	case "level":
		c.Level, err = jsondoc.Unquote(val)
	case "schema":
		c.Schema, err = jsondoc.Unquote(val)
	case "core":
		c.Core = string(val) == "true"
	case "unreviewed":
		c.Unreviewed = string(val) == "true"
	case "script", "turn", "conversation", "event", "repeat", "captures", "fact", "expected", "distance", "reason":
		err = c.decodeTurnField(key, val)
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
		return c.decodeSourceField(key, val)
	}
	return true, err
}

// decodeSourceField decodes the fields particular to some case sources
// (dataset references and perturbations, ranking candidates).
func (c *Case) decodeSourceField(key []byte, val []byte) (bool, error) {
	var err error
	switch string(key) {
	case "references":
		c.References, err = stringList(val)
	case "perturbation":
		c.Perturbation, err = jsondoc.Unquote(val)
	case "original":
		c.Original, err = jsondoc.Unquote(val)
	case "meta":
		c.Meta, err = decodeStringMap(val)
	case "candidate":
		c.Candidate, err = jsondoc.Unquote(val)
	case "candidates":
		c.Candidates, err = stringList(val)
	default:
		return false, nil
	}
	return true, err
}

// decodeTurnField decodes a member of a case record that places a turn
// of a conversation or memory case.
func (c *Case) decodeTurnField(key []byte, val []byte) error {
	var err error
	switch string(key) {
	case "script":
		c.Script, err = jsondoc.Unquote(val)
	case "turn":
		c.Turn, err = strconv.Atoi(string(val))
	case "conversation":
		c.Conversation, err = jsondoc.Unquote(val)
	case "event":
		c.Event, err = jsondoc.Unquote(val)
	case "repeat":
		c.Repeat, err = strconv.Atoi(string(val))
	case "captures":
		c.Captures, err = decodeStringMap(val)
	case "fact":
		c.Fact, err = jsondoc.Unquote(val)
	case "expected":
		c.Expected, err = jsondoc.Unquote(val)
	case "distance":
		c.Distance, err = strconv.Atoi(string(val))
	case "reason":
		c.Reason, err = jsondoc.Unquote(val)
	}
	return err
}

// UnmarshalJSON reads a case record.
func (c *Case) UnmarshalJSON(b []byte) error {
	*c = Case{}
	return jsondoc.Members(b, func(key []byte, val []byte) error {
		_, err := c.decodeField(key, val)
		return err
	})
}

// UnmarshalJSON reads a result record (a case record plus the call). A
// response or state member that is not JSON is an error (ErrDamagedJSON).
func (r *Result) UnmarshalJSON(b []byte) error {
	return r.decode(b)
}

// Deferred holds the case fields of a result record that re-evaluation
// reads only when the suite cannot rebuild the case: DecodeCase fills them
// in. The bytes alias the record.
type Deferred struct {
	// Slots is the raw slots object (see EachSlotValue).
	Slots  []byte
	fields [][2][]byte // key, raw value
	// doc is the response parsed while the record was read (when parsed).
	doc    jsondoc.Doc
	parsed bool
	// names are the last template, source, source kind and target read.
	names [4]string
}

// DecodeForEval reads a result record for re-evaluation: the call and the
// case's id, template and text; the other case fields wait in the returned
// Deferred, and the recorded outcome and failures, which evaluation
// recomputes, are not read. r.Response and r.State alias b. A response
// that is an object or an array is parsed as the record is read (see
// Deferred.Response); a response or state that is not JSON is an error
// (ErrDamagedJSON), as UnmarshalJSON's.
func (r *Result) DecodeForEval(b []byte, d *Deferred) error {
	d.Slots, d.fields, d.parsed = nil, d.fields[:0], false
	*r = Result{}
	return jsondoc.MembersParsing(b, "response", &d.doc, func(key []byte, val []byte, parsed bool) error {
		if !parsed && rawMember(key) {
			if err := checkRaw(val); err != nil {
				return err
			}
		}
		if r.defer1(d, key, val, parsed) || d.interned(r, key, val) {
			return nil
		}
		return r.decodeMember(key, val)
	})
}

// interned reads a "template", "source", "source_kind" or "target" member
// whose text is the one the record before had (most records of a run share
// it) without a new string; it reports false for any other member.
func (d *Deferred) interned(r *Result, key, val []byte) bool {
	var field *string
	var last *string
	switch string(key) {
	case "template":
		field, last = &r.Template, &d.names[0]
	case "source":
		field, last = &r.Source, &d.names[1]
	case "source_kind":
		field, last = &r.SourceKind, &d.names[2]
	case "target":
		field, last = &r.Target, &d.names[3]
	default:
		return false
	}
	if len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' {
		return false
	}
	if inner := val[1 : len(val)-1]; string(inner) != *last || !jsondoc.PlainString(inner) {
		s, err := jsondoc.Unquote(val)
		if err != nil {
			return false // decodeMember says why
		}
		*last = s
	}
	*field = *last
	return true
}

// Response returns r.Response of the record DecodeForEval read last,
// parsed (for assert.Evaluator.EvaluateParsed), or nil when it was not
// parsed there: no response, or a response that is no object or array (a
// response that is not JSON is DecodeForEval's error: ErrDamagedJSON).
// The Doc aliases the record and is reused by the next DecodeForEval.
func (d *Deferred) Response() *jsondoc.Doc {
	if !d.parsed {
		return nil
	}
	return &d.doc
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
	// Read in one pass when the object is plain (jsondoc.MemberFields), as
	// eval's million records are; else by the nested walk below, which is
	// what decides what a slots object means.
	var buf [16]jsondoc.MemberField
	if vals, ok := jsondoc.MemberFields(slots, "value", buf[:0], len(buf)); ok {
		for _, v := range vals {
			if err := fn(v.Key, v.Text); err != nil {
				return slotValueErr(v.Key, err)
			}
		}
		return nil
	}
	return eachSlotValueNested(slots, fn)
}

// slotValueErr is the error eachSlotValueNested returns when fn fails on
// a slot's value (jsondoc.Members prefixes the key of each level).
func slotValueErr(name []byte, err error) error {
	if err == jsondoc.ErrStop {
		return err
	}
	return fmt.Errorf("%s: value: %w", name, err)
}

// eachSlotValueNested is EachSlotValue by Members in Members, for any
// slots object.
func eachSlotValueNested(slots []byte, fn func(name, value []byte) error) error {
	return jsondoc.Members(slots, func(name []byte, sv []byte) error {
		return jsondoc.Members(sv, func(k []byte, v []byte) error {
			if string(k) != "value" {
				return nil
			}
			if len(v) < 2 || v[0] != '"' {
				return errSyntax
			}
			if inner := v[1 : len(v)-1]; jsondoc.PlainString(inner) {
				return fn(name, inner)
			}
			s, err := jsondoc.Unquote(v)
			if err != nil {
				return err
			}
			return fn(name, []byte(s))
		})
	})
}

// rawMember reports whether key is a member a record holds as raw JSON
// (the response and the dialogue state).
func rawMember(key []byte) bool { return string(key) == "response" || string(key) == "state" }

// ErrDamagedJSON is the error of a record whose response or state member
// is not JSON. nlutest records a response only when it is JSON (a
// service's answer that is not is an InvalidJSON call error, with the body
// in "body"), and the encoder refuses one that is not, so such a member
// was changed after it was written: the record is damaged, never a
// service's error.
var ErrDamagedJSON = errors.New("not JSON")

// checkRaw returns an error wrapping ErrDamagedJSON, with the reason and
// the offset in the member, when val is not JSON.
func checkRaw(val []byte) error {
	if validRaw(val) {
		return nil
	}
	var d jsondoc.Doc
	reason := "invalid JSON"
	if err := d.Parse(val); err != nil {
		reason = err.Error() + " of the value"
	}
	return fmt.Errorf("%w: %s (nlutest records only JSON there)", ErrDamagedJSON, reason)
}

// isCaseField reports whether key is a case field DecodeForEval defers.
func isCaseField(key []byte) bool {
	switch string(key) {
	case "suite", "level", "schema", "core", "unreviewed", "scene", "tags", "split", "expect",
		"references", "perturbation", "original", "meta", "candidate", "candidates", "fact", "expected", "distance":
		return true
	}
	return false
}

// defer1 handles one member of a record DecodeForEval reads: it keeps the
// deferred case fields and the slots in lazy, aliases the response, skips
// what evaluation recomputes, and reports false for members to decode now.
// parsed tells whether lazy's doc holds val (a "response" member parsed as
// it was read): the last "response" member is the one that counts.
func (r *Result) defer1(lazy *Deferred, key, val []byte, parsed bool) bool {
	switch string(key) {
	case "id", "template", "source", "source_kind", "text", "script", "turn", "conversation", "event", "repeat", "captures":
		return false
	case "slots":
		lazy.Slots = val
	case "failures", "outcome", "verdict":
	case "response":
		// A null response leaves an earlier one in r.Response, which
		// the doc may no longer hold: the evaluator parses it then.
		lazy.parsed = parsed
		if string(val) != "null" {
			r.Response = json.RawMessage(val)
		}
	case "state":
		if string(val) != "null" {
			r.State = json.RawMessage(val)
		}
	default:
		if !isCaseField(key) {
			return false
		}
		lazy.fields = append(lazy.fields, [2][]byte{key, val})
	}
	return true
}

func (r *Result) decode(b []byte) error {
	*r = Result{}
	return jsondoc.Members(b, r.decodeMember)
}

// decodeMember reads one member of a result record: a case field, or one
// the result adds.
func (r *Result) decodeMember(key, val []byte) error {
	if ok, err := r.Case.decodeField(key, val); ok {
		return err
	}
	return r.decodeCallField(key, val)
}

// decodeCallField reads one member a result adds to its case (the call,
// its judgement and evaluation); unknown members are skipped.
func (r *Result) decodeCallField(key, val []byte) error {
	var err error
	switch string(key) {
	case "target":
		r.Target, err = jsondoc.Unquote(val)
	case "request":
		if string(val) != "null" {
			r.Request, err = decodeRequest(val)
		}
	case "status":
		r.Status, err = strconv.Atoi(string(val))
	case "headers":
		r.Headers, err = decodeStringMap(val)
	case "response":
		if err = checkRaw(val); err == nil && string(val) != "null" {
			r.Response = append(json.RawMessage(nil), val...)
		}
	case "body":
		r.Body, err = jsondoc.Unquote(val)
	case "reply":
		r.Reply, err = jsondoc.Unquote(val)
	case "state":
		if err = checkRaw(val); err == nil && string(val) != "null" {
			r.State = append(json.RawMessage(nil), val...)
		}
	case "usage":
		if string(val) != "null" {
			r.Usage = new(Usage)
			err = json.Unmarshal(val, r.Usage)
		}
	case "latency_ms":
		r.LatencyMS, err = parseLatency(val)
	case "attempts":
		var n int64
		n, err = strconv.ParseInt(string(val), 10, 32)
		r.Attempts = int32(n)
	case "cached":
		r.Cached = string(val) == "true"
	case "script_turns":
		r.ScriptTurns, err = strconv.Atoi(string(val))
	case "started":
		err = r.Started.UnmarshalJSON(val)
	case "error":
		if string(val) != "null" {
			r.Error = &CallError{}
			err = json.Unmarshal(val, r.Error)
		}
	default:
		err = r.decodeJudgedField(key, val)
	}
	return err
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// parseLatency is strconv.ParseFloat(string(val), 64). A decimal of at most
// 15 digits (what a run writes: whole or fractional milliseconds) is the
// quotient of two numbers a float64 holds exactly, whose division IEEE
// rounds as ParseFloat rounds the decimal, so it is computed without
// ParseFloat's general parse; anything else goes to ParseFloat.
func parseLatency(val []byte) (float64, error) {
	i, neg := 0, len(val) > 0 && val[0] == '-'
	if neg {
		i++
	}
	var m uint64
	digits, frac, dot := 0, 0, false
	for ; i < len(val); i++ {
		c := val[i]
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot && digits > 0:
			dot = true
		default:
			return strconv.ParseFloat(string(val), 64)
		}
	}
	if digits == 0 || digits > 15 || dot && frac == 0 {
		return strconv.ParseFloat(string(val), 64)
	}
	f := float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, nil
}

// decodeJudgedField reads one member of a result's evaluation (outcome,
// failures, verdict) or judgement; unknown members are skipped.
func (r *Result) decodeJudgedField(key, val []byte) error {
	var err error
	switch string(key) {
	case "outcome":
		var s string
		if s, err = jsondoc.Unquote(val); err == nil {
			r.Outcome, err = ParseOutcome(s)
		}
	case "failures":
		err = json.Unmarshal(val, &r.Failures)
	case "verdict":
		r.Verdict, err = jsondoc.Unquote(val)
	case "judge":
		if string(val) != "null" {
			r.Judge = new(Judgement)
			err = json.Unmarshal(val, r.Judge)
		}
	case "simulator":
		if string(val) != "null" {
			r.Simulator = new(Judgement)
			err = json.Unmarshal(val, r.Simulator)
		}
	case "rubrics":
		err = json.Unmarshal(val, &r.Rubrics)
	default:
		err = r.decodeToolField(key, val)
	}
	return err
}

// decodeToolField reads the members of a tool-using agent's turn: its
// tool calls, its script's earlier calls and its final state.
func (r *Result) decodeToolField(key, val []byte) error {
	var err error
	switch string(key) {
	case "tool_calls":
		err = json.Unmarshal(val, &r.ToolCalls)
	case "earlier_tools":
		r.EarlierTools, err = stringList(val)
	case "final_state":
		if string(val) != "null" {
			r.FinalState = new(FinalState)
			err = json.Unmarshal(val, r.FinalState)
		}
	}
	return err
}

// decodeSlots reads the slots object without reflection.
func decodeSlots(val []byte) (map[string]Slot, error) {
	if len(val) == 0 || string(val) == "null" {
		return nil, nil
	}
	out := map[string]Slot{}
	err := jsondoc.Members(val, func(key []byte, sv []byte) error {
		var sl Slot
		err := jsondoc.Members(sv, func(k []byte, v []byte) error {
			var err error
			switch string(k) {
			case "value":
				sl.Value, err = jsondoc.Unquote(v)
			case "normalized":
				sl.Normalized, err = jsondoc.Unquote(v)
			case "tag":
				sl.Tag, err = jsondoc.Unquote(v)
			case "level":
				sl.Level, err = jsondoc.Unquote(v)
			case "source":
				sl.Source, err = jsondoc.Unquote(v)
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
	err := jsondoc.Members(val, func(k []byte, v []byte) error {
		s, err := jsondoc.Unquote(v)
		out[string(k)] = s
		return err
	})
	return out, err
}

func decodeRequest(val []byte) (*Request, error) {
	q := &Request{}
	err := jsondoc.Members(val, func(k []byte, v []byte) error {
		var err error
		switch string(k) {
		case "method":
			q.Method, err = jsondoc.Unquote(v)
		case "url":
			q.URL, err = jsondoc.Unquote(v)
		case "body":
			q.Body, err = jsondoc.Unquote(v)
		case "body_from_previous":
			q.BodyFromPrevious, err = strconv.Atoi(string(v))
		case "headers":
			q.Headers, err = decodeStringMap(v)
		case "redirects":
			q.Redirects, err = stringList(v)
		}
		return err
	})
	return q, err
}

// RecordID returns the id of a case or result record, reading no further
// than its "id" member (the first, as nlutest writes records).
func RecordID(b []byte) (string, error) {
	var id string
	err := jsondoc.Members(b, func(key []byte, val []byte) error {
		if string(key) != "id" {
			return nil
		}
		var err error
		if id, err = jsondoc.Unquote(val); err != nil {
			return err
		}
		return jsondoc.ErrStop
	})
	if err == nil {
		return "", errors.New("record has no id")
	}
	if !errors.Is(err, jsondoc.ErrStop) {
		return "", err
	}
	return id, nil
}

// RecordKey is the key a run records a result under: its id, and for a
// repetition under --repeat, "#" and the repetition (the same case runs
// once per repetition). Resume and the de-duplication of eval and merge
// key on it.
func RecordKey(b []byte) (string, error) {
	k, err := AppendRecordKey(nil, b)
	if err != nil {
		return "", err
	}
	return string(k), nil
}

// AppendRecordKey appends RecordKey(b) to dst without making a string:
// eval's reader keys a million records this way.
func AppendRecordKey(dst, b []byte) ([]byte, error) {
	out, err := appendRecordID(dst, b)
	if err != nil || !hasRepeatMember(b) {
		return out, err
	}
	rep := 0
	err = jsondoc.Members(b, func(key []byte, val []byte) error {
		switch string(key) {
		case "repeat":
			rep, _ = strconv.Atoi(string(val))
			return jsondoc.ErrStop
		case "target": // the case's fields are over
			return jsondoc.ErrStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, jsondoc.ErrStop) {
		return nil, err
	}
	if rep != 0 { // KeyOf
		out = strconv.AppendInt(append(out, '#'), int64(rep), 10)
	}
	return out, nil
}

// appendRecordID is RecordID appending the id to dst.
func appendRecordID(dst, b []byte) ([]byte, error) {
	var out []byte
	err := jsondoc.Members(b, func(key []byte, val []byte) error {
		if string(key) != "id" {
			return nil
		}
		if n := len(val); n >= 2 && val[0] == '"' && val[n-1] == '"' && jsondoc.PlainString(val[1:n-1]) {
			out = append(dst, val[1:n-1]...) // Unquote's text, without the string
			return jsondoc.ErrStop
		}
		id, err := jsondoc.Unquote(val)
		if err != nil {
			return err
		}
		out = append(dst, id...)
		return jsondoc.ErrStop
	})
	if err == nil {
		return nil, errors.New("record has no id")
	}
	if !errors.Is(err, jsondoc.ErrStop) {
		return nil, err
	}
	return out, nil
}

// hasRepeatMember is bytes.Contains(b, []byte(`"repeat":`)), looked for
// from the needle's rarest byte: JSON is full of quotes, which make the
// general search compare at every byte of eval's million records.
func hasRepeatMember(b []byte) bool {
	const needle, p = `"repeat":`, 3 // b[k] == 'p' where the needle starts at k-3
	for i := p; i < len(b); {
		j := bytes.IndexByte(b[i:], 'p')
		if j < 0 {
			return false
		}
		k := i + j
		if k+len(needle)-p <= len(b) && string(b[k-p:k-p+len(needle)]) == needle {
			return true
		}
		i = k + 1
	}
	return false
}

// KeyOf is RecordKey of a case with id id in repetition rep (0: none).
func KeyOf(id string, rep int) string {
	if rep == 0 {
		return id
	}
	return id + "#" + strconv.Itoa(rep)
}

// TurnRecord is what resume reads of a recorded turn of a script of
// several turns to tell whether its script was recorded whole.
type TurnRecord struct {
	ID, Source, SourceKind, Script, Conversation string
	Turn, Distance, Repeat, ScriptTurns          int
	// Errored: the turn's call produced no usable response (it ends the
	// script).
	Errored bool
}

var turnMember = []byte(`"turn":`)

// DecodeTurn reads the turn fields of a record. ok is false for a record
// that is not a turn of a script of several turns (a single case).
func DecodeTurn(b []byte) (t TurnRecord, ok bool, err error) {
	if !bytes.Contains(b, turnMember) {
		return t, false, nil
	}
	err = jsondoc.Members(b, func(key []byte, val []byte) error {
		var err error
		switch string(key) {
		case "id":
			t.ID, err = jsondoc.Unquote(val)
		case "source":
			t.Source, err = jsondoc.Unquote(val)
		case "source_kind":
			t.SourceKind, err = jsondoc.Unquote(val)
		case "script":
			t.Script, err = jsondoc.Unquote(val)
		case "conversation":
			t.Conversation, err = jsondoc.Unquote(val)
		case "turn":
			t.Turn, err = strconv.Atoi(string(val))
		case "distance":
			t.Distance, err = strconv.Atoi(string(val))
		case "repeat":
			t.Repeat, err = strconv.Atoi(string(val))
		case "script_turns":
			t.ScriptTurns, err = strconv.Atoi(string(val))
		case "error":
			t.Errored = string(val) != "null"
		}
		return err
	})
	return t, err == nil && t.Turn > 0 && t.Conversation != "", err
}
