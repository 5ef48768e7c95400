package spec

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/zclconf/go-cty/cty"
)

// Robustness (the YD/T draft "面向应用场景的自然语言处理模型评估方法":
// R = (D1 + S1) / (D + S) over original and perturbed inputs): a perturb
// block in a template or dataset adds, after each case, count variants per
// kind of its text. A variant keeps the original's expectations and
// splits, carries case.perturbation and case.original, and has its own
// stable id ORIGINAL-KINDn. Variants are seeded by the block's seed and
// the original's id, so the same suite gives the same variants; every
// variant's text differs from the original's and from the case's other
// variants (a kind that cannot make a new text makes fewer).

// The perturbation kinds.
var PerturbKinds = []string{"swap", "delete", "insert", "width", "punct", "synonym", "homophone"}

// Perturb is a perturb block.
type Perturb struct {
	Kinds []string
	Count int
	Seed  uint64
	// Synonyms are groups of interchangeable words (a materials block whose
	// values are groups written "w1|w2|w3"); Homophones groups of
	// characters that sound alike.
	Synonyms   [][]string
	Homophones [][]string
	DeclRange  hcl.Range
}

var perturbSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "kinds", Required: true}, {Name: "count"}, {Name: "seed"}, {Name: "synonyms"}, {Name: "homophones"},
}}

// defaultHomophones are common Chinese homophone confusions, used when a
// perturb block lists homophone without its own list.
var defaultHomophones = [][]string{
	{"的", "地", "得"}, {"在", "再"}, {"做", "作"}, {"已", "以"}, {"那", "哪"}, {"他", "她", "它"},
	{"坐", "座"}, {"象", "像"}, {"帐", "账"}, {"即", "既"}, {"订", "定"}, {"机", "鸡"}, {"票", "漂"},
	{"到", "道"}, {"是", "事", "式"}, {"天", "添"}, {"明", "名"}, {"后", "候"}, {"京", "经"}, {"海", "还"},
}

func (l *loader) decodePerturb(b *hcl.Block) *Perturb {
	// ok false (kinds missing, or a kind unknown) leaves no perturb; the
	// rest of the block is still checked.
	c, ok := l.content(b.Body, perturbSchema)
	p := &Perturb{DeclRange: b.DefRange}
	p.Kinds = l.strList(c.Attributes, "kinds")
	for _, k := range p.Kinds {
		if !slices.Contains(PerturbKinds, k) {
			l.errorf(c.Attributes["kinds"].Expr.Range().Ptr(), "Unknown perturbation kind", "%q is not a perturbation kind (kinds: %s).%s", k, strings.Join(PerturbKinds, ", "), didYouMean(k, PerturbKinds))
			ok = false
			break
		}
	}
	p.Count = l.integer(c.Attributes, "count", 1, 1)
	p.Seed = uint64(l.integer(c.Attributes, "seed", 0, 0))
	if a, has := c.Attributes["synonyms"]; has {
		name := l.str(c.Attributes, "synonyms", "")
		m, found := l.suite.Materials[name]
		switch {
		case name == "":
			ok = false // an error of its own, reported
		case !found:
			l.errorf(a.Expr.Range().Ptr(), "Unknown materials", "synonyms names the materials block whose values are synonym groups (\"订|预订|预定\"); there is no materials %q.%s", name, didYouMean(name, l.suite.MatOrder))
			ok = false
		default:
			for _, v := range m.Values {
				if g := strings.Split(v.Value, "|"); len(g) > 1 {
					p.Synonyms = append(p.Synonyms, g)
				}
			}
		}
	} else if slices.Contains(p.Kinds, "synonym") {
		l.errorf(b.DefRange.Ptr(), "synonym needs synonyms", "The synonym kind replaces words by others of their group: set synonyms = \"MATERIALS\", a materials block whose values are groups such as \"订|预订|预定\".")
		ok = false
	}
	p.Homophones = defaultHomophones
	if a, has := c.Attributes["homophones"]; has {
		p.Homophones = l.stringGroups(a)
	}
	if !ok {
		return nil
	}
	return p
}

