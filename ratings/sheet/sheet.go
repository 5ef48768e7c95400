package sheet

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
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/internal/csvcell"
	"github.com/nlutest/nlutest/spec"
)

// This file reads a ratings block's filled sheet back (Read) and joins it
// to the run's cases by id and reply digest.

// Rating is one row of a sheet: one rater's scores of one case, one per
// dimension in Ratings.Dimensions order.
type Rating struct {
	Case, Rater string
	Scores      []int
	Line        int
}

// ReplyDigestColumn is the sheet's column (a JSONL sheet's member) that
// says which reply a row rated: the digest `nlutest ratings export` writes
// ("sha256:" and 16 hex digits of SHA-256 over the item's utterances and
// replies).
const ReplyDigestColumn = "reply_sha"

// Run is the run a sheet's ratings are joined to.
type Run struct {
	// Replies gives the run's items (single cases by id, conversations by
	// script id) and the digest of their replies; it is called once, when
	// a sheet is read.
	Replies func() (map[string]string, error)
	// InSuite reports whether the suite has an item the run did not call
	// (a --shard, --filter, --split or --only-failed run, or one cut
	// short); nil when there is none.
	InSuite func(id string) bool
}

// maxReplyErrors is how many rows rating other replies are reported one
// by one; the rest are counted in one more diagnostic.
const maxReplyErrors = 10

// Read reads the filled sheet of r and joins it to run (nil: every
// id belongs to the run and nothing is checked). Every problem is a
// diagnostic at the sheet's file, line and column: a case id neither the
// run nor the suite has, a row whose reply_sha is not the digest of the
// run's reply (the sheet rated other replies), a score missing, not a
// whole number or outside 1..Scale, a row without a rater, a rater rating
// a case twice, a case that some rater of the sheet did not rate, a sheet
// without ratings, a duplicated column and a row with more fields than
// the header. Rows of cases the suite has but the run did not call are
// checked, then left out. Warnings say how many of the run's cases the
// sheet rates, how many rows were left out, and how many rows do not
// record the reply they rated.
func Read(r *Ratings, run *Run) ([]Rating, hcl.Diagnostics) {
	fa := r.access
	if fa.Dir == "" {
		fa = spec.OwnFiles // a block made outside a suite load: the caller's own path
	}
	f, err := fa.Open("", r.Path, spec.MaxDataBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "No rating sheet yet", Detail: fmt.Sprintf("ratings %q: %s does not exist; metrics.ratings[%q] is absent until it is filled in (nlutest ratings export writes one).", r.Name, r.Path, r.Name), Subject: r.DeclRange.Ptr()}}
	}
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read rating sheet", Detail: fmt.Sprintf("ratings %q: %s. The path is resolved from the directory of the suite file that names it.", r.Name, spec.FileError(err)), Subject: r.DeclRange.Ptr()}}
	}
	defer f.Close()
	sr := &sheetReader{r: r}
	if run != nil {
		sr.inSuite = run.InSuite
		if sr.replies, err = run.Replies(); err != nil {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read the run's results", Detail: fmt.Sprintf("ratings %q: %s; the sheet cannot be joined to the run's cases.", r.Name, err), Subject: r.DeclRange.Ptr()}}
		}
	}
	if r.Format == "jsonl" {
		sr.readJSONL(f)
	} else {
		sr.readCSV(f)
		charColumns(r.Path, sr.diags)
	}
	if sr.otherReplies > maxReplyErrors {
		sr.errorf(sr.firstElided, "Rated another reply", "%d more rows (%d in all; the first not shown one by one is this line) rated replies this run does not have.", sr.otherReplies-maxReplyErrors, sr.otherReplies)
	}
	if !sr.diags.HasErrors() {
		sr.checkComplete()
	}
	if !sr.diags.HasErrors() {
		sr.warn()
	}
	return sr.rows, sr.diags
}

type sheetReader struct {
	r       *Ratings
	replies map[string]string
	inSuite func(string) bool
	rows    []Rating
	diags   hcl.Diagnostics
	// read counts the rows read; outside and outsideCases the rows (and
	// their cases) left out as not in the run; unchecked the kept rows
	// without a reply digest; otherReplies the rows rating other replies,
	// firstElided the line of the first not reported one by one.
	read, outside, unchecked int
	outsideCases             map[string]bool
	otherReplies             int
	firstElided              int
}

