package demo

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// TestVariantFlaky: a flaky variant answers a close call's runner-up on
// even repetitions only, and leaves a clear call and a call outside
// --repeat (repetition 0) alone.
func TestVariantFlaky(t *testing.T) {
	v := Variant{Flaky: true}
	for _, tc := range []struct {
		text string
		want string // the intents of repetitions 0, 1 … 5
	}{
		// book_flight and book_train tie at 0.1954 (weakness 8).
		{"帮我订去北京的票", "book_flight book_flight book_train book_flight book_train book_flight"},
		{"book a ticket", "book_flight book_flight book_train book_flight book_train book_flight"},
		// 0.2850 against 0.2042: a gap of 0.08, above FlakyMargin.
		{"查一下航班", "ask_flight_status ask_flight_status ask_flight_status ask_flight_status ask_flight_status ask_flight_status"},
		{"帮我订一张明天去北京的机票", "book_flight book_flight book_flight book_flight book_flight book_flight"},
	} {
		var got []string
		for r := 0; r <= 5; r++ {
			p := v.Parse(tc.text, r)
			if p.Intent != p.IntentRanking[0] {
				t.Errorf("%q repeat %d: intent %v is not the ranking's first %v", tc.text, r, p.Intent, p.IntentRanking[0])
			}
			got = append(got, p.Intent.Name)
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%q: repetitions 0–5 answer\n %s, want\n %s", tc.text, g, tc.want)
		}
		if p, base := v.Parse(tc.text, 2), Parse(tc.text); len(p.IntentRanking) != len(base.IntentRanking) || !reflect.DeepEqual(p.Entities, base.Entities) {
			t.Errorf("%q: the flaky answer changed more than the order of the top two: %+v", tc.text, p)
		}
	}
	if !reflect.DeepEqual(Variant{}.Parse("帮我订去北京的票", 2), Parse("帮我订去北京的票")) {
		t.Error("the zero Variant is not the demo NLU as it is")
	}
}

// TestVariantDegrade: degrade answers nlu_fallback with no entities for
// about its share of inputs, the same ones every time; a larger share
// keeps the smaller one's inputs; another seed picks others.
func TestVariantDegrade(t *testing.T) {
	var texts []string
	for i := range 2000 {
		texts = append(texts, fmt.Sprintf("帮我订一张明天去北京的机票 %d", i))
	}
	hit := func(v Variant) map[string]bool {
		out := map[string]bool{}
		for _, s := range texts {
			p := v.Parse(s, 0)
			if p.Intent.Name == IntentFallback {
				if len(p.Entities) != 0 || p.Text != s {
					t.Fatalf("a degraded answer keeps entities or loses its text: %+v", p)
				}
				out[s] = true
			}
		}
		return out
	}
	small, large, other := hit(Variant{Degrade: 0.02}), hit(Variant{Degrade: 0.2}), hit(Variant{Degrade: 0.2, Seed: "v2"})
	// 2,000 × 0.02 = 40 and 2,000 × 0.2 = 400, within 4 binomial standard deviations.
	if len(small) < 40-4*7 || len(small) > 40+4*7 || len(large) < 400-4*18 || len(large) > 400+4*18 || len(other) < 400-4*18 || len(other) > 400+4*18 {
		t.Errorf("degraded %d, %d and %d of 2,000, want about 40, 400 and 400", len(small), len(large), len(other))
	}
	for s := range small {
		if !large[s] {
			t.Errorf("%q is degraded at 0.02 but not at 0.2", s)
		}
	}
	same := 0
	for s := range large {
		if other[s] {
			same++
		}
	}
	if same > 120 { // independent sets of 400 share about 80
		t.Errorf("seeds \"\" and v2 degrade %d of the same inputs; another seed should pick others", same)
	}
	if !reflect.DeepEqual(hit(Variant{Degrade: 0.2}), large) {
		t.Error("degrade is not deterministic")
	}
	if len(hit(Variant{Degrade: 1})) != len(texts) {
		t.Error("degrade = 1 leaves some inputs understood")
	}
	// The key is pinned: a change would silently change every suite's figures.
	if k := DegradeKey("", "帮我订一张明天去北京的机票"); k != DegradeKey("", "帮我订一张明天去北京的机票") || DegradeKey("a", "bc") == DegradeKey("ab", "c") {
		t.Errorf("DegradeKey does not separate the seed from the text")
	}
}

