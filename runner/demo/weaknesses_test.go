package demo

// One test per known weakness listed in doc.go, so the documentation stays
// true. If a change fixes a weakness, its test fails: update doc.go and the
// suites that rely on the weakness, then the test.

import (
	"reflect"
	"testing"
)

func entitiesOf(r ParseResult, kind string) []Entity {
	var out []Entity
	for _, e := range r.Entities {
		if e.Entity == kind {
			out = append(out, e)
		}
	}
	return out
}

// Parse weakness 1.
func TestWeaknessNegationIgnored(t *testing.T) {
	for _, s := range []string{"不要订机票", "我不想订机票了", "don't book a flight to Paris"} {
		r := Parse(s)
		if r.Intent.Name != IntentBookFlight || r.Intent.Confidence < 0.7 {
			t.Errorf("%q: %v, want book_flight ≥ 0.7 (negation is ignored)", s, r.Intent)
		}
	}
}

// Parse weakness 2 (the IAO corpus-factory write-up: "我要退订机票" is taken as booking by keyword systems).
func TestWeaknessBookingKeywordInsideCancelWord(t *testing.T) {
	r := Parse("我要退订机票")
	if r.Intent.Name != IntentBookFlight {
		t.Errorf("我要退订机票: %v, want book_flight", r.Intent)
	}
	if r.IntentRanking[1].Name != IntentCancelBooking {
		t.Errorf("我要退订机票: runner-up %v, want cancel_booking", r.IntentRanking[1])
	}
	// The strong cancel words do win.
	for _, s := range []string{"取消我后天去深圳的火车票", "帮我退票", "cancel my hotel booking"} {
		if r := Parse(s); r.Intent.Name != IntentCancelBooking {
			t.Errorf("%q: %v, want cancel_booking", s, r.Intent)
		}
	}
}

// Parse weakness 3.
func TestWeaknessUnknownCities(t *testing.T) {
	for _, s := range []string{"去桂林的机票", "订一张去丽江的机票", "fly to Lisbon tomorrow"} {
		r := Parse(s)
		if c := entitiesOf(r, EntityCity); len(c) != 0 {
			t.Errorf("%q: cities %v, want none (not in the gazetteer)", s, c)
		}
		if r.Intent.Name != IntentBookFlight {
			t.Errorf("%q: intent %v, want book_flight (only the city is missed)", s, r.Intent)
		}
	}
	if n := len(cityPairs); n != 40 {
		t.Errorf("gazetteer has %d cities, doc says 40", n)
	}
}

// Parse weakness 4.
func TestWeaknessUnknownDates(t *testing.T) {
	for _, s := range []string{"5月1日飞成都", "周末去杭州", "礼拜一去上海", "book a hotel for this weekend", "fly to Paris on May 1st", "book a train in two days"} {
		if d := entitiesOf(Parse(s), EntityDate); len(d) != 0 {
			t.Errorf("%q: dates %v, want none", s, d)
		}
	}
	d := entitiesOf(Parse("下下周一去上海"), EntityDate)
	if len(d) != 1 || d[0].Value != "下周一" || d[0].Start != 1 || d[0].End != 4 || d[0].Normalized != "next_monday" {
		t.Errorf("下下周一: dates %+v, want 下周一 at 1-4 normalized next_monday", d)
	}
}

// Parse weakness 5.
func TestWeaknessCompoundChineseNumerals(t *testing.T) {
	n := entitiesOf(Parse("订十二张火车票"), EntityNumber)
	if len(n) != 1 || n[0].Value != "二" || n[0].Normalized != 2 || n[0].Start != 2 || n[0].Role != RoleTickets {
		t.Errorf("十二张: numbers %+v, want 二 (2) at 2-3", n)
	}
	n = entitiesOf(Parse("订12张火车票"), EntityNumber)
	if len(n) != 1 || n[0].Normalized != 12 {
		t.Errorf("12张: numbers %+v, want 12 (digits are fine)", n)
	}
}

// Parse weakness 6.
func TestWeaknessBusinessTrip(t *testing.T) {
	r := Parse("I'm going on a business trip to Shanghai")
	s := entitiesOf(r, EntitySeatClass)
	if len(s) != 1 || s[0].Value != "business" || s[0].Normalized != "business" {
		t.Errorf("seat classes %+v, want business", s)
	}
	if r.Intent.Name != IntentBookFlight {
		t.Errorf("intent %v, want book_flight", r.Intent)
	}
}

