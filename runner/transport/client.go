package transport

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nlutest/nlutest/schema"
)

// UserAgent is sent when the request sets no User-Agent header.
const UserAgent = "nlutest"

// Request is one logical call to make.
type Request struct {
	// Method is the HTTP method; empty means GET.
	Method string
	// URL is the absolute http or https URL.
	URL string
	// Header is sent as is (a "Host" entry sets the request's Host). When
	// Body is set and no Content-Type is given, "application/json" is sent.
	Header http.Header
	// Body is sent with every attempt; nil sends none.
	Body []byte
	// Seed seeds the back-off jitter so a call's delays are reproducible
	// (the runner passes a hash of the case id). Zero derives a seed from
	// the method, URL and body.
	Seed uint64
}

// Response is what a logical call produced: the last attempt's response and
// how the call went.
type Response struct {
	// Status is the last attempt's HTTP status, 0 when none was received.
	Status int
	// Header is the last attempt's response header.
	Header http.Header
	// Body is the last attempt's body, at most MaxResponseBytes long. It is
	// nil for ResponseTooLarge and for transport errors.
	Body []byte
	// Started is when the first attempt began (after its rate-limit wait).
	Started time.Time
	// Latency is the duration of the last attempt, up to the full body read.
	Latency time.Duration
	// Attempts counts the attempts made, retries included.
	Attempts int
	// Err is nil when the response is usable.
	Err *schema.CallError
	// Redirects are the URLs the last attempt was redirected to, in order
	// (Policy.Redirects).
	Redirects []string
	// JSONChecked says Body was found to be valid JSON (Policy.ExpectJSON).
	JSONChecked bool
	// Interrupted is set when the parent context ended the call (Ctrl-C).
	// Err then has Type schema.ErrRequest and Message "interrupted"; the
	// case should be left unrecorded so --resume runs it again.
	Interrupted bool
}

// Client makes logical calls to one target. It is safe for concurrent use.
type Client struct {
	hc      *http.Client
	tr      *http.Transport
	lim     *Limiter
	clk     Clock
	policy  Policy
	timeout time.Duration
	max     int64
	retry   retrySet
	// last is the request prepare built last: a target's calls repeat the
	// method, URL and headers, which are then parsed and checked once.
	last atomic.Pointer[prepared]
}

// prepared is a request prepare built, kept for the next calls with the
// same method, URL, headers and presence of a body.
type prepared struct {
	method, url string
	hasBody     bool
	given       http.Header   // the Request's headers, a copy
	base        *http.Request // without body; its Header is never written
}

// matches reports whether p was built from what r asks for.
func (p *prepared) matches(method string, r *Request) bool {
	if p.method != method || p.url != r.URL || p.hasBody != (r.Body != nil) || len(p.given) != len(r.Header) {
		return false
	}
	for k, vs := range r.Header {
		ws, ok := p.given[k]
		if !ok || !slices.Equal(vs, ws) {
			return false
		}
	}
	return true
}

// Option adjusts a Client made by NewClient.
type Option func(*Client)

// WithClock makes the client sleep between attempts on clk (and read it for
// Retry-After dates) instead of the wall clock. Timeouts and latencies always
// use the wall clock, since the network does.
func WithClock(clk Clock) Option {
	return func(c *Client) {
		if clk != nil {
			c.clk = clk
		}
	}
}

// NewClient returns a Client calling with policy p through a connection pool
// sized for concurrency parallel calls (at most that many connections per
// host, all kept alive), paced by lim (nil for no limit). Zero policy fields
// take their defaults; invalid RetryOn entries are ignored (see
// Policy.Validate).
func NewClient(p Policy, concurrency int, lim *Limiter, opts ...Option) *Client {
	concurrency = max(concurrency, 1)
	c := &Client{
		lim:     lim,
		clk:     RealClock{},
		policy:  p,
		timeout: p.Timeout,
		max:     p.MaxResponseBytes,
		retry:   newRetrySet(p.RetryOn),
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.max <= 0 {
		c.max = DefaultMaxResponseBytes
	}
	c.max = min(c.max, math.MaxInt64-1)
	c.policy.Retries = max(c.policy.Retries, 0)
	c.policy.Backoff = max(c.policy.Backoff, 0)
	for _, o := range opts {
		o(c)
	}
	if c.tr == nil {
		dialer := &net.Dialer{Timeout: c.timeout, KeepAlive: 30 * time.Second}
		c.tr = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           dialer.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          max(100, concurrency),
			MaxIdleConnsPerHost:   concurrency,
			MaxConnsPerHost:       concurrency,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
			TLSClientConfig:       p.TLS,
		}
	}
	c.hc = &http.Client{Transport: c.tr, CheckRedirect: c.checkRedirect}
	return c
}

