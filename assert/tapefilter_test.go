package assert

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/jsonpath"
)

// filterResponses are responses filter paths meet: Rasa entities,
// escapes, numbers written as 1, 1.0, 1e0 and beyond int64, repeated
// keys, members missing or of another type, items that are no objects,
// nested arrays, Chinese keys and values, NFC and NFD forms.
var filterResponses = []string{
	`{"text":"订一张去北京的机票","intent":{"name":"订机票","confidence":0.97},"entities":[{"entity":"城市","value":"北京","start":4,"end":6}]}`,
	`{"entities":[{"entity":"城市","value":"北京"},{"entity":"日期","value":"明天"},{"entity":"城市","value":"上海"},{"value":"无名"},{"entity":null,"value":"空"},{"entity":["城市"],"value":"数组"}]}`,
	`{"entities":[{"entity":"\u57ce\u5e02","value":"\"北京\""},{"entity":"城\\市","value":1},{"entity":"城市\n","value":2},{"entity":"\ud83d\ude00","value":3},{"entity":"\ud800","value":4}]}`,
	`{"e":[{"n":1},{"n":1.0},{"n":1e0},{"n":10e-1},{"n":-0},{"n":0.0},{"n":-1},{"n":1.5},{"n":1500},{"n":1.5e3},{"n":12345678901234567890},{"n":"1"},{"n":"12345678901234567890"},{"n":true},{"n":false},{"n":null},{},{"m":1},"n",5,null,true,[1],[{"n":1}],{"n":[1]},{"n":{"n":1}}]}`,
	`{"e":[{"n":1e400},{"n":123456789012345678901234},{"n":1.00000000000000000001},{"n":9007199254740993},{"n":9007199254740992.0},{"n":-9223372036854775808},{"n":9223372036854775807}]}`,
	`{"e":[{"n":"a","n":"b","v":1},{"n":"b","v":2,"v":3}],"o":{"k2":{"n":"x","v":"二"},"k1":{"n":"x","v":"一"},"k1":{"n":"y","v":"一改"},"k0":"x","k3":{"n":"x"}}}`,
	`{"a":[[{"n":"x","v":0}],[{"n":"x","v":[1,2]},{"n":"y","v":[3]}],{"n":"x","v":"对象"}],"b":{"c":[{"n":"x","v":{"w":"z"}},{"n":"x","v":{"w":null}}]}}`,
	`{"实体":[{"类型":"城市","值":"北京"},{"类型":"城 市","值":"x"},{"类型":"城市","值":{"名":"上海"}}],"o":{"乙":{"类型":"城市"},"甲":{"类型":"城市"}}}`,
	`{"e":[{"n":"café","v":1},{"n":"cafe\u0301","v":2},{"n":"caf\u00e9","v":3}]}`,
	`{"entities":{"x":{"entity":"城市","value":"北京"},"a":{"entity":"城市","value":"上海"}}}`,
	`{"entities":[]}`, `{"entities":{}}`, `{"entities":"城市"}`, `{"entities":null}`, `{}`,
	`"abc"`, `null`, `1`, `[]`, `[{"n":"x"}]`, `[[{"n":"x"}]]`,
}

// filterPaths are paths with equality filters (evaluated on the tape) in
// every literal type and position.
var filterPaths = []string{
	`$.entities[?(@.entity == '城市')].value`,
	`$.entities[?(@['entity'] == "城市")].value`,
	`$.entities[?(@.entity == '城市')]`,
	`$.entities[?(@.entity == '城市')].start`,
	`$.entities[?(@.entity == '"北京"')].value`,
	`$.entities[?(@.value == '"北京"')].entity`,
	`$.entities[?(@.entity == '城\\市')].value`,
	`$.entities[?(@.entity == "城市\n")].value`,
	`$.entities[?(@.entity == '😀')].value`,
	`$.entities[?(@.entity == '�')].value`,
	`$.entities[?(@.entity == null)].value`,
	`$.entities[?(@.entity == '日期')].value`,
	`$.entities[?(@.entity == '无')].value`,
	`$.e[?(@.n == 1)]`, `$.e[?(@.n == 1.0)]`, `$.e[?(@.n == 1e0)]`, `$.e[?(@.n == 0)]`, `$.e[?(@.n == 0.0)]`,
	`$.e[?(@.n == -1)]`, `$.e[?(@.n == 1.5)]`, `$.e[?(@.n == 1500)]`, `$.e[?(@.n == 9007199254740992)]`,
	`$.e[?(@.n == 9223372036854775807)]`, `$.e[?(@.n == -9223372036854775808)]`,
	`$.e[?(@.n == true)]`, `$.e[?(@.n == false)]`, `$.e[?(@.n == null)]`,
	`$.e[?(@.n == '1')]`, `$.e[?(@.n == '12345678901234567890')]`, `$.e[?(@.n == '1e400')]`,
	`$.e[?(@.n == '123456789012345678901234')]`, `$.e[?(@.n == 'a')].v`, `$.e[?(@.n == 'b')].v`,
	`$.e[?(@.n == 'café')].v`, `$.e[?(@.n == 'cafe\u0301')].v`,
	`$.o[?(@.n == 'x')]`, `$.o[?(@.n == 'x')].v`, `$.*[?(@.n == 'x')]`, `$.*[?(@.n == 'x')].v`,
	`$.a[*][?(@.n == 'x')].v`, `$.a[1][?(@.n == 'x')].v[0]`, `$.a[-1][?(@.n == 'x')].v`, `$.a[*][?(@.n == 'x')].v[*]`,
	`$.b.c[?(@.n == 'x')].v.w`, `$.b[*][?(@.n == 'x')].v`,
	`$.a[?(@.n == 'x')][?(@.n == 'x')]`, `$.a[*][?(@.n == 'x')][?(@.v == 1)]`,
	`$.实体[?(@.类型 == '城市')].值`, `$['实体'][?(@['类型'] == '城 市')]['值']`, `$.实体[?(@.类型 == '城市')].值.名`,
	`$.o[?(@.类型 == '城市')]`, `$[0][?(@.n == 'x')]`, `$[*][?(@.n == 'x')]`,
	`$.entities.[?(@.entity == '城市')].value`,
}

