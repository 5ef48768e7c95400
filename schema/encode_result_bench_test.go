package schema

import (
	"encoding/json"
	"testing"
	"time"
)

// benchResult is a result as a live run against a Rasa service records
// it: a generated case with slots and two expectations, the request with
// its headers and body, the response headers and a 151-byte answer.
func benchResult() *Result {
	return &Result{
		Case: Case{
			ID: "8c1f0a9d3e7b2c44", Suite: "吞吐", Template: "订机票", Source: "订机票", SourceKind: KindTemplate,
			Text: "第123次订一张去北京的机票", Schema: "rasa",
			Slots: map[string]Slot{"话语": {Value: "第123次订一张去北京的机票", Tag: "话语", Source: "话语"}},
			Expect: Expectations{
				{Path: "$.intent.name", Value: "订机票"},
				{Path: "$.entities[?(@.entity == '城市')].value", Value: []any{"北京"}},
			},
		},
		Target: "本地",
		Request: &Request{Method: "POST", URL: "http://127.0.0.1:41234/model/parse",
			Headers: map[string]string{"Content-Type": "application/json", "User-Agent": "nlutest"},
			Body:    `{"text":"第123次订一张去北京的机票"}`},
		Status:    200,
		Headers:   map[string]string{"Content-Length": "151", "Content-Type": "application/json", "Date": "Wed, 02 Dec 2026 05:10:00 GMT"},
		Response:  json.RawMessage(`{"text":"订一张去北京的机票","intent":{"name":"订机票","confidence":0.97},"entities":[{"entity":"城市","value":"北京","start":4,"end":6}]}`),
		LatencyMS: 0.412,
		Attempts:  1,
		Started:   time.Date(2026, 12, 2, 5, 10, 0, 123456789, time.UTC),
		Outcome:   Pass,
	}
}

// BenchmarkAppendResultLine encodes a live run's result into a reused
// buffer, as the results writer does for every call.
func BenchmarkAppendResultLine(b *testing.B) {
	r := benchResult()
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = AppendResultLine(buf[:0], r); err != nil {
			b.Fatal(err)
		}
	}
}
