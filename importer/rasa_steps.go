package importer

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// annotation is Rasa's entity markup in a story's user text:
// [text](entity), [text](entity:value) or [text]{"entity": …}.
var annotation = regexp.MustCompile(`\[([^\]]*)\](?:\(([^)]*)\)|(\{[^}]*\}))`)

// stripAnnotations removes the markup, returning the text and the
// annotated entities (type and value) in text order.
func stripAnnotations(s string) (string, [][2]string) {
	var ents [][2]string
	out := annotation.ReplaceAllStringFunc(s, func(m string) string {
		sub := annotation.FindStringSubmatch(m)
		text, ent, value := sub[1], sub[2], sub[1]
		if sub[3] != "" {
			var obj struct{ Entity, Value string }
			if err := yaml.Unmarshal([]byte(sub[3]), &obj); err == nil {
				ent = obj.Entity
				if obj.Value != "" {
					value = obj.Value
				}
			}
		} else if e, v, ok := strings.Cut(ent, ":"); ok {
			ent, value = e, v
		}
		ents = append(ents, [2]string{ent, value})
		return text
	})
	return out, ents
}

// userTurn makes the turn of a user (or intent-only) step, with its
// intent, entities, metadata and assertions.
func (r *rasa) userTurn(c *convo, sn *yaml.Node) *turn {
	t := &turn{line: sn.Line}
	var ents [][2]string
	for i := 0; i+1 < len(sn.Content); i += 2 {
		k, v := sn.Content[i], sn.Content[i+1]
		switch k.Value {
		case "user":
			text := v.Value
			if v.Kind == yaml.MappingNode {
				text = ""
				if n := member(v, "text"); n != nil {
					text = n.Value
				}
				if md := member(v, "metadata"); md != nil {
					r.untranslated(c, t, memberKey(v, "metadata"), "metadata: "+md.Value, "user message metadata is not sent by the rasa target")
				}
			}
			if r.markup {
				text, ents = stripAnnotations(strings.TrimSpace(text))
			}
			t.user = literal(text)
		case "intent":
			r.intent(c, t, k, v)
		case "entities":
			ents = append(ents, entityList(v)...)
		case "metadata":
			r.untranslated(c, t, k, stepText(k, v), "user message metadata is not sent by the rasa target")
		case "assertions":
			r.assertions(c, t, v)
		case "assertion_order_enabled":
			if v.Value == "true" {
				r.untranslated(c, t, k, stepText(k, v), "reply checks are not ordered")
			}
		default:
			r.untranslated(c, t, k, stepText(k, v), "nlutest has no equivalent of "+k.Value+" in a user step")
		}
	}
	if t.user == "" {
		// An intent-only story step: Rasa's /intent message triggers it.
		if it := member(sn, "intent"); it != nil {
			t.user = literal("/" + it.Value)
			t.comments = append(t.comments, fmt.Sprintf("%s:%d intent %s without text: sent as /%s, Rasa's message that triggers an intent", filepath.Base(r.file), sn.Line, it.Value, it.Value))
		} else {
			t.user = literal("")
		}
	}
	if len(ents) > 0 {
		r.entities(c, t, sn, ents)
	}
	return t
}

func (r *rasa) intent(c *convo, t *turn, k, v *yaml.Node) {
	if !r.f.State {
		r.untranslated(c, t, k, stepText(k, v), "this nlutest has no state expectations to read the Rasa tracker's latest message with")
		return
	}
	t.expect = append(t.expect, expectation{path: "state:$.latest_message.intent.name", value: v.Value})
}

// entityList reads a story step's entities: [{city: Berlin}] or
// [{entity: city, value: Berlin}] or [city].
func entityList(v *yaml.Node) [][2]string {
	var out [][2]string
	for _, e := range v.Content {
		switch {
		case e.Kind == yaml.ScalarNode:
			out = append(out, [2]string{e.Value, ""})
		case member(e, "entity") != nil:
			val := ""
			if m := member(e, "value"); m != nil {
				val = m.Value
			}
			out = append(out, [2]string{member(e, "entity").Value, val})
		case len(e.Content) == 2:
			out = append(out, [2]string{e.Content[0].Value, e.Content[1].Value})
		}
	}
	return out
}

