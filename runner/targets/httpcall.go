package targets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/transport"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// httpCaller is the caller of the http, rasa and demo kinds: one HTTP
// request per turn, built from the kind's request (per-case expressions) or
// by fixedBody.
type httpCaller struct {
	suite  *spec.Suite
	target *spec.Target
	// req holds the request expressions; nil for a fixed request shape.
	req    *httpConfig
	client *transport.Client
	red    *runner.Redactor
	stop   func()

	// static parts, evaluated once when they use only var.
	url     string
	method  string
	headers http.Header
	// fixedBody builds the body of targets whose request shape is fixed
	// (demo, rasa, openai); history is the conversation before the turn.
	fixedBody func(c *schema.Case, history []schema.Message) ([]byte, error)
	// caseHeader, when set, returns the headers of case c's request from
	// the static ones (a copy when it adds any): openai's session header.
	caseHeader func(c *schema.Case, static http.Header) http.Header
	// textKey, when set, is KEY of a static http target whose body is
	// jsonencode({ KEY = case.text }), built without HCL (textbody.go),
	// sent with textHeader.
	textKey    string
	textHeader http.Header
	// ownSession: a fixed body or header sends case.conversation, so a
	// single case gets a session id of its own (one for both).
	ownSession bool
	// decode, when set, fills the result's reply (and what else the kind
	// reads from its answer) from r.Response; nil: schema.ReplyOf.
	decode func(r *schema.Result, ctx *hcl.EvalContext) error
	// after, when set, runs after a call whose answer was usable (not on
	// a cache hit, which restores what it recorded): a rasa target's
	// tracker read. It may set r.State, or r.Error to make the call an
	// error. req is the request the call sent.
	after func(ctx context.Context, r *schema.Result, req transport.Request)
	// withHistory: the kind's requests depend on the conversation so far,
	// so its sessions pass the history on.
	withHistory bool
	// tools, when set, makes the sessions run tool calls with the suite's
	// mock tools (openai_tools.go).
	tools *toolAgent
	// health is the preflight's health check URL (the demo's /health);
	// empty: dial the target's host.
	health      string
	cache       *runner.Cache
	fingerprint string
	// needs are the per-case names the request expressions use.
	needs spec.Needs
	// recorded holds the request headers last recorded: calls that send
	// the target's static headers record them redacted once.
	recorded atomic.Pointer[recordedHeaders]
	// answered holds the response headers last recorded: answers whose
	// headers are equal to them share their record (a service sends the
	// same ones until its Date header turns to the next second).
	answered atomic.Pointer[recordedHeaders]
}

// recordedHeaders are the request or response headers src as results
// record them (redacted, one value per name); results share rec and never
// write it.
type recordedHeaders struct {
	src http.Header
	rec map[string]string
}

// recordHeaders returns the request headers hdr as a result records them.
// A header map a request sends is never written afterwards (the static
// ones are built once; per-case ones are built for their call), so the
// same map gives the same record.
func (h *httpCaller) recordHeaders(hdr http.Header) map[string]string {
	return recordOnce(h.red, &h.recorded, hdr, sameMap)
}

// responseHeaders returns the headers of an answer as a result records
// them: the record of the last answer when hdr equals its headers, else a
// new one.
func (h *httpCaller) responseHeaders(hdr http.Header) map[string]string {
	return recordOnce(h.red, &h.answered, hdr, equalHeaders)
}

// recordOnce returns hdr redacted as a result records it: the record kept
// in last when same says hdr gives it, else a new one, which last keeps.
// Records are never written, so results share them.
func recordOnce(red *runner.Redactor, last *atomic.Pointer[recordedHeaders], hdr http.Header, same func(kept, hdr http.Header) bool) map[string]string {
	if p := last.Load(); p != nil && same(p.src, hdr) {
		return p.rec
	}
	rec := red.Headers(hdr)
	last.Store(&recordedHeaders{src: hdr, rec: rec})
	return rec
}

