package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// MaxRequestBytes caps request bodies; larger bodies get 413.
const MaxRequestBytes = 1 << 20

// shutdownGrace is how long stop() waits for calls in flight.
const shutdownGrace = 5 * time.Second

// Handler returns the demo NLU's HTTP handler with every endpoint:
// POST /model/parse, POST /iao, POST /booking (the stateful booking bot),
// POST /memory (the bot with a bounded memory, memory.go), POST /nli (a
// toy judge of memory answers, nli.go), POST /v1/chat/completions (the
// tool-using agent, agent.go)
// and GET /health. Each call returns a new, independent handler, with
// booking sessions of its own.
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/model/parse", method(http.MethodPost, handleParse))
	mux.HandleFunc("/iao", method(http.MethodPost, handleIAO))
	mux.HandleFunc("/booking", method(http.MethodPost, newBookingBot().handle))
	mux.HandleFunc("/memory", method(http.MethodPost, newMemoryBot().handle))
	mux.HandleFunc("/nli", method(http.MethodPost, handleNLI))
	mux.HandleFunc("/v1/chat/completions", method(http.MethodPost, handleAgent))
	mux.HandleFunc("/health", method(http.MethodGet, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint: %s", r.URL.Path))
	})
	return mux
}

func method(m string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != m && !(m == http.MethodGet && r.Method == http.MethodHead) {
			w.Header().Set("Allow", m)
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed; use %s", r.Method, m))
			return
		}
		h(w, r)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Every value written here is built from strings, numbers, slices
		// and maps, so this cannot happen; answer 500 rather than panic.
		http.Error(w, `{"error":"internal error"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// decodeField reads a JSON object body and returns its string field name.
// It writes the error response itself and returns ok=false on failure.
func decodeField(w http.ResponseWriter, r *http.Request, name string) (string, bool) {
	v, ok := decodeFields(w, r, name)
	if !ok {
		return "", false
	}
	return v[0], true
}

// decodeFields reads a JSON object body and returns its string fields
// names, in order; like decodeField it answers errors itself.
func decodeFields(w http.ResponseWriter, r *http.Request, names ...string) ([]string, bool) {
	fields, ok := decodeObject(w, r)
	if !ok {
		return nil, false
	}
	return stringFields(w, fields, names...)
}

// decodeObject reads a JSON object body into its members; like
// decodeField it answers errors itself.
func decodeObject(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", MaxRequestBytes))
			return nil, false
		}
		writeError(w, http.StatusBadRequest, "cannot read request body: "+err.Error())
		return nil, false
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		writeError(w, http.StatusBadRequest, "request body is not a JSON object: "+err.Error())
		return nil, false
	}
	return fields, true
}

// stringFields returns the string members names of fields, in order (a
// name ending in "?" is optional: "" when absent); it answers errors
// itself.
func stringFields(w http.ResponseWriter, fields map[string]json.RawMessage, names ...string) ([]string, bool) {
	out := make([]string, len(names))
	for i, name := range names {
		name, optional := strings.CutSuffix(name, "?")
		raw, ok := fields[name]
		if !ok && optional {
			continue
		}
		if !ok {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("missing field %q", name))
			return nil, false
		}
		if err := json.Unmarshal(raw, &out[i]); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("field %q must be a string", name))
			return nil, false
		}
	}
	return out, true
}

// handleParse answers /model/parse: {"text": "…"} and, for a Variant
// (the query's degrade, seed, flaky), an optional "repeat": the
// repetition, a whole number from 0.
func handleParse(w http.ResponseWriter, r *http.Request) {
	v, err := ParseVariant(r.URL.Query())
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	fields, ok := decodeObject(w, r)
	if !ok {
		return
	}
	text, ok := stringFields(w, fields, "text")
	if !ok {
		return
	}
	repeat := 0
	if raw, ok := fields["repeat"]; ok {
		if err := json.Unmarshal(raw, &repeat); err != nil || repeat < 0 {
			writeError(w, http.StatusBadRequest, `field "repeat" must be a whole number from 0 (the repetition)`)
			return
		}
	}
	if v == (Variant{}) {
		writeJSON(w, http.StatusOK, Parse(text[0]))
		return
	}
	writeJSON(w, http.StatusOK, v.Parse(text[0], repeat))
}

func handleIAO(w http.ResponseWriter, r *http.Request) {
	query, ok := decodeField(w, r, "query")
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, IAO(query))
}

// Serve serves Handler on ln until ctx is done, then shuts down gracefully
// (waiting up to 5 s for calls in flight). It returns nil after a shutdown
// caused by ctx, or the server's error otherwise. It closes ln.
func Serve(ctx context.Context, ln net.Listener) error {
	srv := newServer()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown(srv)
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

func newServer() *http.Server {
	return &http.Server{
		Handler:           Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       60 * time.Second,
	}
}

func shutdown(srv *http.Server) {
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
}

// Start serves the demo NLU on a free loopback port (127.0.0.1:0) and
// returns its base URL, such as "http://127.0.0.1:41234". The server stops
// when stop is called or ctx is done, whichever comes first; stop waits for
// calls in flight (up to 5 s) and may be called more than once.
func Start(ctx context.Context) (baseURL string, stop func(), err error) {
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("demo: listen on loopback: %w", err)
	}
	srv := newServer()
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln) // returns ErrServerClosed after shutdown
	}()
	done := make(chan struct{})
	var once sync.Once
	stop = func() {
		once.Do(func() {
			close(done)
			shutdown(srv)
			<-served
		})
	}
	go func() {
		select {
		case <-ctx.Done():
			stop()
		case <-done:
		}
	}()
	return "http://" + ln.Addr().String(), stop, nil
}
