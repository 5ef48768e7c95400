package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/schema"
)

// frac is r's numerator and denominator, without its interval: what
// tests of the figures themselves compare.
func frac(r schema.Ratio) schema.Ratio { return schema.Ratio{Num: r.Num, Den: r.Den} }

// quickstartWith writes the quickstart suite (against the embedded demo
// NLU) with extra blocks appended, and returns its directory.
func quickstartWith(t *testing.T, extra string) string {
	t.Helper()
	return writeSuite(t, quickstartSource(t)+extra)
}

// wilsonRef are statsmodels 0.13.5's proportion_confint(k, n,
// method="wilson") at alpha 0.05.
var wilsonRef = map[[2]float64][2]float64{
	{21, 30}: {0.5212421254128503, 0.833352517317562},
	{20, 20}: {0.8388748419471804, 0.9999999999999999},
	{24, 30}: {0.6269430358685175, 0.9049489282271013},
	{0, 30}:  {0.0, 0.1135133931739688},
	{30, 30}: {0.8864866068260311, 1.0},
	{14, 20}: {0.48102718164647645, 0.8545227551323957},
	{14, 14}: {0.7846891972623641, 0.9999999999999999},
}

func checkWilson(t *testing.T, what string, r schema.Ratio, k, n float64) {
	t.Helper()
	want, ok := wilsonRef[[2]float64{k, n}]
	if !ok {
		t.Fatalf("no reference for %v/%v", k, n)
	}
	lo, hi, has := r.CI()
	if r.Num != k || r.Den != n || !has || math.Abs(lo-want[0]) > 1e-9 || math.Abs(hi-want[1]) > 1e-9 {
		t.Errorf("%s: %v/%v [%v, %v] (interval %v), want %v/%v %v (statsmodels)", what, r.Num, r.Den, lo, hi, has, k, n, want)
	}
}