// followsRedirects reports whether the policy follows any redirect.
func (c *Client) followsRedirects() bool {
	return c.policy.Redirects == RedirectSameOrigin
}

// roundTrip sends req and returns its response as c.hc.Do does. With no
// redirect to follow (the default) it hands req to the transport itself:
// Do would copy its headers for redirects it will not follow, and adds
// nothing else here (no cookie jar, no client timeout; build sets the
// basic auth of a URL with a user, as Do would). Its errors are Do's: a
// *url.Error around the transport's, http.ErrSchemeMismatch for an HTTPS
// call an HTTP server answered.
func (c *Client) roundTrip(req *http.Request) (*http.Response, error) {
	if c.followsRedirects() {
		return c.hc.Do(req)
	}
	resp, err := c.tr.RoundTrip(req)
	if err != nil {
		if re, ok := err.(tls.RecordHeaderError); ok && string(re.RecordHeader[:]) == "HTTP/" {
			err = http.ErrSchemeMismatch
		}
		op := req.Method[:1] + strings.ToLower(req.Method[1:])
		return nil, &url.Error{Op: op, URL: req.URL.Redacted(), Err: err}
	}
	return resp, nil
}

// redirectsKey holds, in an attempt's context, the redirects it followed.
type redirectsKey struct{}

// checkRedirect follows only what Policy.Redirects allows: nothing by
// default, or same-origin redirects that keep the method, without Referer
// (it would carry the previous URL, secrets in its query included).
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if c.policy.Redirects != RedirectSameOrigin || len(via) > MaxRedirects {
		return http.ErrUseLastResponse
	}
	first, last := via[0].URL, via[len(via)-1]
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host || req.Method != last.Method {
		return http.ErrUseLastResponse
	}
	req.Header.Del("Referer")
	if followed, ok := req.Context().Value(redirectsKey{}).(*[]string); ok {
		*followed = append(*followed, req.URL.String())
	}
	return nil
}

// redirectMessage is the HTTPError message of a 3xx response that was not
// followed: it names where it pointed and the rule that stopped it.
func (c *Client) redirectMessage(hr *http.Response) string {
	msg := statusMessage(hr.StatusCode)
	loc, err := hr.Location()
	if err != nil {
		return msg + " (a redirect without a Location)"
	}
	if c.policy.Redirects == RedirectSameOrigin {
		return fmt.Sprintf("%s: redirect to %s not followed (only redirects to the same scheme, host and port that keep the method are followed, at most %d)", msg, loc, MaxRedirects)
	}
	return fmt.Sprintf("%s: redirect to %s not followed (redirects = %q in the target follows redirects to the same scheme, host and port)", msg, loc, RedirectSameOrigin)
}

// Close releases the client's idle connections.
func (c *Client) Close() { c.tr.CloseIdleConnections() }

// failClass says which RetryOn condition an attempt's failure falls under.
type failClass int

const (
	classNone    failClass = iota
	classTimeout           // per-attempt timeout
	classReset             // refused, reset, EOF, broken pipe
	classStatus            // a status that was not accepted
	classOther             // not retryable
)

// Do makes the logical call r: up to 1+Retries attempts, each paced by the
// limiter and bounded by the timeout. It returns the last attempt's response;
// every failure is in Response.Err, never a panic.
func (c *Client) Do(ctx context.Context, r Request) Response {
	var out Response
	base, cerr := c.prepare(r)
	if cerr != nil {
		out.Err = cerr
		return out
	}
	var rng *rand.Rand
	for attempt := 0; ; attempt++ {
		if err := c.lim.Wait(ctx); err != nil {
			return interrupted(out)
		}
		if attempt == 0 {
			out.Started = time.Now()
		}
		res, class, retryAfter := c.attempt(ctx, base, r.Body)
		res.Started = out.Started
		res.Attempts = attempt + 1
		out = res
		if out.Err == nil || out.Interrupted || attempt >= c.policy.Retries || !c.retried(class, out.Status) {
			return out
		}
		if rng == nil {
			seed := r.Seed
			if seed == 0 {
				seed = requestSeed(r)
			}
			rng = rand.New(rand.NewPCG(seed, 0x6e6c7574657374)) // "nlutest"
		}
		if d := c.backoff(attempt, retryAfter, rng); d > 0 {
			if err := c.clk.Sleep(ctx, d); err != nil {
				return interrupted(out)
			}
		} else if ctx.Err() != nil {
			return interrupted(out)
		}
	}
}

