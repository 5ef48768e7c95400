package targets

import (
	"testing"

	"github.com/nlutest/nlutest/spec"
)

// A simulator request carries the simulator block's max_tokens after the
// target's params, unless it is 0 or the params bound the answer
// themselves (max_tokens, or OpenAI's newer max_completion_tokens).
func TestOpenAISimParams(t *testing.T) {
	sim := &spec.TargetSimulator{MaxTokens: 256}
	for _, tc := range []struct {
		params string
		sim    *spec.TargetSimulator
		want   string
	}{
		{``, sim, `"max_tokens":256`},
		{`"temperature":0`, sim, `"temperature":0,"max_tokens":256`},
		{`"max_tokens":64,"temperature":0`, sim, `"max_tokens":64,"temperature":0`},
		{`"max_completion_tokens":64`, sim, `"max_completion_tokens":64`},
		{`"temperature":0`, &spec.TargetSimulator{}, `"temperature":0`},
		{`"temperature":0`, nil, `"temperature":0`},
	} {
		params := []byte(tc.params)
		if got := string(openaiSimParams(params, tc.sim)); got != tc.want {
			t.Errorf("params %s, simulator %+v: %s, want %s", tc.params, tc.sim, got, tc.want)
		}
		if string(params) != tc.params {
			t.Errorf("params %s changed to %s", tc.params, params)
		}
	}
}
