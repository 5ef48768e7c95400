package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// suites/booking-dialogue runs green against the demo's booking bot
// (acceptance 4 of issue 13), and its task completion is the hand count:
// a conversation is completed unless it corrects the destination (the bot
// then forgets the date) or says a date the bot misreads (大后天, "next
// friday") — the bot's two documented weaknesses (docs/demo.md).
func TestBookingDialogueSuite(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "suites", "booking-dialogue"), dir)
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run)
	if code != ExitPass {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
	}
	f, err := os.Open(filepath.Join(run, runner.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type conv struct {
		source  string
		turns   int
		misread bool
	}
	convs := map[string]*conv{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r schema.Result
		if err := r.UnmarshalJSON(sc.Bytes()); err != nil {
			t.Fatal(err)
		}
		c := convs[r.Conversation]
		if c == nil {
			c = &conv{source: r.Source}
			convs[r.Conversation] = c
		}
		c.turns++
		c.misread = c.misread || strings.Contains(r.Text, "大后天") || strings.Contains(r.Text, "next friday")
		if r.Reply == "" || r.Error != nil {
			t.Errorf("turn %s/%d: reply %q, error %v", r.Script, r.Turn, r.Reply, r.Error)
		}
	}
	completed := 0
	for _, c := range convs {
		if c.source != "改目的地" && !c.misread {
			completed++
		}
	}
	var d struct {
		Conversations int       `json:"conversations"`
		Completed     int       `json:"completed"`
		Task          ratioJSON `json:"task_completion"`
	}
	reportFamily(t, run, "dialogue", &d)
	if d.Conversations != len(convs) || d.Completed != completed || d.Task != (ratioJSON{float64(completed), float64(len(convs))}) {
		t.Errorf("metrics.dialogue %+v; hand count %d of %d conversations", d, completed, len(convs))
	}
	if completed == 0 || completed == len(convs) {
		t.Errorf("hand count %d of %d: the suite should show both completed and failed dialogues", completed, len(convs))
	}
}
