package runner

import (
	"context"
	"fmt"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// replayCaller answers from an earlier results file: the recorded response
// of the same case id, or else of the same utterance text. It lets a suite
// be re-run offline against what a service once answered.
type replayCaller struct {
	target *spec.Target
	byID   map[string]*schema.Result
	byText map[string]*schema.Result
}

func newReplayCaller(t *spec.Target) (Caller, error) {
	rc := &replayCaller{target: t, byID: map[string]*schema.Result{}, byText: map[string]*schema.Result{}}
	err := ReadResults(t.ReplaySource, func(r *schema.Result) error {
		rc.byID[r.ID] = r
		if _, ok := rc.byText[r.Text]; !ok {
			rc.byText[r.Text] = r
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("replay target %q: %w", t.Name, err)
	}
	return rc, nil
}

func (rc *replayCaller) Preflight(context.Context) error {
	if len(rc.byID) == 0 {
		return fmt.Errorf("replay target %q: %s holds no results", rc.target.Name, rc.target.ReplaySource)
	}
	return nil
}

func (rc *replayCaller) Call(_ context.Context, c *schema.Case) *schema.Result {
	rec := rc.byID[c.ID]
	if rec == nil {
		rec = rc.byText[c.Text]
	}
	r := &schema.Result{Case: *c, Target: rc.target.Name}
	if rec == nil {
		r.Error = &schema.CallError{Type: schema.ErrRequest, Message: fmt.Sprintf("no recorded response for this case in %s", rc.target.ReplaySource)}
		r.Outcome = schema.Error
		return r
	}
	r.Request, r.Status, r.Headers, r.Response, r.Body = rec.Request, rec.Status, rec.Headers, rec.Response, rec.Body
	r.LatencyMS, r.Attempts, r.Started, r.Error = rec.LatencyMS, rec.Attempts, rec.Started, rec.Error
	return r
}

func (rc *replayCaller) Open(context.Context, *schema.Script) (Session, error) {
	return Stateless(rc), nil
}

func (rc *replayCaller) Close() {}
