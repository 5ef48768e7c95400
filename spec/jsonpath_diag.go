package spec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/nlutest/nlutest/spec/litrange"
)

// pathError reports the JSONPath raw, the value of expr, that did not
// compile: the caret on the offending characters inside the string
// literal when expr is one (else on expr), and what is wrong in words.
func (l *loader) pathError(expr hcl.Expression, raw string, err error) {
	rng := expr.Range()
	reason := err.Error()
	if pe, ok := err.(*jsonpath.Error); ok {
		reason = pe.Reason
		if sub, ok := litrange.Sub(l.suite.Sources[rng.Filename], rng, raw, pe.From, pe.To); ok {
			rng = sub
		} else {
			reason = pe.Error()
		}
	}
	l.errorf(&rng, "Invalid JSONPath", "%q is not a JSONPath nlutest can read: %s. %s", raw, reason, jsonpath.Examples)
}