// treePaths are filter paths that stay on the built response.
var treePaths = []string{
	`$[?(@.n == 'x')]`, `$.e[?(@.n != 1)]`, `$.e[?(@.n == 'x' && @.v == 1)]`, `$.e[?(@.n == 'x' || @.v == 1)]`,
	`$..e[?(@.n == 'x')]`, `$.e[?(@.n.m == 1)]`, `$.e[?(@.n)]`, `$.e[?(@ == 1)]`, `$.e[?(@.n == @.m)]`,
	`$.e[?('x' == @.n)]`, `$.e[?(@.n =~ /x/)]`, `$.e[0:2][?(@.n == 1)]`, `$.e[?(@.n < 2)]`,
	`$.e[?(@.n == $.x)]`, `$.e[?(!(@.n == 1))]`, `$.e[?(@.n in [1,2])]`, `$.e[?(@.n == 'x')].v..w`,
	`$.e[?(@[0] == 1)]`, `$.e[?(@.* == 1)]`, `$.e[?(length(@.n) == 1)]`,
}

// filterTapeAndTree returns what path p selects in resp on the tape and
// with ojg on the built response; ok false when p is no tape filter path.
func filterTapeAndTree(t testing.TB, resp, p string) (tape, tree []any, tapeFound, treeFound, ok bool) {
	t.Helper()
	x, _, _, err := jsonpath.CompileExpect(p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	eqs, ok := tapeFilters(x)
	if !ok {
		return nil, nil, false, false, false
	}
	var d jsondoc.Doc
	if err := d.Parse([]byte(resp)); err != nil {
		t.Fatalf("%s: %v", resp, err)
	}
	rs := &response{doc: &d}
	c := &compiled{x: x, multi: multiNode(x), mode: modeFilter, eqs: eqs}
	tape, tapeFound = rs.find(c)
	tree, treeFound = matches(x, d.Value(d.Root()), true)
	return tape, tree, tapeFound, treeFound, true
}

// Filter paths give on the tape exactly what ojg gives on the built
// response: the same values in the same order, found when ojg finds them.
func TestFilterTapeMatchesTree(t *testing.T) {
	hits := 0
	for _, p := range filterPaths {
		for _, resp := range filterResponses {
			tape, tree, tapeFound, treeFound, ok := filterTapeAndTree(t, resp, p)
			if !ok {
				t.Fatalf("%s: not evaluated on the tape", p)
			}
			if tapeFound != treeFound || !reflect.DeepEqual(tape, tree) {
				t.Errorf("%s on %s:\n tape %v %#v\n tree %v %#v", p, resp, tapeFound, tape, treeFound, tree)
			}
			if treeFound {
				hits++
			}
		}
	}
	if hits < 60 {
		t.Errorf("only %d path × response pairs select anything: the table tests too little", hits)
	}
	for _, p := range treePaths {
		x, _, _, err := jsonpath.CompileExpect(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if _, ok := tapeFilters(x); ok {
			t.Errorf("%s: evaluated on the tape, want the tree", p)
		}
	}
}

// The equality semantics are ojg's, pinned: numbers compare as numbers
// across int64 and float64, a number beyond int64 as its text, strings
// exactly (no NFC), null only null.
func TestFilterTapeEquality(t *testing.T) {
	resp := `{"e":[{"n":1,"v":"1"},{"n":1.0,"v":"1.0"},{"n":1e0,"v":"1e0"},{"n":12345678901234567890,"v":"big"},{"n":"café","v":"nfc"},{"n":"cafe\u0301","v":"nfd"},{"n":null,"v":"null"},{"v":"missing"},{"n":"1","v":"text"}]}`
	for _, tc := range []struct{ path, want string }{
		{`$.e[?(@.n == 1)].v`, `["1","1.0","1e0"]`},
		{`$.e[?(@.n == 1.0)].v`, `["1","1.0","1e0"]`},
		{`$.e[?(@.n == '12345678901234567890')].v`, `["big"]`},
		{`$.e[?(@.n == 'café')].v`, `["nfc"]`},
		{`$.e[?(@.n == null)].v`, `["null"]`},
		{`$.e[?(@.n == '1')].v`, `["text"]`},
	} {
		tape, tree, _, _, ok := filterTapeAndTree(t, resp, tc.path)
		if !ok {
			t.Fatalf("%s: not on the tape", tc.path)
		}
		got, _ := json.Marshal(tape)
		if string(got) != tc.want || !reflect.DeepEqual(tape, tree) {
			t.Errorf("%s: tape %s, tree %v, want %s", tc.path, got, tree, tc.want)
		}
	}
}

// randomFilterResponse writes a response of entity-like items: members
// from a small vocabulary with values of every type, items that are no
// objects, nested arrays, repeated keys, escapes.
func randomFilterResponse(r *rand.Rand) string {
	keys := []string{"entity", "value", "n", "城市", "类型", "e\\u006e"}
	vals := []string{`"城市"`, `"北京"`, `"\u57ce\u5e02"`, `"x"`, `"cafe\u0301"`, `"café"`, `1`, `1.0`, `1e0`, `-0`, `2`, `0.5`,
		`12345678901234567890`, `"1"`, `true`, `false`, `null`, `[]`, `{}`, `["城市"]`, `{"n":"x"}`}
	var item func(depth int) string
	item = func(depth int) string {
		switch k := r.IntN(10); {
		case k == 0:
			return vals[r.IntN(len(vals))]
		case k == 1 && depth < 3:
			var b strings.Builder
			b.WriteByte('[')
			for i := range r.IntN(4) {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(item(depth + 1))
			}
			b.WriteByte(']')
			return b.String()
		}
		var b strings.Builder
		b.WriteByte('{')
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			v := vals[r.IntN(len(vals))]
			if depth < 3 && r.IntN(4) == 0 {
				v = item(depth + 1)
			}
			fmt.Fprintf(&b, `"%s":%s`, keys[r.IntN(len(keys))], v)
		}
		b.WriteByte('}')
		return b.String()
	}
	var b strings.Builder
	b.WriteString(`{"entities":[`)
	for i := range r.IntN(6) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item(0))
	}
	fmt.Fprintf(&b, `],"o":%s}`, item(0))
	return b.String()
}

