package jsondoc

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// The duplicate-key check of small objects compares only keys whose
// signatures meet (hasDupSmall): on random objects of 0–20 members whose
// keys are drawn from a few spellings — Chinese, escaped (`\u0061`,
// `\u57ce`) and raw forms of the same text, keys differing in one byte —
// it flags exactly the objects in which two keys decode to the same text.
func TestDuplicateKeysMatchPairwise(t *testing.T) {
	spellings := []string{
		`a`, `\u0061`, `b`, `ab`, `ba`, `aa`, `a\u0062`, `城市`, `\u57ce市`, `城\u5e02`, `城`, `市城`,
		`category`, `location`, `modifiers`, `number`, `target`, `time`, `traffic`, `tame`, `tim`,
		`手机号11位`, `手机号12位`, `x`, `y`, `z`, `\n`, `\u000a`, ``,
	}
	rng := rand.New(rand.NewPCG(27, 2))
	var d Doc
	dups := 0
	for range 20000 {
		n := rng.IntN(21)
		var b strings.Builder
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + spellings[rng.IntN(len(spellings))] + `":` + strconv.Itoa(i))
		}
		b.WriteByte('}')
		in := b.String()
		if err := d.Parse([]byte(in)); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		want := false
		seen := map[string]bool{}
		for j, m := uint32(1), 0; m < n; m++ {
			k := d.str(j)
			want = want || seen[k]
			seen[k] = true
			j = d.nodes[j+1].next
		}
		if want {
			dups++
		}
		if got := d.nodes[0].flags&flagDupKeys != 0; got != want {
			t.Fatalf("%s: duplicate keys %v, want %v", in, got, want)
		}
	}
	if dups < 1000 || dups > 19000 {
		t.Fatalf("%d of 20,000 objects had duplicates: the table should give both kinds", dups)
	}
}

// HasRepeatedKeys tells whether any object of the document, at any depth,
// repeats a key, and is reset by the next parse; Offset points at a key's
// opening quote.
func TestHasRepeatedKeys(t *testing.T) {
	var d Doc
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{`{"a": 1, "b": {"c": 2, "d": [{"e": 1}]}}`, false},
		{`{"a": 1, "b": {"c": 2, "d": [{"城": 1, "\u57ce": 2}]}}`, true},
		{`[{"x": 1}, {"x": 1, "x": 2}]`, true},
		{`{"a": 1}`, false},
	} {
		if err := d.Parse([]byte(tc.src)); err != nil {
			t.Fatal(err)
		}
		if got := d.HasRepeatedKeys(); got != tc.want {
			t.Errorf("%s: HasRepeatedKeys %v, want %v", tc.src, got, tc.want)
		}
	}
	if err := d.Parse([]byte(` {"城市": 1, "n": 2}`)); err != nil {
		t.Fatal(err)
	}
	if k := d.Root() + 1; d.Offset(k) != 2 || d.Offset(d.Next(k+1)) != 15 || d.Offset(k+1) != 12 {
		t.Errorf("offsets %d %d %d, want 2 15 12", d.Offset(k), d.Offset(d.Next(k+1)), d.Offset(k+1))
	}
}
