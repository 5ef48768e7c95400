package dataset

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// CheckData (spec.DataChecker) reads every row of the suite's datasets and returns the
// problems of their rows, so one validate reports the bad rows of every
// dataset, and of every kind, at once: generation stops at the first bad
// row, and a load that has other errors never generates. Each dataset is
// read to its end (a reading error of a CSV or Rasa file that leaves the
// rest unreadable ends it). A problem is one diagnostic, at its first row,
// naming the other rows that have it: a dataset whose every row lacks the
// column text reads is one mistake, not a diagnostic per row. Ids are
// checked across the datasets as generation checks them.
func (Kind) CheckData(s *spec.Suite) hcl.Diagnostics {
	var out hcl.Diagnostics
	ids := &caseIDs{}
	for _, src := range s.CaseSources {
		if ds, ok := src.(*datasetSource); ok {
			out = append(out, ds.check(ids)...)
		}
	}
	return out
}

// maxListedRows is how many further rows a row diagnostic lists by line.
const maxListedRows = 10

// rowProblem is one problem of a dataset's rows: its diagnostic (at its
// first row) and the lines of the other rows that have it.
type rowProblem struct {
	d     *hcl.Diagnostic
	lines []int
	more  int
}

// check reads the dataset's rows as generation does and returns its
// problems.
func (ds *datasetSource) check(ids *caseIDs) hcl.Diagnostics {
	rd, err := ds.open()
	if err != nil {
		return ds.diagsOf(err)
	}
	defer rd.close()
	var (
		problems []*rowProblem
		byKey    = map[string]*rowProblem{}
		ev       rowEval
		same     occurrences
		c        schema.Case
	)
	add := func(err error) bool {
		var de *spec.DiagnosticError
		if !errors.As(err, &de) || len(de.Diags) == 0 {
			problems = append(problems, &rowProblem{d: ds.diagsOf(err)[0]})
			return false
		}
		d := de.Diags[0]
		key := d.Summary
		if d.Summary == "Bad dataset row" {
			key += "\x00" + d.Detail // the attribute and what is wrong with it
		}
		if p := byKey[key]; p != nil {
			if len(p.lines) < maxListedRows {
				p.lines = append(p.lines, d.Subject.Start.Line)
			} else {
				p.more++
			}
			return true
		}
		byKey[key] = &rowProblem{d: d}
		problems = append(problems, byKey[key])
		return true
	}
	for {
		r, err := rd.next()
		if err != nil {
			if add(err) {
				continue
			}
			break
		}
		if r == nil {
			break
		}
		if ds.id == nil {
			r.nth = same.next(rowKey(ds.name, r.raw))
		}
		if err := ds.build(&c, r, &ev); err != nil {
			add(err)
			continue
		}
		if ds.id != nil {
			if err := ids.add(ds, c.ID, r.line); err != nil {
				add(err)
			}
		}
	}
	return ds.problemDiags(problems)
}

// problemDiags turns the problems into diagnostics, each naming the other
// rows that have it.
func (ds *datasetSource) problemDiags(problems []*rowProblem) hcl.Diagnostics {
	out := make(hcl.Diagnostics, 0, len(problems))
	for _, p := range problems {
		d := *p.d
		if n := len(p.lines) + p.more; n > 0 {
			lines := make([]string, len(p.lines))
			for i, ln := range p.lines {
				lines[i] = fmt.Sprint(ln)
			}
			list := strings.Join(lines, ", ")
			if p.more > 0 {
				list += fmt.Sprintf(" and %d more", p.more)
			}
			d.Detail = strings.TrimSpace(d.Detail) + fmt.Sprintf(" %d more %s of %s %s the same problem (%s %s).", n, plural(n, "row", "rows"), ds.path, plural(n, "has", "have"), plural(n, "line", "lines"), list)
		}
		out = append(out, &d)
	}
	return out
}

// diagsOf is err as diagnostics: its own for a DiagnosticError, else one
// at the dataset block.
func (ds *datasetSource) diagsOf(err error) hcl.Diagnostics {
	var de *spec.DiagnosticError
	if errors.As(err, &de) && len(de.Diags) > 0 {
		return de.Diags
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read dataset file",
		Detail: fmt.Sprintf("Dataset %q: %s.", ds.name, strings.TrimSuffix(err.Error(), ".")), Subject: ds.rng.Ptr()}}
}

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