// entities expects the latest message's entities, in text order.
func (r *rasa) entities(c *convo, t *turn, sn *yaml.Node, ents [][2]string) {
	if !r.f.State {
		var parts []string
		for _, e := range ents {
			parts = append(parts, e[0]+"="+e[1])
		}
		r.untranslated(c, t, sn, "entities: "+strings.Join(parts, ", "), "this nlutest has no state expectations to read the Rasa tracker's latest message with")
		return
	}
	types, values := make([]any, len(ents)), []any{}
	for i, e := range ents {
		types[i] = e[0]
		if e[1] != "" {
			values = append(values, e[1])
		}
	}
	t.expect = append(t.expect, expectation{path: "state:$.latest_message.entities[*].entity", value: types})
	if len(values) == len(ents) {
		t.expect = append(t.expect, expectation{path: "state:$.latest_message.entities[*].value", value: values})
	}
}

// slotPath is the JSONPath of a slot in the tracker: a quoted key escapes
// the quote, the backslash and control characters as JSONPath reads them.
func slotPath(name string) string {
	if regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(name) {
		return "$.slots." + name
	}
	var b strings.Builder
	b.WriteString("$.slots['")
	for _, r := range name {
		switch {
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString("']")
	return b.String()
}

// scalarValue reads a YAML value as the value it means: numbers as YAML
// reads them (.inf, 0x1F), collections decoded.
func scalarValue(v *yaml.Node) any {
	if v.Kind != yaml.ScalarNode {
		var x any
		if err := v.Decode(&x); err == nil {
			return x
		}
		return v.Value
	}
	switch v.Tag {
	case "!!bool":
		b, _ := strconv.ParseBool(strings.ToLower(v.Value))
		return b
	case "!!int", "!!float":
		var f float64
		if err := v.Decode(&f); err == nil {
			return f
		}
		// An explicit !!float on a spelling YAML lacks (nan, -Infinity).
		if f, err := strconv.ParseFloat(v.Value, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			return f
		}
	case "!!null":
		return nil
	}
	return v.Value
}

// finite reports whether a value holds no NaN or infinite number: JSON
// has none, so no tracker slot holds one and no expectation can say one.
func finite(v any) bool {
	switch x := v.(type) {
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case []any:
		for _, e := range x {
			if !finite(e) {
				return false
			}
		}
	case map[string]any:
		for _, e := range x {
			if !finite(e) {
				return false
			}
		}
	}
	return true
}

// slots translates slot_was_set / slot_was_not_set lists: NAME or
// {NAME: VALUE} entries (e2e and stories), or {name, value} (assertions).
func (r *rasa) slots(c *convo, t *turn, k, v *yaml.Node, set bool) {
	if !r.f.State {
		r.untranslated(c, t, k, stepText(k, v), "this nlutest has no state expectations to read the Rasa tracker's slots with")
		return
	}
	for _, e := range v.Content {
		name, val, hasVal := "", (*yaml.Node)(nil), false
		switch {
		case e.Kind == yaml.ScalarNode:
			name = e.Value
		case member(e, "name") != nil:
			name = member(e, "name").Value
			val = member(e, "value")
			hasVal = val != nil
		case e.Kind == yaml.MappingNode && len(e.Content) == 2:
			name, val, hasVal = e.Content[0].Value, e.Content[1], true
		default:
			r.untranslated(c, t, e, stepText(k, e), "a slot entry is NAME or NAME: VALUE")
			continue
		}
		if hasVal && !finite(scalarValue(val)) {
			r.untranslated(c, t, e, stepText(k, e), "NaN and infinite numbers have no JSON form, so no tracker slot holds one and no expectation can say one")
			continue
		}
		r.slot(t, name, val, hasVal, set, k.Line)
	}
}

func (r *rasa) slot(t *turn, name string, val *yaml.Node, hasVal, set bool, line int) {
	path := slotPath(name)
	ref := fmt.Sprintf("try(state.slots[%s], null)", quote(name))
	where := fmt.Sprintf("Rasa %s:%d", filepath.Base(r.file), line)
	switch {
	case set && hasVal:
		t.expect = append(t.expect, expectation{path: "state:" + path, value: scalarValue(val)})
	case set:
		t.asserts = append(t.asserts, assertion{condition: ref + " != null", message: where + " slot_was_set: " + name + " (any value)"})
	case hasVal:
		t.asserts = append(t.asserts, assertion{condition: ref + " != " + exprValue(scalarValue(val)), message: fmt.Sprintf("%s slot_was_not_set: %s is not %v", where, name, scalarValue(val))})
	default:
		t.expect = append(t.expect, expectation{path: "state:" + path, value: nil})
	}
}

// assertions translates Rasa Pro's assertions list of a user step.
func (r *rasa) assertions(c *convo, t *turn, v *yaml.Node) {
	for _, a := range v.Content {
		if a.Kind != yaml.MappingNode || len(a.Content) != 2 {
			r.untranslated(c, t, a, a.Value, "an assertion is a mapping such as bot_uttered: {utter_name: …}")
			continue
		}
		k, body := a.Content[0], a.Content[1]
		where := fmt.Sprintf("%s:%d", filepath.Base(r.file), k.Line)
		switch k.Value {
		case "slot_was_set", "slot_was_not_set":
			r.slots(c, t, k, body, k.Value == "slot_was_set")
		case "bot_uttered":
			r.botUttered(c, t, k, body, where)
		case "bot_did_not_utter":
			tm := member(body, "text_matches")
			if tm != nil && len(body.Content) == 2 && regexp.QuoteMeta(tm.Value) == tm.Value {
				t.checks = append(t.checks, check{kind: "not_contains", values: []string{tm.Value}, origin: "Rasa " + where + " bot_did_not_utter"})
				continue
			}
			r.untranslated(c, t, k, stepText(k, body), "reply checks have no negated pattern or response name")
		default:
			r.untranslated(c, t, k, stepText(k, body), "the "+k.Value+" assertion reads Rasa's dialogue internals, which the reply and tracker slots do not show")
		}
	}
}

func (r *rasa) botUttered(c *convo, t *turn, k, body *yaml.Node, where string) {
	for i := 0; i+1 < len(body.Content); i += 2 {
		bk, bv := body.Content[i], body.Content[i+1]
		switch bk.Value {
		case "utter_name":
			r.utter(c, t, bk, bv.Value, where)
		case "text_matches":
			if _, err := regexp.Compile(bv.Value); err != nil {
				r.untranslated(c, t, bk, stepText(bk, bv), "the Python pattern is not RE2 ("+err.Error()+")")
				continue
			}
			t.checks = append(t.checks, check{kind: "matches", values: []string{bv.Value}, origin: "Rasa " + where + " bot_uttered text_matches"})
		default:
			r.untranslated(c, t, bk, stepText(bk, bv), "reply checks read the reply's text, not its "+bk.Value)
		}
	}
}

// readDomain reads the text responses of a domain file or of every
// .yml/.yaml file of a domain directory.
func (r *rasa) readDomain(rd *reader, files []string) error {
	r.domain, r.responses = true, map[string][]string{}
	for _, f := range files {
		src, err := rd.file(f)
		if err != nil {
			return err
		}
		r.s.sources[f] = src
		if err := r.s.checkText(f, src); err != nil {
			return err
		}
		root, err := r.s.readYAML(f, src, "A Rasa domain is a YAML file with responses")
		if err != nil {
			return err
		}
		resp := member(root, "responses")
		if resp == nil {
			resp = member(root, "templates") // Rasa 1.x's name
		}
		if resp == nil {
			continue
		}
		for i := 0; i+1 < len(resp.Content); i += 2 {
			for _, variant := range resp.Content[i+1].Content {
				if tx := member(variant, "text"); tx != nil {
					r.responses[resp.Content[i].Value] = append(r.responses[resp.Content[i].Value], tx.Value)
				}
			}
		}
	}
	return nil
}
