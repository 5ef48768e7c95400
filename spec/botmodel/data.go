package botmodel

import (
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// This file reads Rasa training data files (Rasa's "Training Data
// Format" page): the nlu section's intents with their examples, whose
// entity annotations ([Berlin](city), [Berlin]{"entity": "city"}) name
// entities, and the responses a data file may hold (retrieval intents'
// utter_faq/… responses). Stories and rules are left alone: they are the
// bot's training, not items of its model.

// dataSections are the top-level keys of a training data file.
var dataSections = []string{"version", "nlu", "stories", "rules", "responses", "flows", "e2e_tests", "test_cases", "fixtures", "metadata", "stub_custom_actions"}

// annotationRE is an entity annotation in an NLU example: [text](entity),
// [text](entity:value) or [text]{"entity": "…", …}.
var annotationRE = regexp.MustCompile(`\[[^\]]*\](?:\(([^)]*)\)|(\{[^}]*\}))`)

// nlu reads one training data file's nlu section (and responses).
func (r *reader) nlu(file string, src []byte, inDir bool) {
	root := r.dataRoot(file, src, "NLU data")
	if root == nil {
		return
	}
	nlu := member(root, "nlu")
	if resp := member(root, "responses"); resp != nil {
		r.responses(file, &yaml.Node{Value: "responses"}, resp)
	}
	if nlu == nil {
		if !inDir {
			r.warnf(file, root, "No NLU data", "%s has no nlu section, so it names no intents; NLU training data is a file with nlu: and a list of - intent: NAME entries.", file)
		}
		return
	}
	if nlu.Kind != yaml.SequenceNode {
		if nlu.Tag != "!!null" {
			r.errorf(file, nlu, "NLU data is not a list", "The nlu section is a list of entries (- intent: greet, examples: …); it is %s.", kindName(nlu))
		}
		return
	}
	for _, e := range nlu.Content {
		in := member(e, "intent")
		if in == nil {
			if e.Kind != yaml.MappingNode {
				r.errorf(file, e, "Invalid NLU entry", "An nlu entry is a mapping (- intent: greet with its examples, or a synonym, regex or lookup); this one is %s.", kindName(e))
			}
			continue // synonym, regex, lookup
		}
		if in.Kind != yaml.ScalarNode || in.Value == "" {
			r.errorf(file, in, "Invalid intent", "intent: names the intent its examples belong to; it is %s.", kindName(in))
			continue
		}
		i := r.m.add(Item{Kind: Intent, Name: in.Value, At: r.at(file, in)})
		if ex := member(e, "examples"); ex != nil {
			r.m.Items[i].Examples += r.examples(file, ex)
		}
	}
}

// dataRoot parses a training data file and checks that it is a mapping.
func (r *reader) dataRoot(file string, src []byte, what string) *yaml.Node {
	root := r.parse(file, src, what)
	if root == nil {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		r.errorf(file, root, "Training data is not a mapping", "A Rasa training data file is a mapping of sections (nlu:, flows:, stories:, rules:); %s is %s.", file, kindName(root))
		return nil
	}
	if r.checked[file] {
		return root
	}
	r.checked[file] = true
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; !contains(dataSections, k.Value) {
			r.warnf(file, k, "Unknown training data section", "Rasa training data has no %q section, so nlutest reads nothing from it.%s", k.Value, didYouMean(k.Value, dataSections))
		}
	}
	return root
}

// examples counts an intent's examples (the "- " lines of its examples
// block, or the entries of a list) and adds the entities they annotate.
func (r *reader) examples(file string, ex *yaml.Node) int {
	var lines []string
	first := ex.Line
	switch ex.Kind {
	case yaml.ScalarNode:
		lines = strings.Split(ex.Value, "\n")
		if ex.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			first++
		}
	case yaml.SequenceNode:
		for _, e := range ex.Content {
			if t := member(e, "text"); t != nil {
				lines = append(lines, "- "+t.Value)
			} else {
				lines = append(lines, "- "+e.Value)
			}
		}
	}
	n := 0
	for j, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "- ") && t != "-" {
			continue
		}
		n++
		for _, m := range annotationRE.FindAllStringSubmatch(t, -1) {
			ent := annotatedEntity(m)
			if ent == "" {
				continue
			}
			line := first + j
			if ex.Kind != yaml.ScalarNode {
				line = ex.Content[j].Line
			}
			src := r.m.Sources[file]
			r.m.add(Item{Kind: Entity, Name: ent, At: rangeOf(file, src, line, indentOf(src, line)+1, len([]rune(t)))})
		}
	}
	return n
}

// annotatedEntity is the entity type of an annotation match.
func annotatedEntity(m []string) string {
	if m[1] != "" {
		ent, _, _ := strings.Cut(m[1], ":")
		return strings.TrimSpace(ent)
	}
	var obj struct {
		Entity string `yaml:"entity"`
	}
	if err := yaml.Unmarshal([]byte(m[2]), &obj); err != nil {
		return ""
	}
	return obj.Entity
}

// indentOf counts the spaces and tabs that begin line of src.
func indentOf(src []byte, line int) int {
	off := byteAt(src, line, 1)
	n := 0
	for off+n < len(src) && (src[off+n] == ' ' || src[off+n] == '\t') {
		n++
	}
	return n
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// stepPostfix is the part of a step's default id after its index
// (rasa/shared/core/flows/steps/*.py, default_id_postfix), by the key
// that gives the step its kind; the second value is what the step's
// detail shows.
func stepPostfix(step *yaml.Node) (kind, postfix, detail string) {
	for _, k := range []string{"action", "collect", "collect_information", "link", "call", "set_slots", "noop", "generation_prompt"} {
		v := member(step, k)
		if v == nil {
			continue
		}
		name := v.Value
		if k == "collect" || k == "collect_information" {
			if v.Kind == yaml.MappingNode { // an early form: collect: {slot: …}
				name = ""
			}
			return "collect", "collect_" + name, "collect: " + name
		}
		switch k {
		case "action":
			return k, name, "action: " + name
		case "link", "call":
			return k, k + "_" + name, k + ": " + name
		case "set_slots":
			return k, "set_slots", "set_slots"
		case "noop":
			return k, "noop", "noop"
		default:
			return k, "generate", k
		}
	}
	return "", "step", "step"
}

// stepIndex formats a default id's index.
func stepIndex(i int) string { return strconv.Itoa(i) }
