package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/nlutest/nlutest/schema"
)

// invalidJSONPreview is how many bytes of a non-JSON body an InvalidJSON
// message quotes.
const invalidJSONPreview = 80

func requestError(format string, args ...any) *schema.CallError {
	return &schema.CallError{Type: schema.ErrRequest, Message: fmt.Sprintf(format, args...)}
}

// classifyError turns a failed exchange into a CallError. ctx is the attempt's
// context (its parent is known not to be done); inBody says the headers had
// already arrived.
func classifyError(ctx context.Context, err error, u *url.URL, timeout time.Duration, inBody bool) (*schema.CallError, failClass) {
	var ne net.Error
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout()) {
		msg := "no response within " + timeout.String()
		if inBody {
			msg = "response body not complete within " + timeout.String()
		}
		return &schema.CallError{Type: schema.ErrTimeout, Message: msg}, classTimeout
	}
	host := ""
	if u != nil {
		host = u.Host
	}
	inner := err
	var ue *url.Error
	if errors.As(err, &ue) {
		inner = ue.Err
	}
	connErr := func(class failClass, format string, args ...any) (*schema.CallError, failClass) {
		return &schema.CallError{Type: schema.ErrConnection, Message: fmt.Sprintf(format, args...)}, class
	}
	text := inner.Error()
	var dnsErr *net.DNSError
	switch {
	case LocalExhaustion(err):
		ce, class := connErr(classOther, "cannot reach %s: %s on this machine", host, text)
		ce.Local = true
		return ce, class
	case errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(text, "connection refused"):
		return connErr(classReset, "connection refused by %s", host)
	case errors.Is(err, syscall.ECONNRESET) || strings.Contains(text, "connection reset"):
		return connErr(classReset, "connection reset by %s", host)
	case errors.Is(err, syscall.EPIPE) || strings.Contains(text, "broken pipe"):
		return connErr(classReset, "connection to %s closed while sending the request (broken pipe)", host)
	case errors.Is(err, syscall.ECONNABORTED):
		return connErr(classReset, "connection to %s aborted", host)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		strings.Contains(text, "server closed idle connection"):
		if inBody {
			return connErr(classReset, "%s closed the connection before the response body was complete", host)
		}
		return connErr(classReset, "%s closed the connection without sending a response", host)
	case errors.As(err, &dnsErr):
		return connErr(classOther, "cannot resolve host %q: %s", dnsErr.Name, dnsErr.Err)
	}
	if inBody {
		return connErr(classOther, "reading the response body from %s: %s", host, text)
	}
	return connErr(classOther, "%s", text)
}

// LocalExhaustion reports whether err comes from this machine running out
// of a resource (file descriptors: EMFILE, ENFILE) rather than from the
// target: such a failure says nothing about the target.
func LocalExhaustion(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		strings.Contains(err.Error(), "too many open files")
}

// statusMessage is "HTTP 500 Internal Server Error", or "HTTP 599" for codes
// without a standard text.
func statusMessage(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("HTTP %d %s", code, t)
	}
	return "HTTP " + strconv.Itoa(code)
}

func tooLarge(limit int64) *schema.CallError {
	return &schema.CallError{Type: schema.ErrTooLarge, Message: "response exceeds " + formatBytes(limit) + " limit"}
}

// formatBytes writes n in the largest binary unit that divides it exactly.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + " GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	case n == 1:
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// InvalidJSON is the InvalidJSON error of body b, with its preview; a
// caller that redacts secrets rebuilds the error from the redacted body.
func InvalidJSON(b []byte) *schema.CallError { return invalidJSON(b) }

// invalidJSON describes a body that is not JSON: the parser's complaint and
// the first 80 bytes (cut at a character boundary), quoted and escaped.
func invalidJSON(b []byte) *schema.CallError {
	if len(bytesTrimSpace(b)) == 0 {
		return &schema.CallError{Type: schema.ErrInvalidJSON, Message: "response body is empty, JSON expected"}
	}
	reason := "invalid JSON"
	var raw json.RawMessage
	var se *json.SyntaxError
	if err := json.Unmarshal(b, &raw); errors.As(err, &se) {
		reason = fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	} else if err != nil {
		reason = err.Error()
	}
	return &schema.CallError{Type: schema.ErrInvalidJSON, Message: "response is not valid JSON (" + reason + "): " + preview(b, invalidJSONPreview)}
}

// preview quotes at most n bytes of b, never splitting a UTF-8 character,
// and marks a cut with "…".
func preview(b []byte, n int) string {
	if len(b) <= n {
		return strconv.Quote(string(b))
	}
	cut := n
	for cut > 0 && cut > n-utf8.UTFMax && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "…"
}

func bytesTrimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}
