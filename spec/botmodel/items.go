package botmodel

import (
	"gopkg.in/yaml.v3"
)

// This file reads the plain list of items for engines other than Rasa
// (docs/language.md#coverage): a YAML (or JSON) mapping from a kind's
// name to the names of its items,
//
//	intents:   [greet, 订票]
//	entities:  [city]
//	slots:     [城市, 日期]
//	responses:                  # names, or names with their texts
//	  greet_reply: ["你好！", "您好！"]
//	actions:   [query_weather]
//
// responses may also be a list of names; a response's texts let reply
// checks and replies be matched to it.

// items reads one plain list.
func (r *reader) items(file string, src []byte, _ bool) {
	root := r.parse(file, src, "items list")
	if root == nil {
		return
	}
	if root.Kind != yaml.MappingNode {
		r.errorf(file, root, "Items list is not a mapping", "A plain items list maps kinds (%s) to lists of names; %s is %s.", joinNames(), file, kindName(root))
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		kind, ok := ParseKind(k.Value)
		if !ok {
			r.errorf(file, k, "Unknown kind of item", "%q is not a kind of item; the kinds are %s.%s", k.Value, joinNames(), didYouMean(k.Value, KindNames()))
			continue
		}
		if kind == Response && v.Kind == yaml.MappingNode {
			r.listResponses(file, v)
			continue
		}
		if !r.expectList(file, k, v) {
			continue
		}
		for _, e := range v.Content {
			if e.Kind != yaml.ScalarNode || e.Value == "" || e.Tag == "!!null" {
				r.errorf(file, e, "Invalid item", "A %s is named by a string; this entry is %s.", kind.Singular(), kindName(e))
				continue
			}
			it := Item{Kind: kind, Name: e.Value, At: r.at(file, e)}
			if kind == FlowStep {
				it.Flow, it.Step = splitStep(e.Value)
			}
			r.m.add(it)
		}
	}
}

// listResponses reads responses: NAME: [texts] (or NAME: "text").
func (r *reader) listResponses(file string, v *yaml.Node) {
	for i := 0; i+1 < len(v.Content); i += 2 {
		name, texts := v.Content[i], v.Content[i+1]
		var out []string
		switch texts.Kind {
		case yaml.ScalarNode:
			if texts.Tag != "!!null" {
				out = []string{texts.Value}
			}
		case yaml.SequenceNode:
			for _, t := range texts.Content {
				if t.Kind != yaml.ScalarNode {
					r.errorf(file, t, "Invalid response text", "Response %q lists its texts as strings; this entry is %s.", name.Value, kindName(t))
					continue
				}
				out = append(out, t.Value)
			}
		default:
			r.errorf(file, texts, "Invalid response", "Response %q maps to its text or a list of texts; it is %s.", name.Value, kindName(texts))
			continue
		}
		r.m.add(Item{Kind: Response, Name: name.Value, At: r.at(file, name), Texts: out})
	}
}

// splitStep splits FLOW/STEP.
func splitStep(name string) (flow, step string) {
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			return name[:i], name[i+1:]
		}
	}
	return "", name
}

func joinNames() string {
	out := ""
	for i, n := range kindNames {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}
