package schema

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// reference encodes v the way EncodeLine did before the hand-written case
// encoder: encoding/json with HTML escaping off. The hand-written encoder
// must produce the same bytes.
func reference(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return b.Bytes()
}

// plain hides the *Case fast path: encoding/json sees a struct of the same
// shape and calls Expectations.MarshalJSON through reflection.
type plain Case

var tricky = []string{
	"", "查询13301791708的酒店同房间人员", `引号"和\反斜杠`, "<b>&amp;</b>", "tab\there\nnew\rline",
	"\x00\x01\x1f\x7f", "\b\f", "bad utf-8 \xff\xfe end", "\xe4\xb8", "line\u2028sep\u2029para", "😀 emoji ①°C±→",
	"{伴随关系}", "a{{b}}c", "\u0085 next line", "\ufeffbom",
}

func encodeCases() []*Case {
	var out []*Case
	for i, s := range tricky {
		out = append(out, &Case{
			ID: "e1bec8f72253da0d", Suite: "iao-hotel", Template: s, Text: s, Level: s, Core: i%2 == 0,
			Scene: []string{"关系分析", s}, Tags: []string{s}, Split: []string{"smoke", s}, Schema: s,
			Slots: map[string]Slot{
				s:        {Value: s, Normalized: s, Tag: s, Level: "M1", Source: s + " (phones.txt:2)"},
				"手机号11位": {Value: "13301791708"},
				"伴随关系":   {Value: "酒店同房间", Normalized: "酒店同房间同宿", Tag: "伴随关系", Level: "M1"},
			},
			Expect: Expectations{
				{Path: "$.code", Value: int64(200)},
				{Path: s, Value: s},
				{Path: "$.list", Value: []any{"SIM_Card", s, int64(-3), 0.5, true, nil, []any{}, map[string]any{}}},
				{Path: "$.obj", Value: map[string]any{"b": s, "a": int64(1), s: []any{false}, "乙": nil, "甲": 1e21}},
				{Path: "$.nilList", Value: []any(nil)},
				{Path: "$.nilMap", Value: map[string]any(nil)},
				{Path: "$.int", Value: 7},
				{Path: "$.number", Value: json.Number("12.50")},
			},
			Unreviewed: i%3 == 0,
		})
	}
	// Every field empty: omitempty drops what encoding/json drops.
	out = append(out, &Case{}, &Case{ID: "x", Expect: Expectations{}, Slots: map[string]Slot{}, Scene: []string{}})
	return out
}

func TestEncodeLineMatchesEncodingJSON(t *testing.T) {
	for i, c := range encodeCases() {
		got, err := EncodeLine(c)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		want := reference(t, (*plain)(c))
		if !bytes.Equal(got, want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
		// And the record reads back to the same value.
		var back Case
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("case %d does not read back: %v", i, err)
		}
	}
}

func TestEncodeFloatsLikeEncodingJSON(t *testing.T) {
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1.5, 1e20, 1e21, 123456789e13, 1e-6, 9.99e-7, 1e-7,
		5e-324, math.MaxFloat64, -math.MaxFloat64, 1.0 / 3, 2.5e-10, 1e100, -1e-100, 100}
	for _, f := range floats {
		got, err := appendJSONValue(nil, f)
		if err != nil {
			t.Fatalf("%g: %v", f, err)
		}
		want := bytes.TrimSuffix(reference(t, f), []byte("\n"))
		if !bytes.Equal(got, want) {
			t.Errorf("%g: got %s, want %s", f, got, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := appendJSONValue(nil, f); err == nil || !strings.Contains(err.Error(), "unsupported value") {
			t.Errorf("%g: want an unsupported value error, got %v", f, err)
		}
		c := &Case{ID: "x", Expect: Expectations{{Path: "$.x", Value: f}}}
		if _, err := EncodeLine(c); err == nil || !strings.Contains(err.Error(), "$.x") {
			t.Errorf("%g: EncodeLine should fail naming the path, got %v", f, err)
		}
	}
}

func TestExpectationsMarshalJSONUnchanged(t *testing.T) {
	for i, c := range encodeCases() {
		got, err := c.Expect.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		// The reference: an ordered object built key by key with encoding/json.
		var want bytes.Buffer
		want.WriteByte('{')
		for j, x := range c.Expect {
			if j > 0 {
				want.WriteByte(',')
			}
			want.Write(bytes.TrimSuffix(reference(t, x.Path), []byte("\n")))
			want.WriteByte(':')
			want.Write(bytes.TrimSuffix(reference(t, x.Value), []byte("\n")))
		}
		want.WriteByte('}')
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want.Bytes())
		}
	}
}

