package spec

import (
	"reflect"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// rebuildIntoSuite has templates of different slot keys (and one of none),
// splits, and a draw of the same material twice.
const rebuildIntoSuite = `
materials "城市" { values = ["北京", "上海", "广州"] }
materials "日期" { values = ["明天", "后天"] }
template "查天气" {
  strategy = "product"
  text   = "{城市}{日期}天气"
  level  = "S1"
  expect = { "$.city" = "{城市}", "$.date" = "{日期}" }
}
template "订机票" {
  strategy = "product"
  text   = "订{日期}从{城市}到{城市#2}的机票"
  expect = { "$.from" = "{城市}", "$.to" = "{城市#2}" }
}
template "订酒店" {
  text   = "订{城市}的酒店"
  level  = "S1"
  expect = { "$.intent" = "订酒店" }
}
template "问候" { text = "你好" }
split "冒烟" { where = case.level == "S1" }
split "一半" { fraction = 0.5 }
`

// A case rebuilt into a case that held another template's case (other
// slot keys, other splits) is the case rebuilt afresh: the reused slot map
// keeps no slot of the case before. A rebuild takes the record's id and
// text strings instead of copies, and allocates nothing for the case.
func TestRebuildRecordIntoReusedCase(t *testing.T) {
	s := genSuite(t, rebuildIntoSuite)
	cases, _ := genCases(t, s, GenOptions{})
	if len(cases) < 10 {
		t.Fatalf("%d cases", len(cases))
	}
	rb := s.NewRebuilder()
	type record struct {
		r    schema.Result
		rest schema.Deferred
	}
	recs := make([]*record, len(cases))
	for i, c := range cases {
		line, err := schema.EncodeLine(&schema.Result{Case: *c})
		if err != nil {
			t.Fatal(err)
		}
		recs[i] = &record{}
		if err := recs[i].r.DecodeForEval(line, &recs[i].rest); err != nil {
			t.Fatal(err)
		}
	}
	var into schema.Case
	// Forwards and backwards, so each template follows another.
	for _, order := range [][]int{forwards(len(cases)), backwards(len(cases))} {
		for _, i := range order {
			rec := recs[i]
			fresh, ok := rb.RebuildRecord(&rec.r.Case, rec.rest.Slots)
			if !ok {
				t.Fatalf("case %s does not rebuild", cases[i].ID)
			}
			got, ok := rb.RebuildRecordInto(&into, &rec.r.Case, rec.rest.Slots)
			if !ok || !reflect.DeepEqual(got, fresh) || !reflect.DeepEqual(got, cases[i]) {
				t.Fatalf("rebuilt into a reused case:\n%+v\nafresh:\n%+v\ngenerated:\n%+v", got, fresh, cases[i])
			}
			if len(got.Slots) > 0 && got != &into {
				t.Fatalf("case %s was not rebuilt into the case given", got.ID)
			}
		}
	}
	// (An expectation filled from a slot allocates its value; 订酒店's
	// are fixed.)
	var rec *record
	for i, c := range cases {
		if c.Template == "订酒店" && len(c.Split) == 2 {
			rec = recs[i]
		}
	}
	if rec == nil {
		t.Fatal("no case of 订酒店 in both splits")
	}
	if underRace {
		// The race detector's instrumentation allocates on its own (11
		// times a rebuild here), so the count says nothing about the code;
		// the README's `go test ./...` runs this check without it.
		return
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := rb.RebuildRecordInto(&into, &rec.r.Case, rec.rest.Slots); !ok {
			t.Fatal("no rebuild")
		}
	})
	if allocs != 0 {
		t.Errorf("RebuildRecordInto allocates %.0f times a case, want 0", allocs)
	}
}

func forwards(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func backwards(n int) []int {
	out := forwards(n)
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
