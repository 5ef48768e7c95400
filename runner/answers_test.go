package runner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// simFake is an LLM user simulator target: it answers answer(turn) and
// records as its request body the JSON of the system prompt and messages
// it was sent, as an openai target's would hold them.
type simFake struct {
	answer func(turn int) string
	bodies []string
}

func (s *simFake) Preflight(context.Context) error { return nil }
func (s *simFake) Close()                          {}
func (s *simFake) Open(context.Context, *schema.Script) (Session, error) {
	return Stateless(s), nil
}
func (s *simFake) Call(_ context.Context, c *schema.Case) *schema.Result {
	b, _ := json.Marshal(c.Simulate)
	s.bodies = append(s.bodies, string(b))
	return &schema.Result{Case: *c, Target: "sim", Request: &schema.Request{Method: "POST", URL: "http://127.0.0.1/v1/chat/completions", Body: string(b)},
		Reply: s.answer(c.Turn), Attempts: 1}
}

// simulate runs turns 1..n of a scenario whose simulator is sim against a
// bot answering 请问去哪个城市？, the user's texts the simulator's answers.
func simulate(t *testing.T, sim *simFake, n int) []*schema.Result {
	t.Helper()
	bot := &judgeFake{answer: "请问去哪个城市？"}
	turn := &schema.Case{ID: "s/1", Script: "s", Turn: 1, Text: "我想订机票", UserSim: &schema.UserSim{Target: "sim", System: "你扮演用户。"}}
	sess, err := WithUserSimulators(bot, nil, func(string) Caller { return sim }).Open(context.Background(), &schema.Script{ID: "s", Turns: []*schema.Case{turn}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var out []*schema.Result
	var history []schema.Message
	for i := 1; i <= n; i++ {
		r := sess.Call(context.Background(), turn, history)
		out = append(out, r)
		if r.Error != nil || r.Simulator == nil {
			break
		}
		history = append(history, schema.Message{Role: "user", Content: turn.Text}, schema.Message{Role: "assistant", Content: r.Reply})
		next := *turn
		next.Turn, next.Text = i+1, strings.TrimSpace(r.Simulator.Reply)
		turn = &next
	}
	return out
}

// The caps on what is kept of a judge's and a simulator's answer: an
// answer at the limit is kept, one byte more is the call's AnswerTooLong
// error (the answer not recorded); a simulated turn counts trimmed, and
// its turn is a SimulatorError. Memory judges (WithJudges) and rubrics
// (WithRubrics) share the judge's cap.
func TestAnswerCaps(t *testing.T) {
	question := &schema.Case{ID: "m/3", Script: "m", Turn: 3, Text: "我叫什么？", Fact: "我叫张伟。", Expected: "张伟"}
	judged := func(answer string, rubric bool) *schema.Judgement {
		j := &judgeFake{answer: answer}
		var c Caller = WithJudges(&fakeCaller{}, nil, func(*schema.Case) Caller { return j })
		if rubric {
			c = WithRubrics(&fakeCaller{}, nil, func(*schema.Case) []RubricCall {
				return []RubricCall{{Name: "礼貌", Judge: j, Input: func(*schema.Case, string, []schema.Message) *schema.JudgeInput { return &schema.JudgeInput{} }}}
			})
		}
		sess, err := c.Open(context.Background(), &schema.Script{ID: "m", Turns: []*schema.Case{question}})
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		r := sess.Call(context.Background(), question, nil)
		if rubric {
			return r.Rubrics[0].Judge
		}
		return r.Judge
	}
	for _, rubric := range []bool{false, true} {
		ok := strings.Repeat("判", MaxJudgeAnswerBytes/3) + "p"
		if j := judged(ok, rubric); j.Error != nil || j.Reply != ok {
			t.Errorf("rubric %v: an answer of %d bytes: error %v", rubric, len(ok), j.Error)
		}
		long := ok + "a"
		j := judged(long, rubric)
		if j.Error == nil || j.Error.Type != schema.ErrAnswerTooLong || j.Reply != "" ||
			!strings.HasPrefix(j.Error.Message, `the answer of 65537 bytes is over the 65536-byte limit of a judge's answer; it begins "判判判`) {
			t.Errorf("rubric %v: an answer of %d bytes: %+v", rubric, len(long), j)
		}
	}

	turn := " \n" + strings.Repeat("北", MaxSimulatedTurnBytes/3) + "a\n"
	if rs := simulate(t, &simFake{answer: func(int) string { return turn }}, 2); len(rs) != 2 || rs[1].Text != strings.TrimSpace(turn) {
		t.Errorf("a simulated turn of %d bytes trimmed was not the next turn: %+v", len(strings.TrimSpace(turn)), rs[0].Error)
	}
	rs := simulate(t, &simFake{answer: func(int) string { return strings.Replace(turn, "a\n", "ab\n", 1) }}, 2)
	r := rs[0]
	if len(rs) != 1 || r.Error == nil || r.Error.Type != schema.ErrSimulator || r.Simulator.Error.Type != schema.ErrAnswerTooLong || r.Simulator.Reply != "" ||
		!strings.HasPrefix(r.Error.Message, `simulating the user: the answer of 4097 bytes is over the 4096-byte limit of a simulated user turn; it begins "北北`) {
		t.Errorf("a simulated turn over the cap: %d turns, error %+v, simulator %+v", len(rs), r.Error, r.Simulator)
	}
}

// Each simulator request after the first of a session is recorded as
// what it adds to the previous one: body_from_previous bytes of the
// previous request's body, then its own body, which rebuilds the request
// sent byte for byte; never cut inside a UTF-8 character.
func TestSimulatorRecordsWhatEachRequestAdds(t *testing.T) {
	sim := &simFake{answer: func(turn int) string { return []string{"", "北京", "北京吧", "去北京", "<<DONE>>"}[turn] }}
	rs := simulate(t, sim, 4)
	if len(rs) != 4 || len(sim.bodies) != 4 {
		t.Fatalf("%d turns, %d simulator calls, want 4 and 4", len(rs), len(sim.bodies))
	}
	prev := ""
	for i, r := range rs {
		q := r.Simulator.Request
		if (i == 0) != (q.BodyFromPrevious == 0) || q.BodyFromPrevious > len(prev) {
			t.Fatalf("turn %d: body_from_previous %d of %d bytes", i+1, q.BodyFromPrevious, len(prev))
		}
		body := prev[:q.BodyFromPrevious] + q.Body
		if body != sim.bodies[i] || len(q.Body) >= len(body)/2 && i > 1 {
			t.Errorf("turn %d: rebuilt %q (recorded %d bytes), sent %q", i+1, body, len(q.Body), sim.bodies[i])
		}
		prev = body
	}
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "北京", 0}, {"北京", "北京", 6}, {"我好", "我如", 3}, {"ab好", "ab如", 2}, {"北京吧", "北京", 6}, {"abc", "abd", 2},
	} {
		if got := sharedPrefix(tt.a, tt.b); got != tt.want {
			t.Errorf("sharedPrefix(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
