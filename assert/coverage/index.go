package coverage

import (
	"regexp"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/botmodel"
	"github.com/nlutest/nlutest/spec/reply"
	"github.com/zclconf/go-cty/cty"
)

// index is what analysing a case needs of the suite and the model, built
// once per suite (Settings.Memo) and shared by every node.
type index struct {
	m *botmodel.Model
	// intentDim and entityDim are the schema's dimensions whose expected
	// labels are intents and whose expected items' types are entities;
	// nil when the schema has none of that name and kind.
	intentDim, entityDim *spec.Dimension
	// sources are the case sources' reply checks and the items their
	// conditions name (per turn for a conversation).
	sources map[sourceKey]*sourceRefs
	// suite are the items the suite-level asserts name (every case).
	suite []ref
	// responses are the model's responses with texts, for matching
	// replies and reply checks.
	responses []responseMatcher
	// paths classifies expectation paths, by their text.
	paths sync.Map
	// named caches the responses a reply check's text names, by the text
	// folded (with the check's case folding): a source's checks repeat
	// across its cases. At most maxNamed entries.
	named     sync.Map
	namedSize sync.Mutex
	namedN    int
	// anchored caches reply checks' patterns anchored at both ends.
	anchored sync.Map
}

// maxNamed caps the texts index.named keeps.
const maxNamed = 1 << 14

type sourceKey struct{ kind, name string }

// sourceRefs is what a case source contributes to every case of it.
type sourceRefs struct {
	reply   func(*schema.Case) *reply.Check
	asserts []ref
	turns   [][]ref
}

// ref is an item a check names: its index in the model, or -1 with its
// kind and name when the model does not declare it.
type ref struct {
	i    int32
	kind botmodel.Kind
	name string
}

func newIndex(s *spec.Suite) *index {
	cov := Of(s)
	ix := &index{m: cov.Model, sources: map[sourceKey]*sourceRefs{}}
	if sc := s.Schema; sc != nil {
		for _, d := range sc.Dimensions {
			switch {
			case d.Name == cov.IntentDimension && d.Kind == schema.KindLabel && d.Label != nil:
				ix.intentDim = d
			case d.Name == cov.EntityDimension && d.Kind == schema.KindItems && d.Items != nil && d.TypeKey != "":
				ix.entityDim = d
			}
		}
	}
	for _, a := range s.Asserts {
		ix.suite = append(ix.suite, ix.conditionRefs(a.Condition)...)
	}
	for _, src := range s.CaseSources {
		info := src.Info()
		sr := &sourceRefs{reply: info.Reply}
		for _, a := range info.Asserts {
			sr.asserts = append(sr.asserts, ix.conditionRefs(a.Condition)...)
		}
		for _, turn := range info.TurnAsserts {
			var refs []ref
			for _, a := range turn {
				refs = append(refs, ix.conditionRefs(a.Condition)...)
			}
			sr.turns = append(sr.turns, refs)
		}
		ix.sources[sourceKey{src.Kind(), src.Name()}] = sr
	}
	for i, it := range ix.m.Items {
		if it.Kind == botmodel.Response && len(it.Texts) > 0 {
			ix.responses = append(ix.responses, newResponseMatcher(int32(i), it.Texts))
		}
	}
	return ix
}

// item returns the ref of the item of kind k named name.
func (ix *index) item(k botmodel.Kind, name string) ref {
	if i, ok := ix.m.Lookup(k, name); ok {
		return ref{i: int32(i)}
	}
	return ref{i: -1, kind: k, name: name}
}

// action returns the ref of an action name as the tracker writes it: a
// response (utter_), a form or a custom action.
func (ix *index) action(name string) ref {
	if strings.HasPrefix(name, "utter_") {
		return ix.item(botmodel.Response, name)
	}
	if i, ok := ix.m.Lookup(botmodel.Form, name); ok {
		return ref{i: int32(i)}
	}
	return ix.item(botmodel.Action, name)
}

// conditionRefs returns the items a condition names: the slots it reads
// (state.slots.NAME, state.slots["NAME"]) and the intents, actions and
// forms it compares with a literal (state.latest_message.intent.name ==
// "greet", state.latest_action_name == "…", state.active_loop.name ==
// "…", and a response's intent with the intent dimension's path).
func (ix *index) conditionRefs(e hcl.Expression) []ref {
	var out []ref
	for _, tr := range e.Variables() {
		if name, ok := slotOf(tr); ok {
			out = append(out, ix.item(botmodel.Slot, name))
		}
	}
	se, ok := e.(hclsyntax.Expression)
	if !ok {
		return out
	}
	hclsyntax.VisitAll(se, func(n hclsyntax.Node) hcl.Diagnostics {
		bin, ok := n.(*hclsyntax.BinaryOpExpr)
		if !ok || bin.Op != hclsyntax.OpEqual {
			return nil
		}
		for _, pair := range [2][2]hclsyntax.Expression{{bin.LHS, bin.RHS}, {bin.RHS, bin.LHS}} {
			if r, ok := ix.comparison(pair[0], pair[1]); ok {
				out = append(out, r)
			}
		}
		return nil
	})
	return out
}

