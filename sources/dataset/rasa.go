package dataset

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
)

// Rasa training data (nlu.yml, format 3.x) read by hand: the subset that
// holds test cases — `version`, and under `nlu:` items `- intent: NAME`
// with an `examples: |` block of `- ` lines. synonym, regex and lookup
// items (and other top-level sections: rules, stories, responses) are not
// cases and are skipped. No YAML library is needed for this subset, and
// every problem is reported at its line.

// rasaExample is one training example: its intent, its text with the
// annotations resolved, and its entities.
type rasaExample struct {
	line   int
	intent string
	raw    string // as written, annotations included
	text   string
	ents   []rasaEntity
}

// rasaEntity is one annotated entity: [text](entity), [text](entity:value)
// or [text]{"entity": …, "value": …, "role": …, "group": …}. Start and End
// are character offsets into the example's text.
type rasaEntity struct {
	Entity, Value, Text, Role, Group string
	Start, End                       int
}

// value is the example as the row object of expressions.
func (ex *rasaExample) value() cty.Value {
	ents := make([]cty.Value, len(ex.ents))
	for i, e := range ex.ents {
		ents[i] = cty.ObjectVal(map[string]cty.Value{
			"entity": cty.StringVal(e.Entity), "value": cty.StringVal(e.Value), "text": cty.StringVal(e.Text),
			"role": cty.StringVal(e.Role), "group": cty.StringVal(e.Group),
			"start": cty.NumberIntVal(int64(e.Start)), "end": cty.NumberIntVal(int64(e.End)),
		})
	}
	list := cty.EmptyTupleVal
	if len(ents) > 0 {
		list = cty.TupleVal(ents)
	}
	return cty.ObjectVal(map[string]cty.Value{"text": cty.StringVal(ex.text), "intent": cty.StringVal(ex.intent), "entities": list})
}

// expect is the example's default expectations: its intent, and its
// entities in the list form that feeds the entity dimension, compared in
// any order: "$.entities" = [{ entity, value }, …] (docs/metrics.md). An
// example without annotations expects no entity ("$.entities" = []), so
// an entity the service finds in it is a false positive, as rasa test nlu
// and seqeval count it over every example.
func (ex *rasaExample) expect() schema.Expectations {
	out := schema.Expectations{{Path: "$.intent.name", Value: ex.intent}}
	list := make([]any, len(ex.ents))
	for i, e := range ex.ents {
		list[i] = map[string]any{"entity": e.Entity, "value": e.Value}
	}
	return append(out, schema.Expectation{Path: "$.entities", Value: list})
}

// rasaParser reads nlu.yml line by line.
type rasaParser struct {
	path  string
	lines []string
	i     int
	out   []rasaExample
}

// readRasaNLU reads the intent examples of a Rasa nlu.yml file.
func readRasaNLU(r io.Reader, path string) ([]rasaExample, error) {
	p := &rasaParser{path: path}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), MaxDataRowBytes+1)
	var off int64
	for sc.Scan() {
		line := sc.Bytes()
		if !utf8.Valid(line) {
			return nil, notUTF8(path, len(p.lines)+1, line, spec.FirstInvalidUTF8(line), off)
		}
		off += int64(len(line)) + 1
		p.lines = append(p.lines, strings.TrimRight(string(line), "\r"))
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, rowTooLong(path, len(p.lines)+1, "line")
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(p.lines) > 0 {
		p.lines[0] = strings.TrimPrefix(p.lines[0], "\ufeff")
	}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.out, nil
}

func (p *rasaParser) fail(line int, summary, detail string, args ...any) error {
	return dataError(p.path, line, summary, detail, args...)
}

// indentOf is the number of leading spaces; blank and comment lines are
// -1.
func indentOf(s string) int {
	t := strings.TrimLeft(s, " ")
	if t == "" || strings.HasPrefix(t, "#") {
		return -1
	}
	return len(s) - len(t)
}

