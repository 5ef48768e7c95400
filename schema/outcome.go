package schema

import (
	"encoding/json"
	"fmt"
)

// Outcome is the ordered result of one case, threshold or group. The order
// matters: Merge keeps the worst, so a group's outcome is the merge of its
// members' (Terraform's moduletest.Status model).
type Outcome int

// Outcomes in increasing order of severity.
const (
	Pending Outcome = iota
	Skip
	Pass
	Fail
	Error
)

var outcomeNames = [...]string{"pending", "skip", "pass", "fail", "error"}

// String returns the lower-case name used in files and reports.
func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return fmt.Sprintf("outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// Merge returns the more severe of two outcomes.
func (o Outcome) Merge(next Outcome) Outcome {
	return max(o, next)
}

// ParseOutcome reads an outcome name.
func ParseOutcome(s string) (Outcome, error) {
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i), nil
		}
	}
	return Pending, fmt.Errorf("unknown outcome %q", s)
}

// MarshalJSON writes the outcome's name.
func (o Outcome) MarshalJSON() ([]byte, error) { return json.Marshal(o.String()) }

// UnmarshalJSON reads an outcome's name.
func (o *Outcome) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := ParseOutcome(s)
	*o = v
	return err
}