// Parse weakness 7.
func TestWeaknessShortInputsLowConfidence(t *testing.T) {
	tests := []struct {
		text   string
		intent string
		lo, hi float64
	}{
		{"你好", IntentGreet, 0.5, 0.56},
		{"hi", IntentGreet, 0.5, 0.56},
		{"谢谢", IntentThankYou, 0.6, 0.7},
		{"thank you", IntentThankYou, 0.6, 0.7},
		{"机票", IntentBookFlight, 0.4, 0.5},
		{"北京", IntentFallback, 0.1, 0.4},
		{"明天", IntentFallback, 0.1, 0.4},
	}
	for _, tc := range tests {
		r := Parse(tc.text)
		if r.Intent.Name != tc.intent || r.Intent.Confidence < tc.lo || r.Intent.Confidence > tc.hi {
			t.Errorf("%q: %v, want %s in [%.2f, %.2f]", tc.text, r.Intent, tc.intent, tc.lo, tc.hi)
		}
	}
	// The same intent with more words is confident.
	if r := Parse("你好呀，在吗"); r.Intent.Name != IntentGreet || r.Intent.Confidence < 0.8 {
		t.Errorf("你好呀，在吗: %v, want greet ≥ 0.8", r.Intent)
	}
}

// Parse weakness 8.
func TestWeaknessConfusableIntents(t *testing.T) {
	r := Parse("订票")
	if r.Intent.Name != IntentBookFlight || r.IntentRanking[1].Name != IntentBookTrain ||
		r.Intent.Confidence != r.IntentRanking[1].Confidence || r.Intent.Confidence >= 0.2 {
		t.Errorf("订票: ranking %v, want book_flight = book_train < 0.2", r.IntentRanking)
	}
	r = Parse("有去北京的航班吗？")
	if r.Intent.Name != IntentBookFlight || r.Intent.Confidence >= 0.5 {
		t.Errorf("有去北京的航班吗？: %v, want book_flight < 0.5", r.Intent)
	}
}

// Parse weakness 9.
func TestWeaknessTraditionalChinese(t *testing.T) {
	for _, s := range []string{"訂機票", "明天北京天氣怎麼樣"} {
		if r := Parse(s); r.Intent.Name != IntentFallback {
			t.Errorf("%q: %v, want nlu_fallback", s, r.Intent)
		}
	}
}

// Parse weakness 10.
func TestWeaknessNoSpellingTolerance(t *testing.T) {
	r := Parse("what's the wether in Paris")
	if r.Intent.Name == IntentCheckWeather {
		t.Errorf("wether: %v, want anything but check_weather", r.Intent)
	}
	if r := Parse("what's the weather in Paris"); r.Intent.Name != IntentCheckWeather {
		t.Errorf("weather: %v, want check_weather", r.Intent)
	}
}

// IAO weakness 1.
func TestWeaknessIAOPrefixedPhoneNumbers(t *testing.T) {
	for _, q := range []string{"查询+8613301791708的酒店同房间人员", "查询8613301791708的酒店同房间人员", "查询12301791708的酒店同房间人员"} {
		r := roundTrip(t, IAO(q))
		if m := get(t, r, "msg"); m != "未识别到手机号" {
			t.Errorf("%q: msg = %v", q, m)
		}
		if d := get(t, r, "data", 0, "content", "des"); !reflect.DeepEqual(d, map[string]any{}) {
			t.Errorf("%q: des = %v, want {}", q, d)
		}
		if n := get(t, r, "data", 0, "content", "rel", 0, "rel", 0, "relName"); n != "酒店同房间同宿" {
			t.Errorf("%q: relName = %v (the relation is still parsed)", q, n)
		}
	}
	r := roundTrip(t, IAO("查询身份证号110101900307851的同行人员"))
	if m := get(t, r, "msg"); m != "未识别到身份证号" {
		t.Errorf("15-digit identity number: msg = %v", m)
	}
}

// IAO weakness 2.
func TestWeaknessIAOUnknownRelation(t *testing.T) {
	for _, q := range []string{"查询13301791708的同乘大巴人员", "查询13301791708的同乘飞机人员"} {
		r := roundTrip(t, IAO(q))
		if n := get(t, r, "data", 0, "content", "rel", 0, "rel", 0, "relName"); n != "" {
			t.Errorf("%q: relName = %v, want \"\"", q, n)
		}
		if m := get(t, r, "msg"); m != "" {
			t.Errorf("%q: msg = %v, want \"\"", q, m)
		}
	}
}

// IAO weakness 3.
func TestWeaknessIAOOperationNotNormalised(t *testing.T) {
	tests := map[string]string{
		"检索13612349005的同行人员": "检索",
		"调取13612349005的同行人员": "调取",
		"13612349005的同行人员":   "",
		"搜索13612349005的同行人员": "查询",
	}
	for q, want := range tests {
		r := roundTrip(t, IAO(q))
		if op := get(t, r, "data", 0, "content_op"); op != want {
			t.Errorf("%q: content_op = %v, want %q", q, op, want)
		}
	}
}

// IAO weakness 4.
func TestWeaknessIAONoNumberNotUnderstood(t *testing.T) {
	for _, q := range []string{"查询张三的同行人员", "今天天气怎么样", ""} {
		r := roundTrip(t, IAO(q))
		if get(t, r, "msg") != "无法理解" || !reflect.DeepEqual(get(t, r, "data"), []any{}) || get(t, r, "code") != 200.0 {
			t.Errorf("%q: %v, want code 200, data [], msg 无法理解", q, r)
		}
	}
}
