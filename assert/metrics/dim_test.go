package metrics

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

const ontPath = "$.data[0].content.ont"

func ont(v string) Unit { return Unit{Key: ontPath, Value: strconv.Quote(v)} }

type dimWant struct {
	expected, recognized, correct, wrong int
}

func checkDim(t *testing.T, name string, d *schema.Dimension, w dimWant) {
	t.Helper()
	if d == nil {
		t.Fatalf("%s: no dimension", name)
	}
	if d.Expected != w.expected || d.Recognized != w.recognized || d.Correct != w.correct || d.Wrong != w.wrong {
		t.Errorf("%s: expected/recognized/correct/wrong = %d/%d/%d/%d, want %d/%d/%d/%d", name,
			d.Expected, d.Recognized, d.Correct, d.Wrong, w.expected, w.recognized, w.correct, w.wrong)
	}
	wantRatio(t, name+" precision", *d.Precision, float64(w.correct), float64(w.recognized))
	wantRatio(t, name+" recall", *d.Recall, float64(w.correct), float64(w.expected))
	wantRatio(t, name+" error rate", *d.ErrorRate, float64(w.wrong), float64(w.recognized))
	wantRatio(t, name+" f1", *d.F1, float64(2*w.correct), float64(w.expected+w.recognized))
}

// Source: the IAO corpus-factory write-up §2.1.1 (本体识别), worked example: "100条测试问句中，覆盖
// Person本体50个 • 识别出40个Person本体 • 识别正确的38个Person本体 • 识别错误的2个
// Person本体 — 精确率=38/40, 召回率=38/50, 错误率=2/40".
//
// The 100 cases, one at a time: 38 expect Person and get it; 2 expect Place
// and get Person (the 2 wrong Persons); 9 expect Person and get nothing;
// 3 expect Person and get Organization; 48 expect no ontology and get none.
func TestCorpusFactoryPersonOntology(t *testing.T) {
	d := NewDimAcc(schema.KindLeaf)
	add := func(n int, exp, rec []Unit) {
		for range n {
			d.AddCase(exp, rec)
		}
	}
	add(38, []Unit{ont("Person")}, []Unit{ont("Person")})
	add(2, []Unit{ont("Place")}, []Unit{ont("Person")})
	add(9, []Unit{ont("Person")}, nil)
	add(3, []Unit{ont("Person")}, []Unit{ont("Organization")})
	add(48, nil, nil)

	r := d.Result()
	if r.Kind != schema.KindLeaf {
		t.Errorf("kind = %q", r.Kind)
	}
	person := r.Values["Person"]
	checkDim(t, "Person", person, dimWant{expected: 50, recognized: 40, correct: 38, wrong: 2})
	wantRatio(t, "Person precision (seed: 38/40)", *person.Precision, 38, 40)
	wantRatio(t, "Person recall (seed: 38/50)", *person.Recall, 38, 50)
	wantRatio(t, "Person error rate (seed: 2/40)", *person.ErrorRate, 2, 40)

	checkDim(t, "Place", r.Values["Place"], dimWant{expected: 2})
	checkDim(t, "Organization", r.Values["Organization"], dimWant{recognized: 3, wrong: 3})
	// The whole dimension: 52 expected, 43 recognised, 38 correct.
	checkDim(t, "ontology", r, dimWant{expected: 52, recognized: 43, correct: 38, wrong: 5})
	if len(r.Values) != 3 {
		t.Errorf("values = %v", keys(r.Values))
	}
}

