package transport

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/nlutest/nlutest/schema"
)

// hang bounds "does not hang" checks; it is never a timing assertion.
const hang = 20 * time.Second

const weatherJSON = `{"intent":"查询天气","slots":{"城市":"北京","日期":"明天"},"confidence":0.93}`

func server(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// do runs one call with a "does not hang" guard.
func do(t *testing.T, ctx context.Context, c *Client, r Request) Response {
	t.Helper()
	done := make(chan Response, 1)
	go func() { done <- c.Do(ctx, r) }()
	select {
	case res := <-done:
		return res
	case <-time.After(hang):
		t.Fatalf("Do(%s %s) did not return within %s", r.Method, r.URL, hang)
		return Response{}
	}
}

func newClient(t *testing.T, p Policy, opts ...Option) *Client {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	c := NewClient(p, 4, nil, opts...)
	t.Cleanup(c.Close)
	return c
}

func wantErr(t *testing.T, res Response, typ, msg string) {
	t.Helper()
	if res.Err == nil {
		t.Fatalf("Err = nil, want %s %q (status %d, body %q)", typ, msg, res.Status, res.Body)
	}
	if res.Err.Type != typ || !strings.Contains(res.Err.Message, msg) {
		t.Fatalf("Err = %s %q, want %s containing %q", res.Err.Type, res.Err.Message, typ, msg)
	}
}

func wantOK(t *testing.T, res Response) {
	t.Helper()
	if res.Err != nil {
		t.Fatalf("Err = %s %q, want none", res.Err.Type, res.Err.Message)
	}
}

func TestDoJSON(t *testing.T) {
	var got struct {
		method, ctype, ua, caseID, host string
		body                            []byte
	}
	s := server(t, func(w http.ResponseWriter, r *http.Request) {
		got.method, got.ctype, got.ua = r.Method, r.Header.Get("Content-Type"), r.Header.Get("User-Agent")
		got.caseID, got.host = r.Header.Get("X-Case"), r.Host
		got.body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		io.WriteString(w, weatherJSON)
	})
	c := newClient(t, Policy{ExpectJSON: true})
	req := Request{
		Method: http.MethodPost,
		URL:    s.URL + "/parse",
		Header: http.Header{"X-Case": {"weather-001"}, "Host": {"nlu.example"}},
		Body:   []byte(`{"text":"明天北京天气怎么样"}`),
	}
	res := do(t, context.Background(), c, req)
	wantOK(t, res)
	if res.Status != 200 || string(res.Body) != weatherJSON || res.Attempts != 1 {
		t.Fatalf("got status %d, attempts %d, body %q", res.Status, res.Attempts, res.Body)
	}
	if res.Latency <= 0 || res.Started.IsZero() {
		t.Fatalf("latency %s, started %s: want both set", res.Latency, res.Started)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Fatalf("response Content-Type = %q", ct)
	}
	if got.method != "POST" || got.ctype != "application/json" || got.ua != UserAgent ||
		got.caseID != "weather-001" || got.host != "nlu.example" || string(got.body) != string(req.Body) {
		t.Fatalf("server saw %+v", got)
	}
	if req.Header.Get("User-Agent") != "" || req.Header.Get("Host") == "" {
		t.Fatal("Do modified the caller's header")
	}
}

func TestDoRetriesStatus(t *testing.T) {
	tests := []struct {
		name         string
		statuses     []int // answered in turn; the last repeats
		policy       Policy
		wantAttempts int
		wantStatus   int
		wantErr      string // message; "" for success
	}{
		{"500 then 200 with 5xx retried", []int{500, 200}, Policy{Retries: 2, RetryOn: []string{"5xx"}}, 2, 200, ""},
		{"500 then 200 with exact 500", []int{500, 200}, Policy{Retries: 2, RetryOn: []string{"500"}}, 2, 200, ""},
		{"500 not in default retry_on", []int{500, 200}, Policy{Retries: 3}, 1, 500, "HTTP 500 Internal Server Error"},
		{"500 with only timeouts retried", []int{500, 200}, Policy{Retries: 3, RetryOn: []string{"timeout", "reset"}}, 1, 500, "HTTP 500 Internal Server Error"},
		{"503 retried until retries run out", []int{503}, Policy{Retries: 2}, 3, 503, "HTTP 503 Service Unavailable"},
		{"502 twice then 200 by default", []int{502, 504, 200}, Policy{Retries: 2}, 3, 200, ""},
		{"no retries configured", []int{503, 200}, Policy{}, 1, 503, "HTTP 503 Service Unavailable"},
		{"empty retry_on retries nothing", []int{503, 200}, Policy{Retries: 3, RetryOn: []string{}}, 1, 503, "HTTP 503"},
		{"404 is never retried by 5xx", []int{404, 200}, Policy{Retries: 3, RetryOn: []string{"5xx"}}, 1, 404, "HTTP 404 Not Found"},
		{"404 accepted by the policy", []int{404}, Policy{Retries: 3, AcceptStatus: func(s int) bool { return s == 200 || s == 404 }}, 1, 404, ""},
		{"599 has no status text", []int{599}, Policy{}, 1, 599, "HTTP 599"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			s := server(t, func(w http.ResponseWriter, r *http.Request) {
				n := int(hits.Add(1)) - 1
				w.WriteHeader(tt.statuses[min(n, len(tt.statuses)-1)])
				io.WriteString(w, `{"错误":"服务繁忙"}`)
			})
			clk := NewFakeClock(t0)
			tt.policy.ExpectJSON = true
			tt.policy.Backoff = 50 * time.Millisecond
			res := do(t, context.Background(), newClient(t, tt.policy, WithClock(clk)), Request{URL: s.URL})
			if res.Attempts != tt.wantAttempts || int(hits.Load()) != tt.wantAttempts || res.Status != tt.wantStatus {
				t.Fatalf("attempts %d, server hits %d, status %d; want %d attempts, status %d",
					res.Attempts, hits.Load(), res.Status, tt.wantAttempts, tt.wantStatus)
			}
			if tt.wantErr == "" {
				wantOK(t, res)
			} else {
				wantErr(t, res, schema.ErrHTTP, tt.wantErr)
			}
			if string(res.Body) != `{"错误":"服务繁忙"}` {
				t.Fatalf("body %q: the last attempt's body must be kept", res.Body)
			}
			if n := len(clk.Sleeps()); n > tt.wantAttempts-1 {
				t.Fatalf("%d back-off sleeps for %d attempts", n, tt.wantAttempts)
			}
		})
	}
}