// Random responses × filter paths: the tape and the tree agree.
func TestFilterTapeRandom(t *testing.T) {
	paths := []string{
		`$.entities[?(@.entity == '城市')].value`, `$.entities[?(@.n == 1)]`, `$.entities[?(@.n == 1.0)].value`,
		`$.entities[?(@.n == true)]`, `$.entities[?(@.n == null)].entity`, `$.entities[?(@.城市 == '北京')]`,
		`$.entities[*][?(@.n == 'x')]`, `$.entities[?(@.en == '城市')]`, `$.entities[?(@.value == 'café')].n`,
		`$.o[?(@.n == 'x')]`, `$.o[?(@.类型 == '城市')].n`, `$.*[?(@.entity == '城市')]`, `$.*[*][?(@.n == '1')]`,
		`$.entities[?(@.n == '12345678901234567890')]`, `$.entities[?(@.n == 0)]`, `$.entities[?(@.value == '北京')][?(@.n == 'x')]`,
	}
	r := rand.New(rand.NewPCG(27, 2026))
	hits := 0
	for range 3000 {
		resp := randomFilterResponse(r)
		if !json.Valid([]byte(resp)) {
			t.Fatalf("invalid response %s", resp)
		}
		for _, p := range paths {
			tape, tree, tapeFound, treeFound, ok := filterTapeAndTree(t, resp, p)
			if !ok {
				t.Fatalf("%s: not on the tape", p)
			}
			if tapeFound != treeFound || !reflect.DeepEqual(tape, tree) {
				t.Fatalf("%s on %s:\n tape %v %#v\n tree %v %#v", p, resp, tapeFound, tape, treeFound, tree)
			}
			if treeFound {
				hits++
			}
		}
	}
	if hits < 1000 {
		t.Errorf("only %d pairs select anything", hits)
	}
}

