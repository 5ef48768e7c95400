package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/targets"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// A test-only target kind, added as a new target kind is: this file and
// the one line in testExtensions (extensions_test.go). An echo target
// answers every turn itself, without a network, with the intent and
// confidence its block names and the turn's place in its session:
//
//	echo {
//	  intent     = "greet"
//	  confidence = 0.8     # optional, 0 to 1: without it the answer has none
//	}

type echoKind struct{}

var echoSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "intent", Required: true}, {Name: "confidence"}},
}

type echoConfig struct {
	intent     string
	confidence *float64
}

func (echoKind) Name() string { return "echo" }

func (echoKind) Decode(d *spec.TargetDecoder) (any, bool) {
	c, ok := d.Content(d.Block, echoSchema)
	if !ok {
		return nil, false
	}
	cfg := &echoConfig{intent: d.String(c.Attributes, "intent", "")}
	if _, ok := c.Attributes["confidence"]; ok {
		conf := d.Number(c.Attributes, "confidence", 0, 0, 1)
		cfg.confidence = &conf
	}
	return cfg, true
}

func (echoKind) NewCaller(_ context.Context, b *targets.Build) (runner.Caller, error) {
	return &echoCaller{name: b.Target.Name, cfg: b.Target.Config.(*echoConfig)}, nil
}

type echoCaller struct {
	name string
	cfg  *echoConfig
}

func (e *echoCaller) Preflight(context.Context) error { return nil }
func (e *echoCaller) Close()                          {}
func (e *echoCaller) Open(context.Context, *schema.Script) (runner.Session, error) {
	return &echoSession{e}, nil
}

// echoSession is stateful the simple way: it reports how many turns came
// before, from the history the runner hands it.
type echoSession struct{ c *echoCaller }

func (s *echoSession) Call(_ context.Context, turn *schema.Case, history []schema.Message) *schema.Result {
	intent := map[string]any{"name": s.c.cfg.intent}
	if s.c.cfg.confidence != nil {
		intent["confidence"] = *s.c.cfg.confidence
	}
	body, _ := json.Marshal(map[string]any{"text": turn.Text, "intent": intent, "turn": len(history) / 2})
	return &schema.Result{Case: *turn, Target: s.c.name, Started: time.Now().UTC(), Status: 200, Attempts: 1, Response: body}
}

func (s *echoSession) Close() {}

const echoSuite = `suite "回声" {}

materials "问候" {
  values = ["你好", "早上好", "晚安"]
}

template "打招呼" {
  text   = "{问候}"
  expect = { "$.intent.name" = "greet" }
}

target "回声" {
  echo {
    intent = "greet"
  }
}
`

func TestTestOnlyTargetKindEndToEnd(t *testing.T) {
	dir := writeSuite(t, echoSuite)
	run := filepath.Join(dir, "run")
	code, out, errs := runCLIWith(t, testExtensions(), dir, nil, "run", dir, "--out", run)
	if code != ExitPass || !strings.Contains(out, "3") {
		t.Fatalf("run against the echo target: exit %d, want 0\n%s\n%s", code, out, errs)
	}
	raw, err := os.ReadFile(filepath.Join(run, runner.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 3 {
		t.Fatalf("results.jsonl has %d results, want 3", len(lines))
	}
	var r schema.Result
	if err := r.UnmarshalJSON([]byte(lines[0])); err != nil {
		t.Fatal(err)
	}
	if r.Target != "回声" || !strings.Contains(string(r.Response), `"name":"greet"`) || !strings.Contains(string(r.Response), `"turn":0`) || r.Outcome != schema.Pass {
		t.Errorf("result record: target %q, response %s, outcome %v", r.Target, r.Response, r.Outcome)
	}
	if code, out, errs := runCLIWith(t, testExtensions(), dir, nil, "eval", run); code != ExitPass || !strings.Contains(out, "回声") {
		t.Errorf("eval of the echo run: exit %d, want 0\n%s\n%s", code, out, errs)
	}

	// The same answers fail a suite expecting another intent, on eval.
	other := strings.Replace(echoSuite, `"$.intent.name" = "greet"`, `"$.intent.name" = "farewell"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "suite.nlutest.hcl"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLIWith(t, testExtensions(), dir, nil, "eval", run); code != ExitFail {
		t.Errorf("eval expecting farewell: exit %d, want 1\n%s\n%s", code, out, errs)
	}
}

func TestTestOnlyTargetKindValidate(t *testing.T) {
	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"bad attribute", `intent = "greet"`, `intnet = "greet"`, []string{
			`Error: Unsupported argument`, `suite.nlutest.hcl:14:5:`, `Did you mean "intent"?`,
		}},
		{"wrong type", `intent = "greet"`, `intent = ["greet"]`, []string{
			`Error: Incorrect attribute value type`, `suite.nlutest.hcl:14:14:`,
		}},
		{"unknown kind", `echo {`, `ehco {`, []string{
			`Error: Unsupported block type`, `suite.nlutest.hcl:13:3:`, `Did you mean "echo"?`,
			`Error: Target kind required`, kindList(testExtensions().Targets),
		}},
		{"confidence out of range", `intent = "greet"`, `intent = "greet"
    confidence = 1.5`, []string{
			`Error: Value out of range`, `suite.nlutest.hcl:15:18:`, `The "confidence" attribute must be between 0 and 1; it is 1.5.`,
		}},
		{"confidence per case", `intent = "greet"`, `intent = "greet"
    confidence = length(case.text)`, []string{
			`Error: Name not available here`, `suite.nlutest.hcl:15:25:`, `In a "confidence" attribute you can use "var".`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSuite(t, strings.Replace(echoSuite, tc.from, tc.to, 1))
			code, _, errs := runCLIWith(t, testExtensions(), dir, nil, "validate", "--color", "never", dir)
			if code != ExitInvalid {
				t.Errorf("validate: exit %d, want %d\n%s", code, ExitInvalid, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("validate output lacks %q:\n%s", w, errs)
				}
			}
			// A misspelt required argument is one mistake, one diagnostic
			// (issue 28 item 5): not also "Missing required argument".
			if strings.Contains(errs, "Missing required argument") {
				t.Errorf("the misspelt argument is also reported missing:\n%s", errs)
			}
		})
	}
}

// kindList is how a message lists the kinds: "http { … }, rasa { … } or
// echo { … }."
func kindList(kinds []targets.Kind) string {
	var names []string
	for _, k := range kinds {
		names = append(names, k.Name()+" { … }")
	}
	return orList(names) + "."
}
