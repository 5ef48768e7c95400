package jsondoc

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ohler55/ojg/oj"
)

// corpusFactory is the IAO corpus-factory write-up's IAO response: Chinese text, nested containers, an
// empty array and an empty object.
const corpusFactory = `{"code":200,"data":[{"apps":{"app_op_seq":[]},"content":{"des":{"phone_number":"13301791708"},"ont":"SIM_Card","rel":[{"des":{},"ont":["SIM_Card","Person"],"relIdx":[0,"13-19"],"relName":"使用人","segs":["查询13301791708的酒店同房间人员"]}],"segs":["查询13301791708的酒店同房间人员"]},"content_op":"查询"}],"msg":"","unknown":[{"keyword":"酒店","ont":"unknown"}]}`

func nested(open, close string, n int, inner string) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// validityCases are inputs on the edge of RFC 8259. off is the exact
// offset of the error Parse must report (ignored for valid inputs).
var validityCases = []struct {
	name  string
	in    string
	valid bool
	off   int
}{
	{"empty", "", false, 0},
	{"whitespace only", " \t\r\n", false, 4},
	{"vertical tab is not whitespace", "\v1", false, 0},
	{"trailing comma in array", "[1,2,]", false, 5},
	{"trailing comma in object", `{"a":1,}`, false, 7},
	{"leading zero", "01", false, 1},
	{"negative leading zero", "-01", false, 2},
	{"lone minus", "-", false, 1},
	{"minus letter", "-a", false, 1},
	{"dot without fraction", "1.", false, 2},
	{"dot before exponent", "1.e5", false, 2},
	{"leading dot", ".5", false, 0},
	{"exponent without digits", "1e", false, 2},
	{"exponent sign without digits", "1e+", false, 3},
	{"fraction after exponent", "1e5.5", false, 3},
	{"hex", "0x10", false, 1},
	{"plus sign", "+1", false, 0},
	{"NaN", "NaN", false, 0},
	{"Infinity", "Infinity", false, 0},
	{"negative Infinity", "-Infinity", false, 1},
	{"single quotes", "'a'", false, 0},
	{"unterminated string", `"abc`, false, 4},
	{"unterminated array", "[1,2", false, 4},
	{"unterminated empty array", "[", false, 1},
	{"unterminated object", `{"a":1`, false, 6},
	{"unterminated object after key", `{"a"`, false, 4},
	{"unterminated object after colon", `{"a":`, false, 5},
	{"control character in string", "\"a\x01b\"", false, 2},
	{"raw newline in string", "\"a\nb\"", false, 2},
	{"NUL in string", "\"\x00\"", false, 1},
	{"bad escape", `"\x"`, false, 2},
	{"bad unicode escape", `"\u12G4"`, false, 5},
	{"short unicode escape", `"\u12"`, false, 5},
	{"truncated unicode escape", `"\u12`, false, 5},
	{"truncated escape", `"\`, false, 2},
	{"two objects", "{} {}", false, 3},
	{"two numbers", "1 2", false, 2},
	{"string then garbage", `"a"b`, false, 3},
	{"extra close", "[1]]", false, 3},
	{"close only", "]", false, 0},
	{"missing value", `{"a":}`, false, 5},
	{"missing colon", `{"a" 1}`, false, 5},
	{"missing comma in object", `{"a":1 "b":2}`, false, 7},
	{"missing comma in array", "[1 2]", false, 3},
	{"comma only object", "{,}", false, 1},
	{"number key", "{1:2}", false, 1},
	{"double comma", "[1,,2]", false, 3},
	{"BOM", "\xef\xbb\xbf{}", false, 0},
	{"truncated true", "tru", false, 3},
	{"misspelt true", "trux", false, 3},
	{"truncated false", "fals", false, 4},
	{"misspelt null", "nulL", false, 3},
	{"truncated literal in array", "[t]", false, 2},
	{"misspelt false in object", `{"a":fxlse}`, false, 6},
	{"capitalised literal", "True", false, 0},
	{"depth 10000", nested("[", "]", MaxDepth, ""), true, 0},
	{"depth 10000 with value", nested("[", "]", MaxDepth, "1"), true, 0},
	{"depth 10000 objects", nested(`{"a":`, "}", MaxDepth, "1"), true, 0},
	{"depth 10001", nested("[", "]", MaxDepth+1, ""), false, MaxDepth},
	{"depth 10001 objects", nested(`{"a":`, "}", MaxDepth+1, "1"), false, 5 * MaxDepth},
	{"invalid UTF-8 in string", "\"\xff\xfe\"", true, 0},
	{"truncated UTF-8 in key", "{\"\xe4\xb8\":1}", true, 0},
	{"zero", "0", true, 0},
	{"negative zero", "-0", true, 0},
	{"exponent", "1E-2", true, 0},
	{"exponent plus", "1e+5", true, 0},
	{"zero with exponent", "-0E-1", true, 0}, // ojg rejects it
	{"padded object", " {} ", true, 0},
	{"padded array", "\t[\n]\r", true, 0},
	{"empty string", `""`, true, 0},
	{"literals", "[null,true,false]", true, 0},
	{"escapes", `"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"`, true, 0},
	{"lone surrogate", `["\ud800"]`, true, 0},
	{"Chinese", corpusFactory, true, 0},
}

func TestValidity(t *testing.T) {
	var d Doc
	for _, tc := range validityCases {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			if std := json.Valid(in); std != tc.valid {
				t.Fatalf("table is wrong: encoding/json.Valid = %v", std)
			}
			err := d.Parse(in)
			if tc.valid {
				if err != nil {
					t.Fatalf("Parse: %v, want success", err)
				}
				return
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse error = %#v, want a *SyntaxError", err)
			}
			if se.Offset != tc.off {
				t.Errorf("Offset = %d (%v), want %d", se.Offset, err, tc.off)
			}
			if !strings.HasSuffix(err.Error(), " at offset "+strconv.Itoa(tc.off)) {
				t.Errorf("Error() = %q does not name offset %d", err, tc.off)
			}
			if (se.Offset == len(in)) != strings.HasPrefix(err.Error(), "unexpected end of JSON input") {
				t.Errorf("Error() = %q at offset %d of %d bytes", err, se.Offset, len(in))
			}
			// encoding/json counts the bytes read, the offending one
			// included; Parse points at it (or at the end of the input).
			var v any
			var jse *json.SyntaxError
			if !errors.As(json.Unmarshal(in, &v), &jse) {
				t.Fatal("encoding/json reports no syntax error")
			}
			if int64(se.Offset) != jse.Offset-1 && !(se.Offset == len(in) && jse.Offset == int64(len(in))) {
				t.Errorf("Offset = %d, encoding/json's = %d", se.Offset, jse.Offset)
			}
		})
	}
}

func TestLiteralErrorMessage(t *testing.T) {
	var d Doc
	err := d.Parse([]byte("[nulL]"))
	const want = `invalid character 'L' in literal null (expecting 'l') at offset 4`
	if err == nil || err.Error() != want {
		t.Fatalf("Parse = %v, want %s", err, want)
	}
}

func mustParse(t testing.TB, d *Doc, s string) {
	t.Helper()
	if err := d.Parse([]byte(s)); err != nil {
		t.Fatalf("Parse(%.60q): %v", s, err)
	}
}

// ojValueCases give the same Go values, types included, as oj.Parse.
var ojValueCases = []string{
	corpusFactory,
	`{"a":[1,2.5,"x",true,false,null,{}],"b":{"c":[]},"":""}`,
	`"\u4e2d\u6587"`,
	`"中文"`,
	`"\"\\\/\b\f\n\r\t"`,
	`"\ud800 lone"`,
	"\"\xff raw invalid UTF-8\"",
	`0`, `-0`, `200`, `-7`, `1.5`, `-1.5e3`, `1E2`, `1e-7`, `1e21`, `100.0`, `-0.0`, `0.5e-3`,
	`5e0`, `-5E-00`, `100000000000000001e0`, `1.0e0`, // a zero exponent: an integer
	`[0,-0,200,-7,1.5,-1.5e3,1E2,1e-7,1e21,100.0]`,
	`9223372036854775799`, `-9223372036854775807`,
	`0.12345678901234567`,   // 17 fraction digits: float64
	`1234567890123456789.5`, // 19 integer digits: float64
	`[9223372036854775799.5, -9223372036854775807.5, 1234567890123456789e2]`,
	`1e308`, `-1.7976931348623157e308`, `1e-1022`, `4.9e-324`,
	`{"a":1,"b":2,"a":3}`,
	`{"a":{"x":1},"a":{"y":2}}`,
	`[[[]],[{}],{"x":{"y":[null,""]}}]`,
}

func TestValueMatchesOj(t *testing.T) {
	var d Doc
	for _, s := range ojValueCases {
		mustParse(t, &d, s)
		got := d.Value(d.Root())
		want, err := oj.ParseString(s)
		if err != nil {
			t.Fatalf("oj.Parse(%.60q): %v", s, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Value(%.60q) = %#v, oj gives %#v", s, got, want)
		}
		if c, oc := string(d.AppendCanonical(nil, d.Root())), CanonicalJSON(want); c != oc {
			t.Errorf("AppendCanonical(%.60q) = %s, oj's value is %s", s, c, oc)
		}
	}
}

func TestNumberTypes(t *testing.T) {
	cases := []struct {
		in   string
		want any
	}{
		{"0", int64(0)},
		{"-0", int64(0)},
		{"200", int64(200)},
		{"-7", int64(-7)},
		{"1.5", 1.5},
		{"-1.5e3", -1500.0},
		{"1E2", 100.0},
		{"1e-7", 1e-7},
		{"100.0", 100.0},
		{"-0.0", math.Copysign(0, -1)},
		{"9223372036854775799.5", 9223372036854775799.5},
		{"-9223372036854775807.5", -9223372036854775807.5},
		{"1234567890123456789.5", 1234567890123456789.5},
		{"0.12345678901234567", 0.12345678901234567},
		{"1e1022", json.Number("1e1022")}, // beyond float64
		{"5e0", int64(5)},                 // a zero exponent without a fraction, as ojg
		{"-5E-00", int64(-5)},
		{"100000000000000001e+0", int64(100000000000000001)},
		{"5.0e0", 5.0},
		{"0e5", 0.0},
		{"0e0", int64(0)},
	}
	var d Doc
	for _, tc := range cases {
		mustParse(t, &d, tc.in)
		got := d.Value(d.Root())
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Value(%s) = %#v, want %#v", tc.in, got, tc.want)
		}
		if f, ok := got.(float64); ok && tc.in[0] == '-' != math.Signbit(f) {
			t.Errorf("Value(%s) = %v, sign differs", tc.in, f)
		}
	}
}

// TestNumberCorners covers the numbers ojg's parser keeps as json.Number
// or cannot hold. jsondoc differs from it on purpose in three ways:
//   - integers that fit int64 are int64 here; ojg keeps 9223372036854775800
//     to 9223372036854775807 and -9223372036854775808 as json.Number;
//   - a number beyond float64's range (1e400, 1e1022) stays json.Number
//     here; ojg gives ±Inf, which CanonicalJSON writes as "+Inf";
//   - json.Number keeps the token's text; ojg rewrites some (1E0001023
//     becomes 1e1023), so the canonical texts are the same number written
//     differently.
func TestNumberCorners(t *testing.T) {
	cases := []struct {
		in    string
		want  any
		ojInf bool // oj gives ±Inf
	}{
		{"9223372036854775807", int64(math.MaxInt64), false},
		{"9223372036854775800", int64(9223372036854775800), false},
		{"9223372036854775808", json.Number("9223372036854775808"), false},
		{"-9223372036854775808", int64(math.MinInt64), false},
		{"-9223372036854775809", json.Number("-9223372036854775809"), false},
		{"12345678901234567890", json.Number("12345678901234567890"), false},
		{"0.1234567890123456789", json.Number("0.1234567890123456789"), false},
		{"0.123456789012345678", json.Number("0.123456789012345678"), false},
		{"9223372036854775800.5", json.Number("9223372036854775800.5"), false},
		{"-9223372036854775808.5", json.Number("-9223372036854775808.5"), false},
		{"1e1023", json.Number("1e1023"), false},
		{"1E0001023", json.Number("1E0001023"), false},
		{"92233720368547758070e0", json.Number("92233720368547758070e0"), false},
		{"9223372036854775807e0", int64(math.MaxInt64), false},
		{"1e400", json.Number("1e400"), true},
		{"-1e400", json.Number("-1e400"), true},
		{"1e1022", json.Number("1e1022"), true},
	}
	var d Doc
	for _, tc := range cases {
		mustParse(t, &d, tc.in)
		got := d.Value(d.Root())
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Value(%s) = %#v, want %#v", tc.in, got, tc.want)
		}
		canon := string(d.AppendCanonical(nil, d.Root()))
		if canon != CanonicalJSON(got) {
			t.Errorf("AppendCanonical(%s) = %s, CanonicalJSON(Value) = %s", tc.in, canon, CanonicalJSON(got))
		}
		if !sameNumber(canon, tc.in) {
			t.Errorf("AppendCanonical(%s) = %s, not the same number", tc.in, canon)
		}
		ov, err := oj.ParseString(tc.in)
		if err != nil {
			t.Fatalf("oj.Parse(%s): %v", tc.in, err)
		}
		if tc.ojInf {
			if f, ok := ov.(float64); !ok || !math.IsInf(f, 0) {
				t.Errorf("oj.Parse(%s) = %#v; the comment above says ±Inf", tc.in, ov)
			}
			continue
		}
		if oc := CanonicalJSON(ov); !sameNumber(canon, oc) {
			t.Errorf("canonical %s, oj's %s: not the same number", canon, oc)
		}
	}
}

// sameNumber reports whether two JSON numbers are exactly equal.
func sameNumber(a, b string) bool {
	x, ok1 := new(big.Rat).SetString(a)
	y, ok2 := new(big.Rat).SetString(b)
	return ok1 && ok2 && x.Cmp(y) == 0
}

// TestStr checks escapes decode as encoding/json decodes them.
func TestStr(t *testing.T) {
	cases := []struct{ in, want string }{
		{`"\u4e2d\u6587"`, "中文"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\uD83D\uDE00"`, "😀"},
		{`"\ud83d"`, "\ufffd"},
		{`"\ude00"`, "\ufffd"},
		{`"\ude00\ud83d"`, "\ufffd\ufffd"},
		{`"\ud83dx"`, "\ufffdx"},
		{`"\ud83d\u0041"`, "\ufffdA"},
		{`"\ud83d\ud83d\ude00"`, "\ufffd😀"},
		{`"\ud83d\n"`, "\ufffd\n"},
		{`"a\/b"`, "a/b"},
		{`"\b\f\n\r\t\"\\"`, "\b\f\n\r\t\"\\"},
		{`"\u0000"`, "\x00"},
		{`"\uFFFF\u00E9\u00e9"`, "\ufffféé"},
		{`"x\u2028y"`, "x\u2028y"},
		{`"中\u6587字"`, "中文字"},
	}
	var d Doc
	for _, tc := range cases {
		mustParse(t, &d, tc.in)
		r := d.Root()
		var std string
		if err := json.Unmarshal([]byte(tc.in), &std); err != nil || std != tc.want {
			t.Fatalf("table is wrong: encoding/json gives %q, %v", std, err)
		}
		if got := d.Str(r); got != tc.want {
			t.Errorf("Str(%s) = %q, want %q", tc.in, got, tc.want)
		}
		if got := d.Value(r); got != tc.want {
			t.Errorf("Value(%s) = %q, want %q", tc.in, got, tc.want)
		}
		if !d.EqualString(r, tc.want) || d.EqualString(r, tc.want+"x") || d.EqualString(r, tc.in) {
			t.Errorf("EqualString(%s) is wrong", tc.in)
		}
		if d.Plain(r) {
			t.Errorf("Plain(%s) = true for a string with escapes", tc.in)
		}
	}
	mustParse(t, &d, `"查询 plain"`)
	if r := d.Root(); !d.Plain(r) || string(d.StrBytes(r)) != "查询 plain" || !d.EqualString(r, "查询 plain") || d.EqualString(r, "查询") {
		t.Errorf("plain string: Plain %v, StrBytes %q", d.Plain(r), d.StrBytes(r))
	}
}

func TestDuplicateKeys(t *testing.T) {
	var big17 strings.Builder // 17 distinct keys, then k3 again: map path
	bigWant := map[string]any{}
	big17.WriteString("{")
	for i := range 17 {
		fmt.Fprintf(&big17, `"k%d":%d,`, i, i)
		bigWant[fmt.Sprint("k", i)] = int64(i)
	}
	big17.WriteString(`"k3":"last"}`)
	bigWant["k3"] = "last"
	bigCanon, _ := json.Marshal(bigWant)

	cases := []struct {
		name  string
		in    string
		key   string
		want  any
		value map[string]any
		canon string
		len   int
	}{
		{"plain", `{"a":1,"b":2,"a":3}`, "a", int64(3), map[string]any{"a": int64(3), "b": int64(2)}, `{"a":3,"b":2}`, 3},
		{"escaped", `{"a":1,"\u0061":2}`, "a", int64(2), map[string]any{"a": int64(2)}, `{"a":2}`, 2},
		{"escaped first", `{"\u0061":1,"b":null,"a":[2]}`, "a", []any{int64(2)}, map[string]any{"a": []any{int64(2)}, "b": nil}, `{"a":[2],"b":null}`, 3},
		{"three times", `{"a":1,"a":2,"a":3}`, "a", int64(3), map[string]any{"a": int64(3)}, `{"a":3}`, 3},
		{"surrogates", `{"\ud800":1,"\ufffd":2}`, "\ufffd", int64(2), map[string]any{"\ufffd": int64(2)}, `{"` + "\ufffd" + `":2}`, 2},
		{"map path", big17.String(), "k3", "last", bigWant, string(bigCanon), 18},
		{"no duplicate", `{"a":1,"A":2,"a ":3}`, "a", int64(1), map[string]any{"a": int64(1), "A": int64(2), "a ": int64(3)}, `{"A":2,"a":1,"a ":3}`, 3},
	}
	var d Doc
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mustParse(t, &d, tc.in)
			root := d.Root()
			v, ok := d.Get(root, tc.key)
			if !ok || !reflect.DeepEqual(d.Value(v), tc.want) {
				t.Errorf("Get(%q) = %v, %v; want %v", tc.key, d.Value(v), ok, tc.want)
			}
			seen := map[string]any{}
			d.Each(root, func(k, v Ref) bool {
				key := d.Str(k)
				if _, dup := seen[key]; dup {
					t.Errorf("Each gives %q twice", key)
				}
				seen[key] = d.Value(v)
				if g, _ := d.Get(root, key); g != v {
					t.Errorf("Each gives %q as ref %d, Get as %d", key, v, g)
				}
				return true
			})
			if !reflect.DeepEqual(seen, tc.value) {
				t.Errorf("Each = %v, want %v", seen, tc.value)
			}
			if got := d.Value(root); !reflect.DeepEqual(got, tc.value) {
				t.Errorf("Value = %v, want %v", got, tc.value)
			}
			if got := string(d.AppendCanonical(nil, root)); got != tc.canon {
				t.Errorf("AppendCanonical = %s, want %s", got, tc.canon)
			}
			if got := d.Len(root); got != tc.len {
				t.Errorf("Len = %d, want %d", got, tc.len)
			}
			if ov, err := oj.ParseString(tc.in); err == nil && !strings.Contains(tc.in, `\u`) && !reflect.DeepEqual(ov, tc.value) {
				t.Errorf("table disagrees with oj: %v", ov)
			}
		})
	}
}

