// Package reply owns the reply block (SPEC §14.1): checks of a case's
// reply text written as data — contains, contains_any, not_contains,
// matches, equals / one_of, ignore_case, similar — allowed in a template,
// a dataset, a conversation turn and a memory fact (its questions). It
// decodes a block's content (Decode: literals folded, placeholders
// parsed, the regex compiled, once) and gives the folding the checks
// compare with (Fold, NFC). It does not read suite files, evaluate
// expressions itself (the loader's static evaluation is passed in, Env)
// or run the checks on results: assert evaluates a Check on every case
// (assert/reply.go), and spec finds the block among a case's blocks.
package reply

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"golang.org/x/text/unicode/norm"
)

// Reply check names, as failures name them.
const (
	Contains    = "contains"
	ContainsAny = "contains_any"
	NotContains = "not_contains"
	Matches     = "matches"
	Equals      = "equals"
	OneOf       = "one_of"
	SimilarName = "similar"
)

// Metrics are the metrics `similar` compares with.
var Metrics = []string{"rougeL", "f1", "bleu"}

// Check is one reply block: every check it gives must hold for the
// case to pass.
type Check struct {
	// DeclRange is the block's header.
	DeclRange hcl.Range
	// IgnoreCase folds case as well (NFC and full-width forms are always
	// folded).
	IgnoreCase  bool
	Contains    []Text
	ContainsAny []Text
	NotContains []Text
	// Equals holds equals (one text) or one_of (several); EqualsName says
	// which was written.
	Equals     []Text
	EqualsName string
	// Matches is the compiled RE2 (with (?i) under ignore_case), nil
	// without one; MatchesText the pattern as written.
	Matches     *regexp.Regexp
	MatchesText string
	Similar     *Similar
	// Lines locates each check's attribute (by check name), for failures.
	Lines map[string]hcl.Range
}

// Similar is `similar = { to = [..], metric = "rougeL", min = 0.6 }`.
// Without to (a dataset with references only) the case's references are
// compared with.
type Similar struct {
	To     []Text
	Metric string
	Min    float64
}

// Text is one text of a reply check: its literal parts and the
// placeholders between them, folded at load when it has none.
type Text struct {
	// Text is the text as written.
	Text string
	lits []string
	keys []string
	// folded is the folded text of a text without placeholders.
	folded string
}

// Shown is the text with its placeholders resolved from slots (each
// slot's value as it appears in the user's text), for messages.
func (t *Text) Shown(slots map[string]schema.Slot) string {
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

// Folded is the text resolved and folded (Fold) as the checks
// compare it.
func (t *Text) Folded(slots map[string]schema.Slot, ignoreCase bool) string {
	if len(t.keys) == 0 {
		return t.folded
	}
	return Fold(t.Shown(slots), ignoreCase)
}

// Fold is the form reply checks compare: NFC, full-width ASCII forms
// (U+FF01–U+FF5E) and the ideographic space as their ASCII forms, and,
// with ignoreCase, lower case. A text needing none of it is returned as
// is, without allocating.
func Fold(s string, ignoreCase bool) string {
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

// NFC is s in NFC, s itself (without allocating) when it is already:
// the form a reply check's regex runs on first.
func NFC(s string) string {
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