// sheetRow is one row as read: its cells (cleaned) and where they are.
type sheetRow struct {
	line              int
	id, rater, digest string
	scores            []string
	// at is where a field is: -2 the reply digest, -1 the case id, 0… a
	// dimension's score.
	at func(field int) hcl.Pos
}

func (sr *sheetReader) errorAt(p hcl.Pos, summary, format string, args ...any) {
	sr.diags = append(sr.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
		Detail: fmt.Sprintf(format, args...), Subject: &hcl.Range{Filename: sr.r.Path, Start: p, End: p}})
}

func (sr *sheetReader) errorf(line int, summary, format string, args ...any) {
	sr.errorAt(hcl.Pos{Line: line, Column: 1}, summary, format, args...)
}

func (sr *sheetReader) warnf(summary, format string, args ...any) {
	sr.diags = append(sr.diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary,
		Detail: fmt.Sprintf(format, args...), Subject: &hcl.Range{Filename: sr.r.Path}})
}

// csvHeader reads the header row and maps each column the sheet needs
// (case, rater, the dimensions, reply_sha) to its index: a missing or
// duplicated column is an error at the header.
func (sr *sheetReader) csvHeader(cr *csv.Reader) map[string]int {
	header, err := cr.Read()
	if err != nil {
		sr.errorf(1, "Invalid rating sheet", "The sheet has no header row (case, rater, then one column per dimension): %s.", err)
		return nil
	}
	need := append([]string{"case", "rater"}, sr.r.Dimensions...)
	wanted := map[string]bool{ReplyDigestColumn: true}
	for _, n := range need {
		wanted[n] = true
	}
	col := map[string]int{}
	for i, h := range header {
		h = csvcell.Clean(h)
		if prev, dup := col[h]; dup && wanted[h] {
			line, c := cr.FieldPos(i)
			sr.errorAt(hcl.Pos{Line: line, Column: c}, "Duplicate column", "The header names column %q twice (fields %d and %d), so which one holds the scores is not clear; keep one.", h, prev+1, i+1)
			continue
		}
		if _, dup := col[h]; !dup {
			col[h] = i
		}
	}
	for _, n := range need {
		if _, ok := col[n]; !ok {
			sr.errorf(1, "Missing column", "The sheet has no column %q; it needs case, rater and one column per dimension of ratings %q (%s).", n, sr.r.Name, strings.Join(sr.r.Dimensions, ", "))
		}
	}
	if sr.diags.HasErrors() {
		return nil
	}
	col[""] = len(header) // the number of fields
	return col
}

func (sr *sheetReader) readCSV(f io.Reader) {
	br := bufio.NewReader(f)
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\ufeff")) {
		_, _ = br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	col := sr.csvHeader(cr)
	if col == nil {
		return
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			sr.errorf(line, "Invalid rating sheet", "%s.", err)
			return
		}
		if sr.csvRow(cr, col, rec) {
			sr.read++
		}
	}
	sr.checkEmpty()
}

// csvRow checks and keeps one row of a CSV sheet; false for a row of
// empty cells (a spreadsheet's trailing rows), which is skipped.
func (sr *sheetReader) csvRow(cr *csv.Reader, col map[string]int, rec []string) bool {
	if !slices.ContainsFunc(rec, func(c string) bool { return strings.TrimSpace(c) != "" }) {
		return false
	}
	fieldPos := func(i int) hcl.Pos {
		line, c := cr.FieldPos(min(i, len(rec)-1))
		return hcl.Pos{Line: line, Column: c}
	}
	if n := col[""]; len(rec) > n {
		sr.errorAt(fieldPos(n), "Extra field", "The row has %d fields and the header %d: a cell right of the last column (a comma in a cell that is not quoted?). Remove it, or name its column in the header.", len(rec), n)
		return true
	}
	cell := func(n string) string {
		if i, ok := col[n]; ok && i < len(rec) {
			return csvcell.Clean(rec[i])
		}
		return ""
	}
	row := sheetRow{line: fieldPos(0).Line, id: cell("case"), rater: cell("rater"), scores: make([]string, len(sr.r.Dimensions))}
	row.digest = cell(ReplyDigestColumn)
	for i, d := range sr.r.Dimensions {
		row.scores[i] = cell(d)
	}
	row.at = func(field int) hcl.Pos {
		switch {
		case field == -2:
			return fieldPos(col[ReplyDigestColumn])
		case field < 0:
			return fieldPos(col["case"])
		}
		return fieldPos(col[sr.r.Dimensions[field]])
	}
	sr.add(&row)
	return true
}

