package reply

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec/attr"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Schema is the reply block's body schema: decode a block's body with it
// and hand the content to Decode.
var Schema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: Contains}, {Name: ContainsAny}, {Name: NotContains}, {Name: Matches},
	{Name: Equals}, {Name: OneOf}, {Name: "ignore_case"}, {Name: SimilarName},
}}

// Env is what decoding a reply block needs from the suite's loader.
type Env struct {
	// Static evaluates an attribute that may use only var and the suite's
	// functions, converted to ty (cty.DynamicPseudoType: as written); what
	// names it in messages (`"contains" attribute`). ok is false when the
	// value cannot be used; diags say why (none when it was said before).
	Static func(a *hcl.Attribute, ty cty.Type, what string) (v cty.Value, ok bool, diags hcl.Diagnostics)
	// Placeholders splits a text into its literal parts and the keys of the
	// {placeholders} between them (len(lits) == len(keys)+1; {{ and }} are
	// literal braces), or says why it cannot.
	Placeholders func(text string) (lits, keys []string, err error)
	// Locate is the range of needle inside the source of rng (rng when it
	// is not found there), to point at one placeholder of a text.
	Locate func(rng hcl.Range, needle string) hcl.Range
	// Suggest is the option nearest to name, "" when none is near, for
	// did-you-mean.
	Suggest func(name string, options []string) string
	// SlotsUnknown: the case's slots are not known here, so a placeholder
	// is not checked against them.
	SlotsUnknown bool
}

// decoder decodes one reply block, collecting its diagnostics.
type decoder struct {
	env   Env
	slots []string
	diags hcl.Diagnostics
}

func (d *decoder) errorf(rng *hcl.Range, summary, detail string, args ...any) {
	d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: rng})
}

// static evaluates a through env.Static, keeping its diagnostics.
func (d *decoder) static(a *hcl.Attribute, ty cty.Type, what string) (cty.Value, bool) {
	v, ok, diags := d.env.Static(a, ty, what)
	d.diags = append(d.diags, diags...)
	return v, ok
}

func (d *decoder) didYouMean(name string, options []string) string {
	if s := d.env.Suggest(name, options); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}

// Decode decodes the content c of a reply block (decoded with Schema)
// whose header is decl and whose texts may use the placeholders slots.
// references: the source's cases carry references, which `similar`
// without `to` compares with. The check is nil when the diagnostics hold
// an error.
func Decode(decl hcl.Range, c *hcl.BodyContent, slots []string, references bool, env Env) (*Check, hcl.Diagnostics) {
	d := &decoder{env: env, slots: slots}
	rc := &Check{DeclRange: decl, Lines: map[string]hcl.Range{}}
	for name, a := range c.Attributes {
		rc.Lines[name] = a.Range
	}
	rc.IgnoreCase = d.boolean(c.Attributes, "ignore_case")
	rc.Contains = d.texts(c.Attributes, Contains, rc.IgnoreCase)
	rc.ContainsAny = d.texts(c.Attributes, ContainsAny, rc.IgnoreCase)
	rc.NotContains = d.texts(c.Attributes, NotContains, rc.IgnoreCase)
	_, hasEq := c.Attributes[Equals]
	_, hasOne := c.Attributes[OneOf]
	switch {
	case hasEq && hasOne:
		d.errorf(c.Attributes[OneOf].NameRange.Ptr(), "Conflicting reply checks", "equals and one_of say the same thing; list every accepted reply in one_of = [...] and remove equals.")
	case hasEq:
		rc.EqualsName = Equals
		rc.Equals = d.texts(c.Attributes, Equals, rc.IgnoreCase)
	case hasOne:
		rc.EqualsName = OneOf
		rc.Equals = d.texts(c.Attributes, OneOf, rc.IgnoreCase)
	}
	if a, ok := c.Attributes[Matches]; ok {
		rc.MatchesText = d.str(c.Attributes, Matches)
		pat := rc.MatchesText
		if rc.IgnoreCase {
			pat = "(?i)" + pat
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			d.errorf(a.Expr.Range().Ptr(), "Invalid regular expression", "matches is an RE2 regular expression (Go's regexp syntax): %v. Fix the pattern; a backslash in an HCL string is written \\\\.", err)
		}
		rc.Matches = re
	}
	if a, ok := c.Attributes[SimilarName]; ok {
		rc.Similar = d.similar(a, references)
	}
	if len(c.Attributes) == 0 || (len(c.Attributes) == 1 && c.Attributes["ignore_case"] != nil) {
		d.errorf(decl.Ptr(), "Reply block without checks", "A reply block checks the reply with contains, contains_any, not_contains, matches, equals, one_of or similar; give it at least one, or remove it.")
	}
	if d.diags.HasErrors() {
		return nil, d.diags
	}
	return rc, d.diags
}

// texts reads a check's text or list of texts (equals takes one text;
// the others a list, or one text as a list of one).
func (d *decoder) texts(attrs hcl.Attributes, name string, ignoreCase bool) []Text {
	a, ok := attrs[name]
	if !ok {
		return nil
	}
	var raw []string
	if name == Equals {
		raw = []string{d.str(attrs, name)}
	} else {
		v, ok := d.static(a, cty.DynamicPseudoType, fmt.Sprintf("%q attribute", name))
		if !ok || v.IsNull() {
			return nil
		}
		if v.Type() == cty.String {
			raw = []string{v.AsString()}
		} else {
			raw = d.strList(attrs, name)
		}
	}
	return d.compile(a.Expr.Range(), name, raw, ignoreCase)
}

