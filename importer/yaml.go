package importer

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"gopkg.in/yaml.v3"
)

// Limits on what YAML input may make the importer build. yaml.v3 leaves
// an alias as a reference to its anchor: read naively, `*name` is the
// text "name", and resolved naively, nine nested aliases of nine make
// 387 million nodes (the "billion laughs" file). Every YAML file both
// importers read goes through readYAML, which resolves aliases and merge
// keys under these caps, so the readers never meet an alias.
const (
	// MaxExpandedNodes caps the nodes an import may produce beyond its
	// input: YAML nodes copied by aliases and merge keys, and Botium steps
	// and texts inlined from partial convos and utterance lists.
	MaxExpandedNodes = 100_000
	// MaxExpandedBytes caps the text those copies add.
	MaxExpandedBytes = 16 << 20
	// MaxYAMLDepth is the deepest nesting of YAML collections an imported
	// file may have. A Rasa slot value sits 8 levels down; the nesting of
	// a value becomes the nesting of an expression in the written suite,
	// which may not pass spec.MaxNesting.
	MaxYAMLDepth = 64
)

// expansion counts what aliases, includes and utterance lists produced;
// over its caps, fail holds the diagnostic that stops the import.
type expansion struct {
	nodes int
	bytes int
	fail  *hcl.Diagnostic
}

// spend charges nodes and bytes to the import's expansion budget; past a
// cap it records why, at rng (what copies: "The alias *x"), and reports
// false (and keeps reporting false).
func (s *suite) spend(nodes, bytes int, rng *hcl.Range, what string) bool {
	if s.exp.fail != nil {
		return false
	}
	s.exp.nodes += nodes
	s.exp.bytes += bytes
	if s.exp.nodes <= MaxExpandedNodes && s.exp.bytes <= MaxExpandedBytes {
		return true
	}
	s.exp.fail = &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Import expands too much", Subject: rng,
		Detail: fmt.Sprintf("%s takes the import past its cap on copies: YAML aliases and merge keys, partial convos and utterance lists may copy at most %d nodes (YAML nodes, steps, texts) and %s of text in one import. A file whose anchors or includes multiply (a \"billion laughs\" file) stops here. Write the repeated parts out, or import fewer files at a time.",
			what, MaxExpandedNodes, sizeWords(MaxExpandedBytes))}
	return false
}

// sizeWords is a byte count as "16 MiB".
func sizeWords(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	return strconv.Itoa(n) + " bytes"
}

// rangeAt is the diagnostic range of a file's line and column.
func (s *suite) rangeAt(file string, line, col int) *hcl.Range {
	if col < 1 {
		col = 1
	}
	return &hcl.Range{Filename: s.path(file), Start: hcl.Pos{Line: line, Column: col}, End: hcl.Pos{Line: line, Column: col + 1}}
}

// yamlErrLine finds the line in yaml.v3's error text.
var yamlErrLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// readYAML parses one YAML (or JSON) file into its root node with every
// alias replaced by a copy of its anchor's node and every merge key
// (`<<: *base`) merged, as YAML 1.1 defines them (the mapping's own keys
// win, then the merged mappings in their order). A duplicate key,
// nesting deeper than MaxYAMLDepth, an alias inside its own anchor and a
// copy past the expansion caps are errors at their line. It returns nil
// and no error for an empty file.
func (s *suite) readYAML(file string, src []byte, what string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Not YAML",
			Detail: fmt.Sprintf("%s is not YAML (%s): %s.", s.path(file), err, what)}
		if m := yamlErrLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			d.Subject = s.rangeAt(file, line, 1)
			d.Detail = fmt.Sprintf("The file is not YAML: %s (the YAML parser's words). %s.", m[2], what)
		}
		return nil, s.inputError(d)
	}
	return s.resolveYAML(file, &doc)
}

// resolveYAML is readYAML on a parsed document.
func (s *suite) resolveYAML(file string, doc *yaml.Node) (*yaml.Node, error) {
	if len(doc.Content) == 0 {
		return nil, nil
	}
	rv := &resolver{s: s, file: file, open: map[*yaml.Node]bool{}}
	root := rv.walk(doc.Content[0], 1)
	if rv.fail != nil {
		return nil, s.inputError(rv.fail)
	}
	return root, nil
}

// resolver is one readYAML walk.
type resolver struct {
	s    *suite
	file string
	open map[*yaml.Node]bool // the nodes being walked: an alias to one is a cycle
	fail *hcl.Diagnostic
}

func (rv *resolver) failAt(n *yaml.Node, summary, detail string, args ...any) {
	if rv.fail == nil {
		rv.fail = &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...),
			Subject: rv.s.rangeAt(rv.file, n.Line, n.Column)}
	}
}