// checkEmpty reports a sheet with no ratings at all.
func (sr *sheetReader) checkEmpty() {
	if sr.read == 0 && !sr.diags.HasErrors() {
		sr.errorf(1, "Empty rating sheet", "ratings %q: %s holds no ratings (a header at most). Fill in one row per case and rater (nlutest ratings export writes them), or remove the file until it is filled in.", sr.r.Name, sr.r.Path)
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
		var obj map[string]any
		if err := json.Unmarshal(b, &obj); err != nil {
			sr.errorf(line, "Invalid rating sheet", "The line is not a JSON object: %s.", err)
			continue
		}
		sr.read++
		str := func(v any) string {
			switch x := v.(type) {
			case string:
				return strings.TrimSpace(x)
			case float64:
				return strconv.FormatFloat(x, 'f', -1, 64)
			}
			return ""
		}
		scores, _ := obj["scores"].(map[string]any)
		row := sheetRow{line: line, id: str(obj["case"]), rater: str(obj["rater"]), scores: make([]string, len(sr.r.Dimensions))}
		for i, d := range sr.r.Dimensions {
			v, ok := scores[d]
			if !ok {
				v = obj[d]
			}
			row.scores[i] = str(v)
		}
		row.digest = str(obj[ReplyDigestColumn])
		row.at = func(int) hcl.Pos { return hcl.Pos{Line: line, Column: 1} }
		sr.add(&row)
	}
	if err := sc.Err(); err != nil {
		sr.errorf(line+1, "Invalid rating sheet", "%s.", err)
		return
	}
	sr.checkEmpty()
}

// add checks one row, and keeps it when its case is in the run.
func (sr *sheetReader) add(row *sheetRow) {
	r := sr.r
	id, rater := row.id, row.rater
	if id == "" {
		sr.errorAt(row.at(-1), "Missing case id", "Each row names the case it rates (column case).")
		return
	}
	inRun := true
	if sr.replies != nil {
		digest, ok := sr.replies[id]
		switch {
		case !ok && sr.inSuite != nil && sr.inSuite(id):
			inRun = false
		case !ok:
			sr.errorAt(row.at(-1), "Unknown case id", "Neither the run nor the suite has a case (or conversation) %q: was the sheet exported from another suite? A conversation is rated under its script id, as nlutest ratings export writes it.", id)
			return
		case row.digest != "" && row.digest != digest:
			sr.otherReply(row, digest)
			return
		}
	}
	if rater == "" {
		sr.errorAt(row.at(-1), "Missing rater", "Each row names its rater (column rater) so raters can be compared.")
		return
	}
	rating := Rating{Case: id, Rater: rater, Scores: make([]int, len(row.scores)), Line: row.line}
	for i, c := range row.scores {
		v, err := strconv.ParseFloat(c, 64)
		switch {
		case c == "":
			sr.errorAt(row.at(i), "Missing score", "Rater %q left %s of case %s empty: every dimension is scored 1–%d.", rater, r.Dimensions[i], id, r.Scale)
			return
		case err != nil || v != math.Trunc(v) || v < 1 || v > float64(r.Scale):
			sr.errorAt(row.at(i), "Score outside the scale", "%s = %q of case %s is not a whole number from 1 to %d (scale = %d).", r.Dimensions[i], c, id, r.Scale, r.Scale)
			return
		}
		rating.Scores[i] = int(v)
	}
	if !inRun {
		sr.outside++
		if sr.outsideCases == nil {
			sr.outsideCases = map[string]bool{}
		}
		sr.outsideCases[id] = true
		return
	}
	if row.digest == "" {
		sr.unchecked++
	}
	sr.rows = append(sr.rows, rating)
}

