package transport

import (
	"crypto/tls"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Defaults applied by NewClient to zero Policy fields.
const (
	// DefaultTimeout is the per-attempt timeout when Policy.Timeout is 0.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxResponseBytes is the body cap when Policy.MaxResponseBytes is 0.
	DefaultMaxResponseBytes int64 = 10 << 20
	// MaxBackoff caps every delay between attempts, Retry-After included.
	MaxBackoff = 10 * time.Second
)

// Retry conditions accepted in Policy.RetryOn besides exact status codes.
const (
	// RetryTimeout retries attempts that hit the per-attempt timeout.
	RetryTimeout = "timeout"
	// RetryReset retries attempts whose connection was refused, reset or
	// closed early (EOF, broken pipe).
	RetryReset = "reset"
	// Retry429 retries HTTP 429 Too Many Requests.
	Retry429 = "429"
	// Retry5xx retries every HTTP 5xx status.
	Retry5xx = "5xx"
)

// DefaultRetryOn is used when Policy.RetryOn is nil.
var DefaultRetryOn = []string{RetryTimeout, RetryReset, Retry429, "502", "503", "504"}

// Policy says how one logical call is made: timeout, retries and what counts
// as a usable response.
type Policy struct {
	// Timeout bounds each attempt, from sending the request to reading the
	// last byte of the body; 0 means DefaultTimeout.
	Timeout time.Duration
	// Retries is the number of extra attempts after the first (negative is 0).
	Retries int
	// RetryOn lists the conditions that are retried: "timeout", "reset",
	// "429", "5xx", or exact status codes "400".."599". nil means
	// DefaultRetryOn; an empty non-nil slice retries nothing. Check it with
	// Validate; NewClient ignores entries Validate rejects.
	RetryOn []string
	// Backoff is the base delay between attempts. Retry k (from 0) waits a
	// uniformly random time in [0, min(MaxBackoff, Backoff·2^k)] ("full
	// jitter"); a Retry-After header on 429 or 503 raises the wait to its
	// value, capped at MaxBackoff.
	Backoff time.Duration
	// MaxResponseBytes caps the body held in memory; 0 means
	// DefaultMaxResponseBytes. A longer accepted body is ResponseTooLarge and
	// the rest of it is never read.
	MaxResponseBytes int64
	// ExpectJSON makes a body that is not valid JSON an InvalidJSON error.
	ExpectJSON bool
	// AcceptStatus says which statuses are usable; nil accepts 2xx only.
	// Other statuses are HTTPError, with the (capped) body kept.
	AcceptStatus func(status int) bool
	// Redirects says which redirects are followed: RedirectNone (the
	// default) follows none, so a 3xx is an HTTPError naming its Location;
	// RedirectSameOrigin follows those to the same scheme, host and port
	// that keep the method (at most MaxRedirects), never sending Referer.
	Redirects string
	// TLS, when set, configures https connections (trusted CAs, a client
	// certificate).
	TLS *tls.Config
}

// Redirect policies (Policy.Redirects; the target's redirects attribute).
const (
	RedirectNone       = "none"
	RedirectSameOrigin = "same-origin"
)

// MaxRedirects caps the redirects one attempt follows.
const MaxRedirects = 10

// Validate reports the first problem with the policy's fields, naming the
// setting as a suite writer would (retry_on, timeout, …).
func (p Policy) Validate() error {
	if p.Timeout < 0 {
		return fmt.Errorf("timeout must not be negative, got %s", p.Timeout)
	}
	if p.Retries < 0 {
		return fmt.Errorf("retries must not be negative, got %d", p.Retries)
	}
	if p.Backoff < 0 {
		return fmt.Errorf("backoff must not be negative, got %s", p.Backoff)
	}
	if p.MaxResponseBytes < 0 {
		return fmt.Errorf("max_response_bytes must not be negative, got %d", p.MaxResponseBytes)
	}
	if p.Redirects != "" && p.Redirects != RedirectNone && p.Redirects != RedirectSameOrigin {
		return fmt.Errorf("redirects must be %q or %q, got %q", RedirectNone, RedirectSameOrigin, p.Redirects)
	}
	for _, s := range p.RetryOn {
		if _, err := parseRetryCond(s); err != nil {
			return err
		}
	}
	return nil
}

// retrySet is the parsed form of Policy.RetryOn.
type retrySet struct {
	timeout, reset bool
	status         [200]bool // index: status-400
}

func (r *retrySet) statusRetried(code int) bool {
	return code >= 400 && code <= 599 && r.status[code-400]
}

type retryCond struct {
	timeout, reset bool
	from, to       int // status range, inclusive; 0 when not a status
}

func parseRetryCond(s string) (retryCond, error) {
	switch t := strings.ToLower(strings.TrimSpace(s)); t {
	case RetryTimeout:
		return retryCond{timeout: true}, nil
	case RetryReset:
		return retryCond{reset: true}, nil
	case Retry5xx:
		return retryCond{from: 500, to: 599}, nil
	default:
		if len(t) == 3 {
			if n, err := strconv.Atoi(t); err == nil && n >= 400 && n <= 599 {
				return retryCond{from: n, to: n}, nil
			}
		}
	}
	return retryCond{}, fmt.Errorf("retry_on: unknown condition %q (want %q, %q, %q, %q or a status code 400-599)",
		s, RetryTimeout, RetryReset, Retry429, Retry5xx)
}

func newRetrySet(conds []string) retrySet {
	if conds == nil {
		conds = DefaultRetryOn
	}
	var r retrySet
	for _, s := range conds {
		c, err := parseRetryCond(s)
		if err != nil {
			continue
		}
		r.timeout = r.timeout || c.timeout
		r.reset = r.reset || c.reset
		for code := c.from; c.from != 0 && code <= c.to; code++ {
			r.status[code-400] = true
		}
	}
	return r
}
