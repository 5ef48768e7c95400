package jsondoc

import (
	"bytes"
	"reflect"
	"testing"
)

// checkParseValue checks ParseValue of in against Parse and ScanValue: a
// value it reads is the one Parse reads from in[:end] (the same tape), and
// for a container or a string its end is where ScanValue finds it (a
// record reader takes either end); a text Parse accepts, followed by what
// may follow a value in a record, ParseValue accepts up to the same end.
func checkParseValue(t *testing.T, in []byte) {
	t.Helper()
	var pv, whole Doc
	end, err := pv.ParseValue(in)
	if err == nil {
		if end < 0 || end > len(in) {
			t.Fatalf("ParseValue(%q) end %d out of range", in, end)
		}
		if perr := whole.Parse(in[:end]); perr != nil {
			t.Fatalf("ParseValue(%q) read %q, which Parse refuses: %v", in, in[:end], perr)
		}
		sameDoc(t, &pv, &whole, in[:end])
		if s := skip(in, 0); s < len(in) && (in[s] == '{' || in[s] == '[' || in[s] == '"') {
			if vs, ve, serr := ScanValue(in, 0); serr != nil || vs != s || ve != end {
				t.Fatalf("ParseValue(%q) ends at %d, ScanValue at %d–%d (%v)", in, end, vs, ve, serr)
			}
		}
	}
	if whole.Parse(in) != nil {
		return
	}
	trimmed := bytes.TrimRight(in, " \t\r\n")
	for _, suffix := range []string{"", ",", `,"next":{"a":[1]}}`, "]", "}", " ,\"x\":\"北京\"}", "\n"} {
		text := append(append([]byte(nil), in...), suffix...)
		var d Doc
		end, err := d.ParseValue(text)
		if err != nil || end != len(trimmed) {
			t.Fatalf("ParseValue(%q) = %d, %v; want %d (Parse accepts %q)", text, end, err, len(trimmed), in)
		}
		sameDoc(t, &d, &whole, trimmed)
	}
}

// sameDoc checks a and b hold the same tape, a over the text src.
func sameDoc(t *testing.T, a, b *Doc, src []byte) {
	t.Helper()
	if !bytes.Equal(a.src, src) {
		t.Fatalf("ParseValue's text %q, want %q", a.src, src)
	}
	if !reflect.DeepEqual(a.nodes, b.nodes) {
		t.Fatalf("ParseValue's tape differs from Parse's for %q", src)
	}
	if x, y := a.AppendCanonical(nil, a.Root()), b.AppendCanonical(nil, b.Root()); !bytes.Equal(x, y) {
		t.Fatalf("ParseValue reads %s, Parse %s", x, y)
	}
}

func TestParseValue(t *testing.T) {
	for _, tc := range validityCases {
		checkParseValue(t, []byte(tc.in))
	}
	for _, s := range []string{
		navDoc, corpusFactory,
		`{"code":200,"data":[{"content_op":"查询","content":{"ont":"SIM_Card","segs":["查询13301791708的酒店同房间人员"]}}]},"latency_ms":0}`,
		`{"a":"\"}]"}]`, `["\\",{"b":"]"}],"x"`, `{} {}`, `[1]]`, `"北京"x`, `{"a":1,}`, `{"a":1`,
		"  {\"城市\":\"上海\"}  ,", `123,`, `nulls`, `{"a":"\u00e9\ud800"}` + `,`,
	} {
		checkParseValue(t, []byte(s))
	}
	// What follows the value is not read: ParseValue of a record's member
	// stops at the member's end however the record goes on.
	line := []byte(`{"response":{"code":200,"msg":"好"},"latency_ms":1.5,"broken":[}`)
	var d Doc
	vs := bytes.IndexByte(line[1:], '{') + 1
	end, err := d.ParseValue(line[vs:])
	if err != nil || string(line[vs:vs+end]) != `{"code":200,"msg":"好"}` {
		t.Fatalf("ParseValue = %d, %v", end, err)
	}
	if r, ok := d.Get(d.Root(), "msg"); !ok || d.Str(r) != "好" {
		t.Fatalf("msg not read")
	}
}

// FuzzParseValue runs checkParseValue over its seeds as a normal test; to
// fuzz it: go test -run '^$' -fuzz FuzzParseValue -fuzztime 60s ./jsondoc
func FuzzParseValue(f *testing.F) {
	for _, tc := range validityCases {
		f.Add([]byte(tc.in))
	}
	f.Add([]byte(navDoc))
	f.Add([]byte(`{"a":[1,{"b":"\"]}"}]},"c":2}`))
	f.Fuzz(checkParseValue)
}

// checkMembersParsing checks MembersParsing against Members: the same
// members with the same values and the same error, and a value it reports
// parsed is in doc as Parse reads it.
func checkMembersParsing(t *testing.T, in []byte, key string) {
	t.Helper()
	type member struct {
		key, val string
		parsed   bool
	}
	var want, got []member
	werr := Members(in, func(k, v []byte) error {
		want = append(want, member{string(k), string(v), false})
		return nil
	})
	var doc Doc
	gerr := MembersParsing(in, key, &doc, func(k, v []byte, parsed bool) error {
		got = append(got, member{string(k), string(v), false})
		if parsed {
			var p Doc
			if string(k) != key || p.Parse(v) != nil {
				t.Fatalf("member %q reported parsed: %s", k, v)
			}
			sameDoc(t, &doc, &p, v)
		}
		return nil
	})
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() || !reflect.DeepEqual(got, want) {
		t.Fatalf("MembersParsing(%q) = %v %q, Members %v %q", in, got, gerr, want, werr)
	}
}

func TestMembersParsing(t *testing.T) {
	for _, s := range []string{
		`{}`, ` { } `, `{`, `{"a"}`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a":1}x`, `[1]`, ``,
		`{"response":{"code":200,"msg":"好"},"latency_ms":1}`,
		`{"response":{"code":200,"data":[1,]},"latency_ms":1}`,
		`{"response":{"code":200,"data":[}],"latency_ms":1}`,
		`{"response":{"a":1},"response":null,"response":[1,"\u597d"]}`,
		`{"response" : [ {"城市":"北京"} ] , "x":"}"}`,
		`{"response":"{}","resp\u006fnse":{"a":1}}`,
		`{"response":{"a":"\"}"},"b":2`,
		`{"response":{"a":1}`,
	} {
		checkMembersParsing(t, []byte(s), "response")
	}
}

// FuzzMembersParsing runs checkMembersParsing over its seeds as a normal
// test; to fuzz it: go test -run '^$' -fuzz FuzzMembersParsing ./jsondoc
func FuzzMembersParsing(f *testing.F) {
	f.Add([]byte(`{"response":{"code":200,"data":[{"ont":"人"}]},"latency_ms":1}`))
	f.Add([]byte(`{"response":[1,{"a":"]"}],"response":{"b":[}]}`))
	f.Fuzz(func(t *testing.T, in []byte) { checkMembersParsing(t, in, "response") })
}
