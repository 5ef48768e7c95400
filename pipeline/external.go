package pipeline

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/ratings"
	"github.com/nlutest/nlutest/ratings/sheet"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// SheetError is a file the suite imports at report time (a rating sheet
// of a ratings block, a TREC qrels or run file of a ranking block) that is
// wrong: its diagnostics name the file and line (exit 2).
type SheetError struct{ Diags hcl.Diagnostics }

func (e *SheetError) Error() string { return e.Diags.Error() }

// importExternal adds the figures that come from files rather than calls
// (assert.ImportExternal) to col: rating sheets joined to the cases of
// the run directories dirs, checked against the digests of their replies
// (ratings.ReplyDigests). Rows of cases the suite s has but the run did not call
// (a subset run) are left out. It returns the files' warnings, one
// sentence each, for the report.
func importExternal(col *assert.Collector, s *spec.Suite, dirs []string) ([]string, error) {
	run := &sheet.Run{
		Replies: func() (map[string]string, error) { return ratings.ReplyDigests(dirs) },
		InSuite: suiteItems(s),
	}
	diags := assert.ImportExternal(col, run)
	if diags.HasErrors() {
		return nil, &SheetError{diags}
	}
	var warnings []string
	for _, d := range diags {
		if d.Severity == hcl.DiagWarning {
			warnings = append(warnings, d.Detail)
		}
	}
	return warnings, nil
}

// suiteItems reports whether s generates a script of id (a single case or
// a conversation), generating the suite once, on the first question.
func suiteItems(s *spec.Suite) func(id string) bool {
	var ids map[string]bool
	return func(id string) bool {
		if ids == nil {
			ids = map[string]bool{}
			_ = s.GenerateScripts(spec.GenOptions{}, func(sc *schema.Script) error {
				ids[sc.ID] = true
				return nil
			})
		}
		return ids[id]
	}
}

// ImportExternal adds the figures of files the suite imports at report
// time (rating sheets, TREC ranking files) to the run's collector, and
// their warnings to the run's; call it after Execute, before Report.
func (r *Run) ImportExternal() error {
	warnings, err := importExternal(r.Collector, r.Suite, []string{r.Dir})
	if err != nil {
		return err
	}
	r.Warnings = append(r.Warnings, warnings...)
	return nil
}
