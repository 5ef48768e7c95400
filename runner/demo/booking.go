package demo

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
)

// Booking states: what the bot waits for after its reply.
const (
	StateAskCity = "ask_city" // no destination yet
	StateAskDate = "ask_date" // a destination, no date
	StateConfirm = "confirm"  // both: waiting for yes or no
	StateBooked  = "booked"   // an order was made
	StateChange  = "change"   // the user said no: waiting for the change
	// StateConfirmDate: a date-first session confirms the date on its own.
	StateConfirmDate = "confirm_date"
)

// BookingSession is the whole state the booking bot keeps for one
// session (one sender): the slots filled so far, what it asked last and
// the order once made. It is deliberately small and explicit, one value
// per session id.
type BookingSession struct {
	// City and Date are the slots as the bot understood them: the text as
	// written (Date after a misreading, see weakness 2) and the normalized
	// value ("Beijing", "tomorrow").
	City, CityNorm string
	Date, DateNorm string
	// State is what the bot asked last (a State* constant).
	State string
	// Order is the order number once booked.
	Order string
	// DateFirst marks a session opened with "订张…" (帮我订张机票): the
	// bot asks for the date first, confirms the date on its own
	// (DateChecked once affirmed) and asks for the city in other words
	// (目的地). The variation a simulated user must follow and a fixed
	// script misses; every other session is as before.
	DateFirst, DateChecked bool
	// steps counts the messages of the session.
	steps int
}

// BookingReply is the body of a /booking response.
type BookingReply struct {
	// Session echoes the request's session id.
	Session string `json:"session"`
	// Intent is what the bot made of the message: book_flight, inform
	// (a city or date), affirm, deny, greet, goodbye, thank_you or
	// nlu_fallback.
	Intent string `json:"intent"`
	// Slots are the filled slots as written: city and date (absent until
	// filled).
	Slots map[string]string `json:"slots"`
	// Normalized are the same slots' canonical values.
	Normalized map[string]string `json:"normalized"`
	// State is what the bot waits for now.
	State string `json:"state"`
	// OrderID is set once booked.
	OrderID string `json:"order_id,omitempty"`
	// Reply is the bot's answer, in the language of the message.
	Reply string `json:"reply"`
}

// newBookingBot serves /booking: one BookingSession per session id; a
// start event (a bot-first turn) is answered with BookingWelcome.
func newBookingBot() *sessionBot[*BookingSession] {
	b := newSessionBot(func() *BookingSession { return &BookingSession{State: StateAskCity} },
		func(s *BookingSession, session, text string) any {
			out := s.Step(text)
			out.Session = session
			return out
		})
	b.welcome = func(s *BookingSession, session string) any {
		out := s.reply(IntentSessionStart, true)
		out.Session, out.Reply = session, BookingWelcome
		return out
	}
	return b
}

// IntentSessionStart is the booking bot's intent on a start event.
const IntentSessionStart = "session_start"

// BookingWelcome is the booking bot's answer to a start event (a
// conversation whose first turn is the bot's).
const BookingWelcome = "您好，欢迎使用订票助手！请问您要去哪里？Welcome! Where would you like to fly?"

var (
	affirmWords = []string{"确认", "是的", "对的", "好的", "可以", "没问题", "确定", "yes", "yeah", "confirm", "ok", "okay", "sure", "correct"}
	denyWords   = []string{"不对", "不是", "不要", "错了", "取消", "no", "nope", "wrong", "cancel"}
)

