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
)

// confidenceSuite declares an intent dimension with a confidence, an
// out-of-scope label and a fallback threshold, over self-written Chinese
// utterances: five in scope, two expecting the out-of-scope label, three
// expecting no prediction (null), one answered without a confidence.
const confidenceSuite = `
suite "confidence" {
  schema = "nlu"
}

schema "nlu" {
  extends = "rasa"
  dimension "intent" {
    kind           = "label"
    path           = "$.intent.name"
    confidence     = "$.intent.confidence"
    min_confidence = 0.5
    out_of_scope   = "nlu_fallback"
  }
}

variable "url" {
  default = env("FAKE_URL", "http://127.0.0.1:9")
}

target "fake" {
  http {
    url    = "${var.url}/parse"
    method = "POST"
    body   = jsonencode({ text = case.text })
  }
}

dataset "utterances" {
  source = "cases.jsonl"
  id     = row.id
  text   = row.text
  expect = { "$.intent.name" = row.intent }
}

threshold "detection" {
  condition = metrics.oos.intent.auroc >= 0.7 && metrics.oos.intent.thresholds["0.5"].oos_recall >= 0.6
}

threshold "calibrated" {
  condition = metrics.calibration.intent.ece <= 0.5 && metrics.calibration.intent.mce < 0.7
}

threshold "one_class" {
  condition = metrics.split.in_scope.oos.intent.auroc >= 0.5
  severity  = "warn"
}

split "in_scope" { where = startswith(case.id, "a") }
`

// confidenceCases are the dataset's rows (intent null: out of scope, no
// prediction expected) and the fake's answers (name "" for none,
// confidence < 0 for no confidence).
var confidenceCases = []struct {
	id, text, intent, name string
	conf                   float64
}{
	{"a1", "我想订一张去北京的机票", "book_flight", "book_flight", 0.92},
	{"a2", "帮我订明天去上海的票", "book_flight", "book_flight", 0.55},
	{"a3", "明天北京天气怎么样", "weather", "weather", 0.88},
	{"a4", "上海会下雨吗", "weather", "book_flight", 0.70},
	{"a5", "后天深圳热不热", "weather", "weather", 0.40},
	{"a6", "订一张机票", "book_flight", "book_flight", -1},
	{"f1", "给我讲个笑话", "nlu_fallback", "nlu_fallback", 0.5},
	{"f2", "你叫什么名字", "nlu_fallback", "weather", 0.65},
	{"g1", "今天股市怎么样", "", "", 0},
	{"g2", "推荐一部电影", "", "book_flight", 0.45},
	{"g3", "教我做红烧肉", "", "weather", 0.9},
}