func TestDoHonoursRetryAfter(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		retryAfter string
		wantSleep  time.Duration
	}{
		{"429 seconds", 429, "2", 2 * time.Second},
		{"503 seconds", 503, "3", 3 * time.Second},
		{"429 capped at 10s", 429, "120", MaxBackoff},
		{"429 HTTP date", 429, t0.Add(4 * time.Second).Format(http.TimeFormat), 4 * time.Second},
		{"429 date in the past", 429, t0.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"429 garbage", 429, "soon", 0},
		{"502 ignores Retry-After", 502, "5", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			s := server(t, func(w http.ResponseWriter, r *http.Request) {
				if hits.Add(1) == 1 {
					w.Header().Set("Retry-After", tt.retryAfter)
					w.WriteHeader(tt.status)
					return
				}
				io.WriteString(w, weatherJSON)
			})
			clk := NewFakeClock(t0)
			// Backoff 0: any sleep comes from Retry-After alone.
			res := do(t, context.Background(), newClient(t, Policy{Retries: 1}, WithClock(clk)), Request{URL: s.URL})
			wantOK(t, res)
			if res.Attempts != 2 {
				t.Fatalf("attempts = %d, want 2", res.Attempts)
			}
			var want []time.Duration
			if tt.wantSleep > 0 {
				want = []time.Duration{tt.wantSleep}
			}
			if got := clk.Sleeps(); !slices.Equal(got, want) {
				t.Fatalf("slept %v, want %v", got, want)
			}
		})
	}
}

func TestDoBackoffIsJitteredExponentialAndReproducible(t *testing.T) {
	s := server(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) })
	sleeps := func(seed uint64) []time.Duration {
		clk := NewFakeClock(t0)
		c := newClient(t, Policy{Retries: 6, Backoff: time.Second}, WithClock(clk))
		res := do(t, context.Background(), c, Request{URL: s.URL, Seed: seed})
		if res.Attempts != 7 {
			t.Fatalf("attempts = %d, want 7", res.Attempts)
		}
		return clk.Sleeps()
	}
	a, b, other := sleeps(42), sleeps(42), sleeps(43)
	if len(a) != 6 {
		t.Fatalf("%d sleeps, want 6: %v", len(a), a)
	}
	for k, d := range a {
		ceil := min(time.Second<<k, MaxBackoff)
		if d < 0 || d > ceil {
			t.Fatalf("sleep %d = %s, want within [0, %s]", k, d, ceil)
		}
	}
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different delays: %v vs %v", a, b)
	}
	if slices.Equal(a, other) {
		t.Fatalf("different seeds, same delays: %v", a)
	}
}

