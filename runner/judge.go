package runner

import (
	"context"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// WithJudges returns caller with judging added (SPEC §13, memory judges):
// after every call that answers a memory question (a turn with a Fact)
// whose judge judgeFor names, the session asks that judge target about the
// answer — a case carrying schema.JudgeInput, in a session of its own —
// and records its call in the result's Judge. Unanswered questions (an
// error, an empty reply) are not sent to the judge. A judge call that
// fails on this side or is cut off by an interruption makes the turn not
// a result (NotAResult), so --resume asks again. judgeFor returns nil for
// turns no target judges. The answer goes to the judge through red (the
// suite's redactor) whatever caller made it — a replay of results recorded
// before a form was redacted included: a judge is another service, and the
// bot's secrets must not reach it.
func WithJudges(caller Caller, red *Redactor, judgeFor func(*schema.Case) Caller) Caller {
	return &judgingCaller{Caller: caller, red: red, judgeFor: judgeFor}
}

type judgingCaller struct {
	Caller
	red      *Redactor
	judgeFor func(*schema.Case) Caller
}

func (j *judgingCaller) Open(ctx context.Context, s *schema.Script) (Session, error) {
	sess, err := j.Caller.Open(ctx, s)
	if err != nil {
		return nil, err
	}
	return &judgingSession{Session: sess, red: j.red, judgeFor: j.judgeFor}, nil
}

type judgingSession struct {
	Session
	red      *Redactor
	judgeFor func(*schema.Case) Caller
}

func (s *judgingSession) Call(ctx context.Context, turn *schema.Case, history []schema.Message) *schema.Result {
	r := s.Session.Call(ctx, turn, history)
	if r.Error != nil || turn.Fact == "" {
		return r
	}
	judge := s.judgeFor(turn)
	if judge == nil {
		return r
	}
	reply := r.Reply
	if reply == "" {
		reply = schema.ReplyOf(r.Response)
	}
	reply = s.red.String(reply)
	if strings.TrimSpace(reply) == "" {
		return r
	}
	jc := *turn
	jc.History, jc.Captures = nil, nil
	jc.Judge = &schema.JudgeInput{Fact: turn.Fact, Question: turn.Text, Answer: reply, Expect: turn.Expected}
	j, cerr := judgeCall(ctx, judge, &jc, "judging the answer: ")
	if cerr != nil {
		r.Error = cerr
		return r
	}
	capJudgeAnswer(j)
	r.Judge = j
	return r
}

// Unwrap is the session this one wraps (runner.readFinalState).
func (s *judgingSession) Unwrap() Session { return s.Session }
