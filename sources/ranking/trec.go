package ranking

import (
	"bufio"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/assert/metrics"
	"github.com/nlutest/nlutest/spec"
)

// TRECQuestion is one query of a TREC run: its retrieved documents in
// trec_eval's order (score descending, ties by docno descending) with
// their qrels grades (TRECUnjudged when the qrels do not grade the
// document or give it a negative grade), and every grade of 0 or more the
// qrels give the query (retrieved or not: AP's denominator and nDCG's
// ideal).
type TRECQuestion struct {
	ID     string
	Ranked []float64
	Judged []float64
}

// TRECUnjudged is the grade of a retrieved document the qrels do not
// judge (trec_eval's RELVALUE_NONPOOL, -1) or judge with a negative grade
// (in the pool but unjudged: RELVALUE_UNJUDGED, -2). It is below every
// positive grade, so such a document is never positive, even at
// positive_grade = 0 (trec_eval -l0), and gains nothing in nDCG.
var TRECUnjudged = math.Inf(-1)

// ReadTREC reads a ranking block's qrels ("QID ITER DOCNO GRADE") and run
// ("QID Q0 DOCNO RANK SCORE TAG") files: the run's queries that the qrels
// judge, in order of first appearance in the run. A run query without any
// qrels line is left out, as trec_eval leaves out "queries for which there
// is no relevance information" (and queries of the qrels the run did not
// retrieve for, without -c). The run's rank column is ignored, as
// trec_eval does. A malformed line is a diagnostic at its file and line.
func ReadTREC(rs *Source) ([]TRECQuestion, hcl.Diagnostics) {
	qrels := map[string]map[string]float64{}
	diags := rs.eachField(rs.Qrels, rs.qrelsAt, "qrels", 4, func(f []string, line int) *hcl.Diagnostic {
		g, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			return lineDiag(rs.Qrels, line, "Invalid qrels line", fmt.Sprintf("The grade %q is not a number (a qrels line is QID ITER DOCNO GRADE).", f[3]))
		}
		if qrels[f[0]] == nil {
			qrels[f[0]] = map[string]float64{}
		}
		qrels[f[0]][f[2]] = g
		return nil
	})
	type doc struct {
		no    string
		score float64
	}
	runs := map[string][]doc{}
	var order []string
	diags = append(diags, rs.eachField(rs.Run, rs.runAt, "run", 6, func(f []string, line int) *hcl.Diagnostic {
		s, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			return lineDiag(rs.Run, line, "Invalid run line", fmt.Sprintf("The score %q is not a number (a run line is QID Q0 DOCNO RANK SCORE TAG).", f[4]))
		}
		if _, seen := runs[f[0]]; !seen {
			order = append(order, f[0])
		}
		runs[f[0]] = append(runs[f[0]], doc{f[2], s})
		return nil
	})...)
	if diags.HasErrors() {
		return nil, diags
	}
	out := make([]TRECQuestion, 0, len(order))
	for _, q := range order {
		judged, ok := qrels[q]
		if !ok {
			continue
		}
		docs := runs[q]
		byNo := slices.Clone(docs)
		slices.SortFunc(byNo, func(a, b doc) int { return strings.Compare(b.no, a.no) })
		c := make([]metrics.Ranked, len(docs))
		for i, d := range byNo {
			g, ok := judged[d.no]
			if !ok || g < 0 {
				g = TRECUnjudged
			}
			c[i] = metrics.Ranked{Grade: g, Score: d.score, Index: i}
		}
		metrics.SortByScore(c)
		tq := TRECQuestion{ID: q, Ranked: make([]float64, len(c))}
		for i := range c {
			tq.Ranked[i] = c[i].Grade
		}
		for _, g := range judged {
			if g >= 0 {
				tq.Judged = append(tq.Judged, g)
			}
		}
		slices.Sort(tq.Judged)
		out = append(out, tq)
	}
	return out, nil
}

func lineDiag(path string, line int, summary, detail string) *hcl.Diagnostic {
	p := hcl.Pos{Line: line, Column: 1}
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: &hcl.Range{Filename: path, Start: p, End: p}}
}

// eachField calls fn with the whitespace-separated fields of each
// non-blank line of path (the block's attribute what, at rng), which must
// have n fields.
func (rs *Source) eachField(path string, rng hcl.Range, what string, n int, fn func(f []string, line int) *hcl.Diagnostic) hcl.Diagnostics {
	f, err := rs.s.Access.Open("", path, spec.MaxDataBytes)
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read TREC file", Subject: rng.Ptr(),
			Detail: fmt.Sprintf("ranking %q %s: %s. The path is resolved from the directory of the suite file that names it.", rs.name, what, spec.FileError(err))}}
	}
	defer f.Close()
	var diags hcl.Diagnostics
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != n {
			diags = append(diags, lineDiag(path, line, "Invalid TREC line", fmt.Sprintf("The line has %d fields, not %d.", len(fields), n)))
			continue
		}
		if d := fn(fields, line); d != nil {
			diags = append(diags, d)
		}
	}
	if err := sc.Err(); err != nil {
		diags = append(diags, lineDiag(path, 0, "Cannot read TREC file", err.Error()+"."))
	}
	return diags
}
