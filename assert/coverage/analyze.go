package coverage

import (
	"regexp"
	"slices"
	"strings"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/botmodel"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/nlutest/nlutest/spec/reply"
	"github.com/ohler55/ojg/jp"
	"github.com/ohler55/ojg/oj"
)

// caseCoverage is what one case exercised and showed: indexes into the
// model's items (each once), and the undeclared items it checked.
type caseCoverage struct {
	exercised, seen []int32
	undeclared      []undeclaredKey
}

// analysis collects one case's items.
type analysis struct {
	ix  *index
	out caseCoverage
}

func (a *analysis) check(r ref) {
	if r.i >= 0 {
		a.out.exercised = append(a.out.exercised, r.i)
		return
	}
	a.out.undeclared = append(a.out.undeclared, undeclaredKey{r.kind, r.name})
}

// show records an item the case's answer showed; a trace item (an
// action, form, flow or flow step) is exercised by being run. Items the
// model does not declare are left out: the bot's fallback intent or an
// action of Rasa's own is no gap in the suite.
func (a *analysis) show(r ref) {
	if r.i < 0 {
		return
	}
	a.out.seen = append(a.out.seen, r.i)
	if a.ix.m.Items[r.i].Kind.Trace() {
		a.out.exercised = append(a.out.exercised, r.i)
	}
}

// analyze works out what the case of o exercised: the items its
// expectations, conditions and reply checks name, and the trace items its
// recorded answer shows run; and the items its answer showed.
func (ix *index) analyze(o *assert.Observation) *caseCoverage {
	r := o.Result
	a := &analysis{ix: ix}
	for _, e := range r.Expect {
		ix.expectation(a, e)
	}
	for _, rf := range ix.suite {
		a.check(rf)
	}
	kind, name := r.SourceOf()
	if sr := ix.sources[sourceKey{kind, name}]; sr != nil {
		refs := sr.asserts
		if len(sr.turns) > 0 && r.Turn >= 1 && r.Turn <= len(sr.turns) {
			refs = sr.turns[r.Turn-1]
		}
		for _, rf := range refs {
			a.check(rf)
		}
		if sr.reply != nil {
			if rc := sr.reply(&r.Case); rc != nil {
				ix.replyCheck(a, rc, r.Slots)
			}
		}
	}
	if r.Error == nil {
		ix.answer(a, r)
	}
	a.out.exercised = compact(a.out.exercised)
	a.out.seen = compact(a.out.seen)
	slices.SortFunc(a.out.undeclared, func(x, y undeclaredKey) int {
		if x.kind != y.kind {
			return int(x.kind) - int(y.kind)
		}
		return strings.Compare(x.name, y.name)
	})
	a.out.undeclared = slices.Compact(a.out.undeclared)
	return &a.out
}

func compact(xs []int32) []int32 {
	slices.Sort(xs)
	return slices.Compact(xs)
}

// pathClass is what an expectation's path addresses.
type pathClass uint8

const (
	pathOther pathClass = iota
	pathIntent
	pathEntities    // a list of entity objects
	pathEntityTypes // entity types: one, or a list
	pathSlots       // the slots object
	pathSlot        // one slot (pathInfo.name)
	pathAction      // the latest action's name
	pathForm        // the active loop's name
)

type pathInfo struct {
	class pathClass
	name  string
}

// expectation records the items one expectation checks.
func (ix *index) expectation(a *analysis, e schema.Expectation) {
	p := ix.classify(e.Path)
	switch p.class {
	case pathIntent:
		if s, ok := e.Value.(string); ok {
			a.check(ix.item(botmodel.Intent, s))
		}
	case pathEntities:
		key := "entity"
		if !strings.HasPrefix(e.Path, jsonpath.StatePrefix) && ix.entityDim != nil {
			key = ix.entityDim.TypeKey
		}
		list, _ := e.Value.([]any)
		for _, x := range list {
			if obj, ok := x.(map[string]any); ok {
				if s, ok := obj[key].(string); ok {
					a.check(ix.item(botmodel.Entity, s))
				}
			}
		}
	case pathEntityTypes:
		for _, s := range strings1(e.Value) {
			a.check(ix.item(botmodel.Entity, s))
		}
	case pathSlots:
		if obj, ok := e.Value.(map[string]any); ok {
			for name := range obj {
				a.check(ix.item(botmodel.Slot, name))
			}
		}
	case pathSlot:
		a.check(ix.item(botmodel.Slot, p.name))
	case pathAction:
		if s, ok := e.Value.(string); ok {
			a.check(ix.action(s))
		}
	case pathForm:
		if s, ok := e.Value.(string); ok {
			a.check(ix.item(botmodel.Form, s))
		}
	}
}