// walk resolves n's subtree in place and returns the node to use for it:
// n itself, or for an alias a copy of its (already resolved) anchor.
// Anchors come before their aliases in the file, so document order walks
// every anchor before its first use.
func (rv *resolver) walk(n *yaml.Node, depth int) *yaml.Node {
	if rv.fail != nil {
		return n
	}
	if depth > MaxYAMLDepth {
		rv.failAt(n, "YAML nested too deep", "Lists and mappings nest more than %d deep here. No test needs this depth, and the suite nlutest would write could not nest it; flatten the value.", MaxYAMLDepth)
		return n
	}
	switch n.Kind {
	case yaml.AliasNode:
		return rv.alias(n, depth)
	case yaml.SequenceNode, yaml.MappingNode, yaml.DocumentNode:
		rv.open[n] = true
		for i, c := range n.Content {
			n.Content[i] = rv.walk(c, depth+1)
		}
		delete(rv.open, n)
		if n.Kind == yaml.MappingNode && rv.fail == nil {
			rv.mapping(n)
		}
	}
	return n
}

// alias is the copy an alias stands for, placed at the alias.
func (rv *resolver) alias(n *yaml.Node, depth int) *yaml.Node {
	target := n.Alias
	if target == nil {
		rv.failAt(n, "Unknown YAML anchor", "No anchor &%s comes before this alias; define it first.", n.Value)
		return n
	}
	if rv.open[target] {
		rv.failAt(n, "YAML alias inside its own anchor", "The alias *%s stands for a node that holds this alias, so it never ends; write the repeated part out.", n.Value)
		return n
	}
	return rv.copy(target, n, depth)
}

// copy deep-copies a resolved node for the alias at, charging each node
// and its text to the import's expansion budget. The copy is placed at
// the alias: diagnostics about it point where it is used.
func (rv *resolver) copy(n, at *yaml.Node, depth int) *yaml.Node {
	if rv.fail != nil {
		return at
	}
	if depth > MaxYAMLDepth {
		rv.failAt(at, "YAML nested too deep", "The alias *%s puts lists and mappings more than %d deep here. No test needs this depth, and the suite nlutest would write could not nest it; flatten the value.", at.Value, MaxYAMLDepth)
		return at
	}
	if !rv.s.spend(1, len(n.Value), rv.s.rangeAt(rv.file, at.Line, at.Column), "The alias *"+at.Value) {
		rv.fail = rv.s.exp.fail
		return at
	}
	c := &yaml.Node{Kind: n.Kind, Style: n.Style, Tag: n.Tag, Value: n.Value, Line: at.Line, Column: at.Column}
	if len(n.Content) > 0 {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, e := range n.Content {
			c.Content[i] = rv.copy(e, at, depth+1)
		}
	}
	return c
}

// isMergeKey reports whether k is YAML 1.1's merge key: a plain << (a
// quoted "<<" is an ordinary key), as yaml.v3 reads it.
func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && (k.Tag == "" || k.Tag == "!" || k.Tag == "!!merge")
}

// mapping refuses duplicate keys and applies a merge key: the merged
// mappings' pairs follow the mapping's own, except keys the mapping has
// itself or that an earlier merged mapping gave. (Key order means nothing
// in YAML; the readers look keys up, and a step's own keys come first.)
func (rv *resolver) mapping(n *yaml.Node) {
	own := map[string]*yaml.Node{}
	var merge, mergeKey *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if isMergeKey(k) {
			if mergeKey != nil {
				rv.failAt(k, "Duplicate merge key", "This mapping has a second << (the first is at line %d); merge several mappings with one: <<: [*a, *b].", mergeKey.Line)
				return
			}
			merge, mergeKey = n.Content[i+1], k
			continue
		}
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if first, dup := own[k.Value]; dup {
			rv.failAt(k, "Duplicate key", "The key %q appears twice in this mapping (first at line %d). YAML allows a key once, and a reader keeps only one of the two; remove or rename one.", k.Value, first.Line)
			return
		}
		own[k.Value] = k
	}
	if merge == nil {
		return
	}
	from := []*yaml.Node{merge}
	if merge.Kind == yaml.SequenceNode {
		from = merge.Content
	}
	var merged []*yaml.Node
	for _, m := range from {
		if m.Kind != yaml.MappingNode {
			rv.failAt(mergeKey, "Merge key without a mapping", "<< merges a mapping (<<: *base) or a list of them (<<: [*a, *b]) into this one; here it is given something else.")
			return
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k := m.Content[i]
			if k.Kind == yaml.ScalarNode {
				if _, have := own[k.Value]; have {
					continue
				}
				own[k.Value] = k
			}
			merged = append(merged, k, m.Content[i+1])
		}
	}
	out := make([]*yaml.Node, 0, len(n.Content)+len(merged))
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i] != mergeKey {
			out = append(out, n.Content[i], n.Content[i+1])
		}
	}
	n.Content = append(out, merged...)
}
