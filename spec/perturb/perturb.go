package perturb

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
)

// Kinds are the perturbation kinds a perturb block may list.
var Kinds = []string{"swap", "delete", "insert", "width", "punct", "synonym", "homophone"}

// Block is a perturb block: the kinds of variants to make, count of each
// per case, the seed, and the groups the synonym and homophone kinds draw
// from.
type Block struct {
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

// DefaultHomophones are common Chinese homophone confusions, for a
// perturb block that lists homophone without its own list.
var DefaultHomophones = [][]string{
	{"的", "地", "得"}, {"在", "再"}, {"做", "作"}, {"已", "以"}, {"那", "哪"}, {"他", "她", "它"},
	{"坐", "座"}, {"象", "像"}, {"帐", "账"}, {"即", "既"}, {"订", "定"}, {"机", "鸡"}, {"票", "漂"},
	{"到", "道"}, {"是", "事", "式"}, {"天", "添"}, {"明", "名"}, {"后", "候"}, {"京", "经"}, {"海", "还"},
}

// Each yields the perturbed variants of c (after c itself was yielded),
// in kind order, each a single-case script.
func (p *Block) Each(c *schema.Case, yield func(*schema.Script) error) error {
	for _, v := range p.Variants(c) {
		if err := yield(schema.Single(v)); err != nil {
			return err
		}
	}
	return nil
}

// Variants makes c's variants, in kind order: up to Count of each kind,
// each with the id ORIGINAL-KINDn, a text unlike the original's and the
// other variants', c's expectations and splits, Perturbation and
// Original set. The same block and case give the same variants.
func (p *Block) Variants(c *schema.Case) []*schema.Case {
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

// Variant returns the perturbed variant of c with the given id (a saved
// variant to rebuild); false when c has none of that id now.
func (p *Block) Variant(c *schema.Case, id string) (*schema.Case, bool) {
	for _, v := range p.Variants(c) {
		if v.ID == id {
			return v, true
		}
	}
	return nil, false
}

// SplitID splits a perturbed variant's id ORIGINAL-KINDn into ORIGINAL;
// ok is false for other ids.
func SplitID(id string) (orig string, ok bool) {
	i := strings.LastIndexByte(id, '-')
	if i <= 0 {
		return "", false
	}
	tail := id[i+1:]
	for _, k := range Kinds {
		if n, found := strings.CutPrefix(tail, k); found && n != "" && strings.Trim(n, "0123456789") == "" {
			return id[:i], true
		}
	}
	return "", false
}

// seedOf is the seed of a case's variants of one kind.
func seedOf(id, kind string) uint64 {
	h := sha256.Sum256([]byte(id + "\x00" + kind))
	return binary.LittleEndian.Uint64(h[:8])
}

// apply makes one variant of text of the given kind.
func (p *Block) apply(kind, text string, rng *rand.Rand) (string, bool) {
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
