package runner

import (
	"context"
	"strings"

	"github.com/nlutest/nlutest/schema"
)

// WithUserSimulators returns caller with LLM user simulation added (SPEC
// §14.6): after the bot answers a scenario turn that carries a UserSim
// (and the scenario is not Done), the session asks the simulator target
// simFor names for the next user turn — a case carrying schema.SimInput:
// the turn's system prompt and the conversation with roles flipped (the
// bot's replies are "user" messages, the simulated user's turns
// "assistant") — and records its call in the result's Simulator. The
// script's Next reads the next turn from it. A simulator call that fails
// (an error of its own, or an empty answer) is the turn's error
// (schema.ErrSimulator), so the scenario stops; one cut off by an
// interruption or failing on this side makes the turn not a result
// (NotAResult), so --resume asks again. An answer over
// MaxSimulatedTurnBytes is not recorded and is the turn's error too. The
// bot's replies go to the simulator through red (the suite's redactor), as
// to a judge. Each request after a scenario's first is recorded by what it
// adds to the previous one (schema.Request's BodyFromPrevious), so the
// records grow with the scenario's length, not with its square.
func WithUserSimulators(caller Caller, red *Redactor, simFor func(name string) Caller) Caller {
	return &simulatingCaller{Caller: caller, red: red, simFor: simFor}
}

type simulatingCaller struct {
	Caller
	red    *Redactor
	simFor func(string) Caller
}

func (c *simulatingCaller) Open(ctx context.Context, s *schema.Script) (Session, error) {
	sess, err := c.Caller.Open(ctx, s)
	if err != nil {
		return nil, err
	}
	return &simulatingSession{Session: sess, red: c.red, simFor: c.simFor}, nil
}

type simulatingSession struct {
	Session
	red    *Redactor
	simFor func(string) Caller
	// prevBody is the whole body of the session's last simulator request
	// as recorded (redacted), which the next one's record refers to.
	prevBody string
}

func (s *simulatingSession) Call(ctx context.Context, turn *schema.Case, history []schema.Message) *schema.Result {
	r := s.Session.Call(ctx, turn, history)
	us := turn.UserSim
	if us == nil || r.Error != nil || (us.Done != nil && us.Done(r)) {
		return r
	}
	sim := s.simFor(us.Target)
	if sim == nil {
		return r
	}
	reply := r.Reply
	if reply == "" {
		reply = schema.ReplyOf(r.Response)
	}
	msgs := make([]schema.Message, 0, len(history)+2)
	for _, m := range history {
		msgs = append(msgs, schema.Message{Role: flipRole(m.Role), Content: s.red.String(m.Content)})
	}
	if turn.Event != schema.EventStart {
		msgs = append(msgs, schema.Message{Role: "assistant", Content: turn.Text})
	}
	msgs = append(msgs, schema.Message{Role: "user", Content: s.red.String(reply)})
	sc := *turn
	sc.History, sc.Captures, sc.UserSim, sc.Agenda = nil, nil, nil, nil
	sc.Simulate = &schema.SimInput{System: us.System, Messages: msgs}
	j, cerr := judgeCall(ctx, sim, &sc, "simulating the user: ")
	if cerr != nil {
		r.Error = cerr
		return r
	}
	s.recordRequest(j)
	capSimulatedTurn(j)
	r.Simulator = j
	switch {
	case j.Error != nil:
		r.Error = &schema.CallError{Type: schema.ErrSimulator, Message: "simulating the user: " + j.Error.Message}
	case strings.TrimSpace(j.Reply) == "":
		r.Error = &schema.CallError{Type: schema.ErrSimulator, Message: "simulating the user: the simulator target " + us.Target + " answered nothing"}
	}
	return r
}

// flipRole is a message's role as the simulated user sees it.
func flipRole(role string) string {
	if role == "user" {
		return "assistant"
	}
	return "user"
}

// recordRequest makes the recorded body of simulator call j what it adds
// to the session's previous simulator request: the bytes the two bodies
// begin with are counted in BodyFromPrevious, not repeated.
func (s *simulatingSession) recordRequest(j *schema.Judgement) {
	if j.Request == nil {
		return
	}
	full := j.Request.Body
	if k := sharedPrefix(s.prevBody, full); k > 0 {
		q := *j.Request
		q.BodyFromPrevious, q.Body = k, full[k:]
		j.Request = &q
	}
	s.prevBody = full
}

// Unwrap is the session this one wraps (runner.readFinalState).
func (s *simulatingSession) Unwrap() Session { return s.Session }
