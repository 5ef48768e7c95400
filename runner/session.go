package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/nlutest/nlutest/schema"
)

// Caller calls one target. Each script runs in a session the caller opens
// for it; the caller itself holds what the sessions share (connections, a
// rate limiter, an in-process service).
type Caller interface {
	// Preflight checks that the target answers at all, before any script
	// runs; an error means the run cannot be done (exit 3).
	Preflight(ctx context.Context) error
	// Open starts the session of one script. An error ends the script: its
	// first turn is recorded with the error (see SessionError).
	Open(ctx context.Context, s *schema.Script) (Session, error)
	// Close releases connections and stops an in-process demo service.
	Close()
}

// Session runs the turns of one script, in order, from one goroutine.
type Session interface {
	// Call makes one logical call (retries included) for turn and returns
	// the result with the case, request, response, latency and any error
	// set. history holds the script's earlier turns: for each, the user's
	// message (the turn's text) and the assistant's (the result's Reply).
	// It is nil for a script's first turn.
	Call(ctx context.Context, turn *schema.Case, history []schema.Message) *schema.Result
	// Close ends the session once its last turn is done.
	Close()
}

// TurnCaller is a target that keeps no state between turns: its session
// makes each call on its own and ignores history.
type TurnCaller interface {
	Call(ctx context.Context, c *schema.Case) *schema.Result
}

// Stateless returns the session of a stateless target. For a pointer T it
// costs no allocation per script.
func Stateless[T TurnCaller](c T) Session { return stateless[T]{c} }

type stateless[T TurnCaller] struct{ c T }

func (s stateless[T]) Call(ctx context.Context, turn *schema.Case, _ []schema.Message) *schema.Result {
	return s.c.Call(ctx, turn)
}

func (stateless[T]) Close() {}

// ErrSession is the error type of a turn whose session could not be opened.
const ErrSession = "SessionError"

// SessionError is the result recorded for the first turn of a script whose
// session did not open.
func SessionError(turn *schema.Case, err error) *schema.Result {
	return &schema.Result{
		Case: *turn, Started: time.Now().UTC(), Outcome: schema.Error,
		Error: &schema.CallError{Type: ErrSession, Message: err.Error()},
	}
}

// CallOne runs c as a script of one turn in its own session.
func CallOne(ctx context.Context, caller Caller, c *schema.Case) *schema.Result {
	s := schema.Single(c)
	sess, err := caller.Open(ctx, s)
	if err != nil {
		return SessionError(c, err)
	}
	defer sess.Close()
	return sess.Call(ctx, c, nil)
}

// NewSessionID returns a new session id for a run of the script with id
// scriptID: the script id and 8 random hex digits, so every run of a
// conversation (a re-run after an interruption, each --repeat) talks to the
// bot in a session of its own.
func NewSessionID(scriptID string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return scriptID + "-" + hex.EncodeToString(b[:])
}
