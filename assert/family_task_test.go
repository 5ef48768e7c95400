package assert

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// taskSuite has three scenarios with task blocks: 订票 reads its offer and
// booking from the response (城市 normalised for the suite's schema), 问路
// needs no offer (its offers read no inform slot, as MultiWOZ's taxi), 代理
// reads a tool-using agent's calls, final state and reply.
const taskSuite = `
suite "task" { schema = "rasa" }
materials "城市" {
  value "北京" { normalize = { rasa = "Beijing" } }
  value "上海" { normalize = { rasa = "Shanghai" } }
}
tool "book_flight" { result = { order_id = "B-1" } }
scenario "订票" {
  goal {
    inform  = { city = "{城市}", date = "明天", people = "2" }
    request = ["订单号", "电话"]
  }
  opening = ["我想订机票"]
  success { condition = true }
  task {
    domain    = "机票"
    offers    = { city = "$.offer.city", date = "$.offer.date", people = "$.offer.people", "订单号" = "$.order_id", "电话" = "state:$.phone", "航班号" = "$.flight" }
    reference = "$.order_id"
    booked    = { city = "$.booking.city", date = "$.booking.date" }
  }
}
scenario "问路" {
  goal {
    inform  = { city = "{城市}" }
    request = ["地址"]
  }
  opening = ["怎么走"]
  success { condition = true }
  task {
    offers = { "地址" = "$.address" }
  }
}
scenario "代理" {
  goal {
    inform  = { city = "{城市}", date = "明天" }
    request = ["订单号"]
  }
  opening = ["我想订机票"]
  success { condition = true }
  final_state {
    from   = "mocks"
    expect = { "$.bookings[0].city" = "{城市}" }
  }
  task {
    domain = "机票"
    offers = { city = "tool:book_flight:$.city", date = "tool:book_flight:$.date", "订单号" = "reply:订单号\\s*(B-\\w+)" }
    booked = { city = "final:$.bookings[-1].city", date = "final:$.bookings[-1].date" }
  }
}
`

// taskTurnSpec is one recorded turn of a hand-made run.
type taskTurnSpec struct {
	response, state, reply string
	calls                  []schema.ToolCall
	final                  *schema.FinalState
	err                    bool
}