// equalHeaders reports whether a and b hold the same names with the same
// values, in the same order. Empty ones are never equal: Redactor.Headers
// answers them at once.
func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for k, vb := range b {
		if va, ok := a[k]; !ok || !slices.Equal(va, vb) {
			return false
		}
	}
	return true
}

// sameMap reports whether a and b are the same map (not equal ones).
func sameMap(a, b http.Header) bool {
	return a != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// newHTTPCaller makes the caller every HTTP kind shares; endpoint tells
// apart the cache entries of kinds that differ by more than name (demo).
// conn (nil for none) gives the redirect policy and TLS settings.
func newHTTPCaller(b *Build, endpoint string, conn *connConfig) (*httpCaller, error) {
	t := b.Target
	var policy transport.Policy
	if err := conn.apply(&policy, b.Suite.Access); err != nil {
		return nil, err
	}
	return &httpCaller{
		suite: b.Suite, target: t, red: b.Redactor, cache: b.Options.Cache,
		fingerprint: t.Kind + "\x00" + t.Name + "\x00" + endpoint,
		client: b.Client(func(p *transport.Policy) {
			p.Redirects, p.TLS = policy.Redirects, policy.TLS
		}),
	}, nil
}

// jsonBody is {"KEY": text}: the bytes json.Marshal gives for
// map[string]string{key: text}, without the map (TestJSONBodyAsMarshal).
// Without <, > or & (which json.Marshal escapes as HTML) the strings are
// written as jsondoc.AppendString writes them, the encoding/json escapes
// otherwise; with them, by json.Marshal.
func jsonBody(key, text string) []byte {
	if strings.ContainsAny(key, "<>&") || strings.ContainsAny(text, "<>&") {
		k, _ := json.Marshal(key)
		v, _ := json.Marshal(text)
		b := make([]byte, 0, len(k)+len(v)+3)
		b = append(b, '{')
		b = append(b, k...)
		b = append(b, ':')
		b = append(b, v...)
		return append(b, '}')
	}
	b := make([]byte, 0, len(key)+len(text)+8)
	b = append(b, '{')
	b = jsondoc.AppendString(b, key)
	b = append(b, ':')
	b = jsondoc.AppendString(b, text)
	return append(b, '}')
}

// textBody is a fixed body {"KEY": turn text}.
func textBody(key string) func(*schema.Case, []schema.Message) ([]byte, error) {
	return func(c *schema.Case, _ []schema.Message) ([]byte, error) { return jsonBody(key, c.Text), nil }
}

// evalStatic evaluates the url, method and headers of ht.
func evalStatic(ht *httpConfig, ctx *hcl.EvalContext) (u, method string, hdr http.Header, diags hcl.Diagnostics) {
	u, d := evalString(ht.URL, ctx, "url")
	diags = append(diags, d...)
	method = http.MethodPost
	if ht.Method != nil {
		m, d := evalString(ht.Method, ctx, "method")
		diags = append(diags, d...)
		if m != "" {
			method = strings.ToUpper(m)
		}
	}
	hdr = http.Header{}
	if ht.Headers != nil {
		v, d := ht.Headers.Value(ctx)
		diags = append(diags, d...)
		if !d.HasErrors() && !v.IsNull() {
			if !v.CanIterateElements() || v.Type().IsListType() || v.Type().IsTupleType() {
				diags = append(diags, exprDiag(ht.Headers, "Invalid headers", "headers must be a map of strings, e.g. { Authorization = \"Bearer ${var.token}\" }."))
			} else {
				for it := v.ElementIterator(); it.Next(); {
					k, e := it.Element()
					if e.IsNull() || e.Type() != cty.String {
						diags = append(diags, exprDiag(ht.Headers, "Invalid header value", fmt.Sprintf("The header %q must be a string.", k.AsString())))
						continue
					}
					hdr.Set(k.AsString(), e.AsString())
				}
			}
		}
	}
	return u, method, hdr, diags
}

func exprDiag(e hcl.Expression, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: e.Range().Ptr()}
}