// strings1 reads a string or a list of strings.
func strings1(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// classify says what an expectation's path addresses, once per path text.
func (ix *index) classify(path string) pathInfo {
	if v, ok := ix.paths.Load(path); ok {
		return v.(pathInfo)
	}
	p := ix.classifyNew(path)
	ix.paths.Store(path, p)
	return p
}

func (ix *index) classifyNew(path string) pathInfo {
	state := strings.HasPrefix(path, jsonpath.StatePrefix)
	x, err := jp.ParseString(strings.ReplaceAll(strings.TrimPrefix(path, jsonpath.StatePrefix), ".[", "["))
	if err != nil {
		return pathInfo{}
	}
	if state {
		return classifyState(steps(x))
	}
	if d := ix.intentDim; d != nil && d.Label.Matches(x) {
		return pathInfo{class: pathIntent}
	}
	if d := ix.entityDim; d != nil {
		if d.Collection != nil && d.Collection.Matches(x) {
			return pathInfo{class: pathEntities}
		}
		if n := len(x); n > 1 && x[n-1] == jp.Child(d.TypeKey) && d.Items.Matches(x[:n-1]) {
			return pathInfo{class: pathEntityTypes}
		}
	}
	return pathInfo{}
}

// steps drops a path's root and bracket markers: $.slots['城市'] is
// [slots 城市].
func steps(x jp.Expr) []jp.Frag {
	var out []jp.Frag
	for _, f := range x {
		switch f.(type) {
		case jp.Root, jp.Bracket:
			continue
		}
		out = append(out, f)
	}
	return out
}

// classifyState classifies a path of Rasa's tracker by its signature:
// its names joined by dots, an index or wildcard written [].
func classifyState(s []jp.Frag) pathInfo {
	var b strings.Builder
	for i, f := range s {
		switch t := f.(type) {
		case jp.Child:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(t))
		case jp.Nth, jp.Wildcard:
			b.WriteString("[]")
		default:
			return pathInfo{}
		}
	}
	sig := b.String()
	switch sig {
	case "latest_message.intent.name":
		return pathInfo{class: pathIntent}
	case "latest_message.entities":
		return pathInfo{class: pathEntities}
	case "latest_message.entities[].entity":
		return pathInfo{class: pathEntityTypes}
	case "slots":
		return pathInfo{class: pathSlots}
	case "latest_action_name":
		return pathInfo{class: pathAction}
	case "active_loop.name":
		return pathInfo{class: pathForm}
	}
	if len(s) == 2 && s[0] == jp.Child("slots") {
		if name, ok := s[1].(jp.Child); ok {
			return pathInfo{class: pathSlot, name: string(name)}
		}
	}
	return pathInfo{}
}

// replyCheck records the responses a case's reply checks ask for: a
// response is named by a contains, contains_any, equals, one_of or
// similar text that holds one of its texts whole ({slot} templates
// matching anything), or by a matches pattern that matches one of its
// texts (as written) whole. not_contains names none.
func (ix *index) replyCheck(a *analysis, rc *reply.Check, slots map[string]schema.Slot) {
	if len(ix.responses) == 0 {
		return
	}
	for _, texts := range [][]reply.Text{rc.Contains, rc.ContainsAny, rc.Equals} {
		for i := range texts {
			ix.namedBy(a, texts[i].Folded(slots, rc.IgnoreCase), rc.IgnoreCase)
		}
	}
	if rc.Similar != nil {
		for i := range rc.Similar.To {
			ix.namedBy(a, rc.Similar.To[i].Folded(slots, rc.IgnoreCase), rc.IgnoreCase)
		}
	}
	if rc.Matches != nil {
		re := ix.anchor(rc.Matches)
		for k := range ix.responses {
			m := &ix.responses[k]
			for _, v := range m.variants {
				if re.MatchString(v.text) {
					a.check(ref{i: m.i})
					break
				}
			}
		}
	}
}

// namedBy records the responses a check's (folded) text names.
func (ix *index) namedBy(a *analysis, text string, fold bool) {
	key := text
	if fold {
		key = "\x00" + text
	}
	if v, ok := ix.named.Load(key); ok {
		for _, i := range v.([]int32) {
			a.check(ref{i: i})
		}
		return
	}
	var found []int32
	for k := range ix.responses {
		if ix.responses[k].in(text, fold) {
			found = append(found, ix.responses[k].i)
		}
	}
	for _, i := range found {
		a.check(ref{i: i})
	}
	ix.namedSize.Lock()
	if ix.namedN < maxNamed {
		ix.namedN++
		ix.named.Store(key, found)
	}
	ix.namedSize.Unlock()
}

// anchor returns re anchored at both ends, compiled once per pattern.
func (ix *index) anchor(re *regexp.Regexp) *regexp.Regexp {
	src := re.String()
	if v, ok := ix.anchored.Load(src); ok {
		return v.(*regexp.Regexp)
	}
	out := regexp.MustCompile(`^(?:` + src + `)$`)
	ix.anchored.Store(src, out)
	return out
}

// answer records what the case's answer showed: the intent and entities
// the response predicted (through the schema's dimensions), the replies'
// responses, and what the recorded dialogue state shows — the latest
// message's intent and entities, slots set (to other than their initial
// value), the latest action, the active form, the dialogue stack's flow
// steps and, when the target records them, the turn's events
// (assert/coverage/trace.go).
func (ix *index) answer(a *analysis, r *schema.Result) {
	if len(r.Response) > 0 && (ix.intentDim != nil || ix.entityDim != nil) {
		if doc, err := oj.Parse(r.Response); err == nil {
			if d := ix.intentDim; d != nil {
				for _, v := range d.Label.Expr.Get(doc) {
					if s, ok := v.(string); ok {
						a.show(ix.item(botmodel.Intent, s))
					}
				}
			}
			if d := ix.entityDim; d != nil {
				for _, v := range d.Items.Expr.Get(doc) {
					if obj, ok := v.(map[string]any); ok {
						if s, ok := obj[d.TypeKey].(string); ok {
							a.show(ix.item(botmodel.Entity, s))
						}
					}
				}
			}
		}
	}
	if r.Reply != "" && len(ix.responses) > 0 {
		folded := reply.Fold(r.Reply, false)
		for k := range ix.responses {
			if ix.responses[k].in(folded, false) {
				a.show(ref{i: ix.responses[k].i})
			}
		}
	}
	if len(r.State) > 0 {
		if st, err := oj.Parse(r.State); err == nil {
			if obj, ok := st.(map[string]any); ok {
				ix.state(a, obj)
			}
		}
	}
}