// taskRuns makes the results of runs: source → instance's 城市 → turns.
func taskRuns(t *testing.T, s *spec.Suite, runs map[string]map[string][]taskTurnSpec) []*schema.Result {
	t.Helper()
	var out []*schema.Result
	err := s.GenerateScripts(spec.GenOptions{}, func(sc *schema.Script) error {
		c := sc.Turns[0]
		turns, ok := runs[c.Source][c.Slots["城市"].Value]
		if !ok {
			return nil
		}
		for i, tt := range turns {
			r := &schema.Result{Case: *c, Response: json.RawMessage(tt.response), Reply: tt.reply, ToolCalls: tt.calls, FinalState: tt.final, ScriptTurns: len(turns)}
			r.Turn, r.ID, r.Conversation = i+1, c.Script+"/"+strconv.Itoa(i+1), c.Script+"-s"
			if tt.state != "" {
				r.State = json.RawMessage(tt.state)
			}
			if tt.err {
				r.Response, r.Error = nil, &schema.CallError{Type: "HTTPError", Message: "503"}
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func final(state string) *schema.FinalState {
	return &schema.FinalState{From: "mocks", State: json.RawMessage(state)}
}

// ReadTaskTurn reads each kind of value source, compares a read value
// with the goal's as expectations do (the normalised material value, a
// number by its text), and reads nothing from what is missing or empty.
func TestReadTaskTurn(t *testing.T) {
	s := loadSuite(t, taskSuite)
	task := func(name string) *spec.TaskSpec { return s.SourceByKind(spec.KindScenario, name).Info().Task }
	for _, tc := range []struct {
		name, source, city string
		turn               taskTurnSpec
		want               TaskTurn
	}{
		{"the offer met, normalised city, number of people", "订票", "北京",
			taskTurnSpec{response: `{"offer":{"city":"Beijing","date":"明天","people":2}}`},
			TaskTurn{Offered: 0b111, OfferMet: 0b111}},
		{"the raw city is not the normalised goal", "订票", "北京",
			taskTurnSpec{response: `{"offer":{"city":"北京","date":"明天","people":"2"}}`},
			TaskTurn{Offered: 0b111, OfferMet: 0b110}},
		{"empty values read nothing; the state gives the phone", "订票", "上海",
			taskTurnSpec{response: `{"offer":{"city":"Shanghai","date":"","people":null},"order_id":"BK1","flight":[]}`, state: `{"phone":"010-12345678"}`},
			TaskTurn{Offered: 0b11001, OfferMet: 0b1, Booked: true}},
		{"booked on the reference, one value of two met", "订票", "上海",
			taskTurnSpec{response: `{"order_id":"BK1","booking":{"city":"Shanghai","date":"后天"}}`},
			TaskTurn{Offered: 0b1000, Booked: true, BookMet: 1}},
		{"booking values without the reference: not booked", "订票", "上海",
			taskTurnSpec{response: `{"booking":{"city":"Shanghai","date":"明天"}}`},
			TaskTurn{}},
		{"an errored turn reads nothing", "订票", "上海",
			taskTurnSpec{response: `{"offer":{"city":"Shanghai"}}`, err: true},
			TaskTurn{}},
		{"per entry the last call of the tool with its path; the reply's group; the final state's last booking", "代理", "北京",
			taskTurnSpec{
				calls: []schema.ToolCall{call("book_flight", `{"city":"Shanghai","date":"明天"}`), call("book_flight", `{"city":"Beijing"}`), call("search_flights", `{"city":"Shanghai"}`)},
				reply: "已预订，订单号 B-MU5101。", final: final(`{"bookings":[{"city":"上海"},{"city":"Beijing","date":"明天"}]}`)},
			TaskTurn{Offered: 0b111, OfferMet: 0b11, Booked: true, BookMet: 2}},
		{"a final state that could not be read books nothing", "代理", "北京",
			taskTurnSpec{final: &schema.FinalState{From: "mocks", Error: &schema.CallError{Type: schema.ErrFinalState, Message: "x"}}, reply: "订单号 C-1"},
			TaskTurn{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := taskRuns(t, s, map[string]map[string][]taskTurnSpec{tc.source: {tc.city: {tc.turn}}})
			if len(rs) != 1 {
				t.Fatalf("%d results", len(rs))
			}
			if got := ReadTaskTurn(task(tc.source), rs[0]); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// The hand-counted runs of TestTaskFamily: one rule each.
//
//	run      turns                                                          informed             succeeded         book  TP FP FN
//	订票 北京 1: offers 上海 明天 2 (the wrong city)                          yes: the last offer  no: 电话 missing  2/2   1  1  1
//	         2: offers 北京 明天 2, 订单号, books 北京 明天, and 航班号,
//	            which was not requested
//	订票 上海 1: offers 上海 明天 2, 订单号 and 电话, books 上海 明天         no                   no: not informed  2/2   2  0  0
//	         2: offers 北京 明天 2 (a wrong offer after the booking)           (the last booking: turn 1)
//	问路 北京 1: 地址                                                         yes: no offer needed yes               —     1  0  0
//	问路 上海 1: nothing                                                      yes                  no                —     0  0  1
//	代理 北京 1: book_flight 北京 明天, reply 订单号 B-MU5101, final 北京 明天 yes                  yes               2/2   1  0  0
//	代理 上海 1: book_flight 上海 (no date), 订单号 B-CA1858, final 上海       no                   no                1/2   1  0  0
//
// (The cities as read are the normalised values, Beijing and Shanghai,
// which the goal compares against.) Dialogues 6; informed 4; succeeded 2 (问路
// 北京, 代理 北京); bookings 4, book rate (1 + 1 + 1 + ½)/4 = 3.5/4;
// requesting 6; precision per run ½, 1, 1, 0, 1, 1 → 4.5/6; recall ½, 1,
// 1, 0, 1, 1 → 4.5/6; F1 ½, 1, 1, 0, 1, 1 → 4.5/6; TP 6, FP 1, FN 2.
// Domain 机票 (订票, 代理): dialogues 4, informed 2, succeeded 1, book
// 3.5/4, P 3.5/4, R 3.5/4, F1 3.5/4; 问路 has no domain.
func taskFamilyRuns() map[string]map[string][]taskTurnSpec {
	return map[string]map[string][]taskTurnSpec{
		"订票": {
			"北京": {
				{response: `{"offer":{"city":"Shanghai","date":"明天","people":2}}`},
				{response: `{"offer":{"city":"Beijing","date":"明天","people":2},"order_id":"BK1","booking":{"city":"Beijing","date":"明天"},"flight":"MU5101"}`},
			},
			"上海": {
				{response: `{"offer":{"city":"Shanghai","date":"明天","people":"2"},"order_id":"BK2","booking":{"city":"Shanghai","date":"明天"}}`, state: `{"phone":"021-1234"}`},
				{response: `{"offer":{"city":"Beijing","date":"明天","people":2}}`},
			},
		},
		"问路": {
			"北京": {{response: `{"address":"长安街1号"}`}},
			"上海": {{response: `{}`}},
		},
		"代理": {
			"北京": {{calls: []schema.ToolCall{call("book_flight", `{"city":"Beijing","date":"明天"}`)}, reply: "订单号B-MU5101", final: final(`{"bookings":[{"city":"Beijing","date":"明天"}]}`)}},
			"上海": {{calls: []schema.ToolCall{call("book_flight", `{"city":"Shanghai"}`)}, reply: "订单号B-CA1858", final: final(`{"bookings":[{"city":"Shanghai"}]}`)}},
		},
	}
}

func TestTaskFamily(t *testing.T) {
	s := loadSuite(t, taskSuite)
	ev := NewEvaluator(s)
	col := NewCollector(s, nil)
	for _, r := range taskRuns(t, s, taskFamilyRuns()) {
		col.Add(r, ev.Evaluate(r))
	}
	v, _ := col.Metrics().Node.Families["task"].(*schema.Task)
	if v == nil {
		t.Fatal("no metrics.task")
	}
	want := schema.TaskFigures{Dialogues: 6, Informed: 4, InformRate: schema.R(4, 6), Succeeded: 2, SuccessRate: schema.R(2, 6),
		Bookings: 4, BookRate: schema.Ratio{Num: 3.5, Den: 4}, Requesting: 6,
		InformPrecision: schema.Ratio{Num: 4.5, Den: 6}, InformRecall: schema.Ratio{Num: 4.5, Den: 6}, InformF1: schema.Ratio{Num: 4.5, Den: 6},
		TP: 6, FP: 1, FN: 2}
	got := v.TaskFigures
	got.InformRate, got.SuccessRate = plain(got.InformRate), plain(got.SuccessRate)
	if got != want {
		t.Errorf("metrics.task\n got %+v\nwant %+v", got, want)
	}
	d := v.Domain["机票"]
	if len(v.Domain) != 1 || d == nil {
		t.Fatalf("domains %v, want 机票 only", v.Domain)
	}
	wantD := schema.TaskFigures{Dialogues: 4, Informed: 2, InformRate: schema.R(2, 4), Succeeded: 1, SuccessRate: schema.R(1, 4),
		Bookings: 4, BookRate: schema.Ratio{Num: 3.5, Den: 4}, Requesting: 4,
		InformPrecision: schema.Ratio{Num: 3.5, Den: 4}, InformRecall: schema.Ratio{Num: 3.5, Den: 4}, InformF1: schema.Ratio{Num: 3.5, Den: 4},
		TP: 5, FP: 1, FN: 1}
	gotD := *d
	gotD.InformRate, gotD.SuccessRate = plain(gotD.InformRate), plain(gotD.SuccessRate)
	if gotD != wantD {
		t.Errorf("metrics.task.domain[\"机票\"]\n got %+v\nwant %+v", gotD, wantD)
	}
	if _, _, ok := v.InformRate.CI(); !ok {
		t.Error("inform_rate has no Wilson interval")
	}
}

// plain is r without its interval.
func plain(r schema.Ratio) schema.Ratio { return schema.Ratio{Num: r.Num, Den: r.Den} }

// ConvLab-2's inform_F1 on one dialogue: precision TP/(TP+FP) and recall
// TP/(TP+FN), each 0 over 0 (its ZeroDivisionError branches).
func TestInformPR(t *testing.T) {
	for _, tc := range []struct {
		tp, fp, fn int
		p, r       float64
	}{{1, 1, 1, 0.5, 0.5}, {2, 0, 0, 1, 1}, {0, 0, 1, 0, 0}, {0, 2, 0, 0, 0}, {1, 0, 3, 1, 0.25}} {
		if p, r := InformPR(tc.tp, tc.fp, tc.fn); p != tc.p || r != tc.r {
			t.Errorf("InformPR(%d, %d, %d) = %v, %v; want %v, %v", tc.tp, tc.fp, tc.fn, p, r, tc.p, tc.r)
		}
	}
}

// metrics.task is the same, bit for bit, whatever collectors the turns
// went to and in what order they were added and merged: a run's figures
// are its latest offer and booking and the union of what it provided, and
// Fill sums the runs' fractions in key order.
func TestTaskFamilyMergeInvariant(t *testing.T) {
	s := loadSuite(t, taskSuite)
	ev := NewEvaluator(s)
	rs := taskRuns(t, s, taskFamilyRuns())
	for _, r := range rs {
		ev.Evaluate(r)
	}
	one := NewCollector(s, nil)
	for _, r := range rs {
		one.Add(r, nil)
	}
	want, _ := json.Marshal(one.Metrics().Node.Families["task"])
	rng := rand.New(rand.NewPCG(7, 37))
	for trial := range 20 {
		parts := []*Collector{NewCollector(s, nil), NewCollector(s, nil), NewCollector(s, nil)}
		for _, i := range rng.Perm(len(rs)) {
			parts[rng.IntN(len(parts))].Add(rs[i], nil)
		}
		rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		parts[0].Merge(parts[1])
		parts[0].Merge(parts[2])
		got, _ := json.Marshal(parts[0].Metrics().Node.Families["task"])
		if string(got) != string(want) {
			t.Fatalf("trial %d: merged\n%s\nwant\n%s", trial, got, want)
		}
	}
}

// A suite without a task block has no metrics.task
// (TestTaskThresholdWithoutTask in cmd/nlutest: a threshold on it says
// why).
func TestTaskFamilyAbsent(t *testing.T) {
	s := loadSuite(t, `
suite "plain" {}
scenario "订票" {
  goal { inform = { city = "北京" } }
  opening = ["我想订机票"]
  success { condition = true }
}`)
	if acc := (taskFamily{}).NewAcc(s); acc != nil {
		t.Errorf("NewAcc = %v, want nil without a task block", acc)
	}
}
