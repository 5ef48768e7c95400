package assert

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

const repeatSuite = `
suite "repeat" {}
template "问" {
  text   = "你好"
  expect = { "$.intent" = "greet" }
}
conversation "订票" {
  turn {
    user   = "订去北京的票"
    expect = { "$.intent" = "book" }
  }
  turn {
    user   = "明天"
    expect = { "$.date" = "明天" }
  }
}
`

// repeatResults are 4 repetitions of five scripts, by hand:
//
//	a     P F P P   flaky: passed 3, failed 1, 2 flips
//	b     E P P P   flaky on errors: passed 3, errored 1, 1 flip
//	c     F E F F   consistent failure: failed 3, errored 1, 0 flips
//	d     P P P P   stable
//	conv  P F E P   two turns; rep 2 turn 2 failed, rep 3 turn 1 errored
//	                (turn 2 not run): flaky, passed 2, failed 1, errored 1,
//	                2 flips
func repeatResults() []*schema.Result {
	var out []*schema.Result
	single := func(id, text, outcomes string) {
		for i, o := range outcomes {
			out = append(out, &schema.Result{Case: schema.Case{ID: id, Source: "问", SourceKind: schema.KindTemplate, Template: "问", Text: text, Repeat: i + 1},
				Outcome: map[rune]schema.Outcome{'P': schema.Pass, 'F': schema.Fail, 'E': schema.Error}[o]})
		}
	}
	single("a", "你好", "PFPP")
	single("b", "您好", "EPPP")
	single("c", "早上好", "FEFF")
	single("d", "嗨", "PPPP")
	turn := func(rep, n int, text string, o schema.Outcome) {
		out = append(out, &schema.Result{Case: schema.Case{ID: "conv/" + string(rune('0'+n)), Script: "conv", Turn: n, Source: "订票", SourceKind: "conversation",
			Text: text, Repeat: rep, Conversation: "conv-" + string(rune('0'+rep))}, Outcome: o})
	}
	for rep, turns := range [][]schema.Outcome{{schema.Pass, schema.Pass}, {schema.Pass, schema.Fail}, {schema.Error}, {schema.Pass, schema.Pass}} {
		for i, o := range turns {
			turn(rep+1, i+1, []string{"订去北京的票", "明天"}[i], o)
		}
	}
	return out
}

func TestRepeatFamilyByHand(t *testing.T) {
	s := loadSuite(t, repeatSuite)
	acc := repeatFamily{}.NewAcc(s)
	for _, r := range repeatResults() {
		acc.Add(&Observation{Result: r})
	}
	var n schema.Node
	acc.Fill(&n)
	got := n.Families["repeat"].(*schema.Repeat)
	if got.N != 4 || got.Scripts != 5 || got.Stable != 2 || got.Flaky != 2 || got.FlakyErrors != 1 || got.ConsistentFailures != 1 {
		t.Errorf("counts: n %d, scripts %d, stable %d, flaky %d, flaky_errors %d, consistent_failures %d; want 4, 5, 2, 2, 1, 1",
			got.N, got.Scripts, got.Stable, got.Flaky, got.FlakyErrors, got.ConsistentFailures)
	}
	wantFlaky := []schema.RepeatCase{
		{ID: "a", Source: "问", Kind: "template", Text: "你好", Runs: 4, Passed: 3, Failed: 1, Flips: 2, Outcomes: "PFPP"},
		{ID: "conv", Source: "订票", Kind: "conversation", Text: "订去北京的票", Runs: 4, Passed: 2, Failed: 1, Errored: 1, Flips: 2, Outcomes: "PFEP"},
	}
	if !reflect.DeepEqual(got.FlakyCases, wantFlaky) {
		t.Errorf("flaky cases:\n%+v\nwant\n%+v", got.FlakyCases, wantFlaky)
	}
	if want := []schema.RepeatCase{{ID: "b", Source: "问", Kind: "template", Text: "您好", Runs: 4, Passed: 3, Errored: 1, Flips: 1, Outcomes: "EPPP"}}; !reflect.DeepEqual(got.FlakyErrorCases, want) {
		t.Errorf("flaky on errors: %+v", got.FlakyErrorCases)
	}
	if want := []schema.RepeatCase{{ID: "c", Source: "问", Kind: "template", Text: "早上好", Runs: 4, Failed: 3, Errored: 1, Outcomes: "FEFF"}}; !reflect.DeepEqual(got.FailingCases, want) {
		t.Errorf("consistent failures: %+v", got.FailingCases)
	}
	// passes c = 3, 3, 0, 4, 2 of n = 4 (TestPassKs works these by hand).
	wantK := map[string]schema.RepeatK{
		"1": {Scripts: 5, PassAt: schema.R(12, 20), PassAll: schema.R(12, 20)},
		"2": {Scripts: 5, PassAt: schema.R(23, 30), PassAll: schema.R(13, 30)},
		"3": {Scripts: 5, PassAt: schema.R(16, 20), PassAll: schema.R(6, 20)},
		"4": {Scripts: 5, PassAt: schema.R(4, 5), PassAll: schema.R(1, 5)},
	}
	if len(got.K) != len(wantK) {
		t.Errorf("k: %d entries, want 4", len(got.K))
	}
	for k, w := range wantK {
		if g := got.K[k]; g == nil || *g != w {
			t.Errorf("k[%q] = %+v, want %+v", k, g, w)
		}
	}
	if got.PassAt1 != schema.R(12, 20) || got.PassAtK != schema.R(4, 5) || got.PassAllK != schema.R(1, 5) || got.Stability != schema.R(2, 5) {
		t.Errorf("pass_at_1 %v, pass_at_k %v, pass_all_k %v, stability %v", got.PassAt1, got.PassAtK, got.PassAllK, got.Stability)
	}

	// The same figures whatever the order of the results and however
	// they are split between merged accumulators (a sharded or replayed
	// run): the listed text is the earliest repetition's first turn.
	want, _ := json.Marshal(got)
	rng := rand.New(rand.NewPCG(36, 5))
	for round := range 20 {
		rs := repeatResults()
		rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
		parts := []Acc{repeatFamily{}.NewAcc(s), repeatFamily{}.NewAcc(s), repeatFamily{}.NewAcc(s)}
		for _, r := range rs {
			parts[rng.IntN(3)].Add(&Observation{Result: r})
		}
		parts[1].Merge(parts[2])
		parts[0].Merge(parts[1])
		var m schema.Node
		parts[0].Fill(&m)
		if b, _ := json.Marshal(m.Families["repeat"]); string(b) != string(want) {
			t.Fatalf("round %d: merged\n%s\nwant\n%s", round, b, want)
		}
	}
}

// A report written before flaky became a count (its flaky listed ids)
// still reads: flaky counts the ids, each listed without figures.
func TestRepeatReadsOldFlakyList(t *testing.T) {
	var r schema.Repeat
	if err := json.Unmarshal([]byte(`{"n":3,"scripts":6,"stable":5,"flaky":["订票-1"]}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.N != 3 || r.Flaky != 1 || len(r.FlakyCases) != 1 || r.FlakyCases[0].ID != "订票-1" {
		t.Errorf("old report: %+v", r)
	}
	var now schema.Repeat
	if err := json.Unmarshal([]byte(`{"n":3,"flaky":2,"flaky_cases":[{"id":"x","flips":1}]}`), &now); err != nil || now.Flaky != 2 || now.FlakyCases[0].Flips != 1 {
		t.Errorf("current report: %+v %v", now, err)
	}
}