// parse walks the top-level keys; only nlu's items are read.
func (p *rasaParser) parse() error {
	sawNLU := false
	for p.i < len(p.lines) {
		s := p.lines[p.i]
		ind := indentOf(s)
		if ind < 0 {
			p.i++
			continue
		}
		if ind > 0 || strings.HasPrefix(s, "-") {
			return p.fail(p.i+1, "Unexpected line in Rasa training data", "Expected a top-level key such as version: or nlu:.")
		}
		if strings.HasPrefix(s, "\t") {
			return p.fail(p.i+1, "Tab in Rasa training data", "YAML indents with spaces.")
		}
		key, _, ok := strings.Cut(stripComment(s), ":")
		if !ok {
			return p.fail(p.i+1, "Invalid Rasa training data", "Expected KEY: at the start of the line.")
		}
		p.i++
		if strings.TrimSpace(key) != "nlu" {
			p.skipSection()
			continue
		}
		sawNLU = true
		if err := p.nluItems(); err != nil {
			return err
		}
	}
	if !sawNLU {
		return p.fail(1, "No nlu section", "A Rasa training data file lists its intent examples under nlu:.")
	}
	return nil
}

// skipSection skips the lines of a top-level key other than nlu.
func (p *rasaParser) skipSection() {
	for p.i < len(p.lines) {
		s := p.lines[p.i]
		if ind := indentOf(s); ind == 0 && !strings.HasPrefix(s, "-") {
			return
		}
		p.i++
	}
}

// nluItems reads the list under nlu:.
func (p *rasaParser) nluItems() error {
	for p.i < len(p.lines) {
		s := p.lines[p.i]
		ind := indentOf(s)
		if ind < 0 {
			p.i++
			continue
		}
		if ind == 0 && !strings.HasPrefix(s, "-") {
			return nil
		}
		t := strings.TrimLeft(s, " ")
		if !strings.HasPrefix(t, "- ") {
			return p.fail(p.i+1, "Invalid nlu item", "Each item under nlu: starts with \"- intent: NAME\" (or synonym:, regex:, lookup:).")
		}
		if err := p.item(ind, t[2:]); err != nil {
			return err
		}
	}
	return nil
}

// item reads one `- KIND: NAME` item and its keys at indent+2.
func (p *rasaParser) item(indent int, first string) error {
	itemLine := p.i + 1
	kind, name, ok := strings.Cut(stripComment(first), ":")
	if !ok {
		return p.fail(itemLine, "Invalid nlu item", "Expected \"- intent: NAME\".")
	}
	kind, name = strings.TrimSpace(kind), unquoteYAML(strings.TrimSpace(name))
	p.i++
	keyIndent := indent + 2
	for p.i < len(p.lines) {
		s := p.lines[p.i]
		ind := indentOf(s)
		if ind < 0 {
			p.i++
			continue
		}
		if ind < keyIndent {
			return nil
		}
		if ind > keyIndent {
			p.i++ // inside a key we skip (metadata)
			continue
		}
		key, val, _ := strings.Cut(stripComment(s[ind:]), ":")
		p.i++
		if strings.TrimSpace(key) != "examples" {
			continue
		}
		if style := strings.TrimSpace(val); style != "|" && style != "|-" && style != "|+" {
			return p.fail(p.i, "Unsupported examples format", "nlutest reads examples: | followed by \"- \" lines (Rasa's usual form), not %q.", style)
		}
		if err := p.examples(kind, name, keyIndent); err != nil {
			return err
		}
	}
	return nil
}

// examples reads the `- ` lines of an examples block; only intents' are
// kept.
func (p *rasaParser) examples(kind, intent string, keyIndent int) error {
	for p.i < len(p.lines) {
		s := p.lines[p.i]
		t := strings.TrimLeft(s, " ")
		if t == "" {
			p.i++
			continue
		}
		if len(s)-len(t) <= keyIndent {
			return nil
		}
		p.i++
		if kind != "intent" {
			continue
		}
		if !strings.HasPrefix(t, "- ") && t != "-" {
			return p.fail(p.i, "Invalid example", "Each line of an examples block starts with \"- \".")
		}
		raw := strings.TrimSpace(strings.TrimPrefix(t, "-"))
		if raw == "" {
			continue
		}
		ex, err := parseAnnotated(raw)
		if err != nil {
			return p.fail(p.i, "Invalid entity annotation", "%s. Annotate entities as [text](entity) or [text]{\"entity\": \"NAME\", \"value\": \"VALUE\"}.", spec.Capitalize(err.Error()))
		}
		ex.line, ex.intent, ex.raw = p.i, intent, raw
		p.out = append(p.out, ex)
	}
	return nil
}

