package spec

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/text/unicode/norm"
)

// This file is the reply block (SPEC §14.1): checks of a case's reply
// text written as data — contains, contains_any, not_contains, matches,
// equals / one_of, ignore_case, similar — allowed in a template, a
// dataset, a conversation turn and a memory fact (its questions). The
// block is decoded and its literals folded and its regex compiled here,
// once; assert evaluates it on every case (assert/reply.go).

// Reply check names, as failures name them.
const (
	ReplyContains    = "contains"
	ReplyContainsAny = "contains_any"
	ReplyNotContains = "not_contains"
	ReplyMatches     = "matches"
	ReplyEquals      = "equals"
	ReplyOneOf       = "one_of"
	ReplySimilarName = "similar"
)

// ReplyMetrics are the metrics `similar` compares with.
var ReplyMetrics = []string{"rougeL", "f1", "bleu"}

// ReplyCheck is one reply block: every check it gives must hold for the
// case to pass.
type ReplyCheck struct {
	// DeclRange is the block's header.
	DeclRange hcl.Range
	// IgnoreCase folds case as well (NFC and full-width forms are always
	// folded).
	IgnoreCase  bool
	Contains    []ReplyText
	ContainsAny []ReplyText
	NotContains []ReplyText
	// Equals holds equals (one text) or one_of (several); EqualsName says
	// which was written.
	Equals     []ReplyText
	EqualsName string
	// Matches is the compiled RE2 (with (?i) under ignore_case), nil
	// without one; MatchesText the pattern as written.
	Matches     *regexp.Regexp
	MatchesText string
	Similar     *ReplySimilar
	// Lines locates each check's attribute (by check name), for failures.
	Lines map[string]hcl.Range
}

// ReplySimilar is `similar = { to = [..], metric = "rougeL", min = 0.6 }`.
// Without to (a dataset with references only) the case's references are
// compared with.
type ReplySimilar struct {
	To     []ReplyText
	Metric string
	Min    float64
}

// ReplyText is one text of a reply check: its literal parts and the
// placeholders between them, folded at load when it has none.
type ReplyText struct {
	// Text is the text as written.
	Text string
	lits []string
	keys []string
	// folded is the folded text of a text without placeholders.
	folded string
}

// Shown is the text with its placeholders resolved from slots (each
// slot's value as it appears in the user's text), for messages.
func (t *ReplyText) Shown(slots map[string]schema.Slot) string {
	if len(t.keys) == 0 {
		return t.Text
	}
	if len(t.keys) == 1 && t.lits[0] == "" && t.lits[1] == "" {
		return slots[t.keys[0]].Value
	}
	var b strings.Builder
	for i, k := range t.keys {
		b.WriteString(t.lits[i])
		b.WriteString(slots[k].Value)
	}
	b.WriteString(t.lits[len(t.lits)-1])
	return b.String()
}

// Folded is the text resolved and folded (FoldReply) as the checks
// compare it.
func (t *ReplyText) Folded(slots map[string]schema.Slot, ignoreCase bool) string {
	if len(t.keys) == 0 {
		return t.folded
	}
	return FoldReply(t.Shown(slots), ignoreCase)
}

// FoldReply is the form reply checks compare: NFC, full-width ASCII forms
// (U+FF01–U+FF5E) and the ideographic space as their ASCII forms, and,
// with ignoreCase, lower case. A text needing none of it is returned as
// is, without allocating.
func FoldReply(s string, ignoreCase bool) string {
	change, stable := foldScan(s, ignoreCase)
	if !stable && !norm.NFC.IsNormalString(s) {
		s, change = norm.NFC.String(s), true
	}
	if !change {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if ignoreCase && c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if cjkStable(r) && r != 0x3000 {
			b.WriteString(s[i : i+n])
		} else {
			b.WriteRune(foldRune(r, ignoreCase))
		}
		i += n
	}
	return b.String()
}

// foldScan reports whether folding changes s beyond NFC (change), and
// whether s is certainly in NFC already (stable: false means ask norm).
func foldScan(s string, ignoreCase bool) (change, stable bool) {
	stable = true
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			change = change || (ignoreCase && c >= 'A' && c <= 'Z')
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case (r >= 0xFF01 && r <= 0xFF5E) || r == 0x3000:
			change = true
		case cjkStable(r):
		default:
			stable = stable && r < 0x300
			change = change || (ignoreCase && unicode.ToLower(r) != r)
		}
	}
	return change, stable
}

// foldRune is one non-ASCII rune folded: a full-width ASCII form as
// ASCII, the ideographic space as a space, lower case under ignoreCase.
func foldRune(r rune, ignoreCase bool) rune {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		r -= 0xFEE0
	case r == 0x3000:
		r = ' '
	}
	if ignoreCase {
		r = unicode.ToLower(r)
	}
	return r
}

// cjkStable: r is a CJK unified ideograph or CJK punctuation without its
// tone marks, which NFC leaves alone whatever surrounds it and which has
// no case (assert's nfcStable uses the same ranges).
func cjkStable(r rune) bool {
	return (r >= 0x3000 && r <= 0x3029) || (r >= 0x4E00 && r <= 0x9FFF)
}