// releaseAtEnd closes release when the test ends, before the server's
// Close (which waits for its handlers): handlers that wait for it never
// answer on their own, so a timeout must fire, however fast or slow the
// machine. Call it after server.
func releaseAtEnd(t *testing.T, release chan struct{}) {
	t.Cleanup(func() { close(release) })
}

func TestDoTimeout(t *testing.T) {
	var hits atomic.Int32
	release := make(chan struct{})
	s := server(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	releaseAtEnd(t, release)
	res := do(t, context.Background(), newClient(t, Policy{Timeout: 100 * time.Millisecond}), Request{URL: s.URL})
	wantErr(t, res, schema.ErrTimeout, "no response within 100ms")
	if res.Attempts != 1 || res.Status != 0 {
		t.Fatalf("attempts %d, status %d", res.Attempts, res.Status)
	}

	hits.Store(0)
	c := newClient(t, Policy{Timeout: 100 * time.Millisecond, Retries: 2, RetryOn: []string{"timeout"}}, WithClock(NewFakeClock(t0)))
	res = do(t, context.Background(), c, Request{URL: s.URL})
	wantErr(t, res, schema.ErrTimeout, "no response within 100ms")
	if res.Attempts != 3 || hits.Load() != 3 {
		t.Fatalf("attempts %d, hits %d, want 3 and 3", res.Attempts, hits.Load())
	}
}

func TestDoSlowDripTimesOut(t *testing.T) {
	// One byte a second: the headers and the first byte arrive at once, the
	// body never completes (white space follows the JSON until the client
	// gives up), and the per-attempt timeout covers the body.
	release := make(chan struct{})
	s := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		for i := 0; ; i++ {
			b := byte(' ')
			if i < len(weatherJSON) {
				b = weatherJSON[i]
			}
			w.Write([]byte{b})
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-release:
				return
			case <-time.After(time.Second):
			}
		}
	})
	releaseAtEnd(t, release)
	res := do(t, context.Background(), newClient(t, Policy{Timeout: 300 * time.Millisecond, ExpectJSON: true}), Request{URL: s.URL})
	wantErr(t, res, schema.ErrTimeout, "response body not complete within 300ms")
	if res.Status != 200 || res.Body != nil {
		t.Fatalf("status %d, body %q; want 200 and no body", res.Status, res.Body)
	}
}

// hijack answers nothing: it closes the connection, with an RST when reset.
func hijack(w http.ResponseWriter, reset bool) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err) // httptest servers always support hijacking
	}
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		tc.SetLinger(0)
	}
	conn.Close()
}

func TestDoConnectionClosedOrReset(t *testing.T) {
	tests := []struct {
		name  string
		reset bool
		want  string
	}{
		{"closed without a response", false, "closed the connection without sending a response"},
		{"reset", true, "connection reset by 127.0.0.1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			s := server(t, func(w http.ResponseWriter, r *http.Request) {
				if hits.Add(1) <= 2 {
					io.Copy(io.Discard, r.Body) // the request arrived whole
					hijack(w, tt.reset)
					return
				}
				io.WriteString(w, weatherJSON)
			})
			req := Request{Method: "POST", URL: s.URL, Body: []byte(`{"text":"订一张去上海的机票"}`)}
			res := do(t, context.Background(), newClient(t, Policy{RetryOn: []string{"reset"}}), req)
			wantErr(t, res, schema.ErrConnection, tt.want)
			if res.Attempts != 1 {
				t.Fatalf("attempts = %d, want 1", res.Attempts)
			}

			// Retried under "reset": the third attempt succeeds.
			res = do(t, context.Background(), newClient(t, Policy{Retries: 3, RetryOn: []string{"reset"}}, WithClock(NewFakeClock(t0))), req)
			wantOK(t, res)
			if res.Attempts != 2 || hits.Load() != 3 {
				t.Fatalf("attempts %d, hits %d; want 2 and 3", res.Attempts, hits.Load())
			}
		})
	}
}

