package jsondoc

import (
	"slices"
	"testing"
)

// walkNext lists every value of the document as a walk with Next visits
// it: path-like strings of keys and indices, an object's members in
// document order (every occurrence of a repeated key).
func walkNext(d *Doc, r Ref, at string, out []string) []string {
	out = append(out, at)
	switch d.Kind(r) {
	case Object:
		k := r + 1
		for range d.Len(r) {
			out = walkNext(d, k+1, at+"."+d.Str(k), out)
			k = d.Next(k + 1)
		}
	case Array:
		e := r + 1
		for i := range d.Len(r) {
			out = walkNext(d, e, at+"["+string(rune('0'+i))+"]", out)
			e = d.Next(e)
		}
	}
	return out
}

// walkEach is walkNext with Each and Elems.
func walkEach(d *Doc, r Ref, at string, out []string) []string {
	out = append(out, at)
	d.Each(r, func(k, v Ref) bool { out = walkEach(d, v, at+"."+d.Str(k), out); return true })
	d.Elems(r, func(i int, v Ref) bool { out = walkEach(d, v, at+"["+string(rune('0'+i))+"]", out); return true })
	return out
}

// TestNextWalksAsEachAndElems: walking the tape with Next visits the same
// values in the same order as Each and Elems, for objects that do not
// repeat a key (RepeatsKeys false); an object that repeats one says so.
func TestNextWalksAsEachAndElems(t *testing.T) {
	for _, tc := range []struct {
		in      string
		repeats bool
	}{
		{corpusFactory, false},
		{`{"意图":[[],{},[{"槽位":"北京"},[1,2,[3]]],"",null],"b":{"c":{"d":[true,false]}},"e":{}}`, false},
		{`[[[]],[{}],{"a":[{"b":1},{"b":2}]},"城市"]`, false},
		{`"北京"`, false},
		{`{"a":1,"b":{"x":"北京"},"a":2}`, true},
		{`{"城\u5e02":1,"城市":2}`, true},
	} {
		var d Doc
		if err := d.Parse([]byte(tc.in)); err != nil {
			t.Fatal(err)
		}
		if got := d.Kind(d.Root()) == Object && d.RepeatsKeys(d.Root()); got != tc.repeats {
			t.Errorf("RepeatsKeys(%s) = %v, want %v", tc.in, got, tc.repeats)
		}
		if tc.repeats {
			continue
		}
		got, want := walkNext(&d, d.Root(), "$", nil), walkEach(&d, d.Root(), "$", nil)
		if !slices.Equal(got, want) {
			t.Errorf("%s: walk with Next\n%q\nwith Each and Elems\n%q", tc.in, got, want)
		}
	}
}
