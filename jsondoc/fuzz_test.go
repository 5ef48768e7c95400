package jsondoc

// FuzzParse also runs as a normal test over its seeds (the tables of
// doc_test.go and testdata/fuzz/FuzzParse). To fuzz it:
//
//	go test -run '^$' -fuzz FuzzParse -fuzztime 180s ./jsondoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ohler55/ojg/oj"
)

// surrogatePair matches an escaped UTF-16 surrogate pair, which
// encoding/json and jsondoc decode to one rune and ojg's parser to two
// U+FFFD. (It may match text that is no pair, such as `\\ud83d\ude00`; that
// only skips a comparison.)
var surrogatePair = regexp.MustCompile(`\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F]`)

func FuzzParse(f *testing.F) {
	for _, tc := range validityCases {
		f.Add([]byte(tc.in))
	}
	for _, s := range ojValueCases {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		navDoc,
		`{"a":1,"b":2,"a":3}`, `{"a":1,"\u0061":2}`, `{"\ud800":1,"\ufffd":2}`,
		`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k3":"last"}`,
		`[9223372036854775807,9223372036854775808,-9223372036854775808,-9223372036854775809,12345678901234567890]`,
		`[0.1234567890123456789,1e400,-1e400,1e1022,1e1023,1E0001023,9223372036854775800.5]`,
		`"\ud83d\ude00\ud83d\u0041\ude00"`, "\"\xe2\x80\xa8\xff\"",
		`{"x":{"y":[null,""]},"e":[[],{}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var d Doc
		err := d.Parse(in)
		if valid := json.Valid(in); (err == nil) != valid {
			t.Fatalf("Parse error %v, encoding/json.Valid %v", err, valid)
		}
		if err != nil {
			checkSyntaxError(t, in, err)
			return
		}
		root := d.Root()
		v := d.Value(root)
		canon := CanonicalJSON(v)
		if got := string(d.AppendCanonical(nil, root)); got != canon {
			t.Fatalf("AppendCanonical = %s, CanonicalJSON(Value) = %s", got, canon)
		}
		if got, want := d.Raw(root), bytes.Trim(in, " \t\r\n"); !bytes.Equal(got, want) {
			t.Fatalf("Raw(root) = %q, want %q", got, want)
		}
		checkTree(t, &d, root, v)

		// A Doc that parsed something else first gives the same.
		var reused Doc
		if err := reused.Parse([]byte(corpusFactory)); err != nil {
			t.Fatal(err)
		}
		if err := reused.Parse(in); err != nil {
			t.Fatalf("reused Doc: %v", err)
		}
		if got := string(reused.AppendCanonical(nil, reused.Root())); got != canon {
			t.Fatalf("reused Doc: AppendCanonical = %s, want %s", got, canon)
		}

		// encoding/json (numbers kept as text) decodes the same strings,
		// keys and shape; each number is the value of its text. Invalid
		// UTF-8 is left out: encoding/json replaces it, jsondoc and ojg
		// keep the bytes.
		if utf8.Valid(in) {
			dec := json.NewDecoder(bytes.NewReader(in))
			dec.UseNumber()
			var std any
			if err := dec.Decode(&std); err != nil {
				t.Fatalf("encoding/json: %v", err)
			}
			compareStd(t, v, std)
		}

		// ojg's parser gives the same canonical text, but for the numbers
		// it cannot hold (json.Number on either side, ±Inf from ojg) and
		// escaped surrogate pairs.
		if ov, oerr := oj.Parse(in); oerr == nil && !hasNumber(v) && !hasNumber(ov) && !surrogatePair.Match(in) {
			if oc := CanonicalJSON(ov); oc != canon {
				t.Fatalf("canonical %s, oj's %s", canon, oc)
			}
		}
	})
}

// checkSyntaxError checks err is a *SyntaxError pointing at the byte
// encoding/json stops after, or at the end of the input.
func checkSyntaxError(t *testing.T, in []byte, err error) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("Parse error = %#v, want a *SyntaxError", err)
	}
	if se.Offset < 0 || se.Offset > len(in) {
		t.Fatalf("Offset %d out of 0..%d", se.Offset, len(in))
	}
	if (se.Offset == len(in)) != strings.HasPrefix(err.Error(), "unexpected end of JSON input") {
		t.Fatalf("%v, input of %d bytes", err, len(in))
	}
	var v any
	var jse *json.SyntaxError
	if !errors.As(json.Unmarshal(in, &v), &jse) {
		t.Fatal("encoding/json reports no syntax error")
	}
	if int64(se.Offset) != jse.Offset-1 && !(se.Offset == len(in) && jse.Offset == int64(len(in))) {
		t.Fatalf("Offset = %d (%v); encoding/json: %d (%v)", se.Offset, err, jse.Offset, jse)
	}
}

// checkTree walks r and v (its Value) together: kinds, Get, Index,
// Each, Elems, Len, Empty, HasContainer, Str and Raw agree with v, and a
// scalar's Value is v. The Value of every object member is compared whole
// too, and Empty checked at every node, unless the text is long (deep
// nesting makes that quadratic; the walk still compares each member's tree
// node by node).
func checkTree(t *testing.T, d *Doc, r Ref, v any) {
	t.Helper()
	if (r == d.Root() || len(d.src) <= 4096) && d.Empty(r) != isEmpty(v) {
		t.Fatalf("Empty(%s) = %v", d.Raw(r), d.Empty(r))
	}
	kind := d.Kind(r)
	switch v := v.(type) {
	case nil:
		if kind != Null {
			t.Fatalf("Kind %v for null", kind)
		}
	case bool:
		if v && kind != True || !v && kind != False {
			t.Fatalf("Kind %v for %v", kind, v)
		}
	case int64, float64, json.Number:
		if kind != Number || !json.Valid(d.Raw(r)) || !reflect.DeepEqual(d.Value(r), v) {
			t.Fatalf("Kind %v, Raw %q, Value %#v for the number %#v", kind, d.Raw(r), d.Value(r), v)
		}
	case string:
		if kind != String || d.Value(r) != v || d.Str(r) != v || !d.EqualString(r, v) || d.EqualString(r, v+"\x00") {
			t.Fatalf("Kind %v, Str %q, EqualString wrong for %q", kind, d.Str(r), v)
		}
		if d.Plain(r) && string(d.StrBytes(r)) != v {
			t.Fatalf("StrBytes %q for %q", d.StrBytes(r), v)
		}
		if raw := d.Raw(r); raw[0] != '"' || raw[len(raw)-1] != '"' || !json.Valid(raw) {
			t.Fatalf("Raw %q of a string", raw)
		}
	case []any:
		raw := d.Raw(r)
		if kind != Array || d.Len(r) != len(v) || raw[0] != '[' || raw[len(raw)-1] != ']' {
			t.Fatalf("Kind %v, Len %d, Raw %.40q for an array of %d", kind, d.Len(r), raw, len(v))
		}
		hasContainer := false
		n := 0
		d.Elems(r, func(i int, e Ref) bool {
			if x, ok := d.Index(r, i); !ok || x != e {
				t.Fatalf("Index(%d) = %d, %v; Elems gives %d", i, x, ok, e)
			}
			if x, ok := d.Index(r, i-len(v)); !ok || x != e {
				t.Fatalf("Index(%d) = %d, %v; Elems gives %d", i-len(v), x, ok, e)
			}
			switch v[i].(type) {
			case []any, map[string]any:
				hasContainer = true
			}
			checkTree(t, d, e, v[i])
			n++
			return true
		})
		if n != len(v) || d.HasContainer(r) != hasContainer {
			t.Fatalf("Elems gives %d of %d; HasContainer %v", n, len(v), d.HasContainer(r))
		}
		if _, ok := d.Index(r, len(v)); ok {
			t.Fatal("Index(len) succeeds")
		}
		if _, ok := d.Index(r, -len(v)-1); ok {
			t.Fatal("Index(-len-1) succeeds")
		}
	case map[string]any:
		raw := d.Raw(r)
		if kind != Object || d.Len(r) < len(v) || raw[0] != '{' || raw[len(raw)-1] != '}' {
			t.Fatalf("Kind %v, Len %d, Raw %.40q for an object of %d", kind, d.Len(r), raw, len(v))
		}
		seen := map[string]bool{}
		d.Each(r, func(k, e Ref) bool {
			key := d.Str(k)
			if seen[key] {
				t.Fatalf("Each gives %q twice", key)
			}
			seen[key] = true
			if g, ok := d.Get(r, key); !ok || g != e {
				t.Fatalf("Get(%q) = %d, %v; Each gives %d", key, g, ok, e)
			}
			return true
		})
		if len(seen) != len(v) {
			t.Fatalf("Each gives %d members, Value has %d", len(seen), len(v))
		}
		for key, want := range v {
			g, ok := d.Get(r, key)
			if !ok {
				t.Fatalf("Get(%q) not found", key)
			}
			if len(d.src) <= 4096 {
				if got := d.Value(g); !reflect.DeepEqual(got, want) {
					t.Fatalf("Value(Get(%q)) = %.60v, want %.60v", key, got, want)
				}
			}
			checkTree(t, d, g, want)
		}
	default:
		t.Fatalf("Value gives a %T", v)
	}
}

// isEmpty is Empty on a Go value.
func isEmpty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []any:
		for _, e := range v {
			if !isEmpty(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range v {
			if !isEmpty(e) {
				return false
			}
		}
		return true
	}
	return false
}

// compareStd compares a Value with encoding/json's decoding (UseNumber).
func compareStd(t *testing.T, v, std any) {
	t.Helper()
	switch s := std.(type) {
	case json.Number:
		text := string(s)
		switch n := v.(type) {
		case int64: // 5e0 too, as ojg
			if !sameNumber(strconv.FormatInt(n, 10), text) || strings.Contains(text, ".") {
				t.Fatalf("int64 %d for %s", n, text)
			}
		case float64:
			if f, err := strconv.ParseFloat(text, 64); err != nil || f != n || !strings.ContainsAny(text, ".eE") {
				t.Fatalf("float64 %v for %s", n, text)
			}
		case json.Number:
			if string(n) != text {
				t.Fatalf("json.Number %s for %s", n, text)
			}
			if _, err := strconv.ParseInt(text, 10, 64); err == nil {
				t.Fatalf("json.Number for %s, which int64 holds", text)
			}
		default:
			t.Fatalf("%T %v for the number %s", v, v, text)
		}
	case []any:
		a, ok := v.([]any)
		if !ok || len(a) != len(s) {
			t.Fatalf("%T %.60v for an array of %d", v, v, len(s))
		}
		for i := range s {
			compareStd(t, a[i], s[i])
		}
	case map[string]any:
		m, ok := v.(map[string]any)
		if !ok || len(m) != len(s) {
			t.Fatalf("%T %.60v for an object of %d", v, v, len(s))
		}
		for k, e := range s {
			x, ok := m[k]
			if !ok {
				t.Fatalf("key %q missing", k)
			}
			compareStd(t, x, e)
		}
	default: // nil, bool, string
		if v != std {
			t.Fatalf("%#v, encoding/json gives %#v", v, std)
		}
	}
}

// hasNumber reports whether v holds a json.Number or a float64 ojg gives
// for a number beyond float64's range (±Inf).
func hasNumber(v any) bool {
	switch v := v.(type) {
	case json.Number:
		return true
	case float64:
		return v > 1.7976931348623157e308 || v < -1.7976931348623157e308
	case []any:
		for _, e := range v {
			if hasNumber(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range v {
			if hasNumber(e) {
				return true
			}
		}
	}
	return false
}