// stringGroups reads a list of lists of strings.
func (l *loader) stringGroups(a *hcl.Attribute) [][]string {
	v, diags := a.Expr.Value(l.staticCtx())
	l.diags = append(l.diags, diags...)
	var out [][]string
	if diags.HasErrors() || v.IsNull() || !(v.Type().IsListType() || v.Type().IsTupleType()) {
		l.errorf(a.Expr.Range().Ptr(), "Invalid homophones", "homophones is a list of groups of characters that sound alike, e.g. [[\"在\", \"再\"], [\"的\", \"地\", \"得\"]].")
		return nil
	}
	for it := v.ElementIterator(); it.Next(); {
		_, g := it.Element()
		xs, err := ctyStrings(g)
		if err != nil || g.Type() == cty.String || len(xs) < 2 {
			l.errorf(a.Expr.Range().Ptr(), "Invalid homophones", "Each group of homophones lists two or more strings.")
			return nil
		}
		out = append(out, xs)
	}
	return out
}

// each yields the variants of c, after c itself was yielded.
func (p *Perturb) each(c *schema.Case, yield func(*schema.Script) error) error {
	for _, v := range p.variants(c) {
		if err := yield(schema.Single(v)); err != nil {
			return err
		}
	}
	return nil
}

// variants makes c's variants, in kind order.
func (p *Perturb) variants(c *schema.Case) []*schema.Case {
	seen := map[string]bool{c.Text: true}
	var out []*schema.Case
	for _, kind := range p.Kinds {
		rng := rand.New(rand.NewPCG(p.Seed, seedOf(c.ID, kind)))
		made := 0
		for try := 0; made < p.Count && try < 8*p.Count+8; try++ {
			t, ok := p.apply(kind, c.Text, rng)
			if !ok || seen[t] {
				continue
			}
			seen[t] = true
			made++
			v := *c
			v.ID = c.ID + "-" + kind + strconv.Itoa(made)
			v.Text, v.Perturbation, v.Original = t, kind, c.ID
			v.Split = slices.Clone(c.Split)
			out = append(out, &v)
		}
	}
	return out
}

// variant returns the variant of c with the given id.
func (p *Perturb) variant(c *schema.Case, id string) (*schema.Case, bool) {
	for _, v := range p.variants(c) {
		if v.ID == id {
			return v, true
		}
	}
	return nil, false
}

// splitPerturbedID splits ORIGINAL-KINDn; ok is false for other ids.
func splitPerturbedID(id string) (orig string, ok bool) {
	i := strings.LastIndexByte(id, '-')
	if i <= 0 {
		return "", false
	}
	tail := id[i+1:]
	for _, k := range PerturbKinds {
		if n, found := strings.CutPrefix(tail, k); found && n != "" && strings.Trim(n, "0123456789") == "" {
			return id[:i], true
		}
	}
	return "", false
}

func seedOf(id, kind string) uint64 {
	h := sha256.Sum256([]byte(id + "\x00" + kind))
	return binary.LittleEndian.Uint64(h[:8])
}

// apply makes one variant of text of the given kind.
func (p *Perturb) apply(kind, text string, rng *rand.Rand) (string, bool) {
	rs := []rune(text)
	switch kind {
	case "swap":
		return swapRunes(rs, rng)
	case "delete":
		return deleteRune(rs, rng)
	case "insert":
		return insertRune(rs, rng)
	case "width":
		return toggleWidth(rs, rng)
	case "punct":
		return punctuate(rs, rng)
	case "synonym":
		return replaceFromGroups(text, p.Synonyms, rng)
	case "homophone":
		return replaceFromGroups(text, p.Homophones, rng)
	}
	return "", false
}

// content reports characters perturbations work on: not white space.
func content(r rune) bool { return !unicode.IsSpace(r) }

// positions lists the indexes of rs where ok holds.
func positions(rs []rune, ok func(i int) bool) []int {
	var out []int
	for i := range rs {
		if ok(i) {
			out = append(out, i)
		}
	}
	return out
}

