package demo

import (
	"net/http"
	"sync"
)

// sessionBot serves a stateful bot's endpoint: {"session": "ID", "text":
// "…"} → the JSON step gives. Each session id gets its own S, made by
// start on first use; one lock serialises the steps, so each session
// advances one message at a time.
type sessionBot[S any] struct {
	mu       sync.Mutex
	sessions map[string]S
	start    func() S
	step     func(s S, session, text string) any
}

func newSessionBot[S any](start func() S, step func(s S, session, text string) any) *sessionBot[S] {
	return &sessionBot[S]{sessions: map[string]S{}, start: start, step: step}
}

func (b *sessionBot[S]) handle(w http.ResponseWriter, r *http.Request) {
	fields, ok := decodeFields(w, r, "session", "text")
	if !ok {
		return
	}
	b.mu.Lock()
	s, ok := b.sessions[fields[0]]
	if !ok {
		s = b.start()
		b.sessions[fields[0]] = s
	}
	out := b.step(s, fields[0], fields[1])
	b.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}
