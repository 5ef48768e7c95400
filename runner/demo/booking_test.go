package demo

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// turn is one exchange of a transcript: what the user says, and what the
// bot's answer must hold.
type turn struct {
	say, replyHas, state, city, date string
	order                            bool
}

// The booking bot's dialogues, pinned turn by turn: the happy paths in
// both languages, and each documented weakness.
func TestBookingDialogues(t *testing.T) {
	for _, tc := range []struct {
		name  string
		turns []turn
	}{
		{"one message, then confirm", []turn{
			{say: "帮我订明天去北京的机票", replyHas: "确认吗", state: StateConfirm, city: "北京", date: "明天"},
			{say: "确认", replyHas: "订单号BK", state: StateBooked, city: "北京", date: "明天", order: true},
		}},
		{"asks for the city, then the date", []turn{
			{say: "我想订机票", replyHas: "哪个城市", state: StateAskCity},
			{say: "上海", replyHas: "哪天出发", state: StateAskDate, city: "上海"},
			{say: "后天", replyHas: "为您预订后天去上海的机票", state: StateConfirm, city: "上海", date: "后天"},
			{say: "好的", replyHas: "订单号", state: StateBooked, city: "上海", date: "后天", order: true},
		}},
		{"English", []turn{
			{say: "I want to book a flight", replyHas: "Which city", state: StateAskCity},
			{say: "Paris", replyHas: "What date", state: StateAskDate, city: "Paris"},
			{say: "tomorrow", replyHas: "Shall I book it?", state: StateConfirm, city: "Paris", date: "tomorrow"},
			{say: "yes", replyHas: "Your order number is BK", state: StateBooked, city: "Paris", date: "tomorrow", order: true},
		}},
		{"no, then a new date", []turn{
			{say: "订明天去杭州的机票", state: StateConfirm, city: "杭州", date: "明天"},
			{say: "不对", replyHas: "改成", state: StateChange, city: "杭州", date: "明天"},
			{say: "后天", state: StateConfirm, city: "杭州", date: "后天"},
		}},
		{"unknown absolute dates are asked again", []turn{
			{say: "去杭州的机票", state: StateAskDate, city: "杭州"},
			{say: "5月1日", replyHas: "哪天出发", state: StateAskDate, city: "杭州"},
		}},
		{"weakness 1: a corrected city drops the date", []turn{
			{say: "帮我订明天去广州的机票", state: StateConfirm, city: "广州", date: "明天"},
			{say: "改成深圳", replyHas: "哪天出发", state: StateAskDate, city: "深圳"},
			{say: "确认", state: StateAskDate, city: "深圳"},
		}},
		{"a session opened with 订张 asks for the date first, confirms it, asks for the destination", []turn{
			{say: "帮我订张机票", replyHas: "哪天出发", state: StateAskDate},
			{say: "后天", replyHas: "后天出发，对吗？", state: StateConfirmDate, date: "后天"},
			{say: "确认", replyHas: "目的地", state: StateAskCity, date: "后天"},
			{say: "去上海", replyHas: "确认吗", state: StateConfirm, city: "上海", date: "后天"},
			{say: "确认", replyHas: "订单号BK", state: StateBooked, city: "上海", date: "后天", order: true},
		}},
		{"a fixed city-first script misses the date-first session", []turn{
			{say: "帮我订张机票", state: StateAskDate},
			{say: "上海", replyHas: "哪天出发", state: StateAskDate, city: "上海"},
			{say: "明天", replyHas: "明天出发，对吗？", state: StateConfirmDate, city: "上海", date: "明天"},
			{say: "确认", replyHas: "确认吗", state: StateConfirm, city: "上海", date: "明天"},
		}},
		{"a date denied is asked again", []turn{
			{say: "订张机票", state: StateAskDate},
			{say: "明天", state: StateConfirmDate, date: "明天"},
			{say: "不对", replyHas: "哪天出发", state: StateAskDate},
		}},
		{"weakness 2: 大后天 is read as 后天", []turn{
			{say: "订大后天去成都的机票", replyHas: "后天去成都", state: StateConfirm, city: "成都", date: "后天"},
		}},
		{"weakness 2: next friday is read as friday", []turn{
			{say: "book a flight to London next friday", state: StateConfirm, city: "London", date: "friday"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &BookingSession{State: StateAskCity}
			for i, tt := range tc.turns {
				r := s.Step(tt.say)
				if !strings.Contains(r.Reply, tt.replyHas) || r.State != tt.state || r.Slots["city"] != tt.city || r.Slots["date"] != tt.date || (r.OrderID != "") != tt.order {
					t.Fatalf("turn %d %q: reply %q, state %s, slots %v, order %q; want reply with %q, state %s, city %q, date %q, order %v",
						i+1, tt.say, r.Reply, r.State, r.Slots, r.OrderID, tt.replyHas, tt.state, tt.city, tt.date, tt.order)
				}
				if tt.order && !strings.Contains(r.Reply, r.OrderID) {
					t.Errorf("the confirmation %q does not name the order %s", r.Reply, r.OrderID)
				}
			}
		})
	}
}

// Sessions are kept apart by id on the /booking endpoint, and the same
// dialogue gives the same order number.
func TestBookingEndpointSessions(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	say := func(session, text string) BookingReply {
		t.Helper()
		body, _ := json.Marshal(map[string]string{"session": session, "text": text})
		resp, err := http.Post(srv.URL+"/booking", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r BookingReply
		if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&r) != nil {
			t.Fatalf("status %d", resp.StatusCode)
		}
		return r
	}
	say("a", "我想订去北京的机票")
	say("b", "我想订去上海的机票")
	if r := say("a", "明天"); r.Slots["city"] != "北京" || r.Session != "a" {
		t.Errorf("session a: %+v", r)
	}
	if r := say("b", "明天"); r.Slots["city"] != "上海" {
		t.Errorf("session b: %+v", r)
	}
	ra, rb := say("a", "确认"), say("c", "确认")
	if ra.OrderID == "" || rb.OrderID != "" || rb.State != StateAskCity {
		t.Errorf("a confirmed: %+v; c (new) confirmed: %+v", ra, rb)
	}
	say("d", "我想订去北京的机票")
	say("d", "明天")
	if rd := say("d", "确认"); rd.OrderID != ra.OrderID {
		t.Errorf("the same booking gave orders %s and %s", ra.OrderID, rd.OrderID)
	}
	resp, err := http.Post(srv.URL+"/booking", "application/json", strings.NewReader(`{"text":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("no session: status %d, want 400", resp.StatusCode)
	}
}