// NFCReply is s in NFC, s itself (without allocating) when it is already:
// the form a reply check's regex runs on first.
func NFCReply(s string) string {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r >= 0x300 && !cjkStable(r) && (r < 0xFF01 || r > 0xFF5E) {
			return norm.NFC.String(s)
		}
		i += n
	}
	return s
}

var replySchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: ReplyContains}, {Name: ReplyContainsAny}, {Name: ReplyNotContains}, {Name: ReplyMatches},
	{Name: ReplyEquals}, {Name: ReplyOneOf}, {Name: "ignore_case"}, {Name: ReplySimilarName},
}}

// ReplyBlock decodes a reply block whose texts may use the placeholders
// slots; nil when it has errors (reported through d). Any source kind
// with reply checks calls it for its `reply {}` blocks.
func (d *Decoder) ReplyBlock(b *hcl.Block, slots []string) *ReplyCheck {
	return d.l.replyBlock(b, slots, false)
}

// replyBlocks decodes the one reply block among blocks (nil without
// one); a second is an error. references: the source's cases carry
// references, which `similar` without `to` compares with.
func (l *loader) replyBlocks(blocks hcl.Blocks, slots []string, references bool) *ReplyCheck {
	var out *ReplyCheck
	for _, b := range blocks {
		if b.Type != "reply" {
			continue
		}
		if out != nil {
			l.errorf(b.DefRange.Ptr(), "Duplicate reply block", "A case has one reply block, first at %s; put every check in it.", rangeString(out.DeclRange))
			continue
		}
		out = l.replyBlock(b, slots, references)
		if out == nil {
			out = &ReplyCheck{DeclRange: b.DefRange} // errors reported; stops a second report
		}
	}
	if out != nil && out.Lines == nil {
		return nil
	}
	return out
}

func (l *loader) replyBlock(b *hcl.Block, slots []string, references bool) *ReplyCheck {
	c, ok := l.content(b.Body, replySchema)
	if !ok {
		return nil
	}
	before := len(l.diags.Errs())
	rc := &ReplyCheck{DeclRange: b.DefRange, Lines: map[string]hcl.Range{}}
	for name, a := range c.Attributes {
		rc.Lines[name] = a.Range
	}
	rc.IgnoreCase = l.boolean(c.Attributes, "ignore_case", false)
	rc.Contains = l.replyTexts(c.Attributes, ReplyContains, slots, rc.IgnoreCase)
	rc.ContainsAny = l.replyTexts(c.Attributes, ReplyContainsAny, slots, rc.IgnoreCase)
	rc.NotContains = l.replyTexts(c.Attributes, ReplyNotContains, slots, rc.IgnoreCase)
	_, hasEq := c.Attributes[ReplyEquals]
	_, hasOne := c.Attributes[ReplyOneOf]
	switch {
	case hasEq && hasOne:
		l.errorf(c.Attributes[ReplyOneOf].NameRange.Ptr(), "Conflicting reply checks", "equals and one_of say the same thing; list every accepted reply in one_of = [...] and remove equals.")
	case hasEq:
		rc.EqualsName = ReplyEquals
		rc.Equals = l.replyTexts(c.Attributes, ReplyEquals, slots, rc.IgnoreCase)
	case hasOne:
		rc.EqualsName = ReplyOneOf
		rc.Equals = l.replyTexts(c.Attributes, ReplyOneOf, slots, rc.IgnoreCase)
	}
	if a, ok := c.Attributes[ReplyMatches]; ok {
		rc.MatchesText = l.str(c.Attributes, ReplyMatches, "")
		pat := rc.MatchesText
		if rc.IgnoreCase {
			pat = "(?i)" + pat
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			l.errorf(a.Expr.Range().Ptr(), "Invalid regular expression", "matches is an RE2 regular expression (Go's regexp syntax): %v. Fix the pattern; a backslash in an HCL string is written \\\\.", err)
		}
		rc.Matches = re
	}
	if a, ok := c.Attributes[ReplySimilarName]; ok {
		rc.Similar = l.replySimilar(a, slots, references)
	}
	if len(c.Attributes) == 0 || (len(c.Attributes) == 1 && c.Attributes["ignore_case"] != nil) {
		l.errorf(b.DefRange.Ptr(), "Reply block without checks", "A reply block checks the reply with contains, contains_any, not_contains, matches, equals, one_of or similar; give it at least one, or remove it.")
	}
	if len(l.diags.Errs()) > before {
		return nil
	}
	return rc
}