// otherReply reports a row whose reply digest is not the run's: the first
// maxReplyErrors one by one, the rest in one diagnostic (see Read).
func (sr *sheetReader) otherReply(row *sheetRow, digest string) {
	sr.otherReplies++
	if sr.otherReplies > maxReplyErrors {
		if sr.firstElided == 0 {
			sr.firstElided = row.line
		}
		return
	}
	sr.errorAt(row.at(-2), "Rated another reply", "Case %s: this row rated the reply with %s %s, but this run's reply has %s, so the sheet was exported from another run (or the bot now answers otherwise). Export this run's sheet (nlutest ratings export RUN -o NEW.csv) and rate it, or evaluate the run the sheet was exported from.", row.id, ReplyDigestColumn, row.digest, digest)
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

// warn adds the sheet's warnings: the run's cases the sheet does not
// rate, the rows left out as not in the run, and the rows that do not say
// which reply they rated.
func (sr *sheetReader) warn() {
	r := sr.r
	if sr.replies == nil {
		return
	}
	rated := map[string]bool{}
	for _, row := range sr.rows {
		rated[row.Case] = true
	}
	if len(rated) < len(sr.replies) {
		var not []string
		for id := range sr.replies {
			if !rated[id] {
				not = append(not, id)
			}
		}
		slices.Sort(not)
		eg := strings.Join(not[:min(3, len(not))], ", ")
		if len(not) > 3 {
			eg += ", …"
		}
		covers := fmt.Sprintf("so metrics.ratings[%q] covers the %s rated only", r.Name, countOf(len(rated), "case", "cases"))
		if len(rated) == 0 {
			covers = fmt.Sprintf("so metrics.ratings[%q] is absent", r.Name)
		}
		sr.warnf("Cases not rated", "ratings %q (%s) rates %d of the run's %s; %d %s not rated (%s), %s.", r.Name, r.Path, len(rated), countOf(len(sr.replies), "case", "cases"), len(not), oneOrMany(len(not), "is", "are"), eg, covers)
	}
	if sr.outside > 0 {
		sr.warnf("Ratings of cases not in this run", "ratings %q (%s): %s %s %s the suite has but this run did not call (a --shard, --filter, --split or --only-failed run, or one cut short); they are left out.", r.Name, r.Path, countOf(sr.outside, "row", "rows"), oneOrMany(sr.outside, "rates", "rate"), countOf(len(sr.outsideCases), "case", "cases"))
	}
	if sr.unchecked > 0 {
		sr.warnf("Ratings of unrecorded replies", "ratings %q (%s): %d of its %s of this run's cases do not say which reply they rated (no %s column), so they are taken to rate this run's replies; the sheet nlutest ratings export writes records it in every row.", r.Name, r.Path, sr.unchecked, countOf(len(sr.rows), "row", "rows"), ReplyDigestColumn)
	}
}

// countOf is "1 case", "2 cases".
func countOf(n int, one, many string) string { return fmt.Sprintf("%d %s", n, oneOrMany(n, one, many)) }

// oneOrMany is one when n is 1, else many.
func oneOrMany(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// charColumns turns the byte columns encoding/csv gives (FieldPos) into
// the character columns a diagnostic shows, reading the file once more up
// to the last line named (only when some diagnostic points past a line's
// first byte).
func charColumns(path string, diags hcl.Diagnostics) {
	byLine := map[int][]*hcl.Pos{}
	last := 0
	for _, d := range diags {
		if p := &d.Subject.Start; d.Subject != nil && p.Column > 1 {
			byLine[p.Line] = append(byLine[p.Line], p, &d.Subject.End)
			last = max(last, p.Line)
		}
	}
	if last == 0 {
		return
	}
	f, err := spec.OwnFiles.Open("", path, spec.MaxDataBytes) // the sheet Read read under the rules
	if err != nil {
		return
	}
	defer f.Close()
	br := bufio.NewReader(f)
	for n := 1; n <= last; n++ {
		line, err := br.ReadString('\n')
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		for _, p := range byLine[n] {
			if p.Column-1 <= len(line) {
				p.Column = utf8.RuneCountInString(line[:p.Column-1]) + 1
			}
		}
		if err != nil {
			return
		}
	}
}
