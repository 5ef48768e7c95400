package schema

import (
	"encoding/json"
	"testing"
	"time"
)

// iaoResultLine is a typical result record: the IAO case with its call,
// a 1 KiB-class response and the recorded outcome.
func iaoResultLine(b *testing.B) []byte {
	c := iaoCase()
	c.Source, c.SourceKind = c.Template, KindTemplate
	r := &Result{Case: *c, Target: "demo", Status: 200, LatencyMS: 12.5, Attempts: 1,
		Started:  time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC),
		Request:  &Request{Method: "POST", URL: "http://127.0.0.1:9/iao", Body: `{"text":"查询13301791708的网吧同上网人员"}`},
		Headers:  map[string]string{"Content-Type": "application/json"},
		Response: json.RawMessage(`{"code":200,"data":[{"content_op":"查询","content":{"ont":"SIM_Card","des":{"phone_number":"13301791708"},"rel":[{"ont":["SIM_Card","Person"],"relName":"使用人","rel":[{"intentPro":["entity"],"ont":["Person","Person"],"relName":"网吧同上网","behavior":[{"category":"伴随分析"}],"des":{"intent":["full"]}}]}]}}],"msg":"ok"}`),
		Outcome:  Pass,
	}
	line, err := EncodeLine(r)
	if err != nil {
		b.Fatal(err)
	}
	return line
}

// BenchmarkDecodeForEval reads a result record as `nlutest eval` does for
// each of a million results (the case fields wait in Deferred).
func BenchmarkDecodeForEval(b *testing.B) {
	line := iaoResultLine(b)
	var r Result
	var rest Deferred
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if err := r.DecodeForEval(line, &rest); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeResult reads a whole result record (DecodeForEval, then
// the deferred case fields), as eval does for a case it cannot rebuild.
func BenchmarkDecodeResult(b *testing.B) {
	line := iaoResultLine(b)
	var r Result
	var rest Deferred
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if err := r.DecodeForEval(line, &rest); err != nil {
			b.Fatal(err)
		}
		if err := rest.DecodeCase(&r.Case); err != nil {
			b.Fatal(err)
		}
	}
}
