package perturb

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nlutest/nlutest/schema"
)

func original(text string) *schema.Case {
	return &schema.Case{ID: "订票-3", Text: text, Split: []string{"test"}}
}

// Every kind makes count variants unlike the original and each other
// (fewer when it runs out: the text has one character of another width,
// one word with two synonyms), with the id ORIGINAL-KINDn, the original's
// id and the kind recorded, and the change the kind names.
func TestVariantsByKind(t *testing.T) {
	const text = "我想订明天去北京的机票，谢谢"
	p := &Block{Count: 3, Seed: 7, Synonyms: [][]string{{"订", "预订", "预定"}}, Homophones: DefaultHomophones}
	for _, tc := range []struct {
		kind  string
		want  int
		check func(v string) bool
	}{
		{"swap", 3, func(v string) bool { return len(v) == len(text) && sameRunes(v, text) }},
		{"delete", 3, func(v string) bool { return utf8.RuneCountInString(v) == utf8.RuneCountInString(text)-1 }},
		{"insert", 3, func(v string) bool { return utf8.RuneCountInString(v) == utf8.RuneCountInString(text)+1 }},
		{"width", 1, func(v string) bool { return v == strings.ReplaceAll(text, "，", ",") }},
		{"punct", 3, func(v string) bool { return utf8.RuneCountInString(v) != utf8.RuneCountInString(text) }},
		{"synonym", 2, func(v string) bool { return strings.Contains(v, "预订") || strings.Contains(v, "预定") }},
		{"homophone", 3, func(v string) bool { return utf8.RuneCountInString(v) == utf8.RuneCountInString(text) }},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			p.Kinds = []string{tc.kind}
			vs := p.Variants(original(text))
			if len(vs) != tc.want {
				t.Fatalf("%d variants, want %d", len(vs), tc.want)
			}
			seen := map[string]bool{text: true}
			for i, v := range vs {
				if seen[v.Text] || !tc.check(v.Text) {
					t.Errorf("variant %d %q: repeated or not a %s of %q", i, v.Text, tc.kind, text)
				}
				seen[v.Text] = true
				if want := fmt.Sprintf("订票-3-%s%d", tc.kind, i+1); v.ID != want || v.Original != "订票-3" || v.Perturbation != tc.kind {
					t.Errorf("variant %d: id %q original %q kind %q, want id %q", i, v.ID, v.Original, v.Perturbation, want)
				}
				if !slices.Equal(v.Split, []string{"test"}) {
					t.Errorf("variant %d: split %v", i, v.Split)
				}
			}
		})
	}
}

func sameRunes(a, b string) bool {
	x, y := []rune(a), []rune(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// The same block and case give the same variants; another seed others;
// a variant is found again by its id, and changing it does not touch
// the original's splits.
func TestVariantsAreSeeded(t *testing.T) {
	p := &Block{Kinds: []string{"swap", "delete", "insert"}, Count: 2, Seed: 1}
	c := original("请帮我查一下上海的天气")
	texts := func(vs []*schema.Case) (out []string) {
		for _, v := range vs {
			out = append(out, v.ID+" "+v.Text)
		}
		return out
	}
	a, b := texts(p.Variants(c)), texts(p.Variants(c))
	if !slices.Equal(a, b) || len(a) != 6 {
		t.Fatalf("two runs differ or are short:\n%v\n%v", a, b)
	}
	q := *p
	q.Seed = 2
	if slices.Equal(texts(q.Variants(c)), a) {
		t.Error("seed 2 makes the variants of seed 1")
	}
	v, ok := p.Variant(c, "订票-3-delete2")
	if !ok || v.ID+" "+v.Text != a[3] {
		t.Errorf("Variant = %v %v, want %s", v, ok, a[3])
	}
	v.Split[0] = "train"
	if c.Split[0] != "test" {
		t.Error("a variant shares its original's splits")
	}
	if _, ok := p.Variant(c, "订票-3-delete3"); ok {
		t.Error("a variant beyond count was found")
	}
	var n int
	if err := p.Each(c, func(s *schema.Script) error { n += len(s.Turns); return nil }); err != nil || n != 6 {
		t.Errorf("Each yielded %d cases, %v", n, err)
	}
}

// A kind that cannot make a new text makes fewer variants, or none.
func TestVariantsWhenAKindCannot(t *testing.T) {
	for _, tc := range []struct {
		kind, text string
		want       int
	}{
		{"swap", "好好好", 0},
		{"delete", "好", 0},
		{"width", "你好", 0},
		{"synonym", "你好", 0},
		{"homophone", "你好", 0},
		{"width", "A", 1},
		{"swap", "你好", 1},
	} {
		p := &Block{Kinds: []string{tc.kind}, Count: 3, Synonyms: [][]string{{"订", "预订"}}, Homophones: DefaultHomophones}
		if vs := p.Variants(original(tc.text)); len(vs) != tc.want {
			t.Errorf("%s of %q: %d variants, want %d", tc.kind, tc.text, len(vs), tc.want)
		}
	}
}

func TestWidth(t *testing.T) {
	p := &Block{Kinds: []string{"width"}, Count: 1}
	vs := p.Variants(original("AB"))
	if len(vs) != 1 || !slices.Contains([]string{"ＡB", "AＢ", "ＡＢ"}, vs[0].Text) {
		t.Errorf("width of AB: %v", vs)
	}
	for r, want := range map[rune]rune{'a': 'ａ', 'ａ': 'a', '1': '１', ' ': '\u3000', '\u3000': ' ', '，': ',', '中': '中'} {
		if got := otherWidth(r); got != want {
			t.Errorf("otherWidth(%q) = %q, want %q", r, got, want)
		}
	}
}

func TestSplitID(t *testing.T) {
	for id, want := range map[string]string{
		"订票-3-swap1":         "订票-3",
		"a-homophone12":      "a",
		"订票-3":               "",
		"订票-3-swap":          "",
		"订票-3-swapx1":        "",
		"-swap1":             "",
		"x-synonym2-delete1": "x-synonym2",
	} {
		got, ok := SplitID(id)
		if got != want || ok != (want != "") {
			t.Errorf("SplitID(%q) = %q, %v; want %q", id, got, ok, want)
		}
	}
}
