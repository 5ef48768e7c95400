package spec

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// This file is the one rule for where a sensitive variable may be used
// (docs/security.md, "Where a secret may go"). The load walks every
// attribute of every block of every suite file, whatever block or source
// kind it belongs to and whether or not a decoder reads it, and refuses
// each var.NAME of a sensitive variable in it — directly, inside a string,
// through a function (upper(var.pin)), a for expression or a condition —
// unless the attribute's place is on secretPlaces. A new attribute or
// block is therefore refused until it is added there, on purpose, with
// the code that keeps its value out of everything nlutest writes.
// Decoders do not check sensitivity themselves: they ask noSensitive
// whether an expression was refused, so as not to evaluate it.

// secretPlaces are the places where a sensitive variable may be used:
// block types from the file's top level down to the attribute's name. A
// leading "*" matches any blocks before the rest (an assert block's
// condition in a template, a conversation's turn, a scenario's each_turn,
// a fragment, or at the top level).
//
//   - A target's request: its url, headers and body, an openai api_key, a
//     rasa tracker_token. The caller sends them and records the request
//     through the suite's redactor.
//   - An exec target's env: handed to the command's environment, never
//     recorded.
//   - Checks: assert and success conditions, threshold conditions, a
//     split's where. They are evaluated with sensitive values marked, so a
//     function that fails on one does not quote it, and only their
//     outcome is recorded.
var secretPlaces = [][]string{
	{"target", "http", "url"}, {"target", "http", "headers"}, {"target", "http", "body"},
	{"target", "rasa", "url"}, {"target", "rasa", "headers"}, {"target", "rasa", "tracker_token"},
	{"target", "openai", "url"}, {"target", "openai", "headers"}, {"target", "openai", "api_key"},
	{"target", "exec", "env"},
	{"*", "assert", "condition"}, {"scenario", "success", "condition"},
	{"threshold", "condition"}, {"split", "where"},
}

// secretPlacesText names secretPlaces in the diagnostic.
const secretPlacesText = "a target's url, headers and body, an openai api_key, a rasa tracker_token, an exec target's env, and conditions (assert and success conditions, threshold conditions, a split's where)"

// exprStrings are the attributes whose string value the load parses as an
// expression (pass = "score >= 4"): the names that string uses count as
// the attribute's.
var exprStrings = [][]string{{"*", "rubric", "pass"}}

// secretHints add what to do instead for some places (var.NAME becomes
// the variable).
var secretHints = []struct {
	place []string
	hint  string
}{
	{[]string{"target", "exec", "command"}, " Give the command the secret through the target's env instead: env = { TOKEN = var.NAME } (a command's arguments are also visible to other users of the machine)."},
	{[]string{"scenario", "goal", "inform"}, " The simulated user says its inform values to the bot, and a simulator target is sent them in its prompt: give the scenario a test value that is not secret (a test account's PIN), or keep the secret in the target's request."},
}

// placeMatches reports whether place (block types, then an attribute
// name) is the pattern p.
func placeMatches(p, place []string) bool {
	if len(p) > 0 && p[0] == "*" {
		rest := p[1:]
		return len(place) >= len(rest) && slices.Equal(place[len(place)-len(rest):], rest)
	}
	return slices.Equal(p, place)
}

func placeIn(patterns [][]string, place []string) bool {
	return slices.ContainsFunc(patterns, func(p []string) bool { return placeMatches(p, place) })
}

// SecretAllowed reports whether a sensitive variable may be used in the
// attribute at place: the types of the blocks that hold it, from the
// file's top level down, then its name ("target", "http", "headers").
func SecretAllowed(place []string) bool { return placeIn(secretPlaces, place) }

// placedAttr is an attribute of a suite file with its place and the
// blocks that hold it.
type placedAttr struct {
	attr   *hclsyntax.Attribute
	place  []string
	blocks []*hclsyntax.Block
}

// placedAttrs lists the attributes in body and its nested blocks whose
// text holds "var" (a reference to a variable is written var…; the others
// need no closer look), with their places under blocks (those above body).
func placedAttrs(body *hclsyntax.Body, src []byte, blocks []*hclsyntax.Block, out []placedAttr) []placedAttr {
	for _, a := range body.Attributes {
		r := a.SrcRange
		if r.End.Byte <= len(src) && !bytes.Contains(src[r.Start.Byte:r.End.Byte], []byte("var")) {
			continue
		}
		place := make([]string, 0, len(blocks)+1)
		for _, b := range blocks {
			place = append(place, b.Type)
		}
		out = append(out, placedAttr{a, append(place, a.Name), blocks})
	}
	for _, b := range body.Blocks {
		out = placedAttrs(b.Body, src, append(slices.Clip(blocks), b), out)
	}
	return out
}