// stripComment drops a trailing " # comment" (outside quotes).
func stripComment(s string) string {
	inQ := rune(0)
	for i, r := range s {
		switch {
		case inQ != 0:
			if r == inQ {
				inQ = 0
			}
		case r == '"' || r == '\'':
			inQ = r
		case r == '#' && (i == 0 || s[i-1] == ' '):
			return strings.TrimRight(s[:i], " ")
		}
	}
	return s
}

func unquoteYAML(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	return s
}

// parseAnnotated resolves an example's entity annotations.
func parseAnnotated(raw string) (rasaExample, error) {
	var ex rasaExample
	var b strings.Builder
	chars := 0
	for i := 0; i < len(raw); {
		open := strings.IndexByte(raw[i:], '[')
		if open < 0 {
			b.WriteString(raw[i:])
			break
		}
		open += i
		closeAt := strings.IndexByte(raw[open:], ']')
		if closeAt < 0 || open+closeAt+1 >= len(raw) || (raw[open+closeAt+1] != '(' && raw[open+closeAt+1] != '{') {
			// not an annotation: a plain bracket
			b.WriteString(raw[i : open+1])
			chars += utf8.RuneCountInString(raw[i : open+1])
			i = open + 1
			continue
		}
		closeAt += open
		b.WriteString(raw[i:open])
		chars += utf8.RuneCountInString(raw[i:open])
		text := raw[open+1 : closeAt]
		if strings.Contains(text, "[") {
			end := strings.IndexAny(raw[closeAt:], ")}")
			return ex, fmt.Errorf("the annotation %q holds another [: annotations do not nest. Rasa's entity pattern takes everything up to the first ] as the entity's text, so it would read %q as the entity and leave the rest of the outer annotation in the utterance; annotate the inner span or the outer one, not both", raw[open:closeAt+1+end], text)
		}
		ents, next, err := parseEntityTail(raw, closeAt+1, text)
		if err != nil {
			return ex, err
		}
		n := utf8.RuneCountInString(text)
		for _, e := range ents {
			e.Text, e.Start, e.End = text, chars, chars+n
			ex.ents = append(ex.ents, e)
		}
		b.WriteString(text)
		chars += n
		i = next
	}
	ex.text = b.String()
	return ex, nil
}

// parseEntityTail reads the (entity) or {…} after [text] at raw[at].
func parseEntityTail(raw string, at int, text string) ([]rasaEntity, int, error) {
	if raw[at] == '(' {
		end := strings.IndexByte(raw[at:], ')')
		if end < 0 {
			return nil, 0, fmt.Errorf("[%s]( has no closing )", text)
		}
		inner := raw[at+1 : at+end]
		name, value, hasValue := strings.Cut(inner, ":")
		if strings.TrimSpace(name) == "" {
			return nil, 0, fmt.Errorf("[%s]() names no entity", text)
		}
		e := rasaEntity{Entity: name, Value: text}
		if hasValue {
			e.Value = value
		}
		return []rasaEntity{e}, at + end + 1, nil
	}
	end := strings.IndexByte(raw[at:], '}')
	if end < 0 {
		return nil, 0, fmt.Errorf("[%s]{ has no closing }", text)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(raw[at:at+end+1]), &m); err != nil {
		return nil, 0, fmt.Errorf("[%s]%s is not a JSON object: %v", text, raw[at:at+end+1], err)
	}
	e := rasaEntity{Value: text}
	for k, v := range m {
		s := fmt.Sprint(v)
		switch k {
		case "entity":
			e.Entity = s
		case "value":
			e.Value = s
		case "role":
			e.Role = s
		case "group":
			e.Group = s
		}
	}
	if e.Entity == "" {
		return nil, 0, fmt.Errorf("[%s]%s has no \"entity\"", text, raw[at:at+end+1])
	}
	return []rasaEntity{e}, at + end + 1, nil
}