func (c *Client) retried(class failClass, status int) bool {
	switch class {
	case classTimeout:
		return c.retry.timeout
	case classReset:
		return c.retry.reset
	case classStatus:
		return c.retry.statusRetried(status)
	}
	return false
}

// backoff returns the delay before retry number attempt (from 0).
func (c *Client) backoff(attempt int, retryAfter time.Duration, rng *rand.Rand) time.Duration {
	var d time.Duration
	if base := c.policy.Backoff; base > 0 {
		ceil := MaxBackoff
		if attempt < 62 && base <= MaxBackoff>>attempt {
			ceil = base << attempt
		}
		d = time.Duration(rng.Int64N(int64(ceil) + 1))
	}
	return min(max(d, retryAfter), MaxBackoff)
}

func requestSeed(r Request) uint64 {
	h := fnv.New64a()
	io.WriteString(h, r.Method)
	h.Write([]byte{0})
	io.WriteString(h, r.URL)
	h.Write([]byte{0})
	h.Write(r.Body)
	return h.Sum64()
}

func interrupted(out Response) Response {
	out.Err = &schema.CallError{Type: schema.ErrRequest, Message: "interrupted"}
	out.Interrupted = true
	out.Body = nil
	return out
}

// prepare validates r and returns the request, without body, every
// attempt is cloned from (attach gives a clone its body). The checked
// request is kept (Client.last), so calls with the same method, URL,
// headers and presence of a body share it; it is never written.
func (c *Client) prepare(r Request) (*http.Request, *schema.CallError) {
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	if p := c.last.Load(); p != nil && p.matches(method, &r) {
		return p.base, nil
	}
	base, cerr := c.build(method, r)
	if cerr != nil {
		return nil, cerr
	}
	c.last.Store(&prepared{method: method, url: r.URL, hasBody: r.Body != nil, given: r.Header.Clone(), base: base})
	return base, nil
}

// attach gives req (a clone of a prepared request) body as http.NewRequest
// gives a *bytes.Reader: its length, the body, and GetBody for the
// transport to send it again; NoBody when empty.
func attach(req *http.Request, body []byte) {
	req.ContentLength = int64(len(body))
	if len(body) == 0 {
		req.Body = http.NoBody
		req.GetBody = func() (io.ReadCloser, error) { return http.NoBody, nil }
		return
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
}

// build checks r's URL and headers and builds its request, without body.
func (c *Client) build(method string, r Request) (*http.Request, *schema.CallError) {
	u, err := url.Parse(r.URL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, requestError("invalid URL %q: %v", r.URL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, requestError("invalid URL %q: scheme must be http or https", r.URL)
	}
	if u.Host == "" {
		return nil, requestError("invalid URL %q: no host", r.URL)
	}
	req, err := http.NewRequest(method, r.URL, nil)
	if err != nil {
		return nil, requestError("invalid request: %v", err)
	}
	if r.Header != nil {
		req.Header = r.Header.Clone()
	}
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h
		req.Header.Del("Host")
	}
	if _, ok := req.Header["User-Agent"]; !ok {
		req.Header.Set("User-Agent", UserAgent)
	}
	if r.Body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if u.User != nil && req.Header.Get("Authorization") == "" && !c.followsRedirects() {
		// What http.Client.Do sends for a URL with a user, which roundTrip
		// sends without it. (Do adds it to a copy, so a followed redirect
		// goes without it: with redirects to follow, Do adds it.)
		pass, _ := u.User.Password()
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass)))
	}
	for k, vs := range req.Header {
		for _, v := range vs {
			if !validHeader(k, v) {
				return nil, requestError("invalid header %q", k)
			}
		}
	}
	return req, nil
}

