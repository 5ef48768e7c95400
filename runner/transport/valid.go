package transport

import (
	"encoding/json"

	"github.com/nlutest/nlutest/jsondoc"
)

// validJSON reports whether b is valid JSON, as json.Valid does. A
// response is nearly always valid and small, and json.Valid's scanner
// (a function call per byte) cost as much per call as building the
// request: jsondoc.ProvedValid proves most documents valid in one pass,
// and whatever it cannot (invalid, or nested deeper than it tracks) goes
// to json.Valid, which decides. TestQuickValidNeverAcceptsWhatValidRejects.
func validJSON(b []byte) bool {
	return jsondoc.ProvedValid(b) || json.Valid(b)
}
