package importer

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// The object form of Botium convos (CompilerObjectBase.js; JSON in
// CompilerJson.js, YAML in CompilerYaml.js):
//
//	convos:
//	  - name: goodbye
//	    description: …
//	    steps:
//	      - me: [bye]
//	      - bot: [goodbye!, {asserter: INTENT, args: [bye]}]
//	partialConvos: [ … same … ]
//	utterances:
//	  GREETING: [hi, hello]

// objectRoots parses the object-form files (.json, .yml, .yaml) into
// their root mappings with aliases and merge keys resolved. A file that
// does not parse, or holds no convos, partialConvos or utterances (a
// Botium configuration such as botium.json), is skipped; one that does,
// but has a duplicate key or expands too much, stops the import.
func (b *botium) objectRoots(files []string, texts map[string]string) (map[string]*yaml.Node, []Skipped, error) {
	roots := map[string]*yaml.Node{}
	var skipped []Skipped
	for _, p := range files {
		if !isObjectFile(p) {
			continue
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(texts[p]), &doc); err != nil {
			skipped = append(skipped, Skipped{p, "not JSON or YAML (" + strings.TrimPrefix(err.Error(), "yaml: ") + ")"})
			continue
		}
		if len(doc.Content) == 0 || member(doc.Content[0], "convos") == nil && member(doc.Content[0], "partialConvos") == nil && member(doc.Content[0], "utterances") == nil {
			skipped = append(skipped, Skipped{p, "JSON or YAML without convos, partialConvos or utterances (such as botium.json)"})
			continue
		}
		root, err := b.s.resolveYAML(p, &doc)
		if err != nil {
			return nil, skipped, err
		}
		roots[p] = root
	}
	return roots, skipped, nil
}

func member(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// memberKey is the key node of a mapping's member, for its position.
func memberKey(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i]
		}
	}
	return nil
}

func (b *botium) objectUtterances(file string, root *yaml.Node) {
	u := member(root, "utterances")
	if u == nil || u.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(u.Content); i += 2 {
		k, v := u.Content[i], u.Content[i+1]
		if v.Kind != yaml.SequenceNode {
			b.s.problem(file, k.Line, "Utterance list is not a list", "The utterances %q must be a list of texts.", k.Value)
			continue
		}
		var vals []string
		for _, e := range v.Content {
			vals = append(vals, e.Value)
		}
		b.addUtterances(file, k.Line, k.Value, vals)
	}
}

// objectConvos reads the convos and partial convos of an object-form
// file's root mapping.
func (b *botium) objectConvos(file string, root *yaml.Node, utter map[string]bool) (convos, partials []*bConvo) {
	for _, key := range []string{"convos", "partialConvos"} {
		seq := member(root, key)
		if seq == nil {
			continue
		}
		if seq.Kind != yaml.SequenceNode {
			b.s.problem(file, seq.Line, "Convos are not a list", "The %s of a Botium file must be a list of convos with name and steps.", key)
			continue
		}
		for _, cn := range seq.Content {
			c := b.objectConvo(file, cn, utter)
			if key == "convos" {
				convos = append(convos, c)
			} else {
				partials = append(partials, c)
			}
		}
	}
	return convos, partials
}

func (b *botium) objectConvo(file string, cn *yaml.Node, utter map[string]bool) *bConvo {
	c := &bConvo{file: file, line: cn.Line}
	if n := member(cn, "name"); n != nil {
		c.name = n.Value
	}
	if d := member(cn, "description"); d != nil {
		c.description = d.Value
	}
	steps := member(cn, "steps")
	if steps == nil || steps.Kind != yaml.SequenceNode {
		b.s.problem(file, cn.Line, "Convo without steps", "The convo %q needs a steps list of me, bot, begin, end or include entries.", c.name)
		return c
	}
	for _, sn := range steps.Content {
		if sn.Kind != yaml.MappingNode || len(sn.Content) != 2 || !botiumSenders[sn.Content[0].Value] {
			b.s.problem(file, sn.Line, "Unreadable convo step", "A step is one of me, bot, begin, end or include, holding a list of lines.")
			continue
		}
		st := &bStep{sender: sn.Content[0].Value, file: file, line: sn.Line}
		lines, firstLine := b.objectLines(st, sn.Content[1])
		fillStep(st, lines, firstLine, utter)
		fixLines(st, sn.Content[1])
		c.steps = append(c.steps, st)
	}
	return c
}

// objectLines turns a step's entries into text lines as the text form
// writes them: {asserter: X, args: [a, b], not: true} is "!X a|b".
func (b *botium) objectLines(st *bStep, v *yaml.Node) ([]string, int) {
	if v.Kind == yaml.ScalarNode {
		return []string{v.Value}, v.Line
	}
	var out []string
	for _, e := range v.Content {
		switch e.Kind {
		case yaml.ScalarNode:
			out = append(out, e.Value)
		case yaml.MappingNode:
			out = append(out, objectEntry(e))
		default:
			b.s.problem(st.file, e.Line, "Unreadable convo line", "A step's line is a text or an object such as {asserter: INTENT, args: [greeting]}.")
		}
	}
	first := v.Line
	if len(v.Content) > 0 {
		first = v.Content[0].Line
	}
	return out, first
}

// objectEntry writes one object entry as a text-form line.
func objectEntry(e *yaml.Node) string {
	name, prefix := "", ""
	var args []string
	for i := 0; i+1 < len(e.Content); i += 2 {
		k, v := e.Content[i].Value, e.Content[i+1]
		switch k {
		case "asserter", "logichook", "logicHook", "userinput", "userInput":
			name = v.Value
		case "args":
			args = scalars(v)
		case "not":
			if v.Value == "true" {
				prefix += "!"
			}
		case "optional":
			if v.Value == "true" {
				prefix = "?" + prefix
			}
		default:
			name, args = k, scalars(v)
		}
	}
	for _, p := range []struct{ from, to string }{{"OPTIONAL_", "?"}, {"NOT_", "!"}} {
		if len(name) > len(p.from) && name[:len(p.from)] == p.from {
			name, prefix = name[len(p.from):], prefix+p.to
		}
	}
	line := prefix + name
	for i, a := range args {
		sep := "|"
		if i == 0 {
			sep = " "
		}
		line += sep + escapeBar(a)
	}
	return line
}

func scalars(v *yaml.Node) []string {
	if v.Kind == yaml.ScalarNode {
		return []string{v.Value}
	}
	var out []string
	for _, e := range v.Content {
		out = append(out, e.Value)
	}
	return out
}

func escapeBar(s string) string {
	out := ""
	for _, r := range s {
		if r == '|' {
			out += `\|`
			continue
		}
		out += string(r)
	}
	return out
}

// fixLines points a step's items and text at the lines of the YAML
// entries they came from (the text form counts one line per entry).
func fixLines(st *bStep, v *yaml.Node) {
	if v.Kind != yaml.SequenceNode {
		return
	}
	at := func(i int) int {
		if i >= 0 && i < len(v.Content) {
			return v.Content[i].Line
		}
		return v.Line
	}
	base := at(0)
	for i := range st.items {
		st.items[i].line = at(st.items[i].line - base)
	}
	if st.hasText {
		st.textLine = at(st.textLine - base)
	}
}
