package targets

import (
	"context"
	"fmt"
	"time"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/transport"
	"github.com/nlutest/nlutest/spec"
)

// Kind is one kind of target: the decoding of its kind block and its caller.
type Kind interface {
	spec.TargetKind
	// NewCaller prepares the caller of b.Target, whose kind block Decode
	// made b.Target.Config of.
	NewCaller(ctx context.Context, b *Build) (runner.Caller, error)
}

// DefaultKinds returns the target kinds nlutest ships, in the order
// messages list them. A new built-in kind is a file with its Kind and a
// line here; a program adds its own to the list it loads suites with
// (Decoders, for spec.Options.TargetKinds).
func DefaultKinds() []Kind {
	return []Kind{httpKind{}, rasaKind{}, execKind{}, replayKind{}, demoKind{}, openaiKind{}}
}

// Decoders returns the kinds as spec.Options.TargetKinds takes them.
func Decoders(kinds []Kind) []spec.TargetKind {
	out := make([]spec.TargetKind, len(kinds))
	for i, k := range kinds {
		out[i] = k
	}
	return out
}

// Kinds returns the decoders of DefaultKinds.
func Kinds() []spec.TargetKind { return Decoders(DefaultKinds()) }

// Build is what a kind's caller is made from.
type Build struct {
	Suite   *spec.Suite
	Target  *spec.Target
	Options runner.CallerOptions
	// Limiter admits call starts at the target's rate (or --rate); Clock
	// drives it and retry back-off.
	Limiter *transport.Limiter
	Clock   transport.Clock
	// Redactor masks the suite's secrets in everything recorded.
	Redactor *runner.Redactor
}

// Client returns an HTTP client with the target's timeout, retries, retry
// conditions and response cap, pacing its starts with b.Limiter; adjust
// (when given) sets what a kind adds (redirects, TLS).
func (b *Build) Client(adjust ...func(*transport.Policy)) *transport.Client {
	t := b.Target
	policy := transport.Policy{
		Timeout: t.Timeout, Retries: t.Retries, RetryOn: t.RetryOn, Backoff: 200 * time.Millisecond,
		MaxResponseBytes: t.MaxResponseBytes, ExpectJSON: true,
	}
	for _, f := range adjust {
		f(&policy)
	}
	return transport.NewClient(policy, runner.Concurrency(t, b.Options), b.Limiter, transport.WithClock(b.Clock))
}

// NewCaller prepares a caller for target t of suite s, by the kind that
// decoded its block (the suite loaded with Decoders of a list of Kinds).
// The demo kind starts its embedded service on 127.0.0.1. An error of type
// *runner.ConfigError is a problem with the suite (exit 2).
func NewCaller(ctx context.Context, s *spec.Suite, t *spec.Target, o runner.CallerOptions) (runner.Caller, error) {
	k, ok := t.Decoded.(Kind)
	if !ok || t.Config == nil {
		return nil, fmt.Errorf("target %q: kind %q was not decoded by a target kind (load the suite with targets.Decoders of its kinds)", t.Name, t.Kind)
	}
	rate := t.Rate
	if o.Rate > 0 {
		rate = o.Rate
	}
	clk := o.Clock
	if clk == nil {
		clk = transport.RealClock{}
	}
	return k.NewCaller(ctx, &Build{
		Suite: s, Target: t, Options: o, Clock: clk,
		Limiter: transport.NewLimiter(rate, clk), Redactor: runner.NewRedactor(s.Secrets),
	})
}