// compile parses each text's placeholders (each must be one of the
// slots) and folds the texts that have none.
func (d *decoder) compile(rng hcl.Range, name string, raw []string, ignoreCase bool) []Text {
	out := make([]Text, 0, len(raw))
	for _, s := range raw {
		if s == "" {
			d.errorf(rng.Ptr(), "Empty reply text", "%s has an empty text, which every reply contains; remove it.", name)
			continue
		}
		lits, keys, err := d.env.Placeholders(s)
		if err != nil {
			d.errorf(rng.Ptr(), "Invalid placeholder", "%s.", capitalize(err.Error()))
			continue
		}
		t := Text{Text: s, lits: lits}
		for _, k := range keys {
			if !slices.Contains(d.slots, k) && !d.env.SlotsUnknown {
				r := d.env.Locate(rng, "{"+k+"}")
				hint := ""
				if s := d.env.Suggest(k, d.slots); s != "" {
					hint = fmt.Sprintf(" Did you mean {%s}?", s)
				}
				d.errorf(&r, "Unknown placeholder in reply",
					"{%s} does not appear in the case's text, so it has no value here.%s Write {{ and }} for literal braces.", k, hint)
			}
			t.keys = append(t.keys, k)
		}
		if len(keys) == 0 {
			t.Text = lits[0] // {{ }} undone
			t.folded = Fold(t.Text, ignoreCase)
		}
		out = append(out, t)
	}
	return out
}

// similar reads similar = { to = [..], metric = "…", min = N }.
func (d *decoder) similar(a *hcl.Attribute, references bool) *Similar {
	rng := a.Expr.Range()
	v, ok := d.static(a, cty.DynamicPseudoType, `"similar" attribute`)
	if !ok || v.IsNull() {
		return nil
	}
	ty := v.Type()
	if !ty.IsObjectType() && !ty.IsMapType() {
		d.errorf(rng.Ptr(), "Invalid similar", "similar is an object: similar = { to = [\"参考回复\"], metric = \"rougeL\", min = 0.6 } (metric rougeL, f1 or bleu; min from 0 to 1).")
		return nil
	}
	sim := &Similar{Metric: "rougeL", Min: -1}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if !d.similarMember(rng, sim, k.AsString(), e) {
			return nil
		}
	}
	if sim.Min < 0 {
		d.errorf(rng.Ptr(), "Invalid similar", "similar needs min, the lowest score that passes (0 to 1), e.g. min = 0.6.")
		return nil
	}
	if len(sim.To) == 0 && !references {
		d.errorf(rng.Ptr(), "Invalid similar", "similar needs to = [...], the reference replies the reply is compared with (a dataset with references may leave it out to compare with each row's references).")
		return nil
	}
	return sim
}

// similarMember reads one member key = e of similar into sim; false when
// it is wrong (reported).
func (d *decoder) similarMember(rng hcl.Range, sim *Similar, key string, e cty.Value) bool {
	switch key {
	case "to":
		var raw []string
		if e.Type() == cty.String {
			raw = []string{e.AsString()}
		} else if lv, err := stringList(e); err == nil && lv.IsWhollyKnown() && !lv.IsNull() {
			for it := lv.ElementIterator(); it.Next(); {
				_, s := it.Element()
				if !s.IsNull() {
					raw = append(raw, s.AsString())
				}
			}
		} else {
			d.errorf(rng.Ptr(), "Invalid similar", "similar's to is a list of reference replies, e.g. to = [\"好的，请问哪天出发？\"].")
			return false
		}
		sim.To = d.compile(rng, "similar's to", raw, false)
	case "metric":
		if e.Type() != cty.String || !slices.Contains(Metrics, e.AsString()) {
			got := ""
			if e.Type() == cty.String {
				got = e.AsString()
			}
			d.errorf(rng.Ptr(), "Unknown similarity metric", "similar's metric is %s (ROUGE-L F, token F1 or sentence BLEU), not %q.%s", joinQuoted(Metrics), got, d.didYouMean(got, Metrics))
			return false
		}
		sim.Metric = e.AsString()
	case "min":
		f := math.NaN()
		if e.Type() == cty.Number && !e.IsNull() {
			f, _ = e.AsBigFloat().Float64()
		}
		if !(f >= 0 && f <= 1) {
			d.errorf(rng.Ptr(), "Invalid similar", "similar's min is a number from 0 to 1 (the lowest score that passes), e.g. min = 0.6.")
			return false
		}
		sim.Min = f
	default:
		d.errorf(rng.Ptr(), "Invalid similar", "similar takes to, metric and min, not %q.%s", key, d.didYouMean(key, []string{"to", "metric", "min"}))
		return false
	}
	return true
}

// stringList converts v to a list of strings; a tuple (an inline list)
// element by element, as the loader converts lists (go-cty's own
// conversion of a tuple takes quadratic time).
func stringList(v cty.Value) (cty.Value, error) {
	ty := cty.List(cty.String)
	if !v.Type().IsTupleType() || !v.IsKnown() {
		return convert.Convert(v, ty)
	}
	if v.LengthInt() == 0 {
		return cty.ListValEmpty(cty.String), nil
	}
	elems := make([]cty.Value, 0, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		ce, err := convert.Convert(e, cty.String)
		if err != nil {
			return cty.NilVal, err
		}
		elems = append(elems, ce)
	}
	return cty.ListVal(elems), nil
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// joinQuoted lists xs quoted, comma-separated.
func joinQuoted(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

func (d *decoder) attrs() attr.Reader { return attr.Reader{Static: d.static, Errorf: d.errorf} }

func (d *decoder) str(attrs hcl.Attributes, name string) string {
	return d.attrs().String(attrs, name, "")
}

func (d *decoder) boolean(attrs hcl.Attributes, name string) bool {
	return d.attrs().Bool(attrs, name, false)
}

func (d *decoder) strList(attrs hcl.Attributes, name string) []string {
	return d.attrs().StringList(attrs, name)
}
