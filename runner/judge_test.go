package runner

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// judgeFake is a judge target: a stateless caller that answers every
// judge request with answer (or fails with err) and records what it saw.
type judgeFake struct {
	seen   []*schema.JudgeInput
	answer string
	err    *schema.CallError
	cancel context.CancelFunc // when set, called during the judge's call (an interrupt)
}

func (j *judgeFake) Preflight(context.Context) error { return nil }
func (j *judgeFake) Close()                          {}
func (j *judgeFake) Open(context.Context, *schema.Script) (Session, error) {
	return Stateless(j), nil
}
func (j *judgeFake) Call(_ context.Context, c *schema.Case) *schema.Result {
	j.seen = append(j.seen, c.Judge)
	if j.cancel != nil {
		j.cancel()
	}
	r := &schema.Result{Case: *c, Target: "nli", Reply: j.answer, LatencyMS: 1.5, Attempts: 1}
	if j.err != nil {
		e := *j.err
		r.Error = &e
	}
	return r
}

// WithJudges sends every answered memory question, and only those, to the
// judge with the fact, question, answer and expected answer, and records
// the judge's call in the result; a judge error is recorded as the
// judgement's (the answer stays a result), but a judge call cut off by an
// interruption, or failing on this side, makes the turn not a result, so
// --resume asks again.
func TestWithJudges(t *testing.T) {
	question := &schema.Case{ID: "s/3", Script: "s", Turn: 3, Text: "我叫什么？", Fact: "我叫张伟。", Expected: "张伟"}
	filler := &schema.Case{ID: "s/2", Script: "s", Turn: 2, Text: "天气"}
	failing := &schema.Case{ID: "s/5", Script: "s", Turn: 5, Text: "fail", Fact: "我叫张伟。", Expected: "张伟"}
	var bot Caller = &fakeCaller{}
	call := func(j *judgeFake, ctx context.Context, c *schema.Case) *schema.Result {
		sc := &schema.Script{ID: "s", Turns: []*schema.Case{c}}
		sess, err := WithJudges(bot, nil, func(*schema.Case) Caller { return j }).Open(ctx, sc)
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		return sess.Call(ctx, c, nil)
	}

	j := &judgeFake{answer: "entailment"}
	r := call(j, context.Background(), question)
	if len(j.seen) != 1 || !reflect.DeepEqual(*j.seen[0], schema.JudgeInput{Fact: "我叫张伟。", Question: "我叫什么？", Answer: "re:我叫什么？", Expect: "张伟"}) {
		t.Fatalf("the judge saw %+v", j.seen)
	}
	if r.Error != nil || r.Judge == nil || r.Judge.Target != "nli" || r.Judge.Reply != "entailment" || r.Judge.LatencyMS != 1.5 {
		t.Errorf("judged question: error %v, judgement %+v", r.Error, r.Judge)
	}
	for _, c := range []*schema.Case{filler, failing} {
		j := &judgeFake{answer: "entailment"}
		if r := call(j, context.Background(), c); len(j.seen) != 0 || r.Judge != nil {
			t.Errorf("%s: the judge was asked (%d calls, judgement %+v)", c.ID, len(j.seen), r.Judge)
		}
	}
	bot = &judgeFake{answer: " "} // a bot whose reply is blank: unanswered, never judged
	j = &judgeFake{answer: "entailment"}
	if r := call(j, context.Background(), question); len(j.seen) != 0 || r.Judge != nil {
		t.Errorf("a blank answer was judged (%d calls)", len(j.seen))
	}
	bot = &fakeCaller{}

	j = &judgeFake{err: &schema.CallError{Type: schema.ErrHTTP, Message: "HTTP 500"}}
	if r := call(j, context.Background(), question); r.Error != nil || r.Judge == nil || r.Judge.Error == nil || r.Judge.Error.Type != schema.ErrHTTP {
		t.Errorf("judge error: result error %v, judgement %+v", r.Error, r.Judge)
	}

	j = &judgeFake{err: &schema.CallError{Type: schema.ErrConnection, Message: "too many open files", Local: true}}
	if r := call(j, context.Background(), question); r.Error == nil || !NotAResult(r, false) {
		t.Errorf("a judge call failing on this side left a result: error %v", r.Error)
	}

	ctx, cancel := context.WithCancel(context.Background())
	j = &judgeFake{err: &schema.CallError{Type: schema.ErrTimeout, Message: "context canceled"}, cancel: cancel}
	if r := call(j, ctx, question); r.Error == nil || !NotAResult(r, true) {
		t.Errorf("a judge call cut off by an interruption left a result: error %v, judgement %+v", r.Error, r.Judge)
	}
}

// WithJudges hands the judge the answer redacted, whatever caller made
// it: a bot (a replay of an old run, say) whose reply still holds the key
// double-encoded — JSON text escaping it inside the reply — sends the judge
// "[redacted]", never the key.
func TestWithJudgesRedactsTheAnswer(t *testing.T) {
	const key = "sk-proj-Ab3+De/Fg9_Hi-Jk7Lm0Qr"
	question := &schema.Case{ID: "s/3", Script: "s", Turn: 3, Text: "我住在哪个城市？", Fact: "我住在北京。", Expected: "北京"}
	for _, answer := range []string{
		`{"key":"sk\u002Dproj\u002DAb3\u002BDe\u002FFg9\u005FHi\u002DJk7Lm0Qr"}`,
		"北京，密钥 " + key,
	} {
		bot := &judgeFake{answer: answer}
		j := &judgeFake{answer: "entailment"}
		sc := &schema.Script{ID: "s", Turns: []*schema.Case{question}}
		sess, err := WithJudges(bot, NewRedactor([]string{key}), func(*schema.Case) Caller { return j }).Open(context.Background(), sc)
		if err != nil {
			t.Fatal(err)
		}
		sess.Call(context.Background(), question, nil)
		sess.Close()
		if len(j.seen) != 1 {
			t.Fatalf("the judge was called %d times", len(j.seen))
		}
		if sent := j.seen[0].Answer; strings.Contains(sent, "proj") || !strings.Contains(sent, Redacted) {
			t.Errorf("the judge was sent %q for the answer %q", sent, answer)
		}
	}
}
