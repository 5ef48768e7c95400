package schema

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nlutest/nlutest/internal/mutate"
)

// slotSamples are slots objects as records hold them (Chinese names and
// values, normalized and tag members, a numeric member) and as a record
// may be damaged or hand-written: escapes, a value that is no string, two
// values, a member that is no object, scalars glued to brackets, spaces.
var slotSamples = []string{
	`{"伴随关系":{"value":"酒店同房间0","source":"伴随关系"},"手机号11位":{"value":"13301791700","source":"手机号11位"},"查询操作":{"value":"查询0","source":"查询操作"}}`,
	`{"城市":{"value":"北京","normalized":"BJ","tag":"LOC","level":"S1","source":"城市 (别名)"}}`,
	` { "城市" : { "value" : "北京" , "n" : 12.5e3 , "x" : true } , "日期" : { "source" : "日期" , "value" : "明天" } } `,
	`{}`, `{"城市":{}}`, `{"城市":{"source":"城市"}}`,
	`{"城\u5e02":{"value":"北京"}}`, `{"城市":{"value":"北\u4eac"}}`, `{"城市":{"valu\u0065":"北京"}}`,
	`{"城市":{"value":"a\"b"}}`, `{"城市":{"value":null}}`, `{"城市":{"value":1}}`, `{"城市":{"value":"x","value":"y"}}`,
	`{"城市":"北京"}`, `{"城市":["北京"]}`, `{"a":{"value":"x","b":1{"c":2}}}`,
	`{"a":{"value":"x","b":1{},"z":{"value":"y"}}}`, `{"a":{"value":"x","b":[}],"z":{"value":"y"}}}`,
	`{"a":{"value":"x"}}}`, `{"a":{"value":"x"},}`, `{"a":{"value":"x"}`, `{"a":{"value":"x",}}`,
	`{"a":{"value":"x"} "b":{"value":"y"}}`, `{"a":{"value":"\xff"}}`, "{\"a\":{\"value\":\"\x01\"}}",
	`{"a":{"value":"x","m":{"value":"inner"}}}`, `{"a":{"m":"}","value":"x"}}`, `[]`, `"x"`,
}

// eachSlotCalls is what EachSlotValue (or the nested walk) does with a
// slots object: the slots fn is called with, and the error; fn fails on
// the value "fail".
func eachSlotCalls(walk func([]byte, func(name, value []byte) error) error, slots []byte) string {
	out := ""
	err := walk(slots, func(name, value []byte) error {
		out += fmt.Sprintf("%q=%q;", name, value)
		if string(value) == "fail" {
			return errSyntax
		}
		return nil
	})
	return fmt.Sprintf("%s err=%v", out, err)
}

// nestedSlotWalk is EachSlotValue before its one-pass read.
func nestedSlotWalk(slots []byte, fn func(name, value []byte) error) error {
	if len(slots) == 0 || string(slots) == "null" {
		return nil
	}
	return eachSlotValueNested(slots, fn)
}

// EachSlotValue's one-pass read (jsondoc.MemberFields) calls fn with the
// same slots and returns the same error as the nested walk it stands in
// for, on the samples, every prefix of each, and random mutations of them.
func TestEachSlotValueMatchesNestedWalk(t *testing.T) {
	check := func(s []byte) {
		t.Helper()
		if got, want := eachSlotCalls(EachSlotValue, s), eachSlotCalls(nestedSlotWalk, s); got != want {
			t.Fatalf("EachSlotValue(%q):\n%s\nnested walk:\n%s", s, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(27, 12))
	bytes := []byte(`{}[]",: \1a` + "\x00\xe5")
	for _, s := range append(slotSamples, `{"a":{"value":"ok"},"b":{"value":"fail"},"c":{"value":"late"}}`) {
		for n := 0; n <= len(s); n++ {
			check([]byte(s[:n]))
		}
		for range 2000 {
			check(mutate.Edit(rng, []byte(s), bytes))
		}
	}
}

// FuzzEachSlotValue runs the same comparison over its seeds as a normal
// test; to fuzz it: go test -run '^$' -fuzz FuzzEachSlotValue ./schema
func FuzzEachSlotValue(f *testing.F) {
	for _, s := range slotSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		if got, want := eachSlotCalls(EachSlotValue, s), eachSlotCalls(nestedSlotWalk, s); got != want {
			t.Fatalf("EachSlotValue(%q):\n%s\nnested walk:\n%s", s, got, want)
		}
	})
}
