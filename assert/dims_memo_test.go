package assert

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// memoVariants are values one path takes from one response (or
// expectation) to the next: Chinese, the same word composed and
// decomposed (NFC changes only the second), escaped and not, empty in
// several ways, numbers spelled three ways, lists.
var memoVariants = []string{
	`"Person"`, `"使用人"`, `"\u4f7f\u7528\u4eba"`, `"café"`, `"cafe\u0301"`, `"cafe` + "\u0301" + `"`, `""`, `null`, `[]`, `[""]`,
	`["SIM_Card","Person"]`, `["Person","Person"]`, `["酒店同房间同宿"]`, `1`, `1.0`, `1e0`, `true`, `"北京\n上海"`,
	`"` + strings.Repeat("长", 120) + `"`,
}

// The memos of dimension analysis (the canonical text of the value last
// seen at each response path, and of each expectation's last value)
// change nothing: an evaluator whose memos have seen every variant before
// analyses each result as a fresh evaluator does, metrics byte for byte,
// on responses and expectations whose values change from one result to
// the next among memoVariants, through the IAO preset's leaf and items
// dimensions (one to three behaviour items, objects or not; one or two
// expected items on one or two keys).
func TestAnalysisMemosMatchFresh(t *testing.T) {
	s := loadSuite(t, refIAOSuite)
	kept := NewEvaluator(s)
	rnd := rand.New(rand.NewPCG(20261202, 28))
	// Each slot (a response leaf, an expectation) keeps its value from the
	// result before more often than not, as values at one path do.
	last := map[int]string{}
	slot := 0
	pick := func() string {
		slot++
		if v, ok := last[slot]; !ok || rnd.IntN(3) == 0 {
			last[slot] = memoVariants[rnd.IntN(len(memoVariants))]
		} else {
			last[slot] = v
		}
		return last[slot]
	}
	paths := []string{"$.data[0].content.ont", "$.data[0].content.des.phone_number", "$.data[0].content.rel[0].ont",
		"$.data[0].content.rel[0].relName", "$.data[0].content.rel[0].rel[0].ont", "$.data[0].content.rel[0].rel[0].behavior[0].category",
		"$.data[0].content.rel[0].rel[0].behavior[0].location", "$.data[0].content.rel[0].rel[0].behavior[1].category"}
	twin := map[string]string{`"café"`: `"cafe\u0301"`, `"cafe\u0301"`: `"café"`, `"cafe` + "\u0301" + `"`: `"café"`}
	check := func(id, resp string, exp schema.Expectations) {
		t.Helper()
		r := &schema.Result{Case: schema.Case{ID: id, Suite: s.Name, Template: "hotel", Text: "t", Expect: exp},
			Response: []byte(resp), Status: 200}
		got, want := memoMetrics(t, s, kept, r), memoMetrics(t, s, NewEvaluator(s), r)
		if got != want {
			t.Fatalf("result %s, response %s, expectations %v:\nwith memos %s\nfresh      %s", id, resp, exp, got, want)
		}
	}
	// An expected item whose one key changes, its value staying.
	behaviour := `{"data":[{"content":{"rel":[{"rel":[{"behavior":[{"category":"伴随分析","location":[]}]}]}]}}]}`
	for _, key := range []string{"category", "location", "category"} {
		check(key, behaviour, schema.Expectations{{Path: "$.data[0].content.rel[0].rel[0].behavior[0]." + key, Value: "伴随分析"}})
	}
	how := make([]int, len(paths))
	for i := range 600 {
		slot = 0
		// the six leaves the expectations name, then one more
		vals := []string{pick(), pick(), pick(), pick(), pick(), pick(), pick()}
		// behaviour items: the first holds two of the leaves; then up to
		// two more objects, or values that are no item
		if i%2 == 0 {
			vals[6] = "[]" // an item that differs from its expectation in NFC only
		}
		items := fmt.Sprintf(`{"category":%s,"location":%s}`, vals[5], vals[6])
		for k := range 2 {
			switch v := pick(); {
			case k == 1 && rnd.IntN(2) == 0:
			case rnd.IntN(4) == 0:
				items += "," + v
			default:
				items += fmt.Sprintf(`,{"category":%s,"traffic":%s,"x":1}`, v, pick())
			}
		}
		resp := fmt.Sprintf(`{"code":200,"data":[{"content":{"des":{"phone_number":%s},"ont":%s,"rel":[{"ont":%s,"relName":%s,`+
			`"rel":[{"ont":%s,"behavior":[%s]}]}]},"content_op":"查询"}]}`,
			vals[0], vals[1], vals[2], vals[3], vals[4], items)
		var exp schema.Expectations
		for j, p := range paths {
			// the value the response holds, its other NFC form, another
			// one, or none; each path keeps its choice for a while, so
			// memos meet the same expectations again
			if rnd.IntN(4) == 0 {
				how[j] = rnd.IntN(4)
			}
			text, other := vals[[]int{1, 0, 2, 3, 4, 5, 6, 0}[j]], pick()
			switch x, ok := twin[text]; {
			case how[j] == 3:
				continue
			case how[j] == 2:
				text = other
			case how[j] == 1 && ok:
				text = x
			}
			var v any
			if err := json.Unmarshal([]byte(text), &v); err != nil {
				t.Fatal(err)
			}
			exp = append(exp, schema.Expectation{Path: p, Value: v})
		}
		check(strconv.Itoa(i), resp, exp)
	}
}

// memoMetrics is the metrics of a collector given only r, evaluated by ev.
func memoMetrics(t *testing.T, s *spec.Suite, ev *Evaluator, r0 *schema.Result) string {
	r := *r0
	col := NewCollector(s, nil)
	e := ev.Evaluate(&r)
	col.Add(&r, e)
	e.Release()
	return mustJSON(t, col.Metrics())
}