// Source: the IAO corpus-factory write-up §2.1.2 (属性识别), worked example: 50 person_name
// attributes expected, one element repeated 5 times; 40 recognised, 38
// correct (the repeated element correctly 3 times), 2 wrong — precision
// 38/40, recall 38/50, error rate 2/40.
//
// The seed's parenthesis puts one miss of the repeated element among the
// "2 wrong", which cannot hold if 40 recognised = 38 correct + 2 wrong; we
// follow the formulas: the repeated element 张三 is expected 5 times,
// recognised correctly 3 times (twice within one case, the multiset case),
// recognised wrongly once (as 张山) and missed once. Of the 45 other names,
// 35 are right, 1 is recognised wrongly and 9 are missed.
func TestCorpusFactoryPersonNameRepeated(t *testing.T) {
	const key = "$.data[*].content.person_name"
	pn := func(v string) Unit { return Unit{Key: key, Value: strconv.Quote(v)} }
	d := NewDimAcc(schema.KindLeaf)
	// 张三 five times.
	d.AddCase([]Unit{pn("张三"), pn("张三")}, []Unit{pn("张三"), pn("张三")}) // 2 correct
	d.AddCase([]Unit{pn("张三")}, []Unit{pn("张三")})                     // 1 correct
	d.AddCase([]Unit{pn("张三")}, []Unit{pn("张山")})                     // wrongly recognised
	d.AddCase([]Unit{pn("张三")}, nil)                                  // missed
	// 45 other names.
	for i := range 45 {
		name := "李" + strconv.Itoa(i)
		switch {
		case i < 35:
			d.AddCase([]Unit{pn(name)}, []Unit{pn(name)})
		case i == 35:
			d.AddCase([]Unit{pn(name)}, []Unit{pn("王" + strconv.Itoa(i))})
		default:
			d.AddCase([]Unit{pn(name)}, nil)
		}
	}
	r := d.Result()
	checkDim(t, "person_name", r, dimWant{expected: 50, recognized: 40, correct: 38, wrong: 2})
	checkDim(t, "张三", r.Values["张三"], dimWant{expected: 5, recognized: 3, correct: 3})
	checkDim(t, "张山", r.Values["张山"], dimWant{recognized: 1, wrong: 1})
}

// Multiset matching: a unit expected twice and recognised three times is
// correct twice and wrong once; the key must match as well as the value.
func TestDimMultiset(t *testing.T) {
	tests := []struct {
		name     string
		exp, rec []Unit
		want     dimWant
	}{
		{"dup recognised", []Unit{ont("Person"), ont("Person")},
			[]Unit{ont("Person"), ont("Person"), ont("Person")}, dimWant{2, 3, 2, 1}},
		{"dup expected", []Unit{ont("Person"), ont("Person")}, []Unit{ont("Person")}, dimWant{2, 1, 1, 0}},
		{"other key", []Unit{ont("Person")}, []Unit{{Key: "$.data[1].content.ont", Value: `"Person"`}}, dimWant{1, 1, 0, 1}},
		{"number vs string", []Unit{{ontPath, `200`}}, []Unit{{ontPath, `"200"`}}, dimWant{1, 1, 0, 1}},
		{"nothing expected", nil, []Unit{ont("Person")}, dimWant{0, 1, 0, 1}},
		{"nothing recognised", []Unit{ont("Person")}, nil, dimWant{1, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDimAcc(schema.KindLeaf)
			d.AddCase(tc.exp, tc.rec)
			checkDim(t, tc.name, d.Result(), tc.want)
		})
	}
}

// Large cases take the map path of AddCase; it must agree with a case-by-
// case count done by hand. 20 expected: 酒店同房间同宿 ×10, 同行 ×6, 通话 ×4.
// 24 recognised: 酒店同房间同宿 ×12 (10 correct, 2 wrong), 同行 ×3 (correct),
// 通话 ×0, 同住 ×9 (wrong).
func TestDimLargeCase(t *testing.T) {
	const key = "$.data[*].content.data_rel"
	rel := func(v string, n int) []Unit {
		out := make([]Unit, n)
		for i := range out {
			out[i] = Unit{Key: key, Value: strconv.Quote(v)}
		}
		return out
	}
	exp := append(append(rel("酒店同房间同宿", 10), rel("同行", 6)...), rel("通话", 4)...)
	rec := append(append(rel("同住", 9), rel("酒店同房间同宿", 12)...), rel("同行", 3)...)
	if len(exp) <= smallCase {
		t.Fatalf("case too small to exercise the map path")
	}
	d := NewDimAcc(schema.KindLeaf)
	d.AddCase(exp, rec)
	r := d.Result()
	checkDim(t, "relation", r, dimWant{expected: 20, recognized: 24, correct: 13, wrong: 11})
	checkDim(t, "酒店同房间同宿", r.Values["酒店同房间同宿"], dimWant{10, 12, 10, 2})
	checkDim(t, "同行", r.Values["同行"], dimWant{6, 3, 3, 0})
	checkDim(t, "通话", r.Values["通话"], dimWant{4, 0, 0, 0})
	checkDim(t, "同住", r.Values["同住"], dimWant{0, 9, 0, 9})
}