func evalString(e hcl.Expression, ctx *hcl.EvalContext, what string) (string, hcl.Diagnostics) {
	v, diags := e.Value(ctx)
	if diags.HasErrors() {
		return "", diags
	}
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return "", hcl.Diagnostics{exprDiag(e, "Invalid "+what, fmt.Sprintf("The %s must be a string.", what))}
	}
	return v.AsString(), nil
}

// request builds the HTTP request of one case.
func (h *httpCaller) request(c *schema.Case, history []schema.Message) (transport.Request, hcl.Diagnostics) {
	if h.fixedBody != nil {
		if c.Conversation == "" && h.ownSession {
			// One session id for the body and the header (a single
			// case's own, as rasa's webhook gives it).
			single := *c
			single.Conversation = runner.NewSessionID(c.ID)
			c = &single
		}
		body, err := h.fixedBody(c, history)
		if err != nil {
			return transport.Request{}, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid request", Detail: err.Error()}}
		}
		hdr := h.headers
		if h.caseHeader != nil {
			hdr = h.caseHeader(c, hdr)
		}
		return transport.Request{Method: h.method, URL: h.url, Header: hdr, Body: body}, nil
	}
	if h.textKey != "" {
		return transport.Request{Method: h.method, URL: h.url, Header: h.textHeader, Body: textBodyOf(h.textKey, c.Text)}, nil
	}
	ht := h.req
	if c.Conversation == "" && h.needs.Case("conversation") {
		// A single case talks to a stateful bot in a session of its own,
		// as rasa's webhook and the demo's bots give it: sharing "" would
		// let one case hear another's text.
		single := *c
		single.Conversation = runner.NewSessionID(c.ID)
		c = &single
	}
	ctx := h.suite.ContextFor(c, h.needs)
	u, method, hdr := h.url, h.method, h.headers
	if !ht.Static {
		var diags hcl.Diagnostics
		u, method, hdr, diags = evalStatic(ht, ctx)
		if diags.HasErrors() {
			return transport.Request{}, diags
		}
	}
	var body []byte
	if ht.Body == nil {
		body = jsonBody("text", c.Text)
	} else {
		v, diags := ht.Body.Value(ctx)
		if diags.HasErrors() {
			return transport.Request{}, diags
		}
		switch {
		case v.IsNull():
		case v.Type() == cty.String:
			body = []byte(v.AsString())
		default:
			b, err := ctyjson.Marshal(v, v.Type())
			if err != nil {
				return transport.Request{}, hcl.Diagnostics{exprDiag(ht.Body, "Invalid body", err.Error())}
			}
			body = b
		}
	}
	if len(body) > 0 && hdr.Get("Content-Type") == "" {
		hdr = hdr.Clone()
		if json.Valid(body) {
			hdr.Set("Content-Type", "application/json")
		} else {
			hdr.Set("Content-Type", "text/plain; charset=utf-8")
		}
	}
	return transport.Request{Method: method, URL: u, Header: hdr, Body: body}, nil
}

// maxRecordedBody caps a non-JSON body kept in the results file.
const maxRecordedBody = 4 << 10

// Call makes the call of one turn of a stateless session.
func (h *httpCaller) Call(ctx context.Context, c *schema.Case) *schema.Result {
	return h.call(ctx, c, nil)
}

func (h *httpCaller) call(ctx context.Context, c *schema.Case, history []schema.Message) *schema.Result {
	r := &schema.Result{Case: *c, Target: h.target.Name, Started: time.Now().UTC()}
	req, diags := h.request(c, history)
	if diags.HasErrors() {
		msg := spec.DiagText(diags)
		if m := h.suite.MissingCapture(c, diags); m != "" {
			msg = m // a turn reading a capture an earlier turn did not make
		}
		r.Error = &schema.CallError{Type: schema.ErrRequest, Message: h.red.String(msg)}
		r.Outcome = schema.Error
		return r
	}
	r.Request = &schema.Request{Method: req.Method, URL: h.red.String(req.URL), Headers: h.recordHeaders(req.Header), Body: h.red.String(string(req.Body))}
	h.do(ctx, r, c, req, h.decode)
	return r
}

