package targets

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// replayKind answers from an earlier results file: the recorded response
// of the same case id, or else of the same utterance text. It lets a suite
// be re-run offline against what a service once answered.
//
//	replay {
//	  source = "runs/0301/results.jsonl" # relative to the suite file
//	}
type replayKind struct{}

var replaySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "source", Required: true}},
}

// replayConfig is the results file a replay target answers from.
type replayConfig struct{ Source string }

func (replayKind) Name() string { return "replay" }

func (replayKind) Decode(d *spec.TargetDecoder) (any, bool) {
	c, ok := d.Content(d.Block, replaySchema)
	if !ok {
		return nil, false
	}
	// What it replays may hold dialogue state (a rasa tracker's).
	d.Target.State = true
	// The results file may be written by a run to come: validate refuses
	// a path the rules forbid, not a missing one.
	return &replayConfig{Source: d.File(c.Attributes, "source", "replay results file", spec.MaxDataBytes, false)}, true
}

func (replayKind) NewCaller(_ context.Context, b *Build) (runner.Caller, error) {
	t, src := b.Target, b.Target.Config.(*replayConfig).Source
	rc := &replayCaller{target: t, source: src, red: b.Redactor, byID: map[string]*schema.Result{}, byText: map[string]*schema.Result{}}
	f, err := b.Suite.Access.Open("", src, spec.MaxDataBytes)
	if err != nil {
		return nil, fmt.Errorf("replay target %q: %s", t.Name, spec.FileError(err))
	}
	defer f.Close()
	err = runner.ReadResultsFrom(f, src, func(r *schema.Result) error {
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

type replayCaller struct {
	target *spec.Target
	source string
	red    *runner.Redactor
	byID   map[string]*schema.Result
	byText map[string]*schema.Result
}

func (rc *replayCaller) Preflight(context.Context) error {
	if len(rc.byID) == 0 {
		return fmt.Errorf("replay target %q: %s holds no results", rc.target.Name, rc.source)
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
		r.Error = &schema.CallError{Type: schema.ErrRequest, Message: fmt.Sprintf("no recorded response for this case in %s", rc.source)}
		r.Outcome = schema.Error
		return r
	}
	r.Request, r.Status, r.Headers, r.Response, r.Body, r.Reply = rec.Request, rec.Status, rec.Headers, rec.Response, rec.Body, rec.Reply
	r.LatencyMS, r.Attempts, r.Started, r.Error = rec.LatencyMS, rec.Attempts, rec.Started, rec.Error
	// The file may come from a version of nlutest that redacted fewer
	// forms, or from a run without this suite's secrets: what is replayed
	// is redacted as a live answer is.
	r.Response = json.RawMessage(rc.red.JSON(r.Response))
	if len(rec.State) > 0 {
		r.State = json.RawMessage(rc.red.JSON(rec.State))
	}
	r.Body, r.Reply = rc.red.String(r.Body), rc.red.String(r.Reply)
	if r.Error != nil {
		e := *r.Error
		e.Message = rc.red.String(e.Message)
		r.Error = &e
	}
	return r
}

func (rc *replayCaller) Open(context.Context, *schema.Script) (runner.Session, error) {
	return runner.Stateless(rc), nil
}

func (rc *replayCaller) Close() {}