// TestVariantQuery: Query and ParseVariant agree; bad parameters are
// refused saying which.
func TestVariantQuery(t *testing.T) {
	for _, v := range []Variant{{}, {Degrade: 0.25}, {Degrade: 0.005, Seed: "发布 v3&x=1"}, {Flaky: true}, {Degrade: 1, Seed: "s", Flaky: true}} {
		q, err := url.ParseQuery(v.Query())
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseVariant(q)
		if err != nil || got != v {
			t.Errorf("%+v → %q → %+v, %v", v, v.Query(), got, err)
		}
	}
	for q, want := range map[string]string{
		"degrade=1.5":         "degrade=\"1.5\" must be a number from 0 to 1",
		"degrade=NaN":         "degrade=\"NaN\" must be a number from 0 to 1",
		"degrade=a":           "degrade=\"a\" must be a number from 0 to 1",
		"flaky=yes":           "flaky=\"yes\" must be true or false",
		"seed=a&seed=b":       "\"seed\" is given 2 times",
		"degarde=0.1":         "unknown query parameter \"degarde\"",
		"emulation_mode=rasa": "takes degrade, seed and flaky",
	} {
		vals, _ := url.ParseQuery(q)
		if _, err := ParseVariant(vals); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", q, err, want)
		}
	}
}

// TestVariantEndpoint: /model/parse reads the variant from its query and
// the repetition from "repeat"; a bad query or repeat is 400.
func TestVariantEndpoint(t *testing.T) {
	base := startServer(t)
	for _, tc := range []struct {
		query, body string
		status      int
		intent, err string
	}{
		{"", `{"text": "帮我订去北京的票", "repeat": 2}`, 200, "book_flight", ""},
		{"?flaky=true", `{"text": "帮我订去北京的票", "repeat": 2}`, 200, "book_train", ""},
		{"?flaky=true", `{"text": "帮我订去北京的票", "repeat": 3}`, 200, "book_flight", ""},
		{"?flaky=true", `{"text": "帮我订去北京的票"}`, 200, "book_flight", ""},
		{"?degrade=1", `{"text": "帮我订一张明天去北京的机票"}`, 200, "nlu_fallback", ""},
		{"?degrade=0", `{"text": "帮我订一张明天去北京的机票"}`, 200, "book_flight", ""},
		{"?flaky=true", `{"text": "订票", "repeat": -1}`, 400, "", `field "repeat" must be a whole number from 0`},
		{"?flaky=true", `{"text": "订票", "repeat": 1.5}`, 400, "", `field "repeat" must be a whole number from 0`},
		{"?flaky=true", `{"text": "订票", "repeat": "2"}`, 400, "", `field "repeat" must be a whole number from 0`},
		{"?flaky=true", `{"repeat": 2}`, 400, "", `missing field "text"`},
		{"?degrade=2", `{"text": "订票"}`, 400, "", `degrade="2" must be a number from 0 to 1`},
		{"?quality=low", `{"text": "订票"}`, 400, "", `unknown query parameter "quality"`},
	} {
		status, _, out := call(t, http.MethodPost, base+"/model/parse"+tc.query, tc.body)
		if status != tc.status {
			t.Errorf("%s %s: status %d, want %d (%v)", tc.query, tc.body, status, tc.status, out)
			continue
		}
		if tc.err != "" {
			if e, _ := out["error"].(string); !strings.Contains(e, tc.err) {
				t.Errorf("%s %s: error %q, want %q", tc.query, tc.body, e, tc.err)
			}
			continue
		}
		if in, _ := out["intent"].(map[string]any); in["name"] != tc.intent {
			t.Errorf("%s %s: intent %v, want %s", tc.query, tc.body, out["intent"], tc.intent)
		}
	}
}