// attrVariables are the names an attribute's value uses, with those of a
// string the load parses as an expression.
func attrVariables(pa placedAttr) []hcl.Traversal {
	vars := pa.attr.Expr.Variables()
	if te, ok := pa.attr.Expr.(*hclsyntax.TemplateExpr); ok && te.IsStringLiteral() && placeIn(exprStrings, pa.place) {
		if e, diags := parseStringExpr(te); !diags.HasErrors() {
			vars = append(vars, e.Variables()...)
		}
	}
	return vars
}

// parseStringExpr parses the text of a string literal as an expression,
// its positions those of the text in the file.
func parseStringExpr(te *hclsyntax.TemplateExpr) (hclsyntax.Expression, hcl.Diagnostics) {
	v, _ := te.Value(nil)
	start := te.SrcRange.Start
	start.Column++
	start.Byte++
	return hclsyntax.ParseExpression([]byte(v.AsString()), te.SrcRange.Filename, start)
}

// checkSecretPlaces applies the rule to every attribute of the suite's
// blocks, once the variables are declared — the turns of a streamed
// conversation (package turnstream) too, their batches parsed again one at a
// time. It reports each refused use, in the order of the files, and
// remembers where it is (noSensitive).
func (l *loader) checkSecretPlaces() {
	if !l.suite.hasSensitive() {
		return
	}
	var refused []secretUse
	for _, b := range l.blocks {
		sb, ok := b.Body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		hb := []*hclsyntax.Block{{Type: b.Type, Labels: b.Labels, Body: sb}}
		src := l.suite.Sources[sb.SrcRange.Filename]
		refused = l.secretUses(placedAttrs(sb, src, hb, nil), refused)
		if ts := l.streams[streamKey{b.DefRange.Filename, b.DefRange.Start.Byte}]; ts != nil {
			for i := range ts.Batches() {
				if _, body, diags := ts.Parse(i); !diags.HasErrors() {
					refused = l.secretUses(placedAttrs(body, src, hb, nil), refused)
				}
			}
		}
	}
	slices.SortStableFunc(refused, func(a, b secretUse) int {
		ra, rb := a.pa.attr.SrcRange, b.pa.attr.SrcRange
		if c := strings.Compare(ra.Filename, rb.Filename); c != 0 {
			return c
		}
		return ra.Start.Byte - rb.Start.Byte
	})
	for _, u := range refused {
		l.refuseSecret(u.pa, u.name, u.rng)
	}
}

// secretUse is a use of the sensitive variable name at rng, in the
// attribute pa.
type secretUse struct {
	pa   placedAttr
	name string
	rng  hcl.Range
}

// secretUses adds to out the uses of sensitive variables in attrs that
// are not where a secret may go. Only these are kept: a streamed batch's
// syntax tree is dropped once it is read.
func (l *loader) secretUses(attrs []placedAttr, out []secretUse) []secretUse {
	for _, pa := range attrs {
		if SecretAllowed(pa.place) {
			continue
		}
		for _, tr := range attrVariables(pa) {
			if tr.RootName() != "var" || len(tr) < 2 {
				continue
			}
			name, _ := stepName(tr[1])
			if v := l.varDecl[name]; v != nil && v.Sensitive {
				out = append(out, secretUse{pa, name, tr.SourceRange()})
			}
		}
	}
	return out
}

// refuseSecret reports var.name used at rng, in the attribute pa.
func (l *loader) refuseSecret(pa placedAttr, name string, rng hcl.Range) {
	l.refusedSecrets = append(l.refusedSecrets, rng)
	var where []string
	for _, b := range pa.blocks {
		w := b.Type
		if len(b.Labels) > 0 {
			w += fmt.Sprintf(" %q", b.Labels[0])
		}
		where = append(where, w)
	}
	hint := ""
	for _, h := range secretHints {
		if placeMatches(h.place, pa.place) {
			hint = strings.ReplaceAll(h.hint, "var.NAME", "var."+name)
		}
	}
	l.errorf(&rng, "Sensitive variable outside a target", "var.%s is sensitive, so it can be used only where nlutest keeps its value out of everything it writes: %s. In the %q attribute of %s its value could end up in case files, results, reports, diagnostics or what a simulator or judge target is sent.%s",
		name, secretPlacesText, pa.attr.Name, strings.Join(where, " › "), hint)
}

// noSensitive reports whether expr is free of the uses of sensitive
// variables the load refused (checkSecretPlaces): a decoder does not
// evaluate an expression that holds one.
func (l *loader) noSensitive(expr hcl.Expression) bool {
	r := expr.Range()
	for _, s := range l.refusedSecrets {
		if s.Filename == r.Filename && r.Start.Byte <= s.Start.Byte && s.End.Byte <= r.End.Byte {
			return false
		}
	}
	return true
}
