package botmodel

import (
	"fmt"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"gopkg.in/yaml.v3"
)

// yamlLine reads the line number out of a yaml.v3 error ("yaml: line 4:
// mapping values are not allowed in this context").
var yamlLine = regexp.MustCompile(`line (\d+)`)

// parse parses a YAML file into its root node: nil, with an error
// diagnostic at the line the parser names, when it is not YAML; nil
// without one when the file is empty.
func (r *reader) parse(file string, src []byte, what string) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		line := 1
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		r.errorAt(file, src, line, 1, 1, "Invalid YAML", "%s is not YAML (%s); a %s file is YAML, as Rasa reads it.", file, err, what)
		return nil
	}
	if len(doc.Content) == 0 {
		return nil
	}
	return doc.Content[0]
}

// at is the range of node n of file.
func (r *reader) at(file string, n *yaml.Node) hcl.Range {
	length := 1
	if n.Kind == yaml.ScalarNode && n.Value != "" {
		length = utf8.RuneCountInString(n.Value)
	}
	return rangeOf(file, r.m.Sources[file], n.Line, n.Column, length)
}

// rangeOf is the range of length characters from line:col of src.
func rangeOf(file string, src []byte, line, col, length int) hcl.Range {
	start := hcl.Pos{Line: line, Column: col, Byte: byteAt(src, line, col)}
	end := start
	end.Column += length
	end.Byte = byteAt(src, line, col+length)
	return hcl.Range{Filename: file, Start: start, End: end}
}

// byteAt is the byte offset of line:col (1-based, columns in characters)
// in src, clamped to the line.
func byteAt(src []byte, line, col int) int {
	off := 0
	for l := 1; l < line && off < len(src); off++ {
		if src[off] == '\n' {
			l++
		}
	}
	for c := 1; c < col && off < len(src) && src[off] != '\n'; c++ {
		_, n := utf8.DecodeRune(src[off:])
		off += n
	}
	return off
}

func (r *reader) errorAt(file string, src []byte, line, col, length int, summary, format string, args ...any) {
	rng := rangeOf(file, src, line, col, length)
	r.diags = append(r.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: &rng})
}

// errorf reports an error at node n of file.
func (r *reader) errorf(file string, n *yaml.Node, summary, format string, args ...any) {
	rng := r.at(file, n)
	r.diags = append(r.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: &rng})
}

// warnf reports a warning at node n of file.
func (r *reader) warnf(file string, n *yaml.Node, summary, format string, args ...any) {
	rng := r.at(file, n)
	r.diags = append(r.diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: &rng})
}

// member returns the value of key in mapping n, nil when n is not a
// mapping or has no such key.
func member(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// kindName says what a YAML node is, for messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "empty"
	}
	return fmt.Sprintf("the value %q", n.Value)
}

// nameOf reads a list entry that names an item: NAME, or a mapping with
// one key NAME (Rasa's `- inform: {use_entities: []}`). ok is false, with
// an error reported, for anything else.
func (r *reader) nameOf(file string, e *yaml.Node, what string) (name string, at *yaml.Node, ok bool) {
	switch {
	case e.Kind == yaml.ScalarNode && e.Tag != "!!null" && e.Value != "":
		return e.Value, e, true
	case e.Kind == yaml.MappingNode && len(e.Content) == 2 && e.Content[0].Value != "":
		return e.Content[0].Value, e.Content[0], true
	}
	r.errorf(file, e, "Invalid "+what, "A %s is named by a word (- greet) or a mapping with its name as the one key (- greet: {…}); this entry is %s.", what, kindName(e))
	return "", nil, false
}

// suggest returns the option nearest to name when it is a likely
// misspelling (about one edit per three characters), "" otherwise.
func suggest(name string, options []string) string {
	best, bestD := "", 1<<30
	for _, o := range options {
		if d := levenshtein(name, o); d < bestD {
			best, bestD = o, d
		}
	}
	n := utf8.RuneCountInString(name)
	if best == "" || bestD > max(1, n/3) || bestD >= n {
		return ""
	}
	return best
}

func didYouMean(name string, options []string) string {
	if s := suggest(name, options); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