// do sends req (the request of turn c, recorded in r.Request), from the
// cache when it has the answer, and fills r with the answer, reading it
// with dec (nil: schema.ReplyOf).
func (h *httpCaller) do(ctx context.Context, r *schema.Result, c *schema.Case, req transport.Request, dec func(*schema.Result, *hcl.EvalContext) error) {
	var key string
	if h.cache != nil {
		fp := h.fingerprint
		if c.Turn > 0 {
			// A turn's request alone does not say where in its
			// conversation it is: a stateful bot told the same filler
			// twice in one session must hear it twice, or its count of
			// turns (and what it remembers) falls behind.
			fp += "\x00turn " + strconv.Itoa(c.Turn)
		}
		key = h.cache.Key(fp, req)
		if h.fromCache(key, r, c, dec) {
			return
		}
	}
	resp := h.client.Do(ctx, req)
	r.Status = resp.Status
	r.Headers = h.responseHeaders(resp.Header)
	for _, u := range resp.Redirects {
		r.Request.Redirects = append(r.Request.Redirects, h.red.String(u))
	}
	r.Attempts = int32(resp.Attempts)
	r.LatencyMS = float64(resp.Latency.Microseconds()) / 1000
	r.Error = resp.Err
	if r.Error != nil {
		if len(resp.Body) > 0 {
			// Redact the whole body before cutting it, so a secret across
			// the cut is not left in part; a JSON error body (a 401's
			// {"error":{"message":"Incorrect API key provided: …"}}) is
			// redacted as a JSON answer is, and stays JSON.
			body := h.redactBody(resp.Body)
			r.Body = truncateUTF8(body, maxRecordedBody)
			if r.Error.Type == schema.ErrInvalidJSON {
				r.Error = transport.InvalidJSON(body) // its preview quotes the body
			}
		}
		r.Error.Message = h.red.String(r.Error.Message)
		r.Outcome = schema.Error
		return
	}
	body, err := compactJSON(resp.Body, resp.JSONChecked)
	if err != nil {
		r.Error = &schema.CallError{Type: schema.ErrInvalidJSON, Message: err.Error()}
		r.Outcome = schema.Error
		return
	}
	r.Response = json.RawMessage(h.red.JSON(body))
	answer := r.Response
	h.decodeReply(r, c, dec)
	if h.after != nil && r.Error == nil {
		h.after(ctx, r, req)
	}
	if key != "" && r.Error == nil {
		// The cache keeps the answer as the service gave it: a kind's
		// decode may replace the response (openai's content = "json").
		// It keeps the state a rasa tracker read too.
		kept := *r
		kept.Response = answer
		h.cache.Put(key, &kept)
	}
}

