package assert

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/nlutest/nlutest/internal/cputime"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// BenchmarkToolChecks measures the tool-call checks of the first turn of
// toolsSuite's conversation (called, an exact sequence, args of
// book_flight) on three calls, and reports the time per call (issue 37
// asks for under 2 µs a call): "pass" when every check holds (two
// search_flights calls, then book_flight with the city, a sequence of
// in_order would hold… exact does not: see "fail"), "fail" with a call of
// another tool between (the sequence fails, its message is built). Run:
//
//	go test ./assert -run '^$' -bench ToolChecks -benchtime 200000x
func BenchmarkToolChecks(b *testing.B) {
	s := loadSuite(b, toolsSuite)
	ev := NewEvaluator(s)
	var turn *schema.Case
	_ = s.GenerateScripts(spec.GenOptions{}, func(sc *schema.Script) error {
		if turn == nil && len(sc.Turns) == 2 {
			turn = sc.Turns[0]
		}
		return nil
	})
	city := turn.Slots["城市"].Value
	search := schema.ToolCall{Step: 1, ID: "call_1", Name: "search_flights", Arguments: json.RawMessage(`{"city":"` + city + `","date":"明天"}`), Result: json.RawMessage(`{"flights":[{"id":"MU5101"}]}`)}
	other := schema.ToolCall{Step: 1, ID: "call_2", Name: "get_weather", Arguments: json.RawMessage(`{"city":"` + city + `","date":"明天"}`), Result: json.RawMessage(`{"weather":"晴"}`)}
	book := schema.ToolCall{Step: 2, ID: "call_3", Name: "book_flight", Arguments: json.RawMessage(`{"city":"` + city + `","date":"明天","flight_id":"MU5101"}`), Result: json.RawMessage(`{"order_id":"B-1"}`)}
	for _, bc := range []struct {
		name  string
		calls []schema.ToolCall
		fails int
	}{
		{"pass", []schema.ToolCall{search, book}, 0},
		{"fail", []schema.ToolCall{search, other, book}, 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := &schema.Result{Case: *turn, Response: json.RawMessage(`{}`), ToolCalls: bc.calls, ScriptTurns: 2}
			sc := ev.sourceOf(r)
			cpu0, cpuOK := cputime.Process()
			start := time.Now()
			for b.Loop() {
				r.Failures = r.Failures[:0]
				ev.toolChecks(r, sc)
			}
			if len(r.Failures) != bc.fails || r.Tools == nil {
				b.Fatalf("failures %+v, want %d", r.Failures, bc.fails)
			}
			calls := float64(b.N * len(bc.calls))
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/calls, "ns/call")
			if cpu1, ok := cputime.Process(); ok && cpuOK {
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/calls, "cpu-ns/call")
			}
		})
	}
}
