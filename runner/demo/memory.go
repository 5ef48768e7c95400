package demo

import (
	"strings"
)

// MemoryTurns is how many turns the memory bot remembers a fact for: a
// fact told at turn f is recalled at turn n when n-f <= MemoryTurns.
// Up to twice that it misremembers (answers a wrong value: a
// contradiction); later it says it does not remember (neutral).
const MemoryTurns = 4

// MemoryReply is the body of a /memory response.
type MemoryReply struct {
	Session string `json:"session"`
	Turn    int    `json:"turn"`
	Reply   string `json:"reply"`
}

// memoryFact is a fact the memory bot was told and the turn it was told.
type memoryFact struct {
	value string
	turn  int
}

// MemorySession is what the memory bot keeps of one session: the turn
// count and the last name and city it was told.
type MemorySession struct {
	turn  int
	facts map[string]memoryFact
	k     int
}

// NewMemorySession returns the state of a new session of a bot that
// remembers facts for k turns.
func NewMemorySession(k int) *MemorySession {
	return &MemorySession{facts: map[string]memoryFact{}, k: k}
}

// newMemoryBot serves /memory: one MemorySession per session id.
func newMemoryBot() *sessionBot[*MemorySession] {
	return newSessionBot(func() *MemorySession { return NewMemorySession(MemoryTurns) },
		func(s *MemorySession, session, text string) any {
			reply := s.Step(text)
			return MemoryReply{Session: session, Turn: s.turn, Reply: reply}
		})
}

// Fact kinds the memory bot knows.
const (
	factName = "name"
	factCity = "city"
)

// memoryDecoys are the wrong values the bot misremembers, per kind: the
// first, or the second when the first is the right one.
var memoryDecoys = map[string][2]string{factName: {"李雷", "韩梅梅"}, factCity: {"上海", "广州"}}

// Step answers one message and advances the session by a turn.
func (s *MemorySession) Step(text string) string {
	s.turn++
	t := strings.TrimSpace(text)
	lower := strings.ToLower(t)
	en := isEnglish(t)
	if kind := memoryQuestion(lower); kind != "" {
		return s.answer(kind, en)
	}
	if kind, v := memoryStatement(t, lower); kind != "" {
		s.facts[kind] = memoryFact{value: v, turn: s.turn}
		if en {
			return "OK, noted."
		}
		return "好的，记住了。"
	}
	if en {
		return "Interesting. Tell me more."
	}
	return "嗯，这个话题很有意思。"
}

func (s *MemorySession) answer(kind string, en bool) string {
	f, ok := s.facts[kind]
	age := s.turn - f.turn
	switch {
	case !ok || age > 2*s.k:
		if en {
			return "Sorry, I don't remember."
		}
		return "抱歉，我不记得了。"
	case age > s.k:
		d := memoryDecoys[kind]
		v := d[0]
		if v == f.value {
			v = d[1]
		}
		f.value = v
	}
	switch {
	case kind == factName && en:
		return "Your name is " + f.value + "."
	case kind == factName:
		return "你叫" + f.value + "。"
	case en:
		return "You live in " + f.value + "."
	}
	return "你住在" + f.value + "。"
}

// memoryQuestion is the kind of fact a question asks about, or "".
func memoryQuestion(lower string) string {
	switch {
	case strings.Contains(lower, "名字") || strings.Contains(lower, "我叫什么") || strings.Contains(lower, "what is my name") || strings.Contains(lower, "what's my name"):
		return factName
	case strings.Contains(lower, "住在哪") || strings.Contains(lower, "哪个城市") || strings.Contains(lower, "where do i live"):
		return factCity
	}
	return ""
}

// memoryStatement reads "我叫X" / "my name is X" and "我住在X" / "I live
// in X".
func memoryStatement(t, lower string) (kind, value string) {
	for _, p := range []struct{ kind, prefix string }{
		{factName, "我叫"}, {factName, "my name is "}, {factCity, "我住在"}, {factCity, "i live in "},
	} {
		if i := strings.Index(lower, p.prefix); i >= 0 {
			v := strings.TrimRight(strings.TrimSpace(t[i+len(p.prefix):]), "。.!！")
			if v != "" {
				return p.kind, v
			}
		}
	}
	return "", ""
}

// isEnglish: the text has no CJK character.
func isEnglish(t string) bool {
	for _, r := range t {
		if r >= 0x2E80 {
			return false
		}
	}
	return true
}
