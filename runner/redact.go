package runner

import "github.com/nlutest/nlutest/redact"

// Redacted replaces secrets wherever they would be recorded.
const Redacted = redact.Redacted

// Redactor removes secrets from everything the runner records; it is
// package redact's.
type Redactor = redact.Redactor

// NewRedactor builds a redactor for the given secret values.
func NewRedactor(secrets []string) *Redactor { return redact.New(secrets) }