// hasWord reports whether the message is, or starts with, one of words
// (English case-insensitively, as whole words).
func hasWord(msg string, words []string) bool {
	m := strings.ToLower(strings.TrimSpace(msg))
	m = strings.TrimRightFunc(m, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
	for _, w := range words {
		if m == w {
			return true
		}
		if strings.HasPrefix(m, w) {
			rest := []rune(m[len(w):])
			if len(rest) > 0 && (!isASCIIAlnum(rest[0]) || w[0] >= 0x80) {
				return true
			}
		}
	}
	return false
}

// Step takes one user message and returns the bot's answer, updating s.
func (s *BookingSession) Step(msg string) BookingReply {
	zh := isChinese(msg)
	p := Parse(msg)
	intent := p.Intent.Name
	city, cityNorm, date, dateNorm := slotsOf(p, zh)
	s.steps++
	if s.steps == 1 && zh && city == "" && date == "" && strings.Contains(msg, "订张") {
		s.DateFirst, s.State = true, StateAskDate
	}
	if s.State == StateConfirmDate && city == "" && date == "" {
		return s.stepDateCheck(msg, zh)
	}
	switch {
	case s.State == StateConfirm && hasWord(msg, affirmWords) && city == "" && date == "":
		intent = IntentAffirm
		s.State = StateBooked
		s.Order = orderNumber(s)
		return s.reply(intent, zh)
	case hasWord(msg, denyWords) && city == "" && date == "" && s.State == StateConfirm:
		intent = IntentDeny
		s.State = StateChange
		return s.reply(intent, zh)
	}
	if city == "" && date == "" {
		return s.reply(intent, zh)
	}
	if intent == IntentFallback {
		intent = IntentInform
	}
	if city != "" {
		if s.City != "" && cityNorm != s.CityNorm {
			// Weakness 1: a corrected destination drops the date.
			s.Date, s.DateNorm = "", ""
		}
		s.City, s.CityNorm = city, cityNorm
	}
	if date != "" {
		s.Date, s.DateNorm = date, dateNorm
	}
	s.Order = ""
	s.State = s.next()
	return s.reply(intent, zh)
}

// slotsOf reads the city (the destination when there are several) and
// the date (as the bot misreads it) of a parse.
func slotsOf(p ParseResult, zh bool) (city, cityNorm, date, dateNorm string) {
	for _, e := range p.Entities {
		switch e.Entity {
		case EntityCity:
			if city == "" || e.Role == "destination" {
				city, cityNorm = e.Value, normString(e.Normalized)
			}
		case EntityDate:
			date, dateNorm = misreadDate(e.Value, normString(e.Normalized), zh)
		}
	}
	return city, cityNorm, date, dateNorm
}

// next is what the bot asks for once the slots are updated.
func (s *BookingSession) next() string {
	switch {
	case s.DateFirst && s.Date == "":
		return StateAskDate
	case s.DateFirst && !s.DateChecked:
		return StateConfirmDate
	case s.City == "":
		return StateAskCity
	case s.Date == "":
		return StateAskDate
	}
	return StateConfirm
}

// stepDateCheck answers a date-first session's message while the bot
// waits for the date to be confirmed: yes goes on, no asks again.
func (s *BookingSession) stepDateCheck(msg string, zh bool) BookingReply {
	switch {
	case hasWord(msg, affirmWords):
		s.DateChecked = true
		s.State = s.next()
		return s.reply(IntentAffirm, zh)
	case hasWord(msg, denyWords):
		s.Date, s.DateNorm = "", ""
		s.State = StateAskDate
		return s.reply(IntentInform, zh)
	}
	return s.reply(IntentFallback, zh)
}

// Intents the booking bot adds to the NLU's.
const (
	IntentInform = "inform"
	IntentAffirm = "affirm"
	IntentDeny   = "deny"
)

func normString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

func isChinese(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// misreadDate is weakness 2: 大后天 (in three days) is read as 后天 (the
// day after tomorrow), and "next <weekday>" as this week's day.
func misreadDate(value, norm string, zh bool) (string, string) {
	switch {
	case norm == "in_3_days":
		if zh {
			return "后天", "day_after_tomorrow"
		}
		return "the day after tomorrow", "day_after_tomorrow"
	case strings.HasPrefix(norm, "next_") && !zh:
		day := strings.TrimPrefix(norm, "next_")
		return day, day
	}
	return value, norm
}

// orderNumber is the order number of a booking: BK and 6 characters
// derived from the session's slots, so the same dialogue always gets the
// same number.
func orderNumber(s *BookingSession) string {
	h := sha256.Sum256([]byte(s.CityNorm + "\x00" + s.DateNorm))
	return "BK" + strings.ToUpper(hex.EncodeToString(h[:3]))
}

// reply builds the answer for the session's state.
func (s *BookingSession) reply(intent string, zh bool) BookingReply {
	out := BookingReply{Intent: intent, State: s.State, OrderID: s.Order, Slots: map[string]string{}, Normalized: map[string]string{}}
	if s.City != "" {
		out.Slots["city"], out.Normalized["city"] = s.City, s.CityNorm
	}
	if s.Date != "" {
		out.Slots["date"], out.Normalized["date"] = s.Date, s.DateNorm
	}
	out.Reply = s.text(intent, zh)
	return out
}

func (s *BookingSession) text(intent string, zh bool) string {
	pick := func(z, e string) string {
		if zh {
			return z
		}
		return e
	}
	switch {
	case intent == IntentDeny:
		return pick("好的，请问要改成哪个城市或哪天？", "All right, which city or date should I change it to?")
	case s.State == StateBooked && intent == IntentAffirm:
		return pick("已为您预订"+s.Date+"去"+s.City+"的机票，订单号"+s.Order+"。",
			"Booked: a flight to "+s.City+", "+s.Date+". Your order number is "+s.Order+".")
	case s.State == StateBooked:
		return pick("您的订单号是"+s.Order+"。还有什么可以帮您？", "Your order number is "+s.Order+". Anything else?")
	case intent == IntentGreet:
		return pick("您好！我可以帮您订机票，请问您要去哪里？", "Hello! I can book you a flight. Where would you like to go?")
	case intent == IntentGoodbye || intent == IntentThankYou:
		return pick("不客气，再见！", "You're welcome. Goodbye!")
	case s.State == StateConfirm:
		return pick("为您预订"+s.Date+"去"+s.City+"的机票，确认吗？", "A flight to "+s.City+", "+s.Date+". Shall I book it?")
	case s.State == StateConfirmDate:
		return s.Date + "出发，对吗？"
	case s.DateFirst && s.State == StateAskCity:
		return "好的。请问您的目的地是？"
	case s.State == StateAskDate && s.City == "":
		return pick("好的，请问您哪天出发？", "Sure. What date would you like to fly?")
	case s.State == StateAskDate:
		return pick("好的，去"+s.City+"。请问您哪天出发？", "Sure, to "+s.City+". What date would you like to fly?")
	case intent == IntentBookFlight:
		return pick("好的，请问您要去哪个城市？", "Sure. Which city are you flying to?")
	default:
		return pick("抱歉，我没听懂。请问您要订去哪里的机票？", "Sorry, I didn't get that. Where would you like to fly?")
	}
}
