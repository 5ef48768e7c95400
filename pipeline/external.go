package pipeline

import (
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// SheetError is a file the suite imports at report time (a rating sheet
// of a ratings block, a TREC qrels or run file of a ranking block) that is
// wrong: its diagnostics name the file and line (exit 2).
type SheetError struct{ Diags hcl.Diagnostics }

func (e *SheetError) Error() string { return e.Diags.Error() }

// importExternal adds the figures that come from files rather than calls
// (assert.ImportExternal) to col: rating sheets joined to the cases of
// the run directories dirs.
func importExternal(col *assert.Collector, dirs []string) error {
	var known map[string]bool
	ids := func(id string) bool {
		if known == nil {
			known = map[string]bool{}
			for _, d := range dirs {
				_ = runner.ReadResults(filepath.Join(d, runner.ResultsFile), func(r *schema.Result) error {
					known[r.ID] = true
					if r.Script != "" {
						known[r.Script] = true
					}
					return nil
				})
			}
		}
		return known[id]
	}
	if diags := assert.ImportExternal(col, ids); diags.HasErrors() {
		return &SheetError{diags}
	}
	return nil
}

// ImportExternal adds the figures of files the suite imports at report
// time (rating sheets, TREC ranking files) to the run's collector; call
// it after Execute, before Report.
func (r *Run) ImportExternal() error {
	return importExternal(r.Collector, []string{r.Dir})
}
