package assert

// Fuzz tests for the comparison and flattening of arbitrary JSON responses.
// Every FuzzXxx also runs as a normal test over its seeds (f.Add and
// testdata/fuzz/FuzzXxx). To fuzz one for a minute:
//
//	go test -run '^$' -fuzz '^FuzzEqual$' -fuzztime 60s ./assert

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/ohler55/ojg/jp"
	"github.com/ohler55/ojg/oj"
)

// fuzzJSONSeeds are responses in the shapes nlutest meets: Rasa, the IAO corpus-factory write-up's IAO,
// keys that need quoting in a JSONPath, numbers beyond int64 and float64.
var fuzzJSONSeeds = []string{
	`{"text":"订一张去北京的机票","intent":{"name":"订机票","confidence":0.97},"entities":[{"entity":"城市","value":"北京","start":4,"end":6}],"intent_ranking":[{"name":"订机票","confidence":0.97},{"name":"查天气","confidence":0.02}]}`,
	`{"code":200,"msg":"","data":[{"content":{"ont":["Person"],"des":{"phone_number":"13301791708"},"rel":[{"rel":[{"relName":"酒店同房间同宿"}]}]}}]}`,
	`{"a.b":{"'引号'":[1,{"k]":2,"":null}],"空":"","键 值":[[],{}],"\"":"\\"}}`,
	`[1, 1.0, 1e0, -0, 123456789012345678901234567890, 12345678901234567890.5, 1e400, 5e-400, 9007199254740993]`,
	`{"é":"e\u0301","Å":"A\u030a","数组":["一","二",["三"]],"嵌套":[{"x":[{"y":[true,false,null]}]}]}`,
	`"只是一个字符串"`, `0`, `null`, `true`, `[]`, `{}`, `[[[[]]]]`, `[{},{"a":""}]`,
}

// FuzzEqual checks Equal on arbitrary JSON: reflexive, symmetric, and
// blind to re-encoding (a value equals itself written and parsed again).
func FuzzEqual(f *testing.F) {
	for i, a := range fuzzJSONSeeds {
		f.Add([]byte(a), []byte(fuzzJSONSeeds[(i+1)%len(fuzzJSONSeeds)]))
		f.Add([]byte(a), []byte(a))
	}
	f.Add([]byte(`200`), []byte(`200.0`))
	f.Add([]byte(`"酒店同房间同宿"`), []byte(`"酒店同房间同宿 "`))
	f.Add([]byte(`{"a":1,"b":2}`), []byte(`{"b":2,"a":1}`))
	f.Add([]byte(`{"a":1}`), []byte(`{"a":1,"b":null}`))
	f.Add([]byte(`[1,2]`), []byte(`[2,1]`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		// Evaluate only ever parses bodies json.Valid accepted (the
		// transport and exec targets check them first); ojg alone accepts
		// some invalid JSON such as {"a":}.
		if !json.Valid(a) || !json.Valid(b) {
			return
		}
		x, err := oj.Parse(a)
		if err != nil {
			return
		}
		y, err := oj.Parse(b)
		if err != nil {
			return
		}
		if !Equal(x, x) {
			t.Fatalf("Equal(x, x) is false for %s", a)
		}
		xy, yx := Equal(x, y), Equal(y, x)
		if xy != yx {
			t.Fatalf("Equal is not symmetric: Equal(%s, %s) = %v, reversed %v", a, b, xy, yx)
		}
		if xy {
			xm, xok := x.(map[string]any)
			ym, yok := y.(map[string]any)
			if xok != yok {
				t.Fatalf("Equal(%s, %s): an object equals a non-object", a, b)
			}
			for k := range xm {
				if _, ok := ym[k]; !ok {
					t.Fatalf("Equal(%s, %s) though key %q is missing on the right", a, b, k)
				}
			}
		}
		if !utf8.Valid(a) {
			return // ojg keeps invalid UTF-8 that writing back replaces
		}
		again, err := oj.Parse([]byte(oj.JSON(x)))
		if err != nil {
			return // a value JSON cannot write back (±Inf from 1e400)
		}
		if !Equal(x, again) || !Equal(again, x) {
			t.Fatalf("%s does not equal itself re-encoded as %s", a, oj.JSON(x))
		}
	})
}

// FuzzFlatten checks Flatten on arbitrary JSON: deterministic; every leaf
// non-empty, a scalar or a list of scalars, found again at its path; paths
// distinct, written as JSONPath text that parses back to the same path (the
// dimension analysis keys units by that text); and skip drops exactly the
// path it is given.
func FuzzFlatten(f *testing.F) {
	for _, s := range fuzzJSONSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return // as in FuzzEqual: responses are validated before parsing
		}
		v, err := oj.Parse(data)
		if err != nil {
			return
		}
		leaves := Flatten(v, nil)
		again := Flatten(v, nil)
		if len(again) != len(leaves) {
			t.Fatalf("Flatten is not deterministic: %d then %d leaves", len(leaves), len(again))
		}
		seen := map[string]int{}
		for i, lf := range leaves {
			key := lf.Path.String()
			if again[i].Path.String() != key {
				t.Fatalf("Flatten is not deterministic: leaf %d at %s then %s", i, key, again[i].Path.String())
			}
			if j, ok := seen[key]; ok {
				t.Fatalf("leaves %d and %d share the path %s in %s", j, i, key, data)
			}
			seen[key] = i
			if isEmpty(lf.Value) {
				t.Errorf("leaf %s holds an empty value %v", key, lf.Value)
			}
			switch x := lf.Value.(type) {
			case map[string]any:
				t.Errorf("leaf %s is an object", key)
			case []any:
				if hasContainer(x) {
					t.Errorf("leaf %s is a list holding containers", key)
				}
			}
			got := lf.Path.First(v)
			if !Equal(lf.Value, got) {
				t.Errorf("leaf %s holds %v but the path finds %v", key, lf.Value, got)
			}
			if !utf8.Valid(data) {
				continue // paths of keys with invalid UTF-8 print as U+FFFD
			}
			parsed, err := jp.ParseString(key)
			if err != nil {
				t.Errorf("leaf path %s does not parse back: %v", key, err)
				continue
			}
			if parsed.String() != key {
				t.Errorf("leaf path %s parses back as %s", key, parsed.String())
			}
			if found := parsed.First(v); !Equal(lf.Value, found) {
				t.Errorf("leaf path %s, parsed back, finds %v instead of %v", key, found, lf.Value)
			}
		}
		if len(leaves) == 0 || len(leaves[0].Path) < 2 {
			return
		}
		drop := leaves[0].Path.String()
		rest := Flatten(v, func(p jp.Expr) bool { return p.String() == drop })
		if len(rest) != len(leaves)-1 {
			t.Fatalf("skipping %s left %d of %d leaves", drop, len(rest), len(leaves))
		}
		for i, lf := range rest {
			if lf.Path.String() != leaves[i+1].Path.String() {
				t.Fatalf("skipping %s changed leaf %d: %s, want %s", drop, i, lf.Path.String(), leaves[i+1].Path.String())
			}
		}
	})
}