// TestIntervalsGateARealRun runs the quickstart suite against the demo
// NLU and checks the intervals of its report against statsmodels' Wilson
// intervals of the hand-counted figures: the demo knows neither 大理 nor
// 桂林 (3 cases of 冷门城市机票 miss their city) and reads 退订 as a
// booking (the 6 cases of 退订 get book_flight), so 21 of the 30 cases
// pass, the 20 of the smoke split (level S1) all pass, and 24 of the 30
// intents are right. A threshold on metrics.split.smoke.accuracy.ci_low
// passes (0.839 ≥ 0.8) where one on metrics.accuracy.ci_low fails
// (0.521 < 0.6), though accuracy itself (0.7) clears 0.6: the run exits
// 1, naming the bound as written. eval of the run gives the same metrics
// and intervals, byte for byte in report.json.
func TestIntervalsGateARealRun(t *testing.T) {
	dir := quickstartWith(t, `
threshold "冒烟有把握" {
  condition = metrics.split.smoke.accuracy.ci_low >= 0.8
}

threshold "总体有把握" {
  condition = metrics.accuracy.ci_low >= 0.6 && metrics.accuracy >= 0.6
  message   = "95 % sure that accuracy is at least 0.6"
}
`)
	run := filepath.Join(dir, "run")
	code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", run)
	if code != ExitFail {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitFail, out, errs)
	}
	r, err := pipeline.ReadReport(run)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Metrics
	checkWilson(t, "accuracy", m.Accuracy, 21, 30)
	checkWilson(t, "error_rate", m.ErrorRate, 0, 30)
	checkWilson(t, "smoke accuracy", m.Split["smoke"].Accuracy, 20, 20)
	checkWilson(t, "intent accuracy", m.Label["intent"].Accuracy, 24, 30)
	checkWilson(t, "intent top-k accuracy", m.Label["intent"].TopKAccuracy, 30, 30)
	checkWilson(t, "book_flight precision", m.Label["intent"].Labels["book_flight"].Precision, 14, 20)
	checkWilson(t, "book_flight recall", m.Label["intent"].Labels["book_flight"].Recall, 14, 14)
	if lo, hi, ok := m.Label["intent"].MacroF1.CI(); !ok || !(lo <= 0.705882353 && 0.705882353 <= hi) || lo == hi {
		t.Errorf("macro F1 0.706: bootstrap interval [%v, %v] (%v)", lo, hi, ok)
	}
	if r.Intervals == nil || r.Intervals.Confidence != 0.95 || r.Intervals.Resamples != 1000 || r.Intervals.Seed != 0x6e6c7574657374 {
		t.Errorf("report intervals: %+v", r.Intervals)
	}

	byName := map[string]schema.ThresholdResult{}
	for _, th := range r.Thresholds {
		byName[th.Name] = th
	}
	if th := byName["冒烟有把握"]; th.Outcome != schema.Pass || len(th.Observed) != 1 || th.Observed[0].Name != "metrics.split.smoke.accuracy.ci_low" ||
		math.Abs(*th.Observed[0].Value-0.8388748419471804) > 1e-9 || th.Observed[0].Num != nil {
		t.Errorf("smoke gate: %+v %s", th, observedJSON(th))
	}
	th := byName["总体有把握"]
	if th.Outcome != schema.Fail || len(th.Observed) != 2 {
		t.Fatalf("overall gate: %+v", th)
	}
	for _, ob := range th.Observed {
		switch ob.Name {
		case "metrics.accuracy.ci_low":
			if math.Abs(*ob.Value-0.5212421254128503) > 1e-9 {
				t.Errorf("observed bound %v", *ob.Value)
			}
		case "metrics.accuracy":
			if *ob.Value != 0.7 || *ob.Num != 21 || ob.CILow == nil || math.Abs(*ob.CIHigh-0.833352517317562) > 1e-9 {
				t.Errorf("observed accuracy %s", observedJSON(th))
			}
		default:
			t.Errorf("observed %q", ob.Name)
		}
	}
	if !strings.Contains(out, "metrics.accuracy.ci_low") || !strings.Contains(strings.Join(r.Verdict.Reasons, "\n"), "metrics.accuracy.ci_low = 0.5212") {
		t.Errorf("the console or the verdict does not name the bound as written:\n%s\n%v", out, r.Verdict.Reasons)
	}

	// eval recomputes the same figures and intervals from the results.
	code, out, errs = runCLI(t, dir, nil, "eval", run)
	if code != ExitFail {
		t.Fatalf("eval: exit %d\n%s%s", code, out, errs)
	}
	again, err := pipeline.ReadReport(run)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := metricsJSON(t, r), metricsJSON(t, again); a != b {
		t.Errorf("eval's metrics differ from run's:\n%s\n%s", a, b)
	}

	// The same gate lowered to what the run supports passes: exit 0.
	dir = quickstartWith(t, "\nthreshold \"总体有把握\" {\n  condition = metrics.accuracy.ci_low >= 0.5\n}\n")
	if code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", filepath.Join(dir, "run")); code != ExitPass {
		t.Errorf("ci_low >= 0.5: exit %d\n%s%s", code, out, errs)
	}
}

func observedJSON(th schema.ThresholdResult) string {
	b, _ := json.Marshal(th.Observed)
	return string(b)
}

// metricsJSON is the report's metrics and interval settings as JSON,
// without the latencies (which differ between two runs of the same
// cases: they are not what is compared).
func metricsJSON(t *testing.T, r *schema.Report) string {
	t.Helper()
	b, err := json.Marshal(struct {
		M *schema.Metrics
		I *schema.Intervals
	}{r.Metrics, r.Intervals})
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var strip func(v any)
	strip = func(v any) {
		if m, ok := v.(map[string]any); ok {
			delete(m, "latency")
			for _, x := range m {
				strip(x)
			}
		}
	}
	strip(v)
	b, _ = json.Marshal(v)
	return string(b)
}

// entitySuite gives a dimension F1 with a real spread: the entity list of
// every booking is expected whole, and the demo misses the cities it does
// not know (大理, 桂林, 拉萨 is known) while finding the others and the
// dates; its intents carry the label dimension's macro F1.
const entitySuite = `
suite "实体" {
  schema = "rasa"
}

target "demo" {
  demo {}
  concurrency = 3
}

materials "城市" {
  values = ["北京", "上海", "广州", "深圳", "成都", "杭州", "大理", "桂林", "拉萨"]
}

materials "日期" {
  values = ["明天", "后天", "下周一", "周五"]
}

template "订票" {
  text     = "{日期}去{城市}的机票"
  strategy = "product"
  expect = {
    "$.intent.name" = "book_flight"
    "$.entities"    = [{ entity = "date", value = "{日期}" }, { entity = "city", value = "{城市}" }]
  }
}

template "退订" {
  text     = "我要退订{日期}去{城市}的机票"
  strategy = "product"
  expect = {
    "$.intent.name" = "cancel_booking"
  }
}
`

