package demo

import (
	"net/http"
	"sync"
)

// sessionBot serves a stateful bot's endpoint: {"session": "ID", "text":
// "…"} → the JSON step gives. Each session id gets its own S, made by
// start on first use; one lock serialises the steps, so each session
// advances one message at a time. A request with "event": "start" (a
// conversation's bot-first turn) is answered by welcome when the bot has
// one, else stepped like any text.
type sessionBot[S any] struct {
	mu       sync.Mutex
	sessions map[string]S
	start    func() S
	step     func(s S, session, text string) any
	welcome  func(s S, session string) any
}

func newSessionBot[S any](start func() S, step func(s S, session, text string) any) *sessionBot[S] {
	return &sessionBot[S]{sessions: map[string]S{}, start: start, step: step}
}

func (b *sessionBot[S]) handle(w http.ResponseWriter, r *http.Request) {
	fields, ok := decodeFields(w, r, "session", "text", "event?")
	if !ok {
		return
	}
	b.mu.Lock()
	s, ok := b.sessions[fields[0]]
	if !ok {
		s = b.start()
		b.sessions[fields[0]] = s
	}
	var out any
	if fields[2] == "start" && b.welcome != nil {
		out = b.welcome(s, fields[0])
	} else {
		out = b.step(s, fields[0], fields[1])
	}
	b.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}