// validHeader rejects what net/http would refuse to send, so the problem is
// a RequestError and not a connection error.
func validHeader(k, v string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		b := k[i]
		if b <= ' ' || b >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, b) >= 0 {
			return false
		}
	}
	for i := 0; i < len(v); i++ {
		if b := v[i]; (b < ' ' && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}

// attempt makes one attempt. It returns the response, the class of its
// failure and the Retry-After delay the server asked for.
func (c *Client) attempt(parent context.Context, base *http.Request, body []byte) (Response, failClass, time.Duration) {
	ctx, cancel := context.WithTimeout(parent, c.timeout)
	defer cancel()
	var followed []string
	if c.policy.Redirects == RedirectSameOrigin {
		ctx = context.WithValue(ctx, redirectsKey{}, &followed)
	}
	req := base.WithContext(ctx)
	if body != nil {
		attach(req, body)
	}
	start := time.Now()
	hr, err := c.roundTrip(req)
	if err != nil {
		out := Response{Latency: time.Since(start)}
		if parent.Err() != nil {
			return interrupted(out), classOther, 0
		}
		ce, class := classifyError(ctx, err, req.URL, c.timeout, false)
		out.Err = ce
		return out, class, 0
	}
	defer hr.Body.Close()

	out := Response{Status: hr.StatusCode, Header: hr.Header, Redirects: followed}
	accepted := c.accepted(hr.StatusCode)
	if accepted && hr.ContentLength > c.max {
		out.Latency = time.Since(start)
		out.Err = tooLarge(c.max)
		return out, classOther, 0
	}
	b, over, rerr := readBody(hr.Body, c.max, hr.ContentLength)
	out.Latency = time.Since(start)
	if parent.Err() != nil {
		return interrupted(out), classOther, 0
	}
	if !accepted {
		out.Body = b
		out.Err = &schema.CallError{Type: schema.ErrHTTP, Message: statusMessage(hr.StatusCode)}
		if hr.StatusCode >= 300 && hr.StatusCode <= 399 {
			out.Err.Message = c.redirectMessage(hr)
		}
		var ra time.Duration
		if hr.StatusCode == http.StatusTooManyRequests || hr.StatusCode == http.StatusServiceUnavailable {
			ra = retryAfter(hr.Header.Get("Retry-After"), c.clk.Now())
		}
		return out, classStatus, ra
	}
	if rerr != nil {
		ce, class := classifyError(ctx, rerr, req.URL, c.timeout, true)
		out.Err = ce
		return out, class, 0
	}
	if over {
		out.Err = tooLarge(c.max)
		return out, classOther, 0
	}
	out.Body = b
	if c.policy.ExpectJSON {
		if !validJSON(b) {
			out.Err = invalidJSON(b)
			return out, classOther, 0
		}
		out.JSONChecked = true
	}
	return out, classNone, 0
}

func (c *Client) accepted(status int) bool {
	if c.policy.AcceptStatus != nil {
		return c.policy.AcceptStatus(status)
	}
	return status >= 200 && status <= 299
}

// maxPrealloc bounds the buffer allocated before any byte of a body arrives.
const maxPrealloc = 1 << 20

// readBody reads r up to limit bytes (limit < math.MaxInt64). over reports that r had more; the
// excess (beyond one byte) is never read. hint is the announced length, -1
// when unknown.
func readBody(r io.Reader, limit, hint int64) (b []byte, over bool, err error) {
	size := int64(512)
	if hint >= 0 {
		size = min(hint, limit) + 1 // room to see EOF without growing
	}
	// Trust an announced length only up to maxPrealloc; grow beyond it as
	// bytes actually arrive.
	size = min(size, limit+1, maxPrealloc)
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			next := limit + 1
			if c := int64(cap(buf)); c < limit/2 {
				next = 2*c + 1
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
		n, rerr := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf[:limit], true, nil
		}
		if rerr == io.EOF {
			return buf, false, nil
		}
		if rerr != nil {
			return buf, false, rerr
		}
	}
}

// retryAfter parses a Retry-After value: delay-seconds, or an HTTP date
// relative to now. Anything else, or a time in the past, is 0.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		if n > int64(MaxBackoff/time.Second) {
			return MaxBackoff
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}
