package spec

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// This file is the ratings block: filled rating sheets (people's scores
// of a run's replies, YD/T 4394.2-2023's 5-point ratings by 3–5 raters;
// the two raters of Li, Zhang and Song's "面向非任务型对话系统的人工标注中文数据集")
// imported at report time and joined to the run's cases by id.

// Ratings is a ratings block.
type Ratings struct {
	Name string
	// Path is the sheet, resolved from the suite file's directory; Format
	// is csv or jsonl.
	Path, Format string
	// Scale is the top of the scale (scores are whole numbers 1..Scale).
	Scale int
	// Dimensions are the rated dimensions, in the sheet's column order.
	Dimensions []string
	// KeepIfDiffAtMost keeps an item only when, in every dimension, its
	// raters' scores differ by at most this much; -1 keeps every item.
	KeepIfDiffAtMost int
	// Raters is the number of rater slots `ratings export` writes.
	Raters    int
	DeclRange hcl.Range
}

// YDTDimensions are YD/T 4394.2-2023's rated dimensions of dialogue
// experience (anthropomorphism, professionalism, interest, satisfaction,
// sensitivity), the default of a ratings block.
var YDTDimensions = []string{"拟人性", "专业性", "趣味性", "满意度", "敏感性"}

var ratingsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "source", Required: true}, {Name: "format"}, {Name: "scale"}, {Name: "dimensions"},
	{Name: "keep_if_diff_at_most"}, {Name: "raters"},
}}

// decodeRatings reads the ratings blocks.
func (l *loader) decodeRatings(blocks []*hcl.Block) {
	for _, b := range blocks {
		c, diags := b.Body.Content(ratingsSchema)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() || !l.checkLabel(b) {
			continue
		}
		r := &Ratings{Name: label(b), DeclRange: b.DefRange}
		for _, o := range l.suite.Ratings {
			if o.Name == r.Name {
				l.errorf(b.DefRange.Ptr(), "Duplicate ratings block", "ratings %q is declared twice; the first is at %s.", r.Name, rangeString(o.DeclRange))
			}
		}
		a := c.Attributes["source"]
		rel := l.str(c.Attributes, "source", "")
		r.Path = rel
		if rel != "" && !filepath.IsAbs(rel) {
			r.Path = filepath.Join(filepath.Dir(a.Range.Filename), rel)
		}
		def := "csv"
		if ext := strings.ToLower(filepath.Ext(rel)); ext == ".jsonl" || ext == ".ndjson" {
			def = "jsonl"
		}
		r.Format = l.str(c.Attributes, "format", def)
		if r.Format != "csv" && r.Format != "jsonl" {
			l.errorf(c.Attributes["format"].Expr.Range().Ptr(), "Unknown ratings format", "format is \"csv\" or \"jsonl\", not %q.", r.Format)
		}
		r.Scale = l.integer(c.Attributes, "scale", 5, 2)
		r.Raters = l.integer(c.Attributes, "raters", 3, 1)
		r.KeepIfDiffAtMost = l.integer(c.Attributes, "keep_if_diff_at_most", -1, 0)
		r.Dimensions = l.strList(c.Attributes, "dimensions")
		if _, ok := c.Attributes["dimensions"]; !ok {
			r.Dimensions = slices.Clone(YDTDimensions)
		}
		for _, d := range r.Dimensions {
			if d == "case" || d == "rater" || d == "" {
				l.errorf(c.Attributes["dimensions"].Expr.Range().Ptr(), "Invalid dimension", "A dimension is named, and not \"case\" or \"rater\" (the sheet's first columns).")
			}
		}
		l.suite.Ratings = append(l.suite.Ratings, r)
	}
}

// Rating is one row of a sheet: one rater's scores of one case, one per
// dimension in Ratings.Dimensions order.
type Rating struct {
	Case, Rater string
	Scores      []int
	Line        int
}

// ReadSheet reads the filled sheet of r. known reports whether a case id
// belongs to the run (nil: every id does). Every problem is a diagnostic
// at the sheet's file and line: a case id the run does not have, a score
// missing, not a whole number or outside 1..Scale, a row without a rater,
// a rater rating a case twice, and a case that some rater of the sheet
// did not rate.
func ReadSheet(r *Ratings, known func(id string) bool) ([]Rating, hcl.Diagnostics) {
	f, err := os.Open(r.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "No rating sheet yet", Detail: fmt.Sprintf("ratings %q: %s does not exist; metrics.ratings[%q] is absent until it is filled in (nlutest ratings export writes one).", r.Name, r.Path, r.Name), Subject: r.DeclRange.Ptr()}}
	}
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read rating sheet", Detail: fmt.Sprintf("ratings %q: %s. The path is resolved from the directory of the suite file that names it.", r.Name, err), Subject: r.DeclRange.Ptr()}}
	}
	defer f.Close()
	sr := &sheetReader{r: r, known: known}
	if r.Format == "jsonl" {
		sr.readJSONL(f)
	} else {
		sr.readCSV(f)
	}
	if !sr.diags.HasErrors() {
		sr.checkComplete()
	}
	return sr.rows, sr.diags
}

type sheetReader struct {
	r     *Ratings
	known func(string) bool
	rows  []Rating
	diags hcl.Diagnostics
}