func TestDoConnectionLostMidBody(t *testing.T) {
	s := server(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, _ := w.(http.Hijacker).Hijack()
		defer conn.Close()
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			len(weatherJSON), weatherJSON[:20])
		buf.Flush()
	})
	res := do(t, context.Background(), newClient(t, Policy{ExpectJSON: true}), Request{URL: s.URL})
	wantErr(t, res, schema.ErrConnection, "closed the connection before the response body was complete")
	if res.Status != 200 {
		t.Fatalf("status = %d, want 200", res.Status)
	}
}

func TestDoServerDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	clk := NewFakeClock(t0)
	c := newClient(t, Policy{Retries: 2, Backoff: 100 * time.Millisecond}, WithClock(clk))
	res := do(t, context.Background(), c, Request{URL: "http://" + addr + "/model/parse"})
	wantErr(t, res, schema.ErrConnection, "connection refused by "+addr)
	if res.Attempts != 3 || res.Status != 0 {
		t.Fatalf("attempts %d, status %d; want 3 (refusals are retried under the default \"reset\")", res.Attempts, res.Status)
	}
}

func TestDoInvalidJSON(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"html", "<html><body>服务暂时不可用，请稍后再试。Service temporarily unavailable, please retry later.</body></html>",
			`"<html><body>服务暂时不可用，请稍后再试。Service temporarily unavai"…`}, // 12+42+26 = 80 bytes
		{"cut inside a character", "x" + strings.Repeat("错", 30), `: "x` + strings.Repeat("错", 26) + `"…`}, // byte 80 is mid-character: cut at 79
		{"truncated", `{"intent":"查询天气"`, `(unexpected end of JSON input at byte 24): "{\"intent\":\"查询天气\""`},
		{"control bytes", "\x00\x01oops", `"\x00\x01oops"`},
		{"empty", "", "response body is empty, JSON expected"},
		{"blank", " \n", "response body is empty, JSON expected"},
		{"two values", `{} {}`, "invalid character '{' after top-level value at byte 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, tt.body) })
			res := do(t, context.Background(), newClient(t, Policy{ExpectJSON: true}), Request{URL: s.URL})
			wantErr(t, res, schema.ErrInvalidJSON, tt.want)
			if !utf8.ValidString(res.Err.Message) || strings.ContainsAny(res.Err.Message, "\n\x00") {
				t.Fatalf("message is not one clean line: %q", res.Err.Message)
			}
			if string(res.Body) != tt.body {
				t.Fatalf("body %q, want it kept", res.Body)
			}
			// Without ExpectJSON the same body is usable.
			wantOK(t, do(t, context.Background(), newClient(t, Policy{}), Request{URL: s.URL}))
		})
	}
}

func TestDoTooLarge(t *testing.T) {
	const total = 100 << 20
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = 'a' + byte(i%26)
	}
	tests := []struct {
		name          string
		contentLength bool
	}{
		{"chunked", false},
		{"announced", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			written := make(chan int64, 1)
			s := server(t, func(w http.ResponseWriter, r *http.Request) {
				if tt.contentLength {
					w.Header().Set("Content-Length", strconv.Itoa(total))
				}
				var n int64
				defer func() { written <- n }()
				for n < total {
					m, err := w.Write(chunk)
					n += int64(m)
					if err != nil {
						return
					}
				}
			})
			c := newClient(t, Policy{ExpectJSON: true})
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res := do(t, context.Background(), c, Request{URL: s.URL})
			runtime.ReadMemStats(&after)
			wantErr(t, res, schema.ErrTooLarge, "response exceeds 10 MiB limit")
			if res.Status != 200 || res.Body != nil {
				t.Fatalf("status %d, %d body bytes; want 200 and no body", res.Status, len(res.Body))
			}
			// Everything allocated during the call (client and server): the
			// 10 MiB read buffer and its growth, never the 100 MB.
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 40<<20 {
				t.Fatalf("allocated %d MiB during the call", grew>>20)
			}
			if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 40<<20 {
				t.Fatalf("heap grew %d MiB during the call", grew>>20)
			}
			select {
			case n := <-written:
				// The client stopped reading: the server could not write it all.
				if n >= total {
					t.Fatalf("server wrote the whole %d bytes", n)
				}
			case <-time.After(hang):
				t.Fatal("handler still writing: the client did not close the connection")
			}
		})
	}
}