func FuzzEncodeLine(f *testing.F) {
	for _, s := range tricky {
		f.Add(s, s, 1.5)
	}
	f.Fuzz(func(t *testing.T, a, b string, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			x = 0
		}
		c := &Case{ID: a, Text: b, Scene: []string{a, b}, Slots: map[string]Slot{a: {Value: b}, b: {Value: a, Normalized: b}},
			Expect: Expectations{{Path: a, Value: map[string]any{a: b, b: []any{x, a}}}, {Path: b, Value: x}}}
		got, err := EncodeLine(c)
		if err != nil {
			t.Fatal(err)
		}
		if want := reference(t, (*plain)(c)); !bytes.Equal(got, want) {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
	})
}

func BenchmarkEncodeLine(b *testing.B) {
	c := encodeCases()[1]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeLine(c); err != nil {
			b.Fatal(err)
		}
	}
}

// iaoCase is a typical generated case: the IAO corpus-factory write-up's IAO hotel query with three
// slots and eleven expectations.
func iaoCase() *Case {
	return &Case{
		ID: "e1bec8f72253da0d", Suite: "iao-hotel", Template: "hotel-roommates", Text: "查询13301791708的网吧同上网人员",
		Level: "S1", Core: true, Scene: []string{"关系分析", "伴随分析", "酒店同宿"}, Split: []string{"smoke"}, Schema: "IAO",
		Slots: map[string]Slot{
			"伴随关系":   {Value: "网吧同上网", Normalized: "网吧同上网", Tag: "伴随关系", Level: "M2", Source: "伴随关系"},
			"手机号11位": {Value: "13301791708", Tag: "手机号", Level: "M1", Source: "手机号11位 (phones.txt:2)"},
			"查询操作":   {Value: "查询", Tag: "辅助操作", Level: "M1", Source: "查询操作"},
		},
		Expect: Expectations{
			{Path: "$.code", Value: int64(200)},
			{Path: "$.data[0].content_op", Value: "查询"},
			{Path: "$.data[0].content.ont", Value: "SIM_Card"},
			{Path: "$.data[0].content.des.phone_number", Value: "13301791708"},
			{Path: "$.data[0].content.rel[0].ont", Value: []any{"SIM_Card", "Person"}},
			{Path: "$.data[0].content.rel[0].relName", Value: "使用人"},
			{Path: "$.data[0].content.rel[0].rel[0].intentPro", Value: []any{"entity"}},
			{Path: "$.data[0].content.rel[0].rel[0].ont", Value: []any{"Person", "Person"}},
			{Path: "$.data[0].content.rel[0].rel[0].relName", Value: "网吧同上网"},
			{Path: "$.data[0].content.rel[0].rel[0].behavior[0].category", Value: "伴随分析"},
			{Path: "$.data[0].content.rel[0].rel[0].des.intent", Value: []any{"full"}},
		},
	}
}

func TestEncodeIAOCase(t *testing.T) {
	c := iaoCase()
	got, err := EncodeLine(c)
	if err != nil {
		t.Fatal(err)
	}
	if want := reference(t, (*plain)(c)); !bytes.Equal(got, want) {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if cap(got) != len(got) {
		t.Errorf("EncodeLine returned %d bytes in a %d-byte buffer; it should allocate the line exactly", len(got), cap(got))
	}
	// The returned line is the caller's: encoding another case must not
	// change it.
	keep := string(got)
	other := iaoCase()
	other.Text = "别的句子"
	if _, err := EncodeLine(other); err != nil {
		t.Fatal(err)
	}
	if string(got) != keep {
		t.Error("EncodeLine reused the returned line's memory")
	}
}

// BenchmarkEncodeLineIAO encodes a typical case; `nlutest generate`
// does this a million times for a million cases.
func BenchmarkEncodeLineIAO(b *testing.B) {
	c := iaoCase()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeLine(c); err != nil {
			b.Fatal(err)
		}
	}
}
