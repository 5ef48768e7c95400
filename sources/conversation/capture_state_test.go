package conversation

import (
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

const captureStateSuite = `
suite "s" {}
conversation "c" {
  turn {
    user    = "我想订去上海的票"
    capture = { city = "state:$.slots.城市", intent = "$.intent" }
  }
  turn {
    user = "明天出发"
  }
}
`

// A "state:" capture reads the turn's dialogue state, not its response
// (which here has the same member); on a turn without state it selects
// nothing and its failure says why.
func TestCaptureState(t *testing.T) {
	s := loadAnnotSuite(t, captureStateSuite)
	cs := s.CaseSources[0].(*conversationSource)
	for _, tc := range []struct {
		name, state string
		want        map[string]string
		fail        string
	}{
		{"state", `{"slots":{"城市":"北京"}}`, map[string]string{"city": "北京", "intent": "request_booking"}, ""},
		{"slot unset", `{"slots":{"城市":null}}`, map[string]string{"city": "null", "intent": "request_booking"}, ""},
		{"no state", ``, map[string]string{"intent": "request_booking"}, `capture "city": "state:$.slots.城市" selected nothing (the turn has no dialogue state`},
	} {
		r := &schema.Result{Case: schema.Case{Turn: 1}, Response: []byte(`{"intent":"request_booking","slots":{"城市":"上海"}}`), State: []byte(tc.state)}
		next := &schema.Case{Turn: 2}
		cs.capture(0, r, next)
		if len(next.Captures) != len(tc.want) {
			t.Errorf("%s: captures %v, want %v", tc.name, next.Captures, tc.want)
		}
		for k, v := range tc.want {
			if next.Captures[k] != v {
				t.Errorf("%s: capture %s = %q, want %q", tc.name, k, next.Captures[k], v)
			}
		}
		fails := cs.CaptureFailures(r)
		switch {
		case tc.fail == "" && len(fails) > 0:
			t.Errorf("%s: failures %+v", tc.name, fails)
		case tc.fail != "" && (len(fails) != 1 || !strings.HasPrefix(fails[0].Message, tc.fail) || fails[0].Line != 6):
			t.Errorf("%s: failures %+v, want one at line 6 starting %q", tc.name, fails, tc.fail)
		}
	}
}
