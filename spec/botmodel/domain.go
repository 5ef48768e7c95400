package botmodel

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// This file reads a Rasa domain (Rasa's "Domain" reference page): the
// intents, entities, slots (with initial_value), responses (templates in
// Rasa 1.x) with their text variants, actions (utter_ ones are
// responses) and forms (a mapping since Rasa 2, a list in 1.x). Several
// files (a domain directory) are merged, as Rasa merges them.

// domainSections are the top-level keys of a domain nlutest knows; the
// ones it reads no items from are listed too, so that only a misspelt or
// foreign key is warned about.
var domainSections = []string{"version", "intents", "entities", "slots", "responses", "templates", "actions", "forms",
	"e2e_actions", "session_config", "config"}

// domain reads one domain file.
func (r *reader) domain(file string, src []byte, inDir bool) {
	root := r.parse(file, src, "domain")
	if root == nil {
		return
	}
	if root.Kind != yaml.MappingNode {
		r.errorf(file, root, "Domain is not a mapping", "A Rasa domain is a mapping of sections (intents:, entities:, slots:, responses:, actions:, forms:); %s is %s.", file, kindName(root))
		return
	}
	if inDir && !hasItemSection(root) {
		return // another file of the directory (a README's YAML, data)
	}
	var actions *yaml.Node
	unknown := 0
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "intents":
			r.names(file, k, v, Intent)
		case "entities":
			r.names(file, k, v, Entity)
		case "slots":
			r.slots(file, k, v)
		case "responses", "templates":
			r.responses(file, k, v)
		case "actions":
			actions = v
			r.expectList(file, k, v)
		case "forms":
			r.forms(file, k, v)
		case "version", "e2e_actions", "session_config", "config":
		default:
			unknown++
			r.warnf(file, k, "Unknown domain section", "A Rasa domain has no %q section, so nlutest reads no items from it.%s The sections read are intents, entities, slots, responses, actions and forms.", k.Value, didYouMean(k.Value, domainSections))
		}
	}
	if actions != nil && actions.Kind == yaml.SequenceNode {
		r.actions(file, actions)
	}
	if unknown == 0 && !hasItemSection(root) {
		r.warnf(file, root, "Domain without items", "%s has none of a domain's sections (intents:, entities:, slots:, responses:, actions:, forms:); is it the domain file?", file)
	}
}

// hasItemSection reports whether a domain file has a section that
// declares items.
func hasItemSection(root *yaml.Node) bool {
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch root.Content[i].Value {
		case "intents", "entities", "slots", "responses", "templates", "actions", "forms":
			return true
		}
	}
	return false
}

// expectList reports a section that is not a list.
func (r *reader) expectList(file string, k, v *yaml.Node) bool {
	if v.Kind == yaml.SequenceNode || v.Tag == "!!null" {
		return true
	}
	r.errorf(file, v, "Section is not a list", "The %s section is a list of names (- NAME, one a line); it is %s.", k.Value, kindName(v))
	return false
}

// names reads a list section of names (intents, entities).
func (r *reader) names(file string, k, v *yaml.Node, kind Kind) {
	if !r.expectList(file, k, v) {
		return
	}
	for _, e := range v.Content {
		if name, at, ok := r.nameOf(file, e, kind.Singular()); ok {
			r.m.add(Item{Kind: kind, Name: name, At: r.at(file, at)})
		}
	}
}

// slots reads the slots mapping: NAME: {type: …, initial_value: …}.
func (r *reader) slots(file string, k, v *yaml.Node) {
	if v.Tag == "!!null" {
		return
	}
	if v.Kind != yaml.MappingNode {
		r.errorf(file, v, "Slots are not a mapping", "The slots section maps each slot's name to its settings (city: {type: text}); it is %s.", kindName(v))
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		name, body := v.Content[i], v.Content[i+1]
		if body.Kind != yaml.MappingNode && body.Tag != "!!null" {
			r.errorf(file, body, "Invalid slot", "Slot %q is a mapping of its settings (type:, mappings:, initial_value:); it is %s.", name.Value, kindName(body))
			continue
		}
		it := Item{Kind: Slot, Name: name.Value, At: r.at(file, name)}
		if iv := member(body, "initial_value"); iv != nil {
			var x any
			if err := iv.Decode(&x); err == nil {
				it.Initial, it.HasInitial = x, true
			}
		}
		r.m.add(it)
	}
}

// responses reads the responses (templates) mapping: NAME: a list of
// variants, each a mapping whose text is kept.
func (r *reader) responses(file string, k, v *yaml.Node) {
	if v.Tag == "!!null" {
		return
	}
	if v.Kind != yaml.MappingNode {
		r.errorf(file, v, "Responses are not a mapping", "The %s section maps each response's name to its variants (utter_greet: [- text: \"Hi!\"]); it is %s.", k.Value, kindName(v))
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		name, variants := v.Content[i], v.Content[i+1]
		if variants.Kind != yaml.SequenceNode {
			r.errorf(file, variants, "Invalid response", "Response %q is a list of variants (- text: \"…\"); it is %s.", name.Value, kindName(variants))
			continue
		}
		var texts []string
		for _, vr := range variants.Content {
			if t := member(vr, "text"); t != nil && t.Kind == yaml.ScalarNode {
				texts = append(texts, t.Value)
			}
		}
		r.response(file, name, texts)
	}
}

// response adds a response, or the texts of one an actions list named
// first.
func (r *reader) response(file string, name *yaml.Node, texts []string) {
	i := r.m.add(Item{Kind: Response, Name: name.Value, At: r.at(file, name), Texts: texts})
	if it := &r.m.Items[i]; len(it.Texts) == 0 {
		it.Texts = texts
	}
}

// actions reads the actions list: custom actions, and utter_ names,
// which are responses.
func (r *reader) actions(file string, v *yaml.Node) {
	for _, e := range v.Content {
		name, at, ok := r.nameOf(file, e, "action")
		if !ok {
			continue
		}
		if strings.HasPrefix(name, "utter_") {
			r.response(file, at, nil)
			continue
		}
		r.m.add(Item{Kind: Action, Name: name, At: r.at(file, at)})
	}
}

// forms reads the forms section: a mapping of form names (Rasa 2 and
// later) or a list of them (Rasa 1).
func (r *reader) forms(file string, k, v *yaml.Node) {
	switch v.Kind {
	case yaml.SequenceNode:
		r.names(file, k, v, Form)
	case yaml.MappingNode:
		for i := 0; i+1 < len(v.Content); i += 2 {
			r.m.add(Item{Kind: Form, Name: v.Content[i].Value, At: r.at(file, v.Content[i])})
		}
	default:
		if v.Tag != "!!null" {
			r.errorf(file, v, "Forms are not a mapping", "The forms section maps each form's name to its settings (restaurant_form: {required_slots: […]}), or lists the names (Rasa 1); it is %s.", kindName(v))
		}
	}
}