// compactJSON is b compacted, so the record is one line and re-reading it
// gives the same bytes (json.Compact); an error when b is not JSON. JSON
// already checked (checked) without a space, tab or line break is compact
// already: b itself (TestCompactJSONFastPath).
func compactJSON(b []byte, checked bool) ([]byte, error) {
	if checked && !bytes.ContainsAny(b, " \t\r\n") {
		return b, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// fromCache fills r from the cache entry key, if there is one, and
// reports whether there was.
func (h *httpCaller) fromCache(key string, r *schema.Result, c *schema.Case, dec func(*schema.Result, *hcl.EvalContext) error) bool {
	if !h.cache.Get(key, r) {
		return false
	}
	// Redact again what an earlier version stored: the forms redacted may
	// have grown since.
	r.Response = json.RawMessage(h.red.JSON(r.Response))
	if len(r.State) > 0 {
		r.State = json.RawMessage(h.red.JSON(r.State))
	}
	for k, v := range r.Headers {
		r.Headers[k] = h.red.String(v)
	}
	h.decodeReply(r, c, dec)
	return true
}

// redactBody redacts a body that is not a usable answer: as JSON when it
// is JSON, else as text.
func (h *httpCaller) redactBody(b []byte) []byte {
	if json.Valid(b) {
		return h.red.JSON(b)
	}
	return []byte(h.red.String(string(b)))
}

// decodeReply sets r's reply from its response: dec (the kind's
// decode), else the response when it is a JSON string. A decode error
// makes the result an error (the answer is not what the kind's API gives).
func (h *httpCaller) decodeReply(r *schema.Result, c *schema.Case, dec func(*schema.Result, *hcl.EvalContext) error) {
	if dec == nil {
		r.Reply = schema.ReplyOf(r.Response)
		return
	}
	var ctx *hcl.EvalContext
	if h.req != nil {
		ctx = h.suite.ContextFor(c, h.needs)
	}
	if err := dec(r, ctx); err != nil {
		kind := ErrReply
		var ke *kindError
		if errors.As(err, &ke) {
			kind = ke.kind
		}
		r.Error = &schema.CallError{Type: kind, Message: h.red.String(err.Error())}
		r.Outcome = schema.Error
	}
	r.Reply = h.red.String(r.Reply)
}

// ErrReply is the error type of a response a chatbot target could not
// read its reply from.
const ErrReply = "ReplyError"

// kindError is a decode error of another type than ErrReply.
type kindError struct {
	kind string
	err  error
}

func (e *kindError) Error() string { return e.err.Error() }
func (e *kindError) Unwrap() error { return e.err }

func truncateUTF8(b []byte, n int) string {
	if len(b) <= n {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strings.ToValidUTF8(string(b[:cut]), "\uFFFD") + fmt.Sprintf("… (%d bytes in all)", len(b))
}

// Preflight checks that the target's host accepts connections (http) or
// that the demo service answers its health check.
func (h *httpCaller) Preflight(ctx context.Context) error {
	if h.health != "" {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.health, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return fmt.Errorf("demo service not answering: %w", err)
		}
		resp.Body.Close()
		return nil
	}
	if h.url == "" {
		return nil // per-case URLs: nothing to check before the first case
	}
	u, err := url.Parse(h.url)
	if err != nil || u.Host == "" {
		return fmt.Errorf("target %q: the url %q is not an absolute URL", h.target.Name, h.red.String(h.url))
	}
	host := u.Host
	if u.Port() == "" {
		if u.Scheme == "https" {
			host = net.JoinHostPort(u.Hostname(), "443")
		} else {
			host = net.JoinHostPort(u.Hostname(), "80")
		}
	}
	d := net.Dialer{Timeout: min(h.target.Timeout, 5*time.Second)}
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return fmt.Errorf("target %q is unreachable at %s: %v", h.target.Name, h.red.String(u.Scheme+"://"+u.Host), err)
	}
	conn.Close()
	return nil
}

func (h *httpCaller) Open(context.Context, *schema.Script) (runner.Session, error) {
	if h.tools != nil {
		return &toolSession{h: h, a: h.tools}, nil
	}
	if h.withHistory {
		return httpSession{h}, nil
	}
	return plainSession{h}, nil
}

// httpSession is the session of a kind that sends the conversation so far
// with every turn (openai): the state is the history the runner keeps.
type httpSession struct{ h *httpCaller }

func (s httpSession) Call(ctx context.Context, turn *schema.Case, history []schema.Message) *schema.Result {
	return s.h.call(ctx, turn, history)
}

func (httpSession) Close() {}

func (h *httpCaller) Close() {
	h.client.Close()
	if h.stop != nil {
		h.stop()
	}
}