func (sr *sheetReader) errorf(line int, summary, format string, args ...any) {
	p := hcl.Pos{Line: line, Column: 1}
	sr.diags = append(sr.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
		Detail: fmt.Sprintf(format, args...), Subject: &hcl.Range{Filename: sr.r.Path, Start: p, End: p}})
}

func (sr *sheetReader) readCSV(f io.Reader) {
	br := bufio.NewReader(f)
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\ufeff")) {
		_, _ = br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		sr.errorf(1, "Invalid rating sheet", "The sheet has no header row (case, rater, then one column per dimension): %s.", err)
		return
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	need := append([]string{"case", "rater"}, sr.r.Dimensions...)
	for _, n := range need {
		if _, ok := col[n]; !ok {
			sr.errorf(1, "Missing column", "The sheet has no column %q; it needs case, rater and one column per dimension of ratings %q (%s).", n, sr.r.Name, strings.Join(sr.r.Dimensions, ", "))
		}
	}
	if sr.diags.HasErrors() {
		return
	}
	for {
		rec, err := cr.Read()
		line, _ := cr.FieldPos(0)
		if err == io.EOF {
			return
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			sr.errorf(line, "Invalid rating sheet", "%s.", err)
			return
		}
		cell := func(n string) string {
			if i := col[n]; i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		cells := make([]string, len(sr.r.Dimensions))
		for i, d := range sr.r.Dimensions {
			cells[i] = cell(d)
		}
		sr.add(line, cell("case"), cell("rater"), cells)
	}
}

func (sr *sheetReader) readJSONL(f io.Reader) {
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(bytes.TrimPrefix(sc.Bytes(), []byte("\ufeff")))
		if len(b) == 0 {
			continue
		}
		var row map[string]any
		if err := json.Unmarshal(b, &row); err != nil {
			sr.errorf(line, "Invalid rating sheet", "The line is not a JSON object: %s.", err)
			continue
		}
		str := func(v any) string {
			switch x := v.(type) {
			case string:
				return strings.TrimSpace(x)
			case float64:
				return strconv.FormatFloat(x, 'f', -1, 64)
			}
			return ""
		}
		scores, _ := row["scores"].(map[string]any)
		cells := make([]string, len(sr.r.Dimensions))
		for i, d := range sr.r.Dimensions {
			v, ok := scores[d]
			if !ok {
				v = row[d]
			}
			cells[i] = str(v)
		}
		sr.add(line, str(row["case"]), str(row["rater"]), cells)
	}
	if err := sc.Err(); err != nil {
		sr.errorf(line+1, "Invalid rating sheet", "%s.", err)
	}
}

// add checks and keeps one row.
func (sr *sheetReader) add(line int, id, rater string, cells []string) {
	r := sr.r
	switch {
	case id == "":
		sr.errorf(line, "Missing case id", "Each row names the case it rates (column case).")
		return
	case sr.known != nil && !sr.known(id):
		sr.errorf(line, "Unknown case id", "The run has no case %q: was the sheet exported from another run? Export it again with nlutest ratings export.", id)
		return
	case rater == "":
		sr.errorf(line, "Missing rater", "Each row names its rater (column rater) so raters can be compared.")
		return
	}
	row := Rating{Case: id, Rater: rater, Scores: make([]int, len(cells)), Line: line}
	for i, c := range cells {
		v, err := strconv.ParseFloat(c, 64)
		switch {
		case c == "":
			sr.errorf(line, "Missing score", "Rater %q left %s of case %s empty: every dimension is scored 1–%d.", rater, r.Dimensions[i], id, r.Scale)
			return
		case err != nil || v != math.Trunc(v) || v < 1 || v > float64(r.Scale):
			sr.errorf(line, "Score outside the scale", "%s = %q of case %s is not a whole number from 1 to %d (scale = %d).", r.Dimensions[i], c, id, r.Scale, r.Scale)
			return
		}
		row.Scores[i] = int(v)
	}
	sr.rows = append(sr.rows, row)
}

// checkComplete reports a rater rating a case twice, and a case that a
// rater of the sheet did not rate (at the case's first row).
func (sr *sheetReader) checkComplete() {
	var raters []string
	byCase := map[string]map[string]int{}
	first := map[string]int{}
	var order []string
	for _, row := range sr.rows {
		if !slices.Contains(raters, row.Rater) {
			raters = append(raters, row.Rater)
		}
		m := byCase[row.Case]
		if m == nil {
			m = map[string]int{}
			byCase[row.Case] = m
			first[row.Case] = row.Line
			order = append(order, row.Case)
		}
		if prev, dup := m[row.Rater]; dup {
			sr.errorf(row.Line, "Duplicate rating", "Rater %q rated case %s twice (first at line %d).", row.Rater, row.Case, prev)
			continue
		}
		m[row.Rater] = row.Line
	}
	for _, id := range order {
		for _, rt := range raters {
			if _, ok := byCase[id][rt]; !ok {
				sr.errorf(first[id], "Missing rater", "Case %s has no row of rater %q; every rater of the sheet rates every case (kappa compares them item by item).", id, rt)
			}
		}
	}
}
