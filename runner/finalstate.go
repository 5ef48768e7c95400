package runner

import (
	"context"
	"fmt"

	"github.com/nlutest/nlutest/schema"
)

// FinalStater is a session that can read its script's final state (a
// final_state block, issue 37): the mock tools' recorded effects, or a
// state endpoint through the target's transport.
type FinalStater interface {
	FinalState(ctx context.Context, q *schema.FinalStateQuery, last *schema.Result) *schema.FinalState
}

// unwrapper is a session that wraps another (judges, simulators,
// rubrics): the runner asks the innermost for the final state.
type unwrapper interface{ Unwrap() Session }

// readFinalState reads the final state of the script whose last turn is
// r from sess, and records it on r.
func readFinalState(ctx context.Context, sess Session, q *schema.FinalStateQuery, r *schema.Result) {
	for {
		if fs, ok := sess.(FinalStater); ok {
			r.FinalState = fs.FinalState(ctx, q, r)
			return
		}
		u, ok := sess.(unwrapper)
		if !ok {
			break
		}
		sess = u.Unwrap()
	}
	from := "url"
	if q.Mocks {
		from = "mocks"
	}
	r.FinalState = &schema.FinalState{From: from, Error: &schema.CallError{Type: schema.ErrFinalState,
		Message: fmt.Sprintf("target %q cannot read a final state: its kind keeps no mock tools and makes no HTTP requests", r.Target)}}
}

// earlierTools keeps the names of a script's tool calls, for the turn
// that ends it (schema.Result.EarlierTools).
type earlierTools []string

// add appends the names of r's calls, up to MaxEarlierTools.
func (e *earlierTools) add(r *schema.Result) {
	for i := range r.ToolCalls {
		if len(*e) >= schema.MaxEarlierTools {
			return
		}
		*e = append(*e, r.ToolCalls[i].Name)
	}
}
