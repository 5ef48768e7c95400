package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// suites/sentiment-evidence end to end: the built-in "sentiment" schema's
// interpretability score over its twelve Chinese reviews, once from the
// recorded answers (the default replay target, offline) and once against
// an httptest fake of a model (--target service) that answers the same.
// Hand-counted from the data: evidence precision 15/20 (a word returned
// that is not annotated is wrong), recall 15/24, F1 30/44; label accuracy
// 10/12; four reviews get both their label and their evidence right.
func TestSentimentEvidenceSuite(t *testing.T) {
	suite, _ := filepath.Abs(filepath.Join("..", "..", "suites", "sentiment-evidence"))
	answers := map[string]json.RawMessage{}
	f, err := os.Open(filepath.Join(suite, "recorded", "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			Text     string          `json:"text"`
			Response json.RawMessage `json:"response"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		answers[r.Text] = r.Response
	}
	f.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text string }
		json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		w.Write(answers[req.Text])
	}))
	defer srv.Close()
	dir := t.TempDir()
	for _, target := range []string{"model", "service"} {
		run := filepath.Join(dir, target)
		code, out, errs := runCLI(t, dir, map[string]string{"SENTIMENT_URL": srv.URL + "/sentiment"}, "run", suite, "--target", target, "--out", run, "--quiet")
		if code != ExitPass {
			t.Fatalf("%s: exit %d, want 0\n%s\n%s", target, code, out, errs)
		}
		var dims map[string]struct {
			Expected, Recognized, Correct int
			F1                            ratioJSON
		}
		reportFamily(t, run, "dimension", &dims)
		if e := dims["evidence"]; e.Expected != 24 || e.Recognized != 20 || e.Correct != 15 || e.F1 != (ratioJSON{30, 44}) {
			t.Errorf("%s: evidence %+v, want 24 annotated, 20 returned, 15 right, F1 30/44", target, e)
		}
		var labels map[string]struct{ Accuracy ratioJSON }
		reportFamily(t, run, "label", &labels)
		if a := labels["sentiment"].Accuracy; a != (ratioJSON{10, 12}) {
			t.Errorf("%s: sentiment accuracy %v, want 10/12", target, a)
		}
		if r := readReportDoc(t, run); r.outcome("r01") != "pass" || r.outcome("r02") != "fail" {
			t.Errorf("%s: r01 %s, r02 %s; want pass (label and evidence right), fail (one evidence word wrong)", target, r.outcome("r01"), r.outcome("r02"))
		}
	}
}
