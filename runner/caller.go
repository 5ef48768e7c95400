package runner

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/runner/transport"
	"github.com/nlutest/nlutest/spec"
)

// CallerOptions override a target's settings from the command line.
type CallerOptions struct {
	// Concurrency, when > 0, overrides the target's concurrency.
	Concurrency int
	// Rate, when > 0, overrides the target's rate (requests per second).
	Rate float64
	// Clock drives rate limiting and backoff; nil is the real clock.
	Clock transport.Clock
	// Cache, when set, answers repeated requests from disk (http, rasa
	// and demo targets).
	Cache *Cache
}

// ConfigError is a problem with the suite's target that shows only when
// its expressions are evaluated (exit 2).
type ConfigError struct{ Diags hcl.Diagnostics }

func (e *ConfigError) Error() string { return e.Diags.Error() }

// Concurrency returns the effective concurrency of t under o.
func Concurrency(t *spec.Target, o CallerOptions) int {
	if o.Concurrency > 0 {
		return o.Concurrency
	}
	return max(t.Concurrency, 1)
}