// comparison reads TRAVERSAL == "literal" for the traversals that name
// an intent, an action or a form.
func (ix *index) comparison(t, lit hclsyntax.Expression) (ref, bool) {
	st, ok := t.(*hclsyntax.ScopeTraversalExpr)
	if !ok {
		return ref{}, false
	}
	l, ok := lit.(*hclsyntax.TemplateExpr)
	var v cty.Value
	switch {
	case ok && l.IsStringLiteral():
		v, _ = l.Value(nil)
	default:
		lv, ok := lit.(*hclsyntax.LiteralValueExpr)
		if !ok {
			return ref{}, false
		}
		v = lv.Val
	}
	if !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return ref{}, false
	}
	name := v.AsString()
	switch traversalText(st.Traversal) {
	case "state.latest_message.intent.name":
		return ix.item(botmodel.Intent, name), true
	case "state.latest_action_name":
		return ix.action(name), true
	case "state.active_loop.name":
		return ix.item(botmodel.Form, name), true
	}
	return ref{}, false
}

// traversalText writes a traversal of names as ROOT.a.b.
func traversalText(tr hcl.Traversal) string {
	var b strings.Builder
	for _, step := range tr {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		default:
			return ""
		}
	}
	return b.String()
}

// slotOf reads state.slots.NAME or state.slots["NAME"].
func slotOf(tr hcl.Traversal) (string, bool) {
	if len(tr) < 3 || tr.RootName() != "state" {
		return "", false
	}
	if a, ok := tr[1].(hcl.TraverseAttr); !ok || a.Name != "slots" {
		return "", false
	}
	switch s := tr[2].(type) {
	case hcl.TraverseAttr:
		return s.Name, true
	case hcl.TraverseIndex:
		if s.Key.IsKnown() && !s.Key.IsNull() && s.Key.Type() == cty.String {
			return s.Key.AsString(), true
		}
	}
	return "", false
}

// responseMatcher finds a response's texts in a reply or a reply check's
// text. A variant with {slot} templates matches with any text in place of
// each; a variant made of templates alone (nothing literal to find) never
// matches.
type responseMatcher struct {
	i        int32
	variants []variant
}

type variant struct {
	// lit is the variant folded (reply.Fold) when it has no template; re
	// matches it otherwise. litFold and reFold are the same with case
	// folded too.
	lit, litFold string
	re, reFold   *regexp.Regexp
	// text is the variant as written, which reply checks' patterns are
	// matched against whole.
	text string
}

// templateRE is a {slot} template in a response text.
var templateRE = regexp.MustCompile(`\{[^{}]*\}`)

func newResponseMatcher(i int32, texts []string) responseMatcher {
	m := responseMatcher{i: i}
	for _, t := range texts {
		v := variant{text: t}
		if !templateRE.MatchString(t) {
			v.lit, v.litFold = reply.Fold(t, false), reply.Fold(t, true)
			if strings.TrimSpace(v.lit) == "" {
				continue
			}
			m.variants = append(m.variants, v)
			continue
		}
		parts := templateRE.Split(t, -1)
		if strings.TrimSpace(strings.Join(parts, "")) == "" {
			continue
		}
		v.re, v.reFold = templatePattern(parts, false), templatePattern(parts, true)
		m.variants = append(m.variants, v)
	}
	return m
}

// templatePattern matches the literal parts of a template, folded, with
// any text between them.
func templatePattern(parts []string, fold bool) *regexp.Regexp {
	q := make([]string, len(parts))
	for j, p := range parts {
		q[j] = regexp.QuoteMeta(reply.Fold(p, fold))
	}
	return regexp.MustCompile("(?s)" + strings.Join(q, ".+?"))
}

// in reports whether one of the response's variants occurs in text
// (folded as the variants compared are).
func (m *responseMatcher) in(text string, fold bool) bool {
	for _, v := range m.variants {
		switch {
		case v.re == nil && !fold && strings.Contains(text, v.lit),
			v.re == nil && fold && strings.Contains(text, v.litFold),
			v.re != nil && !fold && v.re.MatchString(text),
			v.re != nil && fold && v.reFold.MatchString(text):
			return true
		}
	}
	return false
}
