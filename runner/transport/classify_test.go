package transport

import (
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/nlutest/nlutest/schema"
)

func TestClassifyError(t *testing.T) {
	u := &url.URL{Scheme: "http", Host: "127.0.0.1:5005", Path: "/model/parse"}
	wrap := func(err error) error { return &url.Error{Op: "Post", URL: u.String(), Err: err} }
	opErr := func(errno syscall.Errno) error {
		return wrap(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno)})
	}
	expired, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	tests := []struct {
		name      string
		ctx       context.Context
		err       error
		inBody    bool
		wantType  string
		wantMsg   string
		wantClass failClass
	}{
		{"deadline", expired, wrap(context.DeadlineExceeded), false, schema.ErrTimeout, "no response within 10s", classTimeout},
		{"deadline in body", expired, errors.New("net/http: request canceled"), true, schema.ErrTimeout, "response body not complete within 10s", classTimeout},
		{"net timeout", context.Background(), wrap(&net.OpError{Op: "dial", Err: timeoutErr{}}), false, schema.ErrTimeout, "no response within 10s", classTimeout},
		{"refused", context.Background(), opErr(syscall.ECONNREFUSED), false, schema.ErrConnection, "connection refused by 127.0.0.1:5005", classReset},
		{"reset", context.Background(), opErr(syscall.ECONNRESET), false, schema.ErrConnection, "connection reset by 127.0.0.1:5005", classReset},
		{"broken pipe", context.Background(), opErr(syscall.EPIPE), false, schema.ErrConnection, "closed while sending the request (broken pipe)", classReset},
		{"EOF", context.Background(), wrap(io.EOF), false, schema.ErrConnection, "127.0.0.1:5005 closed the connection without sending a response", classReset},
		{"unexpected EOF in body", context.Background(), io.ErrUnexpectedEOF, true, schema.ErrConnection, "before the response body was complete", classReset},
		{"dns", context.Background(), wrap(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "nlu.invalid", IsNotFound: true}}), false,
			schema.ErrConnection, `cannot resolve host "nlu.invalid": no such host`, classOther},
		{"other", context.Background(), wrap(errors.New("tls: failed to verify certificate")), false, schema.ErrConnection, "tls: failed to verify certificate", classOther},
		{"other in body", context.Background(), errors.New("gzip: invalid header"), true, schema.ErrConnection, "reading the response body from 127.0.0.1:5005: gzip: invalid header", classOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ce, class := classifyError(tt.ctx, tt.err, u, 10*time.Second, tt.inBody)
			if ce.Type != tt.wantType || !strings.Contains(ce.Message, tt.wantMsg) || class != tt.wantClass {
				t.Fatalf("got %s %q class %d, want %s containing %q class %d", ce.Type, ce.Message, class, tt.wantType, tt.wantMsg, tt.wantClass)
			}
			if strings.Contains(ce.Message, `Post "`) {
				t.Fatalf("message repeats the URL wrapper: %q", ce.Message)
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestPreview(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 80, `"abc"`},
		{"", 80, `""`},
		{"查询天气", 12, `"查询天气"`},
		{"查询天气", 11, `"查询天"…`},
		{"查询天气", 10, `"查询天"…`},
		{"查询天气", 9, `"查询天"…`},
		{"a\tb\nc\"d", 80, `"a\tb\nc\"d"`},
		{"\xff\xfe\xfd\xfc", 2, `"\xff\xfe"…`}, // invalid UTF-8 is cut where asked, escaped
	}
	for _, tt := range tests {
		if got := preview([]byte(tt.in), tt.n); got != tt.want {
			t.Errorf("preview(%q, %d) = %s, want %s", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{10 << 20, "10 MiB"},
		{1 << 30, "1 GiB"},
		{1536, "1536 bytes"},
		{2048, "2 KiB"},
		{1, "1 byte"},
		{999, "999 bytes"},
		{3 << 29, "1536 MiB"},
	}
	for _, tt := range tests {
		if got := formatBytes(tt.n); got != tt.want {
			t.Errorf("formatBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestStatusMessage(t *testing.T) {
	for code, want := range map[int]string{
		500: "HTTP 500 Internal Server Error",
		429: "HTTP 429 Too Many Requests",
		404: "HTTP 404 Not Found",
		599: "HTTP 599",
	} {
		if got := statusMessage(code); got != want {
			t.Errorf("statusMessage(%d) = %q, want %q", code, got, want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"-5", 0},
		{"3", 3 * time.Second},
		{" 7 ", 7 * time.Second},
		{"10", 10 * time.Second},
		{"11", MaxBackoff},
		{"99999999999999999999", 0}, // overflows int64: not a delay
		{"Wed, 01 May 2024 09:00:05 GMT", 5 * time.Second},
		{"Wednesday, 01-May-24 09:00:02 GMT", 2 * time.Second}, // RFC 850
		{"Wed, 01 May 2024 08:00:00 GMT", 0},
		{"明天", 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.in, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestReadBody(t *testing.T) {
	body := strings.Repeat("意图识别", 100) // 1200 bytes
	tests := []struct {
		name     string
		r        io.Reader
		limit    int64
		hint     int64
		wantLen  int
		wantOver bool
		wantErr  bool
	}{
		{"unknown length under limit", strings.NewReader(body), 2000, -1, 1200, false, false},
		{"announced length", strings.NewReader(body), 2000, 1200, 1200, false, false},
		{"exactly the limit", strings.NewReader(body), 1200, -1, 1200, false, false},
		{"one byte over", strings.NewReader(body), 1199, -1, 1199, true, false},
		{"far over", strings.NewReader(body), 10, -1, 10, true, false},
		{"one byte at a time", iotest.OneByteReader(strings.NewReader(body)), 2000, -1, 1200, false, false},
		{"data then error", io.MultiReader(strings.NewReader(body[:600]), iotest.ErrReader(errors.New("connection reset"))), 2000, -1, 600, false, true},
		{"lying hint", strings.NewReader(body), 100, 5, 100, true, false},
		{"empty", strings.NewReader(""), 100, 0, 0, false, false},
		{"huge hint, huge limit", strings.NewReader(body), math.MaxInt64 - 1, math.MaxInt64, 1200, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, over, err := readBody(tt.r, tt.limit, tt.hint)
			if len(b) != tt.wantLen || over != tt.wantOver || (err != nil) != tt.wantErr {
				t.Fatalf("got %d bytes, over %v, err %v; want %d, %v, err %v", len(b), over, err, tt.wantLen, tt.wantOver, tt.wantErr)
			}
			if string(b) != body[:len(b)] {
				t.Fatal("bytes differ from the input's prefix")
			}
			if int64(cap(b)) > min(tt.limit+1, max(maxPrealloc, 2*int64(len(b))+1)) {
				t.Fatalf("buffer capacity %d for %d bytes read (limit %d)", cap(b), len(b), tt.limit)
			}
		})
	}
}

func TestPolicyValidate(t *testing.T) {
	tests := []struct {
		name string
		p    Policy
		want string // "" for valid
	}{
		{"zero", Policy{}, ""},
		{"all conditions", Policy{RetryOn: []string{"timeout", "reset", "429", "5xx", "500", "599", "408", " 5XX "}}, ""},
		{"unknown word", Policy{RetryOn: []string{"timeouts"}}, `retry_on: unknown condition "timeouts"`},
		{"2xx code", Policy{RetryOn: []string{"200"}}, `unknown condition "200"`},
		{"600", Policy{RetryOn: []string{"600"}}, `unknown condition "600"`},
		{"4xx class", Policy{RetryOn: []string{"4xx"}}, `unknown condition "4xx"`},
		{"negative timeout", Policy{Timeout: -time.Second}, "timeout must not be negative"},
		{"negative retries", Policy{Retries: -1}, "retries must not be negative"},
		{"negative backoff", Policy{Backoff: -1}, "backoff must not be negative"},
		{"negative max bytes", Policy{MaxResponseBytes: -1}, "max_response_bytes must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Validate()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestRetrySet(t *testing.T) {
	def := newRetrySet(nil)
	if !def.timeout || !def.reset {
		t.Fatal("default must retry timeouts and resets")
	}
	for code := 400; code <= 599; code++ {
		want := code == 429 || code == 502 || code == 503 || code == 504
		if def.statusRetried(code) != want {
			t.Errorf("default retries %d = %v, want %v", code, !want, want)
		}
	}
	none := newRetrySet([]string{})
	if none.timeout || none.reset || none.statusRetried(503) {
		t.Fatal("an empty retry_on must retry nothing")
	}
	fx := newRetrySet([]string{"5xx", "bogus", "408"})
	if fx.timeout || !fx.statusRetried(500) || !fx.statusRetried(599) || !fx.statusRetried(408) || fx.statusRetried(429) || fx.statusRetried(200) || fx.statusRetried(600) {
		t.Fatal(`"5xx" + "408" parsed wrong`)
	}
}

func TestBackoffBounds(t *testing.T) {
	c := NewClient(Policy{Backoff: 3 * time.Second}, 1, nil)
	defer c.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for attempt := range 70 { // past the shift width: no overflow
		ceil := MaxBackoff
		if attempt < 2 {
			ceil = 3 * time.Second << attempt
		}
		for range 50 {
			if d := c.backoff(attempt, 0, rng); d < 0 || d > ceil {
				t.Fatalf("backoff(%d) = %s, want within [0, %s]", attempt, d, ceil)
			}
		}
	}
	if d := c.backoff(0, 8*time.Second, rng); d != 8*time.Second {
		t.Fatalf("Retry-After 8s above a 3s jitter ceiling gave %s", d)
	}
	zero := NewClient(Policy{}, 1, nil)
	defer zero.Close()
	if d := zero.backoff(5, 0, rng); d != 0 {
		t.Fatalf("zero base backoff = %s, want 0", d)
	}
}

// Running out of file descriptors is a failure on this side: the error is
// marked Local, so the run does not record it (issue 12, item 7).
func TestClassifyLocalExhaustion(t *testing.T) {
	u := &url.URL{Scheme: "http", Host: "127.0.0.1:5005"}
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE} {
		err := &url.Error{Op: "Post", URL: u.String(), Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", errno)}}
		ce, _ := classifyError(context.Background(), err, u, time.Second, false)
		if !ce.Local || !strings.Contains(ce.Message, "on this machine") {
			t.Errorf("%v: %+v, want a local failure", errno, ce)
		}
	}
	ce, _ := classifyError(context.Background(), &url.Error{Op: "Post", URL: u.String(), Err: &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}, u, time.Second, false)
	if ce.Local {
		t.Errorf("a refused connection is the target's: %+v", ce)
	}
}