// TestBootstrapIntervalsReproducible: a bootstrap interval (the entity
// dimension's F1 over cases, the intent's macro F1 over confusion cells)
// is the same from a run, from eval of it, and from two shards merged —
// the contributions' tallies merge whatever the order, and each statistic
// draws the stream of its address — and a statistics block's seed moves
// the bootstrap intervals and leaves Wilson's alone.
func TestBootstrapIntervalsReproducible(t *testing.T) {
	dir := writeSuite(t, entitySuite)
	whole := filepath.Join(dir, "whole")
	if code, out, errs := runCLI(t, dir, nil, "run", dir, "--out", whole); code == ExitInvalid || code == ExitCannotRun {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	var runs []string
	for _, sh := range []string{"1/2", "2/2"} {
		out := filepath.Join(dir, "shard"+sh[:1])
		runs = append(runs, out)
		if code, o, errs := runCLI(t, dir, nil, "run", dir, "--out", out, "--shard", sh); code == ExitInvalid || code == ExitCannotRun {
			t.Fatalf("shard %s: exit %d\n%s\n%s", sh, code, o, errs)
		}
	}
	merged := filepath.Join(dir, "merged")
	if code, o, errs := runCLI(t, dir, nil, append([]string{"merge", "--out", merged}, runs...)...); code == ExitInvalid || code == ExitCannotRun {
		t.Fatalf("merge: exit %d\n%s\n%s", code, o, errs)
	}
	read := func(run string) *schema.Report {
		r, err := pipeline.ReadReport(run)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	base := read(whole)
	f1 := base.Metrics.Dimension["entity"].F1
	lo, hi, ok := f1.CI()
	v, _ := f1.Value()
	if !ok || lo >= hi || v < lo || v > hi || f1.Den < 50 {
		t.Fatalf("entity F1 %v/%v: interval [%v, %v] %v", f1.Num, f1.Den, lo, hi, ok)
	}
	want := metricsJSON(t, base)
	if got := metricsJSON(t, read(merged)); got != want {
		t.Errorf("two shards merged give other metrics or intervals than one run:\n%s\n%s", got, want)
	}
	if code, o, errs := runCLI(t, dir, nil, "eval", whole); code == ExitInvalid || code == ExitCannotRun {
		t.Fatalf("eval: exit %d\n%s\n%s", code, o, errs)
	}
	if got := metricsJSON(t, read(whole)); got != want {
		t.Errorf("eval gives other metrics or intervals than run:\n%s\n%s", got, want)
	}

	// Another seed: other bootstrap draws, the same Wilson intervals.
	if err := os.WriteFile(filepath.Join(dir, "stats.nlutest.hcl"), []byte("statistics {\n  seed = 12345\n  resamples = 2000\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, o, errs := runCLI(t, dir, nil, "eval", whole); code == ExitInvalid || code == ExitCannotRun {
		t.Fatalf("eval with a seed: exit %d\n%s\n%s", code, o, errs)
	}
	seeded := read(whole)
	if seeded.Intervals.Seed != 12345 || seeded.Intervals.Resamples != 2000 {
		t.Errorf("intervals settings %+v", seeded.Intervals)
	}
	if seeded.Metrics.Dimension["entity"].F1 == f1 {
		t.Errorf("the seed did not change the F1's bootstrap interval %+v", f1)
	}
	if seeded.Metrics.Accuracy != base.Metrics.Accuracy {
		t.Errorf("the seed changed Wilson's interval: %+v, %+v", seeded.Metrics.Accuracy, base.Metrics.Accuracy)
	}
}

// textIntervals reads the intervals of metrics.text's ratios from a run's
// report.json.
func textIntervals(t *testing.T, run string) map[string][2]float64 {
	t.Helper()
	var text map[string]json.RawMessage
	reportFamily(t, run, "text", &text)
	out := map[string][2]float64{}
	for k, raw := range text {
		var r struct {
			Low  *float64 `json:"ci_low"`
			High *float64 `json:"ci_high"`
		}
		if json.Unmarshal(raw, &r) == nil && r.Low != nil && r.High != nil {
			out[k] = [2]float64{*r.Low, *r.High}
		}
	}
	return out
}