// replyTexts reads a check's text or list of texts (equals takes one
// text; the others a list, or one text as a list of one).
func (l *loader) replyTexts(attrs hcl.Attributes, name string, slots []string, ignoreCase bool) []ReplyText {
	a, ok := attrs[name]
	if !ok {
		return nil
	}
	var raw []string
	if name == ReplyEquals {
		raw = []string{l.str(attrs, name, "")}
	} else {
		v, ok := l.static(a, cty.DynamicPseudoType, fmt.Sprintf("%q attribute", name))
		if !ok || v.IsNull() {
			return nil
		}
		if v.Type() == cty.String {
			raw = []string{v.AsString()}
		} else {
			raw = l.strList(attrs, name)
		}
	}
	return l.compileReplyTexts(a.Expr.Range(), name, raw, slots, ignoreCase)
}

// compileReplyTexts parses each text's placeholders (each must be one of
// slots) and folds the texts that have none.
func (l *loader) compileReplyTexts(rng hcl.Range, name string, raw, slots []string, ignoreCase bool) []ReplyText {
	out := make([]ReplyText, 0, len(raw))
	for _, s := range raw {
		if s == "" {
			l.errorf(rng.Ptr(), "Empty reply text", "%s has an empty text, which every reply contains; remove it.", name)
			continue
		}
		lits, phs, err := ParsePlaceholders(s)
		if err != nil {
			l.errorf(rng.Ptr(), "Invalid placeholder", "%s.", capitalize(err.Error()))
			continue
		}
		t := ReplyText{Text: s, lits: lits}
		for _, ph := range phs {
			if !slices.Contains(slots, ph.Key) && !l.slotsUnknown {
				r := l.subRange(rng, "{"+ph.Key+"}")
				l.errorf(&r, "Unknown placeholder in reply",
					"{%s} does not appear in the case's text, so it has no value here.%s Write {{ and }} for literal braces.", ph.Key, didYouMeanBrace(ph.Key, slots))
			}
			t.keys = append(t.keys, ph.Key)
		}
		if len(phs) == 0 {
			t.Text = lits[0] // {{ }} undone
			t.folded = FoldReply(t.Text, ignoreCase)
		}
		out = append(out, t)
	}
	return out
}

// replySimilar reads similar = { to = [..], metric = "…", min = N }.
func (l *loader) replySimilar(a *hcl.Attribute, slots []string, references bool) *ReplySimilar {
	rng := a.Expr.Range()
	v, ok := l.static(a, cty.DynamicPseudoType, `"similar" attribute`)
	if !ok || v.IsNull() {
		return nil
	}
	ty := v.Type()
	if !ty.IsObjectType() && !ty.IsMapType() {
		l.errorf(rng.Ptr(), "Invalid similar", "similar is an object: similar = { to = [\"参考回复\"], metric = \"rougeL\", min = 0.6 } (metric rougeL, f1 or bleu; min from 0 to 1).")
		return nil
	}
	sim := &ReplySimilar{Metric: "rougeL", Min: -1}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		switch key := k.AsString(); key {
		case "to":
			var raw []string
			if e.Type() == cty.String {
				raw = []string{e.AsString()}
			} else if lv, err := convertValue(e, cty.List(cty.String)); err == nil && lv.IsWhollyKnown() && !lv.IsNull() {
				for it := lv.ElementIterator(); it.Next(); {
					_, s := it.Element()
					if !s.IsNull() {
						raw = append(raw, s.AsString())
					}
				}
			} else {
				l.errorf(rng.Ptr(), "Invalid similar", "similar's to is a list of reference replies, e.g. to = [\"好的，请问哪天出发？\"].")
				return nil
			}
			sim.To = l.compileReplyTexts(rng, "similar's to", raw, slots, false)
		case "metric":
			if e.Type() != cty.String || !slices.Contains(ReplyMetrics, e.AsString()) {
				got := ""
				if e.Type() == cty.String {
					got = e.AsString()
				}
				l.errorf(rng.Ptr(), "Unknown similarity metric", "similar's metric is %s (ROUGE-L F, token F1 or sentence BLEU), not %q.%s", joinQuoted(ReplyMetrics), got, didYouMean(got, ReplyMetrics))
				return nil
			}
			sim.Metric = e.AsString()
		case "min":
			f := math.NaN()
			if e.Type() == cty.Number && !e.IsNull() {
				f, _ = e.AsBigFloat().Float64()
			}
			if !(f >= 0 && f <= 1) {
				l.errorf(rng.Ptr(), "Invalid similar", "similar's min is a number from 0 to 1 (the lowest score that passes), e.g. min = 0.6.")
				return nil
			}
			sim.Min = f
		default:
			l.errorf(rng.Ptr(), "Invalid similar", "similar takes to, metric and min, not %q.%s", key, didYouMean(key, []string{"to", "metric", "min"}))
			return nil
		}
	}
	if sim.Min < 0 {
		l.errorf(rng.Ptr(), "Invalid similar", "similar needs min, the lowest score that passes (0 to 1), e.g. min = 0.6.")
		return nil
	}
	if len(sim.To) == 0 && !references {
		l.errorf(rng.Ptr(), "Invalid similar", "similar needs to = [...], the reference replies the reply is compared with (a dataset with references may leave it out to compare with each row's references).")
		return nil
	}
	return sim
}
