package main

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/targets"
	"github.com/nlutest/nlutest/schema"
)

var agreementCities = []string{"北京", "上海", "广州", "深圳", "成都", "杭州", "武汉", "西安", "南京", "重庆", "天津", "苏州"}

// The hand-made ratings: the judge's score and verdict per city (by rule
// in the fake judge) and people's. scikit-learn 1.2.1 (Debian's
// python3-sklearn) on them: cohen_kappa_score(judge, people) = 0.4642857
// and with weights="quadratic" 0.8648649 for the scores; 0.5 for the
// verdicts. Hand counts: 7 of 12 scores agree (judge 4 / people 3 once,
// judge 5 / people 5 and 4 once each); 9 of 12 verdicts (judge pass /
// people pass 5, pass / fail 2, fail / pass 1, fail / fail 4).
var (
	judgeScores   = []int{5, 4, 4, 3, 2, 1, 5, 3, 2, 4, 1, 3}
	peopleScores  = []int{5, 3, 4, 3, 1, 1, 4, 3, 3, 4, 2, 3}
	judgeVerdict  = []string{"pass", "pass", "fail", "pass", "fail", "fail", "pass", "pass", "fail", "pass", "fail", "pass"}
	peopleVerdict = []string{"pass", "fail", "fail", "pass", "fail", "pass", "pass", "pass", "fail", "pass", "fail", "fail"}
)

const agreementSuite = `
suite "天气" {}
variable "bot_url" {}
variable "judge_url" {}
target "bot" {
  openai {
    url   = "${var.bot_url}/v1"
    model = "bot"
  }
}
target "llm-judge" {
  openai {
    url   = "${var.judge_url}/v1"
    model = "judge"
  }
  judge {}
}
materials "城市" {
  values = ["北京", "上海", "广州", "深圳", "成都", "杭州", "武汉", "西安", "南京", "重庆", "天津", "苏州"]
}
template "天气" {
  text = "{城市}的天气怎么样？"
  rubric "helpful" {
    judge    = "llm-judge"
    criteria = "The reply gives the weather."
    pass     = "score >= 4"
  }
  rubric "polite" {
    judge    = "llm-judge"
    criteria = "The reply is polite."
  }
}
`

// Acceptance (issue 22 item 8): `judge agreement` reproduces
// scikit-learn's cohen_kappa_score on a hand-made sheet to 4 decimals —
// unweighted and quadratic-weighted for a scored rubric, unweighted for a
// pass/fail one — with the confusion table, in console, Markdown and
// JSON; memory agreement keeps working (TestMemoryScoreByDistance).
func TestJudgeAgreementKappa(t *testing.T) {
	cityOf := func(s string) int {
		for i, c := range agreementCities {
			if strings.Contains(s, c) {
				return i
			}
		}
		return -1
	}
	bot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string }
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		openaiAnswer(w, "晴，"+req.Messages[len(req.Messages)-1].Content)
	}))
	defer bot.Close()
	judge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string }
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		i := cityOf(req.Messages[1].Content)
		if req.Messages[0].Content == targets.RubricScoreSystemPrompt {
			openaiAnswer(w, string(rune('0'+judgeScores[i])))
			return
		}
		openaiAnswer(w, judgeVerdict[i])
	}))
	defer judge.Close()
	dir := writeSuite(t, agreementSuite)
	run := filepath.Join(dir, "run")
	if code, out, errs := runCLI(t, dir, nil, "run", dir, "--target", "bot", "--var", "bot_url="+bot.URL, "--var", "judge_url="+judge.URL, "--out", run); code != ExitFail {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	ids := make([]string, len(agreementCities))
	err := runner.ReadResults(filepath.Join(run, "results.jsonl"), func(r *schema.Result) error {
		ids[cityOf(r.Text)] = r.ID
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	scores := "id,rubric,score\n"
	verdicts := "id,verdict,note\n"
	for i, id := range ids {
		scores += id + ",helpful," + string(rune('0'+peopleScores[i])) + "\n"
		verdicts += id + "," + peopleVerdict[i] + ",人工\n"
	}
	scores += ids[0] + ",polite,5\n" + "no-such-id,helpful,3\n" + ids[1] + ",helpful,\n" // another rubric, unmatched, not rated yet
	sp, vp := filepath.Join(dir, "scores.csv"), filepath.Join(dir, "verdicts.csv")
	_ = os.WriteFile(sp, []byte(scores), 0o644)
	_ = os.WriteFile(vp, []byte(verdicts), 0o644)

	code, out, errs := runCLI(t, dir, nil, "judge", "agreement", run, "--ratings", sp, "--rubric", "helpful", "--format", "json")
	var ag schema.Agreement
	if code != ExitPass || json.Unmarshal([]byte(out), &ag) != nil {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	near := func(k *float64, want float64) bool { return k != nil && math.Abs(*k-want) < 5e-5 }
	if ag.Rubric != "helpful" || !ag.Scored || ag.Items != 12 || ag.Unmatched != 1 || ag.Agreed != 7 ||
		!near(ag.Kappa, 0.4643) || !near(ag.QuadraticKappa, 0.8649) || ag.Table[3][2] != 1 || ag.Table[4][4] != 1 || ag.Table[4][3] != 1 {
		t.Errorf("scores: %s", out)
	}
	_, out, _ = runCLI(t, dir, nil, "judge", "agreement", run, "--ratings", sp, "--rubric", "helpful")
	for _, want := range []string{`Agreement of the rubric judge "helpful" (llm-judge) with people: 12 replies rated`, "cohen_kappa_quadratic", "0.8649", "0.4643", "judge \\ people"} {
		if !strings.Contains(out, want) {
			t.Errorf("console lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runCLI(t, dir, nil, "judge", "agreement", run, "--ratings", vp, "--rubric", "polite", "--format", "markdown")
	if code != ExitPass || !strings.Contains(out, `| cohen\_kappa | 0.5000 |`) || strings.Contains(out, "quadratic") || !strings.Contains(out, "| pass | 5 | 2 |") {
		t.Errorf("verdicts, markdown: exit %d\n%s%s", code, out, errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ratings", sp}, `the run has the rubrics "helpful", "polite"; name the one`},
		{[]string{"--ratings", vp}, `the run has the rubrics "helpful", "polite"; name the one`},
		{[]string{"--ratings", vp, "--rubric", "nope"}, `the run has no verdicts of rubric "nope"`},
		{[]string{"--ratings", sp, "--rubric", "polite"}, `rubric "polite" gives pass or fail, not scores`},
		{[]string{"--ratings", vp, "--rubric", "polite", "--format", "xml"}, "--format takes console, markdown or json"},
	} {
		code, out, errs := runCLI(t, dir, nil, append([]string{"judge", "agreement", run}, c.args...)...)
		if code != ExitInvalid || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s%s", c.args, code, c.want, out, errs)
		}
	}
	bad := filepath.Join(dir, "bad.csv")
	_ = os.WriteFile(bad, []byte("id,score\n"+ids[0]+",六\n"), 0o644)
	if code, _, errs := runCLI(t, dir, nil, "judge", "agreement", run, "--ratings", bad, "--rubric", "helpful"); code != ExitInvalid || !strings.Contains(errs, `bad.csv:2:`) || !strings.Contains(errs, `"六" is not a score`) {
		t.Errorf("a bad score: exit %d\n%s", code, errs)
	}
}