func TestDoErrorBodyIsCapped(t *testing.T) {
	big := strings.Repeat("错", 1000) // 3000 bytes
	s := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		io.WriteString(w, big)
	})
	res := do(t, context.Background(), newClient(t, Policy{MaxResponseBytes: 1 << 10}), Request{URL: s.URL})
	wantErr(t, res, schema.ErrHTTP, "HTTP 500 Internal Server Error")
	if len(res.Body) != 1<<10 || string(res.Body) != big[:1<<10] {
		t.Fatalf("kept %d body bytes, want the first 1024", len(res.Body))
	}

	// An accepted body of exactly the limit is fine; one byte more is not.
	for _, n := range []int{1 << 10, 1<<10 + 1} {
		s := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, strings.Repeat("x", n)) })
		res := do(t, context.Background(), newClient(t, Policy{MaxResponseBytes: 1 << 10}), Request{URL: s.URL})
		if n == 1<<10 {
			wantOK(t, res)
		} else {
			wantErr(t, res, schema.ErrTooLarge, "response exceeds 1 KiB limit")
		}
	}
}

func TestDoParentCancel(t *testing.T) {
	t.Run("during the attempt", func(t *testing.T) {
		var hits atomic.Int32
		arrived := make(chan struct{}, 1)
		s := server(t, func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			arrived <- struct{}{}
			<-r.Context().Done()
		})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		c := newClient(t, Policy{Timeout: time.Minute, Retries: 5, RetryOn: []string{"timeout", "reset", "5xx"}})
		res := do(t, ctx, c, Request{URL: s.URL})
		if !res.Interrupted {
			t.Fatal("Interrupted = false")
		}
		wantErr(t, res, schema.ErrRequest, "interrupted")
		if res.Attempts != 1 || hits.Load() != 1 {
			t.Fatalf("attempts %d, hits %d: never retry after the parent is done", res.Attempts, hits.Load())
		}
	})
	t.Run("during back-off", func(t *testing.T) {
		var hits atomic.Int32
		ctx, cancel := context.WithCancel(context.Background())
		s := server(t, func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Retry-After", "10")
			w.WriteHeader(503)
			w.(http.Flusher).Flush()
			cancel()
		})
		res := do(t, ctx, newClient(t, Policy{Retries: 5}), Request{URL: s.URL}) // real clock: a 10s sleep
		if !res.Interrupted || hits.Load() != 1 {
			t.Fatalf("interrupted %v, hits %d; want true and 1", res.Interrupted, hits.Load())
		}
		wantErr(t, res, schema.ErrRequest, "interrupted")
	})
	t.Run("before the first attempt", func(t *testing.T) {
		var hits atomic.Int32
		s := server(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res := do(t, ctx, newClient(t, Policy{Retries: 3}), Request{URL: s.URL})
		if !res.Interrupted || res.Attempts != 0 || hits.Load() != 0 {
			t.Fatalf("interrupted %v, attempts %d, hits %d", res.Interrupted, res.Attempts, hits.Load())
		}
	})
	t.Run("while waiting for the limiter", func(t *testing.T) {
		s := server(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
		lim := NewLimiter(0.001, nil) // one start per 1000s
		c := NewClient(Policy{}, 1, lim)
		defer c.Close()
		wantOK(t, do(t, context.Background(), c, Request{URL: s.URL}))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		res := do(t, ctx, c, Request{URL: s.URL})
		if !res.Interrupted || res.Attempts != 0 {
			t.Fatalf("interrupted %v, attempts %d", res.Interrupted, res.Attempts)
		}
	})
}

func TestDoRequestErrors(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"unparsable URL", Request{URL: "http://[::1"}, `invalid URL "http://[::1"`},
		{"relative URL", Request{URL: "/model/parse"}, "scheme must be http or https"},
		{"ftp", Request{URL: "ftp://127.0.0.1/"}, "scheme must be http or https"},
		{"no host", Request{URL: "http:///parse"}, "no host"},
		{"bad method", Request{Method: "GET POST", URL: "http://127.0.0.1:1/"}, "invalid request"},
		{"bad header name", Request{URL: "http://127.0.0.1:1/", Header: http.Header{"X Bad": {"1"}}}, `invalid header "X Bad"`},
		{"header injection", Request{URL: "http://127.0.0.1:1/", Header: http.Header{"X-Q": {"a\r\nX-Evil: 1"}}}, `invalid header "X-Q"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, context.Background(), newClient(t, Policy{Retries: 3}), tt.req)
			wantErr(t, res, schema.ErrRequest, tt.want)
			if res.Attempts != 0 || res.Interrupted {
				t.Fatalf("attempts %d, interrupted %v", res.Attempts, res.Interrupted)
			}
		})
	}
}

func TestDoKeepsConnectionsAliveWithinConcurrency(t *testing.T) {
	var conns, inFlight, peak atomic.Int32
	release := make(chan struct{})
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		if r.URL.Path == "/slow" {
			<-release
		}
		io.WriteString(w, weatherJSON)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	s.Start()
	defer s.Close()

	c := NewClient(Policy{ExpectJSON: true}, 2, nil)
	defer c.Close()
	for range 20 {
		wantOK(t, do(t, context.Background(), c, Request{URL: s.URL}))
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("20 sequential calls opened %d connections, want 1 kept alive", n)
	}

	// Eight parallel calls through a client sized for two: at most two
	// connections, at most two requests at the server at once.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if res := c.Do(context.Background(), Request{URL: s.URL + "/slow"}); res.Err != nil {
				t.Errorf("parallel call: %s %q", res.Err.Type, res.Err.Message)
			}
		})
	}
	for inFlight.Load() < 2 {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	if p := peak.Load(); p != 2 {
		t.Fatalf("peak of %d requests in flight, want 2", p)
	}
	if n := conns.Load(); n > 2 {
		t.Fatalf("%d connections opened, want at most 2", n)
	}
}

func TestDoRateLimitsEveryAttempt(t *testing.T) {
	var hits atomic.Int32
	s := server(t, func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1)%2 == 1 {
			w.WriteHeader(502)
			return
		}
		io.WriteString(w, "{}")
	})
	clk := NewFakeClock(t0)
	lim := NewLimiter(4, clk)
	var starts []time.Time
	lim.onStart = func(at time.Time) { starts = append(starts, at) }
	c := NewClient(Policy{Retries: 1}, 1, lim, WithClock(clk))
	defer c.Close()
	for range 3 {
		wantOK(t, do(t, context.Background(), c, Request{URL: s.URL}))
	}
	if len(starts) != 6 {
		t.Fatalf("%d limiter starts for 3 calls of 2 attempts, want 6", len(starts))
	}
	for i := 1; i < len(starts); i++ {
		if d := starts[i].Sub(starts[i-1]); d != 250*time.Millisecond {
			t.Fatalf("attempts %d and %d are %s apart, want 250ms", i-1, i, d)
		}
	}
}

// BenchmarkClientDo measures one caller against a local server that answers
// at once: the cost of a call on the client side plus loopback HTTP.
func BenchmarkClientDo(b *testing.B) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, weatherJSON)
	}))
	defer s.Close()
	c := NewClient(Policy{ExpectJSON: true}, 1, nil)
	defer c.Close()
	req := Request{Method: "POST", URL: s.URL, Body: []byte(`{"text":"明天北京天气怎么样"}`)}
	n := 0
	for b.Loop() {
		if res := c.Do(context.Background(), req); res.Err != nil {
			b.Fatal(res.Err.Message)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkClientDoParallel is the runner's shape: GOMAXPROCS×8 callers
// sharing one client against a local server that answers at once.
func BenchmarkClientDoParallel(b *testing.B) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, weatherJSON)
	}))
	defer s.Close()
	const perProc = 8
	c := NewClient(Policy{ExpectJSON: true}, runtime.GOMAXPROCS(0)*perProc, nil)
	defer c.Close()
	req := Request{Method: "POST", URL: s.URL, Body: []byte(`{"text":"明天北京天气怎么样"}`)}
	var calls atomic.Int64
	b.SetParallelism(perProc)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if res := c.Do(context.Background(), req); res.Err != nil {
				b.Error(res.Err.Message)
				return
			}
			calls.Add(1)
		}
	})
	b.ReportMetric(float64(calls.Load())/b.Elapsed().Seconds(), "req/s")
}
