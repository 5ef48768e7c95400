package targets

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/demo"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// demoKind starts the embedded reference service (runner/demo) on
// 127.0.0.1 and calls it: endpoint "rasa" (travel intents and entities,
// the default), "iao" (the IAO corpus-factory write-up's IAO relation queries) or "booking" (the
// stateful booking bot: {"session": case.conversation, "text": …}, reply =
// response.reply), "memory" (a bot that remembers what it is told for
// demo.MemoryTurns turns; the same request and reply as booking) or "nli"
// (a toy judge of memory answers, for a target with a judge block:
// {"premise": judge.fact, "hypothesis": judge.answer, "expect":
// judge.expect} → {"label": …}) or "agent" (the tool-using agent of
// POST /v1/chat/completions, offered the suite's tool blocks and answered
// by them, as an openai target is: openai_tools.go). The rasa endpoint
// also takes the quality knobs of demo.Variant: degrade (the share of
// inputs answered nlu_fallback), seed (which ones) and flaky (close calls
// answer the runner-up on even repetitions; the request then carries the
// case's repetition as "repeat").
//
//	demo {
//	  endpoint = "iao"
//	}
type demoKind struct{}

var demoSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "endpoint"}, {Name: "degrade"}, {Name: "seed"}, {Name: "flaky"}},
}

type demoConfig struct {
	Endpoint string
	Variant  demo.Variant
}

func (demoKind) Name() string { return "demo" }

func (demoKind) Decode(d *spec.TargetDecoder) (any, bool) {
	c, _ := d.Content(d.Block, demoSchema)
	ep := d.String(c.Attributes, "endpoint", "rasa")
	if ep != "rasa" && ep != "iao" && ep != "booking" && ep != "memory" && ep != "nli" && ep != "agent" {
		d.Errorf(c.Attributes["endpoint"].Expr.Range().Ptr(), "Unknown demo endpoint", "The demo target serves \"rasa\" (travel intents and entities), \"iao\" (the IAO corpus-factory write-up's IAO relation queries), \"booking\" (a stateful booking bot), \"memory\" (a bot with a bounded memory), \"nli\" (a toy judge of memory answers, for a target with a judge block) and \"agent\" (a tool-using agent over the chat-completions API); %q is none of them.", ep)
	}
	if ep == "agent" {
		d.RefuseBotFirst("the demo's agent answers user messages over the chat-completions API, which has no welcome. Leave this conversation out of the run (--filter).")
	}
	v := demo.Variant{
		Degrade: d.Number(c.Attributes, "degrade", 0, 0, 1),
		Seed:    d.String(c.Attributes, "seed", ""),
		Flaky:   d.Bool(c.Attributes, "flaky", false),
	}
	if ep != "rasa" {
		for _, name := range []string{"degrade", "seed", "flaky"} {
			if a, ok := c.Attributes[name]; ok {
				d.Errorf(a.NameRange.Ptr(), "Quality knob of the rasa endpoint", "degrade, seed and flaky set how well the demo's rasa endpoint (/model/parse) answers; the %q endpoint has no such knob. Remove %s, or use endpoint = \"rasa\".", ep, name)
			}
		}
	}
	return &demoConfig{Endpoint: ep, Variant: v}, true
}

func (demoKind) NewCaller(ctx context.Context, b *Build) (runner.Caller, error) {
	cfg := b.Target.Config.(*demoConfig)
	ep := cfg.Endpoint
	// The service outlives an interrupt: calls in flight finish against
	// it, and the caller's Close stops it.
	base, stop, err := demo.Start(context.WithoutCancel(ctx))
	if err != nil {
		return nil, fmt.Errorf("starting the demo service: %w", err)
	}
	hc, err := newHTTPCaller(b, ep, nil)
	if err != nil {
		stop()
		return nil, err
	}
	hc.stop = stop
	hc.health = base + "/health"
	hc.method = http.MethodPost
	hc.headers = http.Header{"Content-Type": {"application/json"}}
	switch ep {
	case "iao":
		hc.url = base + "/iao"
		hc.fixedBody = textBody("query")
	case "booking", "memory":
		hc.url = base + "/" + ep
		hc.fixedBody = bookingBody
		hc.decode = bookingReply
	case "nli":
		hc.url = base + "/nli"
		hc.fixedBody = nliBody
	case "agent":
		hc.url = base + "/v1/chat/completions"
		prefix := openaiPrefix(demo.AgentModel)
		hc.fixedBody = func(c *schema.Case, history []schema.Message) ([]byte, error) {
			return openaiBody(prefix, "", history, c.Text, nil, ""), nil
		}
		hc.withHistory, hc.decode = true, openaiDecode
		hc.tools = newToolAgent(b.Suite, b.Suite.ToolOrder, DefaultMaxToolSteps, prefix, "", nil, openaiSession{}, openaiDecode)
	default:
		hc.url = base + "/model/parse"
		hc.fixedBody = textBody("text")
		if q := cfg.Variant.Query(); q != "" {
			hc.url += "?" + q
		}
		if cfg.Variant.Flaky {
			hc.fixedBody = repeatBody
		}
	}
	return hc, nil
}

// bookingBody is {"session": …, "text": …}, with "event": "start" on a
// bot-first turn: the session is the conversation's id; a single case gets
// a session of its own.
func bookingBody(c *schema.Case, _ []schema.Message) ([]byte, error) {
	sess := c.Conversation
	if sess == "" {
		sess = runner.NewSessionID(c.ID)
	}
	return json.Marshal(struct {
		Session string `json:"session"`
		Text    string `json:"text"`
		Event   string `json:"event,omitempty"`
	}{sess, c.Text, c.Event})
}

// nliBody is the toy judge's request: {"premise": judge.fact, "hypothesis":
// judge.answer, "expect": judge.expect}; a case that is not a judge
// request sends its text as the hypothesis.
func nliBody(c *schema.Case, _ []schema.Message) ([]byte, error) {
	j := c.Judge
	if j == nil {
		j = &schema.JudgeInput{Answer: c.Text}
	}
	return json.Marshal(demo.NLIRequest{Premise: j.Fact, Hypothesis: j.Answer, Expect: j.Expect})
}

// bookingReply reads the booking bot's reply member.
func bookingReply(r *schema.Result, _ *hcl.EvalContext) error {
	var a struct {
		Reply string `json:"reply"`
	}
	if err := json.Unmarshal(r.Response, &a); err != nil {
		return err
	}
	r.Reply = a.Reply
	return nil
}

// repeatBody is {"text": …, "repeat": …}: the case's repetition under
// --repeat N (0 without), which a flaky demo.Variant answers by.
func repeatBody(c *schema.Case, _ []schema.Message) ([]byte, error) {
	return json.Marshal(struct {
		Text   string `json:"text"`
		Repeat int    `json:"repeat"`
	}{c.Text, c.Repeat})
}