// The calibration and out-of-scope families end to end, against an
// httptest fake. Reference values: scikit-learn 1.2.1 roc_auc_score
// 0.72, average_precision_score 0.7416666666666667 and
// fpr[argmax(tpr >= 0.95)] 0.6 at 0.4 (roc_curve, drop_intermediate=False)
// on the in-scope scores [.92 .55 .88 .70 .40] against [0 .65 0 .45 .9]
// (the fallback label and no label score 0; a6 has no confidence and is
// left out); numpy on Guo et al.'s bins over the seven cases with an
// expected label and a confidence: ECE 0.4428571428571428, MCE 0.675,
// Brier 0.24939999999999998 (0.40 and 0.5, on edges, fall in the bins
// (0.3, 0.4] and (0.4, 0.5]). The null expectation is met by a fallback
// (g1: no intent; g2: 0.45 below min_confidence), not by g3's confident
// answer. A threshold over a node with one class only reads AUROC as no
// data (null), not 0.
func TestConfidenceFamilies(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text string }
		json.NewDecoder(r.Body).Decode(&req)
		intent := map[string]any{"name": nil, "confidence": 0}
		for _, c := range confidenceCases {
			if c.text != req.Text {
				continue
			}
			if c.name != "" {
				intent = map[string]any{"name": c.name}
				if c.conf >= 0 {
					intent["confidence"] = c.conf
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"text": req.Text, "intent": intent, "entities": []any{}})
	}))
	defer srv.Close()
	dir := t.TempDir()
	var rows strings.Builder
	for _, c := range confidenceCases {
		var intent any = c.intent
		if c.intent == "" {
			intent = nil
		}
		b, _ := json.Marshal(map[string]any{"id": c.id, "text": c.text, "intent": intent})
		rows.Write(append(b, '\n'))
	}
	for name, body := range map[string]string{"cases.jsonl": rows.String(), "confidence.nlutest.hcl": confidenceSuite} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := filepath.Join(dir, "run")
	html := filepath.Join(dir, "report.html")
	code, out, errs := runCLI(t, dir, map[string]string{"FAKE_URL": srv.URL}, "run", dir, "--out", run, "--report-html", html)
	if code != ExitPass {
		t.Fatalf("run: exit %d, want 0\n%s\n%s", code, out, errs)
	}
	var oos map[string]struct {
		InScope     int `json:"in_scope"`
		OutOfScope  int `json:"out_of_scope"`
		Auroc, Aupr *float64
		FPR         *float64 `json:"fpr_at_95_tpr"`
		Thr         *float64 `json:"threshold_at_95_tpr"`
		Thresholds  map[string]struct {
			InScopeAccuracy ratioJSON `json:"in_scope_accuracy"`
			OOSRecall       ratioJSON `json:"oos_recall"`
		}
	}
	reportFamily(t, run, "oos", &oos)
	o := oos["intent"]
	near := func(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-9 }
	if !near(o.Auroc, 0.72) || !near(o.Aupr, 0.7416666666666667) || !near(o.FPR, 0.6) || !near(o.Thr, 0.4) {
		t.Errorf("metrics.oos.intent: %+v; scikit-learn gives AUROC 0.72, AUPR 0.741667, FPR 0.6 at 0.4", o)
	}
	if th := o.Thresholds["0.5"]; th.InScopeAccuracy != (ratioJSON{3, 5}) || th.OOSRecall != (ratioJSON{3, 5}) {
		t.Errorf("at min_confidence 0.5: %+v, want in-scope accuracy 3/5 and out-of-scope recall 3/5", th)
	}
	var cal map[string]struct {
		Cases      int
		ECE, Brier ratioJSON
		MCE        *float64
		Bins       map[string]struct{ Cases int }
	}
	reportFamily(t, run, "calibration", &cal)
	c := cal["intent"]
	if c.Cases != 7 || math.Abs(c.ECE.Num/c.ECE.Den-0.4428571428571428) > 1e-6 || !near(c.MCE, 0.675) ||
		math.Abs(c.Brier.Num/c.Brier.Den-0.2494) > 1e-6 || len(c.Bins) != 10 || c.Bins["0.3-0.4"].Cases != 1 || c.Bins["0.4-0.5"].Cases != 1 {
		t.Errorf("metrics.calibration.intent: %+v; numpy gives ECE 0.442857, MCE 0.675, Brier 0.2494 over 7 cases", c)
	}
	report := readReportDoc(t, run)
	for _, g := range []struct {
		id      string
		outcome string
	}{{"g1", "pass"}, {"g2", "pass"}, {"g3", "fail"}} {
		if got := report.outcome(g.id); got != g.outcome {
			t.Errorf("case %s (expects null: no prediction): %s, want %s", g.id, got, g.outcome)
		}
	}
	oneClass := report.threshold("one_class")
	if oneClass.Outcome != "error" || !strings.Contains(oneClass.Error, "has no data") || len(oneClass.Observed) != 1 || oneClass.Observed[0].Value != nil {
		t.Errorf("a threshold on the AUROC of a node without out-of-scope cases: %+v, want no data (null)", oneClass)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`class="chart reliability"`, `class="chart roc"`, "Reliability diagram", "ROC curve", "Out-of-scope detection", "Fallback below each threshold"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
}

type reportDoc struct {
	Cases []struct {
		ID      string `json:"id"`
		Outcome string `json:"outcome"`
	} `json:"cases"`
	Thresholds []thresholdDoc `json:"thresholds"`
}

type thresholdDoc struct {
	Name     string `json:"name"`
	Outcome  string `json:"outcome"`
	Error    string `json:"error"`
	Observed []struct {
		Name  string   `json:"name"`
		Value *float64 `json:"value"`
	} `json:"observed"`
}

func readReportDoc(t *testing.T, run string) *reportDoc {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(run, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r reportDoc
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func (r *reportDoc) outcome(id string) string {
	for _, c := range r.Cases {
		if c.ID == id {
			return c.Outcome
		}
	}
	return ""
}

func (r *reportDoc) threshold(name string) thresholdDoc {
	for _, th := range r.Thresholds {
		if th.Name == name {
			return th
		}
	}
	return thresholdDoc{}
}