// The IAO corpus-factory write-up §2.1.4 (行为识别): a behaviour is right when category, location,
// modifiers and traffic all are; the caller passes those compared keys as
// the unit's value, and the breakdown shows them as JSON.
func TestDimItems(t *testing.T) {
	const path = "$.data[0].content.behavior"
	stay := `{"category":"住宿","location":"北京","modifiers":[],"traffic":null}`
	fly := `{"category":"出行","location":"上海","modifiers":["飞机"],"traffic":"航班"}`
	flyWrong := `{"category":"出行","location":"上海","modifiers":["火车"],"traffic":"航班"}`
	d := NewDimAcc(schema.KindItems)
	d.AddCase([]Unit{{path, stay}, {path, fly}}, []Unit{{path, fly}, {path, stay}})
	d.AddCase([]Unit{{path, fly}}, []Unit{{path, flyWrong}})
	r := d.Result()
	if r.Kind != schema.KindItems {
		t.Errorf("kind = %q", r.Kind)
	}
	checkDim(t, "behaviour", r, dimWant{expected: 3, recognized: 3, correct: 2, wrong: 1})
	checkDim(t, "fly", r.Values[fly], dimWant{2, 1, 1, 0})
	checkDim(t, "flyWrong", r.Values[flyWrong], dimWant{0, 1, 0, 1})
	if v := r.Values[stay]; v == nil || v.Kind != schema.KindItems {
		t.Errorf("stay = %+v", v)
	}
}

func TestDisplayValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"Person"`, "Person"},
		{`"\u5f20\u4e09"`, "张三"},
		{`"酒店同房间同宿"`, "酒店同房间同宿"},
		{`"a\"b"`, `a"b`},
		{`""`, ""},
		{`200`, "200"},
		{`true`, "true"},
		{`null`, "null"},
		{`{"a":1}`, `{"a":1}`},
		{`["x","y"]`, `["x","y"]`},
		{`"unterminated`, `"unterminated`},
		{`"a"b"`, `"a"b"`},
		{`"`, `"`},
		{"", ""},
	}
	for _, tc := range tests {
		if got := DisplayValue(tc.in); got != tc.want {
			t.Errorf("DisplayValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// "1" and 1 share a breakdown row; the totals keep them apart.
func TestDimDisplayCollision(t *testing.T) {
	d := NewDimAcc(schema.KindLeaf)
	d.AddCase([]Unit{{ontPath, `1`}}, []Unit{{ontPath, `"1"`}})
	r := d.Result()
	checkDim(t, "dimension", r, dimWant{1, 1, 0, 1})
	checkDim(t, "1", r.Values["1"], dimWant{1, 1, 0, 1})
	if len(r.Values) != 1 {
		t.Errorf("values = %v", keys(r.Values))
	}
}

func TestDimEmpty(t *testing.T) {
	var d DimAcc
	r := d.Result()
	if r.Values != nil {
		t.Errorf("values = %v", r.Values)
	}
	for name, p := range map[string]*schema.Ratio{"precision": r.Precision, "recall": r.Recall, "error rate": r.ErrorRate, "f1": r.F1} {
		if p == nil {
			t.Fatalf("%s is nil", name)
		}
		if _, ok := p.Value(); ok {
			t.Errorf("%s of nothing = %v, want n/a", name, *p)
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"","correct":0,"precision":{"value":null,"num":0,"den":0},"recall":{"value":null,"num":0,"den":0},"error_rate":{"value":null,"num":0,"den":0},"f1":{"value":null,"num":0,"den":0}}`
	if string(b) != want {
		t.Errorf("json = %s\nwant %s", b, want)
	}
}

func TestDimMerge(t *testing.T) {
	values := []string{"Person", "Place", "Organization", "酒店", "航班", "1"}
	rng := rand.New(rand.NewPCG(0, 4))
	units := func() []Unit {
		out := make([]Unit, rng.IntN(25)) // some cases exceed smallCase
		for i := range out {
			v := strconv.Quote(values[rng.IntN(len(values))])
			if rng.IntN(8) == 0 {
				v = strconv.Itoa(rng.IntN(3))
			}
			out[i] = Unit{Key: "$.data[" + strconv.Itoa(rng.IntN(2)) + "].content.ont", Value: v}
		}
		return out
	}
	whole := NewDimAcc(schema.KindLeaf)
	parts := []*DimAcc{NewDimAcc(schema.KindLeaf), {}, NewDimAcc(schema.KindLeaf)}
	for i := range 300 {
		exp, rec := units(), units()
		whole.AddCase(exp, rec)
		parts[i%3].AddCase(exp, rec)
	}
	merged := &DimAcc{} // zero value takes the kind from what it merges
	for _, p := range []*DimAcc{parts[1], parts[2], parts[0], nil} {
		merged.Merge(p)
	}
	if got, want := merged.Result(), whole.Result(); !reflect.DeepEqual(got, want) {
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		t.Errorf("merged differs:\n got %s\nwant %s", gb, wb)
	}
	r := whole.Result()
	if r.Correct == 0 || r.Wrong == 0 {
		t.Fatalf("test data too uniform: %+v", r)
	}

	self := NewDimAcc(schema.KindLeaf)
	self.AddCase([]Unit{ont("Person")}, []Unit{ont("Person")})
	self.Merge(self)
	checkDim(t, "self-merge", self.Result(), dimWant{2, 2, 2, 0})
}

// Source: the IAO corpus-factory write-up §2.1.5 (意图识别): 意图识别正确率 = 意图识别正确的问句个数 /
// 测试问句总数; and §2.1.6 (场景识别正确率) the same per scene. 100 cases of
// which 87 had apps, content, content_op and data_rel all right.
func TestCaseDim(t *testing.T) {
	var whole, a, b CaseDimAcc
	for i := range 100 {
		ok := i%100 < 87
		whole.Add(ok)
		if i < 40 {
			a.Add(ok)
		} else {
			b.Add(ok)
		}
	}
	r := whole.Result()
	if r.Kind != schema.KindCase || r.Total != 100 || r.Correct != 87 {
		t.Errorf("result = %+v", r)
	}
	wantRatio(t, "accuracy", *r.Accuracy, 87, 100)
	a.Merge(&b)
	a.Merge(nil)
	if !reflect.DeepEqual(a.Result(), r) {
		t.Errorf("merged = %+v, want %+v", a.Result(), r)
	}
	var empty CaseDimAcc
	if _, ok := empty.Result().Accuracy.Value(); ok {
		t.Error("accuracy of no cases has a value")
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A case with more distinct values than a tally scans (attribute values
// such as phone numbers are often all different) counts each value once,
// and one tally added to two accumulators counts as AddCase on each.
func TestTallyManyValues(t *testing.T) {
	var exp, rec []Unit
	for i := range 50 {
		v := strconv.Quote("1330179" + strconv.Itoa(1000+i))
		exp = append(exp, Unit{Key: "$.des.phone_number", Value: v})
		if i%2 == 0 {
			rec = append(rec, Unit{Key: "$.des.phone_number", Value: v})
		}
	}
	rec = append(rec, Unit{Key: "$.des.phone_number", Value: `"13301791000"`}) // a repeat: wrong
	var tally Tally
	tally.Case(exp, rec)
	a, b, c := NewDimAcc(schema.KindLeaf), NewDimAcc(schema.KindLeaf), NewDimAcc(schema.KindLeaf)
	a.Add(&tally)
	b.Add(&tally)
	c.AddCase(exp, rec)
	for _, d := range []*DimAcc{a, b, c} {
		r := d.Result()
		checkDim(t, "phone", r, dimWant{expected: 50, recognized: 26, correct: 25, wrong: 1})
		if len(r.Values) != 50 {
			t.Fatalf("%d values, want 50", len(r.Values))
		}
		checkDim(t, "13301791000", r.Values["13301791000"], dimWant{1, 2, 1, 1})
		checkDim(t, "13301791001", r.Values["13301791001"], dimWant{1, 0, 0, 0})
		checkDim(t, "13301791048", r.Values["13301791048"], dimWant{1, 1, 1, 0})
	}
}
