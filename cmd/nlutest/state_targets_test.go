package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/schema"
)

// stateTwoTargetsSuite reaches one Rasa bot (formRasa) through two
// targets: its REST channel with tracker = true, and the same channel as
// a plain http target, which reads no state. The conversation checks the
// reply and the dialogue state on each turn.
const stateTwoTargetsSuite = `
suite "订票两目标" {}

variable "url" {}
variable "rasa_token" { sensitive = true }

target "rasa" {
  rasa {
    url           = var.url
    mode          = "webhook"
    tracker       = true
    tracker_token = var.rasa_token
  }
}

target "网页" {
  http {
    url   = "${var.url}/webhooks/rest/webhook"
    body  = jsonencode({ sender = case.conversation, message = case.text })
    reply = response[0].text
  }
}

materials "城市" { values = ["上海", "北京"] }

conversation "订票" {
  turn {
    user    = "我想订去{城市}的票"
    expect  = { "state:$.slots.城市" = "{城市}", "state:$.active_loop.name" = "booking_form" }
    capture = { asked = "state:$.slots.requested_slot" }
    reply { contains = ["哪天出发"] }
  }
  turn {
    user = "明天出发"
    assert {
      condition = state.latest_action_name == "action_submit_booking"
      message   = "the form is submitted"
    }
    reply { contains = ["已为您预订明天"] }
  }
}
`

// Issue 35, minor: state: checks apply to the targets that record dialogue
// state. Run against both targets of stateTwoTargetsSuite, the rasa
// target checks them (4 turns pass); the http target, which records none,
// skips them — per instance 2 expectations and a capture on turn 1 and a
// condition on turn 2: 8 skips on 4 turns — passes on its reply checks,
// and its report and the comparison say what was skipped. At 0bdf656 the
// http target failed all 4 turns ("the turn has no dialogue state").
func TestStateChecksOnTargetsWithoutState(t *testing.T) {
	bot := &formRasa{sessions: map[string]*formState{}}
	srv := httptest.NewServer(bot)
	t.Cleanup(srv.Close)
	dir := writeSuite(t, stateTwoTargetsSuite)
	env := map[string]string{"NLUTEST_VAR_url": srv.URL, "NLUTEST_VAR_rasa_token": formToken}
	out := filepath.Join(dir, "run")
	md := filepath.Join(dir, "c.md")
	code, stdout, errs := runCLI(t, dir, env, "run", dir, "--target", "rasa", "--target", "网页", "--out", out, "--color", "never", "--report-markdown", md)
	if code != ExitPass {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, stdout, errs)
	}
	raw, err := os.ReadFile(filepath.Join(out, "comparison.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c schema.Comparison
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"rasa", "网页"} {
		if tg := c.Targets[i]; tg.Name != name || tg.Passed != 4 || tg.Failed != 0 || tg.Errored != 0 {
			t.Errorf("target %d: %s passed %d, failed %d, errored %d; want %s 4, 0, 0", i, tg.Name, tg.Passed, tg.Failed, tg.Errored, name)
		}
	}
	const note = `8 state checks on 4 turns were skipped: target "网页" records no dialogue state`
	if len(c.Targets[0].Warnings) != 0 || len(c.Targets[1].Warnings) != 1 || !strings.HasPrefix(c.Targets[1].Warnings[0], note) {
		t.Errorf("warnings: rasa %q, 网页 %q; want none and %q…", c.Targets[0].Warnings, c.Targets[1].Warnings, note)
	}
	mdText, _ := os.ReadFile(md)
	for name, text := range map[string]string{"the console": stdout, "Markdown": string(mdText)} {
		if !strings.Contains(text, "target 网页: "+note) {
			t.Errorf("%s lacks the note %q:\n%s", name, note, text)
		}
	}
	rep, err := pipeline.ReadReport(filepath.Join(out, "网页"))
	if err != nil || len(rep.Warnings) != 1 || !strings.HasPrefix(rep.Warnings[0], note) {
		t.Errorf("网页/report.json warnings %q (%v)", rep.Warnings, err)
	}
	// eval of the http target's run skips them the same way, offline.
	srv.Close()
	code, list, errs := runCLI(t, dir, env, "eval", filepath.Join(out, "网页"))
	if code != ExitPass || !strings.Contains(list, note) {
		t.Errorf("eval of 网页: exit %d\n%s%s", code, list, errs)
	}
}