// FuzzFilterTape checks any response and any path the tape evaluates
// against ojg on the built response.
//
//	go test -run '^$' -fuzz '^FuzzFilterTape$' -fuzztime 60s ./assert
func FuzzFilterTape(f *testing.F) {
	for i, p := range filterPaths {
		f.Add(filterResponses[i%len(filterResponses)], p)
	}
	for _, resp := range filterResponses {
		f.Add(resp, `$.entities[?(@.entity == '城市')].value`)
	}
	f.Fuzz(func(t *testing.T, resp, p string) {
		if !json.Valid([]byte(resp)) {
			return
		}
		x, _, state, err := jsonpath.CompileExpect(p)
		if err != nil || state {
			return
		}
		if _, ok := tapeFilters(x); !ok {
			return
		}
		tape, tree, tapeFound, treeFound, _ := filterTapeAndTree(t, resp, p)
		if tapeFound != treeFound || !reflect.DeepEqual(tape, tree) {
			t.Fatalf("%s on %s:\n tape %v %#v\n tree %v %#v", p, resp, tapeFound, tape, treeFound, tree)
		}
	})
}

// An expectation on a filter path passes and fails as on the built
// response, with the same failure (actual value, missing), and builds no
// tree when it is met.
func TestFilterExpectationTapeVsTree(t *testing.T) {
	const suite = `
suite "过滤" { schema = "rasa" }
materials "话语" { values = ["订一张去北京的机票"] }
template "订机票" {
  text   = "{话语}"
  expect = {
    "$.intent.name" = "订机票"
    "$.entities[?(@.entity == '城市')].value" = ["北京"]
  }
}
`
	s := loadSuite(t, suite)
	var c *schema.Case
	_ = s.Generate(spec.GenOptions{}, func(x *schema.Case) error {
		c = x
		return nil
	})
	tapeEv, treeEv := NewEvaluator(s), NewEvaluator(s)
	treeEv.paths.Range(func(_, v any) bool {
		v.(*compiled).mode, v.(*compiled).eqs = modeTree, nil
		return true
	})
	const path = `$.entities[?(@.entity == '城市')].value`
	wants := []any{[]any{"北京"}, []any{"上海"}, []any{"北京", "上海"}, []any{}, "北京", nil, []any{"北京"},
		[]any{json.Number("1")}, []any{int64(1)}, []any{1.0}, []any{map[string]any{"名": "北京"}}, []any{nil}}
	for _, resp := range filterResponses {
		for _, want := range wants {
			results := [2]*schema.Result{}
			for i, ev := range []*Evaluator{tapeEv, treeEv} {
				r := &schema.Result{Case: *c, Response: json.RawMessage(resp)}
				r.Expect = []schema.Expectation{{Path: path, Value: want}}
				ev.Evaluate(r)
				results[i] = r
			}
			if results[0].Outcome != results[1].Outcome || !reflect.DeepEqual(results[0].Failures, results[1].Failures) {
				t.Errorf("%s want %#v:\n tape %s %#v\n tree %s %#v", resp, want,
					results[0].Outcome, results[0].Failures, results[1].Outcome, results[1].Failures)
			}
		}
	}
	// The compiled path is on the tape, and a met expectation builds no
	// tree.
	cp, err := tapeEv.path(nil, 0, path)
	if err != nil || cp.mode != modeFilter {
		t.Fatalf("%s: mode %v (%v), want modeFilter", path, cp.mode, err)
	}
	var d jsondoc.Doc
	if err := d.Parse([]byte(filterResponses[0])); err != nil {
		t.Fatal(err)
	}
	rs := &response{doc: &d}
	r := &schema.Result{Case: *c, Response: json.RawMessage(filterResponses[0])}
	r.Expect = []schema.Expectation{{Path: path, Value: []any{"北京"}}}
	if met, _ := tapeEv.expectation(r, rs, nil, 0); !met || rs.built {
		t.Errorf("met %v, tree built %v: want met on the tape", len(r.Failures) == 0, rs.built)
	}
}

// The filter of a path is read once, when it is compiled.
func BenchmarkTapeFilterFind(b *testing.B) {
	x, _, _, _ := jsonpath.CompileExpect(`$.entities[?(@.entity == '城市')].value`)
	eqs, _ := tapeFilters(x)
	var d jsondoc.Doc
	_ = d.Parse([]byte(filterResponses[1]))
	rs := &response{doc: &d}
	c := &compiled{x: x, multi: true, mode: modeFilter, eqs: eqs}
	b.ReportAllocs()
	for range b.N {
		if len(rs.refsOf(c)) != 2 {
			b.Fatal("want 2")
		}
	}
}