// TestMapPathNoDuplicates: more than 16 distinct keys, some escaped, are
// not taken for duplicates.
func TestMapPathNoDuplicates(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"\u0061":0`)
	for i := range 20 {
		fmt.Fprintf(&b, `,"a%d":%d`, i, i)
	}
	b.WriteString(`}`)
	var d Doc
	mustParse(t, &d, b.String())
	n := 0
	d.Each(d.Root(), func(_, _ Ref) bool { n++; return true })
	if n != 21 || d.Len(d.Root()) != 21 {
		t.Errorf("Each gives %d members, Len %d; want 21", n, d.Len(d.Root()))
	}
	if v, ok := d.Get(d.Root(), "a"); !ok || d.Value(v) != int64(0) {
		t.Errorf(`Get("a") = %v, %v`, d.Value(v), ok)
	}
}

func TestAppendCanonical(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"b":1,"a":[1.0,1e21,1e-7,100.0,-0.0,1.5e300,0.000001]}`, `{"a":[1,1e+21,1e-7,100,-0,1.5e+300,0.000001],"b":1}`},
		{`"a\"b\\c\u0001\u001f\u2028\u2029\/"`, `"a\"b\\c\u0001\u001f\u2028\u2029/"`},
		{`"tab\tnl\n"`, `"tab\tnl\n"`},
		{"\"\xe2\x80\xa8 raw\"", `"\u2028 raw"`},
		{"\"\xff\"", `"\ufffd"`},
		{"{\"\xff\":\"k\xc3\"}", `{"\ufffd":"k\ufffd"}`},
		{`"\u003c&>"`, `"<&>"`},
		{`{"z":{"y":[{"b":2,"a":1}]},"a":"中"}`, `{"a":"中","z":{"y":[{"a":1,"b":2}]}}`},
		{`{"\u00e9":1,"z":2,"\t":3}`, `{"\t":3,"z":2,"é":1}`},
		{`{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{"  [ 1 , 2 ,\n{ } , [ ] ]  ", `[1,2,{},[]]`},
		{`[true,false,null,""]`, `[true,false,null,""]`},
		{`12345678901234567890`, `12345678901234567890`},
		{`-7`, `-7`},
	}
	var d Doc
	for _, tc := range cases {
		mustParse(t, &d, tc.in)
		root := d.Root()
		if got := string(d.AppendCanonical(nil, root)); got != tc.want {
			t.Errorf("AppendCanonical(%s) = %s, want %s", tc.in, got, tc.want)
		}
		if got := CanonicalJSON(d.Value(root)); got != tc.want {
			t.Errorf("CanonicalJSON(Value(%s)) = %s, want %s", tc.in, got, tc.want)
		}
		if got := string(d.AppendCanonical([]byte("x:"), root)); got != "x:"+tc.want {
			t.Errorf("AppendCanonical with a prefix = %s", got)
		}
	}
	// Every other document of these tests.
	var all []string
	all = append(all, ojValueCases...)
	for _, tc := range validityCases {
		if tc.valid {
			all = append(all, tc.in)
		}
	}
	for _, s := range all {
		mustParse(t, &d, s)
		if got, want := string(d.AppendCanonical(nil, d.Root())), CanonicalJSON(d.Value(d.Root())); got != want {
			t.Errorf("AppendCanonical(%.60q) = %.80s, CanonicalJSON(Value) = %.80s", s, got, want)
		}
	}
}

func TestEmpty(t *testing.T) {
	cases := []struct {
		in    string
		empty bool
	}{
		{`null`, true},
		{`""`, true},
		{`[]`, true},
		{`{}`, true},
		{` [ ] `, true},
		{`[[]]`, true},
		{`[{}]`, true},
		{`[null,"",[],{}]`, true},
		{`{"x":{"y":[null,""]}}`, true},
		{`{"a":1,"a":null}`, true}, // the last occurrence counts
		{`{"a":null,"a":1}`, false},
		{`0`, false},
		{`false`, false},
		{`true`, false},
		{`" "`, false},
		{`"\u0000"`, false},
		{`[0]`, false},
		{`[[],[0]]`, false},
		{`[0,[]]`, false},
		{`{"a":0,"b":null}`, false},
		{`{"a":false}`, false},
		{`{"x":{"y":[null,"",0]}}`, false},
		{`{"":null}`, true},
	}
	var d Doc
	for _, tc := range cases {
		mustParse(t, &d, tc.in)
		if got := d.Empty(d.Root()); got != tc.empty {
			t.Errorf("Empty(%s) = %v, want %v", tc.in, got, tc.empty)
		}
	}
	// Empty inside a document, and of a member.
	mustParse(t, &d, `{"a":[{}],"b":[1]}`)
	a, _ := d.Get(d.Root(), "a")
	b, _ := d.Get(d.Root(), "b")
	if !d.Empty(a) || d.Empty(b) || d.Empty(d.Root()) {
		t.Errorf("Empty: a %v, b %v, root %v", d.Empty(a), d.Empty(b), d.Empty(d.Root()))
	}
}

const navDoc = ` {"s":"x\ny","n":-1.5e3 ,"t":true,"f":false,"z":null,"a":[ 1 , [2] , {"k":"v"} ] ,"o":{ "p" : [ ] },"e":{}} `

func TestNavigate(t *testing.T) {
	var d Doc
	mustParse(t, &d, navDoc)
	root := d.Root()
	get := func(k string) Ref {
		t.Helper()
		r, ok := d.Get(root, k)
		if !ok {
			t.Fatalf("Get(%q) not found", k)
		}
		return r
	}
	kinds := []struct {
		key  string
		kind Kind
		raw  string
		len  int
	}{
		{"s", String, `"x\ny"`, 0},
		{"n", Number, `-1.5e3`, 0},
		{"t", True, `true`, 0},
		{"f", False, `false`, 0},
		{"z", Null, `null`, 0},
		{"a", Array, `[ 1 , [2] , {"k":"v"} ]`, 3},
		{"o", Object, `{ "p" : [ ] }`, 1},
		{"e", Object, `{}`, 0},
	}
	for _, k := range kinds {
		r := get(k.key)
		if d.Kind(r) != k.kind || string(d.Raw(r)) != k.raw || d.Len(r) != k.len {
			t.Errorf("%s: Kind %v Raw %q Len %d; want %v %q %d", k.key, d.Kind(r), d.Raw(r), d.Len(r), k.kind, k.raw, k.len)
		}
	}
	if got, want := string(d.Raw(root)), strings.TrimSpace(navDoc); got != want {
		t.Errorf("Raw(root) = %q, want %q", got, want)
	}
	if d.Kind(root) != Object || d.Len(root) != 8 {
		t.Errorf("root: Kind %v Len %d", d.Kind(root), d.Len(root))
	}
	if p, ok := d.Get(get("o"), "p"); !ok || string(d.Raw(p)) != "[ ]" || d.Kind(p) != Array {
		t.Errorf(`o.p: %q %v`, d.Raw(p), ok)
	}

	// Each in document order, and stopping early.
	var keys []string
	d.Each(root, func(k, _ Ref) bool { keys = append(keys, d.Str(k)); return true })
	if got := strings.Join(keys, ","); got != "s,n,t,f,z,a,o,e" {
		t.Errorf("Each order = %s", got)
	}
	calls := 0
	d.Each(root, func(_, _ Ref) bool { calls++; return calls < 2 })
	if calls != 2 {
		t.Errorf("Each after stop: %d calls, want 2", calls)
	}

	// Index and Elems.
	a := get("a")
	idx := []struct {
		i   int
		raw string
		ok  bool
	}{
		{0, "1", true}, {1, "[2]", true}, {2, `{"k":"v"}`, true},
		{-1, `{"k":"v"}`, true}, {-2, "[2]", true}, {-3, "1", true},
		{3, "", false}, {-4, "", false}, {100, "", false},
	}
	for _, x := range idx {
		r, ok := d.Index(a, x.i)
		if ok != x.ok || ok && string(d.Raw(r)) != x.raw {
			t.Errorf("Index(a, %d) = %q, %v; want %q, %v", x.i, d.Raw(r), ok, x.raw, x.ok)
		}
	}
	var elems []string
	d.Elems(a, func(i int, v Ref) bool {
		if r, _ := d.Index(a, i); r != v {
			t.Errorf("Elems gives element %d as %d, Index as %d", i, v, r)
		}
		elems = append(elems, string(d.Raw(v)))
		return true
	})
	if got := strings.Join(elems, "|"); got != `1|[2]|{"k":"v"}` {
		t.Errorf("Elems = %s", got)
	}
	calls = 0
	d.Elems(a, func(i int, _ Ref) bool { calls++; return i < 1 })
	if calls != 2 {
		t.Errorf("Elems after stop: %d calls, want 2", calls)
	}
	a2, _ := d.Index(a, 2)
	if v, ok := d.Get(a2, "k"); !ok || !d.EqualString(v, "v") {
		t.Error(`a[2].k is not "v"`)
	}

	// Wrong kinds.
	if _, ok := d.Index(root, 0); ok {
		t.Error("Index on an object succeeds")
	}
	if _, ok := d.Index(get("s"), 0); ok {
		t.Error("Index on a string succeeds")
	}
	if _, ok := d.Index(get("e"), -1); ok {
		t.Error("Index on {} succeeds")
	}
	if _, ok := d.Get(a, "0"); ok {
		t.Error("Get on an array succeeds")
	}
	if _, ok := d.Get(get("s"), "x"); ok {
		t.Error("Get on a string succeeds")
	}
	if _, ok := d.Get(root, "missing"); ok {
		t.Error("Get of a missing key succeeds")
	}
	if _, ok := d.Get(root, "S"); ok {
		t.Error("Get is not case-sensitive")
	}
	if _, ok := d.Get(get("e"), ""); ok {
		t.Error("Get on {} succeeds")
	}
	calls = 0
	d.Elems(get("n"), func(int, Ref) bool { calls++; return true })
	d.Each(get("s"), func(_, _ Ref) bool { calls++; return true })
	if calls != 0 {
		t.Errorf("Elems/Each on scalars call fn %d times", calls)
	}

	// Value of a member.
	if got := d.Value(get("n")); got != -1500.0 {
		t.Errorf("n = %#v", got)
	}
	if got := d.Str(get("s")); got != "x\ny" {
		t.Errorf("s = %q", got)
	}
	if got := d.Value(a); !reflect.DeepEqual(got, []any{int64(1), []any{int64(2)}, map[string]any{"k": "v"}}) {
		t.Errorf("a = %#v", got)
	}
}

func TestRawTopLevel(t *testing.T) {
	cases := []struct{ in, raw string }{
		{` "a\"b" `, `"a\"b"`},
		{`-0.5e+1` + "\n", `-0.5e+1`},
		{"\ttrue\t", "true"},
		{" false", "false"},
		{"null ", "null"},
		{"[ [ ] ,{ } ]\r\n", "[ [ ] ,{ } ]"},
		{`""`, `""`},
	}
	var d Doc
	for _, tc := range cases {
		mustParse(t, &d, tc.in)
		if got := string(d.Raw(d.Root())); got != tc.raw {
			t.Errorf("Raw(%q) = %q, want %q", tc.in, got, tc.raw)
		}
	}
}

func TestHasContainer(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{`[]`, false},
		{`[1,"x",null,true]`, false},
		{`[[]]`, true},
		{`[1,{}]`, true},
		{`[1,2,[3]]`, true},
		{`["[",  "{"]`, false},
	}
	var d Doc
	for _, tc := range cases {
		mustParse(t, &d, tc.in)
		if got := d.HasContainer(d.Root()); got != tc.want {
			t.Errorf("HasContainer(%s) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestReuse parses many texts into one Doc: nothing of an earlier text may
// show through.
func TestReuse(t *testing.T) {
	var wide strings.Builder // 20 distinct keys: the map path, twice
	wide.WriteString("{")
	for i := range 20 {
		if i > 0 {
			wide.WriteString(",")
		}
		fmt.Fprintf(&wide, `"w%d":%d`, i, i)
	}
	wide.WriteString("}")
	seq := []struct {
		in    string
		valid bool
	}{
		{corpusFactory, true},
		{`1`, true},
		{`{"a":`, false},
		{`[true]`, true},
		{`{"a":1,"a":2}`, true},
		{`{"a":1,"b":2}`, true},
		{corpusFactory, true},
		{`[1,2,`, false},
		{`"s"`, true},
		{wide.String(), true},
		{wide.String(), true},
		{`{"w3":0,"x":1,"w3":2}`, true},
		{`[[[[[]]]]]`, true},
		{nested("[", "]", MaxDepth+1, ""), false},
		{`[]`, true},
		{nested("[", "]", 50, "7"), true},
		{`{}`, true},
	}
	var d Doc
	for i, s := range seq {
		err := d.Parse([]byte(s.in))
		if (err == nil) != s.valid {
			t.Fatalf("step %d: Parse(%.40q) = %v", i, s.in, err)
		}
		if err != nil {
			continue
		}
		var fresh Doc
		mustParse(t, &fresh, s.in)
		want, _ := oj.ParseString(s.in)
		if got := d.Value(d.Root()); !reflect.DeepEqual(got, want) {
			t.Errorf("step %d: Value = %.80v, want %.80v", i, got, want)
		}
		if got, w := string(d.AppendCanonical(nil, d.Root())), string(fresh.AppendCanonical(nil, fresh.Root())); got != w {
			t.Errorf("step %d: AppendCanonical = %.80s, a fresh Doc gives %.80s", i, got, w)
		}
		if d.Len(d.Root()) != fresh.Len(fresh.Root()) || d.Kind(d.Root()) != fresh.Kind(fresh.Root()) || string(d.Raw(d.Root())) != string(fresh.Raw(fresh.Root())) {
			t.Errorf("step %d: Len/Kind/Raw differ from a fresh Doc", i)
		}
		n := 0
		d.Each(d.Root(), func(_, _ Ref) bool { n++; return true })
		if m, ok := want.(map[string]any); ok && n != len(m) {
			t.Errorf("step %d: Each gives %d members, want %d", i, n, len(m))
		}
		// The duplicate flag only saves work, so check it directly: a
		// stale key set would mark the second wide object.
		if got, w := d.nodes[0].flags&flagDupKeys, fresh.nodes[0].flags&flagDupKeys; got != w {
			t.Errorf("step %d: duplicate-key flag %v, a fresh Doc has %v", i, got, w)
		}
	}
}

// TestParseAllocs: a reused Doc parses the IAO corpus-factory write-up's response without
// allocating.
func TestParseAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation count")
	}
	var d Doc
	src := []byte(corpusFactory)
	mustParse(t, &d, corpusFactory)
	if n := testing.AllocsPerRun(100, func() { _ = d.Parse(src) }); n != 0 {
		t.Errorf("Parse allocates %v times per run", n)
	}
	var b []byte
	b = d.AppendCanonical(b, d.Root())
	if string(b) != CanonicalJSON(d.Value(d.Root())) {
		t.Fatal("AppendCanonical differs from CanonicalJSON(Value)")
	}
}

func BenchmarkParse(b *testing.B) {
	src := []byte(corpusFactory)
	var d Doc
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOjParse(b *testing.B) {
	src := []byte(corpusFactory)
	p := oj.Parser{Reuse: true}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseCanonical is Parse and the canonical text of the whole
// response, what comparing a response by its canonical text costs.
func BenchmarkParseCanonical(b *testing.B) {
	src := []byte(corpusFactory)
	var d Doc
	var out []byte
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Parse(src); err != nil {
			b.Fatal(err)
		}
		out = d.AppendCanonical(out[:0], d.Root())
	}
}