// swapRunes swaps two neighbouring different characters (a typo).
func swapRunes(rs []rune, rng *rand.Rand) (string, bool) {
	at := positions(rs, func(i int) bool {
		return i+1 < len(rs) && content(rs[i]) && content(rs[i+1]) && rs[i] != rs[i+1]
	})
	if len(at) == 0 {
		return "", false
	}
	i := at[rng.IntN(len(at))]
	out := slices.Clone(rs)
	out[i], out[i+1] = out[i+1], out[i]
	return string(out), true
}

// deleteRune drops one character (not the only one).
func deleteRune(rs []rune, rng *rand.Rand) (string, bool) {
	at := positions(rs, func(i int) bool { return content(rs[i]) && !unicode.IsPunct(rs[i]) })
	if len(at) < 2 {
		return "", false
	}
	i := at[rng.IntN(len(at))]
	return string(rs[:i]) + string(rs[i+1:]), true
}

// insertRune repeats one of the text's characters at another place.
func insertRune(rs []rune, rng *rand.Rand) (string, bool) {
	at := positions(rs, func(i int) bool { return content(rs[i]) && !unicode.IsPunct(rs[i]) })
	if len(at) == 0 {
		return "", false
	}
	r := rs[at[rng.IntN(len(at))]]
	i := rng.IntN(len(rs) + 1)
	return string(rs[:i]) + string(r) + string(rs[i:]), true
}

// toggleWidth turns a random non-empty subset of the characters that have
// another width into it: ASCII letters, digits and punctuation to their
// full-width forms (U+FF01–U+FF5E, the ideographic space) and back.
func toggleWidth(rs []rune, rng *rand.Rand) (string, bool) {
	at := positions(rs, func(i int) bool { return otherWidth(rs[i]) != rs[i] })
	if len(at) == 0 {
		return "", false
	}
	out := slices.Clone(rs)
	first := rng.IntN(len(at))
	for j, i := range at {
		if j == first || rng.IntN(2) == 0 {
			out[i] = otherWidth(rs[i])
		}
	}
	return string(out), true
}

func otherWidth(r rune) rune {
	switch {
	case r >= '!' && r <= '~':
		return r + 0xfee0
	case r >= 0xff01 && r <= 0xff5e:
		return r - 0xfee0
	case r == ' ':
		return 0x3000
	case r == 0x3000:
		return ' '
	}
	return r
}

var (
	zhPuncts = []rune("，。！？、；")
	enPuncts = []rune(",.!?;")
)

// punctuate removes a punctuation mark, or adds one at a random place.
func punctuate(rs []rune, rng *rand.Rand) (string, bool) {
	at := positions(rs, func(i int) bool { return unicode.IsPunct(rs[i]) })
	if len(at) > 0 && rng.IntN(2) == 0 {
		i := at[rng.IntN(len(at))]
		return string(rs[:i]) + string(rs[i+1:]), true
	}
	if len(rs) == 0 {
		return "", false
	}
	marks := enPuncts
	for _, r := range rs {
		if unicode.Is(unicode.Han, r) {
			marks = zhPuncts
			break
		}
	}
	i := rng.IntN(len(rs) + 1)
	return string(rs[:i]) + string(marks[rng.IntN(len(marks))]) + string(rs[i:]), true
}

// replaceFromGroups replaces one occurrence of a group member in text by
// another member of its group.
func replaceFromGroups(text string, groups [][]string, rng *rand.Rand) (string, bool) {
	type hit struct{ at, n, g, m int }
	var hits []hit
	for g, grp := range groups {
		for m, w := range grp {
			if w == "" {
				continue
			}
			for off := 0; ; {
				i := strings.Index(text[off:], w)
				if i < 0 {
					break
				}
				hits = append(hits, hit{off + i, len(w), g, m})
				off += i + len(w)
			}
		}
	}
	if len(hits) == 0 {
		return "", false
	}
	h := hits[rng.IntN(len(hits))]
	grp := groups[h.g]
	k := rng.IntN(len(grp) - 1)
	if k >= h.m {
		k++
	}
	return text[:h.at] + grp[k] + text[h.at+h.n:], true
}
