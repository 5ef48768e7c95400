package runner

import (
	"context"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// RubricCall is one rubric a case is judged by (SPEC §14.5): its name,
// the judge target's caller, and a func building what the judge is sent
// from the case, its reply (redacted) and the conversation before it.
type RubricCall struct {
	Name  string
	Judge Caller
	Input func(c *schema.Case, reply string, history []schema.Message) *schema.JudgeInput
}

// WithRubrics returns caller with rubric judging added: after every call
// that did not fail, each rubric rubricsFor gives the case is asked about
// the reply — a case carrying the rubric's schema.JudgeInput, in a session
// of its own — and its call is recorded in the result's Rubrics, in
// order. An empty reply is not sent (the rubric's verdict is then
// unanswered, and Judge nil). As for memory judges (WithJudges), a judge
// call that fails on this side or is cut off by an interruption makes the
// turn not a result, so --resume asks again; a judge that answers with an
// error is recorded as such (the verdict is unparseable). The reply and
// the history reach the judge through red, the suite's redactor.
func WithRubrics(caller Caller, red *Redactor, rubricsFor func(*schema.Case) []RubricCall) Caller {
	return &rubricCaller{Caller: caller, red: red, rubricsFor: rubricsFor}
}

type rubricCaller struct {
	Caller
	red        *Redactor
	rubricsFor func(*schema.Case) []RubricCall
}

func (j *rubricCaller) Open(ctx context.Context, s *schema.Script) (Session, error) {
	sess, err := j.Caller.Open(ctx, s)
	if err != nil {
		return nil, err
	}
	return &rubricSession{Session: sess, c: j}, nil
}

type rubricSession struct {
	Session
	c *rubricCaller
}

func (s *rubricSession) Call(ctx context.Context, turn *schema.Case, history []schema.Message) *schema.Result {
	r := s.Session.Call(ctx, turn, history)
	if r.Error != nil {
		return r
	}
	rubrics := s.c.rubricsFor(turn)
	if len(rubrics) == 0 {
		return r
	}
	reply := r.Reply
	if reply == "" {
		reply = schema.ReplyOf(r.Response)
	}
	reply = s.c.red.String(reply)
	var hist []schema.Message
	for _, m := range history {
		hist = append(hist, schema.Message{Role: m.Role, Content: s.c.red.String(m.Content)})
	}
	for _, rb := range rubrics {
		v := schema.RubricVerdict{Name: rb.Name, Verdict: schema.Unanswered}
		if strings.TrimSpace(reply) != "" {
			jc := *turn
			jc.History, jc.Captures = nil, nil
			jc.Judge = rb.Input(turn, reply, hist)
			j, cerr := judgeCall(ctx, rb.Judge, &jc, "judging the reply by rubric "+rb.Name+": ")
			if cerr != nil {
				r.Error = cerr
				return r
			}
			capJudgeAnswer(j)
			v.Judge, v.Verdict = j, ""
		}
		r.Rubrics = append(r.Rubrics, v)
	}
	return r
}

// judgeCall calls judge with jc and returns its judgement; a call error on
// this side or under an interruption is returned instead, its message
// prefixed, to become the turn's error.
func judgeCall(ctx context.Context, judge Caller, jc *schema.Case, prefix string) (*schema.Judgement, *schema.CallError) {
	jr := CallOne(ctx, judge, jc)
	if jr.Error != nil && (jr.Error.Local || ctx.Err() != nil) {
		e := *jr.Error
		e.Message = prefix + e.Message
		return nil, &e
	}
	return schema.JudgementOf(jr), nil
}

// Unwrap is the session this one wraps (runner.readFinalState).
func (s *rubricSession) Unwrap() Session { return s.Session }
