package dataset

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/spec"
)

// dataError is a DiagnosticError at line of path.
func dataError(path string, line int, summary, detail string, args ...any) error {
	pos := hcl.Pos{Line: line, Column: 1}
	return &spec.DiagnosticError{Diags: hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary,
		Detail: fmt.Sprintf(detail, args...), Subject: &hcl.Range{Filename: path, Start: pos, End: pos}}}}
}

// dsRow is one row of a dataset file.
type dsRow struct {
	line int    // the row's first line, from 1
	off  int64  // its byte offset
	raw  []byte // its text, which the default id hashes
	doc  *jsondoc.Doc
	cols []string
	ex   *rasaExample
	// nth numbers a row identical to earlier ones of its file (from 2;
	// 0 or 1 for the first), for its default id (defaultID).
	nth uint32
}

// rowReader streams a dataset file's rows; next returns nil at the end.
// The row it returns is valid until the next call.
type rowReader interface {
	next() (*dsRow, error)
	close()
}

// open starts reading the dataset file.
func (ds *datasetSource) open() (rowReader, error) {
	f, err := ds.s.Access.Open("", ds.path, spec.MaxDataBytes)
	if err != nil {
		return nil, fmt.Errorf("dataset %q: %w", ds.name, err)
	}
	switch ds.format {
	case "csv":
		return newCSVReader(f, ds.path, len(ds.header))
	case "rasa":
		defer f.Close()
		exs, err := readRasaNLU(f, ds.path)
		if err != nil {
			return nil, err
		}
		return &rasaReader{exs: exs}, nil
	}
	return &jsonlReader{f: f, path: ds.path, br: bufio.NewReaderSize(f, 1<<16), doc: &jsondoc.Doc{}}, nil
}

// jsonlReader reads one JSON object a line; blank lines are skipped.
type jsonlReader struct {
	f    *os.File
	path string
	br   *bufio.Reader
	buf  []byte
	line int
	off  int64
	skip bool // the rest of a line too long is still to read
	doc  *jsondoc.Doc
	row  dsRow
}

func (r *jsonlReader) close() { r.f.Close() }

func (r *jsonlReader) next() (*dsRow, error) {
	for {
		start := r.off
		line, err := r.readLine()
		if err != nil {
			return nil, err
		}
		if line == nil {
			return nil, nil
		}
		r.line++
		if !utf8.Valid(line) {
			return nil, notUTF8(r.path, r.line, line, spec.FirstInvalidUTF8(line), start)
		}
		trimmed := bytes.TrimSpace(line)
		if r.line == 1 {
			trimmed = bytes.TrimPrefix(trimmed, []byte("\xef\xbb\xbf"))
		}
		if len(trimmed) == 0 {
			continue
		}
		if err := r.doc.Parse(trimmed); err != nil {
			return nil, dataError(r.path, r.line, "Invalid JSON in dataset row", "%s. Each line of a .jsonl dataset is one JSON object.", err)
		}
		if r.doc.Kind(r.doc.Root()) != jsondoc.Object {
			return nil, dataError(r.path, r.line, "Dataset row is not an object", "Each line of a .jsonl dataset is one JSON object such as {\"text\": \"…\", \"intent\": \"…\"}.")
		}
		if r.doc.HasRepeatedKeys() {
			return nil, r.repeatedMember(line, trimmed)
		}
		r.row = dsRow{line: r.line, off: start, raw: trimmed, doc: r.doc}
		return &r.row, nil
	}
}

// repeatedMember is the diagnostic of a row (line, trimmed to its JSON)
// with an object that names a member twice.
func (r *jsonlReader) repeatedMember(line, trimmed []byte) error {
	key, at, _ := repeatedMember(r.doc, r.doc.Root())
	at += bytes.Index(line, trimmed)
	col := 1 + utf8.RuneCount(line[:at])
	return dataErrorAt(r.path, r.line, col, "Duplicate member in dataset row",
		"An object of line %d of %s names the member %q twice (the second at column %d). A JSON reader keeps one of the two values, and which one is not the file's to say, so the row is ambiguous: remove or rename one of them.",
		r.line, r.path, key, col)
}

// readLine returns the next line without its newline (nil at the end).
// A line longer than MaxDataRowBytes is refused as soon as it is; the
// next call skips the rest of it, without holding it, and reads the line
// after.
func (r *jsonlReader) readLine() ([]byte, error) {
	r.buf = r.buf[:0]
	if cap(r.buf) > 1<<20 {
		r.buf = nil // a long line's buffer is not kept for the short ones
	}
	if r.skip {
		if err := r.skipLine(); err != nil {
			return nil, err
		}
	}
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(r.buf)+len(chunk) > MaxDataRowBytes+1 {
			r.off += int64(len(chunk))
			r.line++
			r.skip = err != nil // the line goes on
			return nil, rowTooLong(r.path, r.line, "line")
		}
		r.buf = append(r.buf, chunk...)
		r.off += int64(len(chunk))
		switch {
		case err == nil:
			return r.buf[:len(r.buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(r.buf) == 0 {
				return nil, nil
			}
			return r.buf, nil
		default:
			return nil, fmt.Errorf("%s: %w", r.path, err)
		}
	}
}

// skipLine reads past the rest of a line refused as too long.
func (r *jsonlReader) skipLine() error {
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.off += int64(len(chunk))
		switch {
		case err == nil, errors.Is(err, io.EOF):
			r.skip = false
			return nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return fmt.Errorf("%s: %w", r.path, err)
		}
	}
}

// readCSVHeader reads the header row of a CSV dataset.
func readCSVHeader(fa spec.FileAccess, path string) ([]string, *hcl.Diagnostic) {
	f, err := fa.Open("", path, spec.MaxDataBytes)
	if err != nil {
		return nil, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read dataset file", Detail: err.Error()}
	}
	defer f.Close()
	g := newCSVGuard(f, path)
	cr := csv.NewReader(bufio.NewReader(g))
	h, err := cr.Read()
	if gerr := g.Err(); gerr == nil {
		err = cmp.Or(g.take(cr.InputOffset()), err)
	}
	if err != nil {
		var de *spec.DiagnosticError
		if gerr := cmp.Or(g.Err(), err); errors.As(gerr, &de) {
			return nil, de.Diags[0]
		}
		if errors.Is(err, io.EOF) {
			err = errors.New("the file is empty; a CSV dataset starts with a header row naming its columns")
		}
		pos := hcl.Pos{Line: 1, Column: 1}
		return nil, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid CSV header", Detail: err.Error() + ".", Subject: &hcl.Range{Filename: path, Start: pos, End: pos}}
	}
	if len(h) > 0 {
		h[0] = strings.TrimPrefix(h[0], "\ufeff")
	}
	seen := make(map[string]int, len(h))
	for i, name := range h {
		if prev, dup := seen[name]; dup {
			line, col := cr.FieldPos(i)
			pos := hcl.Pos{Line: line, Column: col}
			return nil, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate column",
				Detail:  fmt.Sprintf("The header of %s names the column %q twice (fields %d and %d), so which one row.%s reads is not clear; rename or remove one.", path, name, prev+1, i+1, name),
				Subject: &hcl.Range{Filename: path, Start: pos, End: hcl.Pos{Line: line, Column: col + 1}}}
		}
		seen[name] = i
	}
	return h, nil
}

// csvReader reads the records after the header row.
type csvReader struct {
	f     *os.File
	path  string
	cr    *csv.Reader
	guard *csvGuard
	ended bool // a record too long ended the file
	off   int64
	raw   []byte
	row   dsRow
}

func newCSVReader(f *os.File, path string, columns int) (*csvReader, error) {
	g := newCSVGuard(f, path)
	cr := csv.NewReader(bufio.NewReaderSize(g, 1<<16))
	cr.ReuseRecord = true
	_, err := cr.Read()
	if err == nil {
		err = g.take(cr.InputOffset())
	}
	if err != nil {
		f.Close()
		var de *spec.DiagnosticError
		if gerr := cmp.Or(g.Err(), err); errors.As(gerr, &de) {
			return nil, gerr
		}
		return nil, dataError(path, 1, "Invalid CSV header", "%s.", err)
	}
	cr.FieldsPerRecord = columns
	return &csvReader{f: f, path: path, cr: cr, guard: g, off: cr.InputOffset()}, nil
}

func (r *csvReader) close() { r.f.Close() }

// next reads the next record. A record with a byte that is not UTF-8 is
// refused and the next one read; a record over MaxDataRowBytes ends the
// file, the rest of which the CSV reader cannot find its place in.
func (r *csvReader) next() (*dsRow, error) {
	if r.ended {
		return nil, nil
	}
	start := r.off
	rec, err := r.cr.Read()
	r.off = r.cr.InputOffset()
	if gerr := r.guard.Err(); gerr != nil {
		r.ended = true
		return nil, gerr
	}
	if bad := r.guard.take(r.off); bad != nil {
		return nil, bad
	}
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, dataError(r.path, pe.StartLine, "Invalid CSV row", "%s. Every row has the header's columns.", pe.Err)
		}
		return nil, fmt.Errorf("%s: %w", r.path, err)
	}
	line, _ := r.cr.FieldPos(0)
	r.raw = r.raw[:0]
	for i, v := range rec {
		if i > 0 {
			r.raw = append(r.raw, 0x1f)
		}
		r.raw = append(r.raw, v...)
	}
	r.row = dsRow{line: line, off: start, raw: r.raw, cols: rec}
	return &r.row, nil
}

// rasaReader yields the examples of a Rasa nlu.yml file.
type rasaReader struct {
	exs []rasaExample
	i   int
	row dsRow
}

func (r *rasaReader) close() {}

func (r *rasaReader) next() (*dsRow, error) {
	if r.i >= len(r.exs) {
		return nil, nil
	}
	ex := &r.exs[r.i]
	r.i++
	r.row = dsRow{line: ex.line, off: int64(r.i - 1), raw: []byte(ex.intent + "\x00" + ex.raw), ex: ex}
	return &r.row, nil
}

// rowIndex finds rows by case id for Rebuild.
type rowIndex struct {
	ds   *datasetSource
	f    *os.File // kept open for the process: eval rebuilds cases concurrently
	at   map[string]rowLoc
	rasa []rasaExample
	// dup is the first duplicate explicit id of the file (a row whose id
	// an earlier row has), which CheckCaseIDs reports.
	dup error
}

// rowLoc is where a row is: its line, its byte offset (a Rasa example's
// index) and its occurrence number among identical rows (dsRow.nth).
type rowLoc struct {
	line int
	off  int64
	nth  uint32
}

// buildIndex reads the file once, keeping each row's position by id (nil
// when the file no longer reads). Ids are made as generation makes them
// (identical rows without an id numbered); the first row of an explicit
// id that two rows share is kept, and the second noted in dup.
func (ds *datasetSource) buildIndex() *rowIndex {
	rd, err := ds.open()
	if err != nil {
		return nil
	}
	defer rd.close()
	ix := &rowIndex{ds: ds, at: map[string]rowLoc{}}
	if rr, ok := rd.(*rasaReader); ok {
		ix.rasa = rr.exs
	}
	var ev rowEval
	var same occurrences
	for {
		r, err := rd.next()
		if err != nil || r == nil {
			break
		}
		loc := rowLoc{line: r.line, off: r.off}
		var id string
		if ds.id == nil {
			loc.nth = same.next(rowKey(ds.name, r.raw))
			id = defaultID(ds.name, r.raw, loc.nth)
		} else {
			ev.reset(r)
			if id, err = ds.str(&ev, ds.id, true); err != nil {
				continue
			}
		}
		if prev, dup := ix.at[id]; dup {
			if ix.dup == nil {
				ix.dup = duplicateID(id, ds.path, prev.line, ds.path, r.line)
			}
			continue
		}
		ix.at[id] = loc
	}
	if ix.f, err = ds.s.Access.Open("", ds.path, spec.MaxDataBytes); err != nil {
		return nil
	}
	return ix
}

// row reads the row of a case id again.
func (ix *rowIndex) row(id string) (*dsRow, bool) {
	loc, ok := ix.at[id]
	if !ok {
		return nil, false
	}
	switch ix.ds.format {
	case "rasa":
		ex := &ix.rasa[loc.off]
		return &dsRow{line: ex.line, raw: []byte(ex.intent + "\x00" + ex.raw), ex: ex, nth: loc.nth}, true
	case "csv":
		cr := csv.NewReader(io.NewSectionReader(ix.f, loc.off, 1<<62))
		cr.FieldsPerRecord = len(ix.ds.header)
		rec, err := cr.Read()
		if err != nil {
			return nil, false
		}
		return &dsRow{line: loc.line, raw: []byte(strings.Join(rec, "\x1f")), cols: rec, nth: loc.nth}, true
	}
	br := bufio.NewReader(io.NewSectionReader(ix.f, loc.off, 1<<62))
	line, err := br.ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false
	}
	raw := bytes.TrimSpace(line)
	if loc.line == 1 {
		raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	}
	doc := &jsondoc.Doc{}
	if doc.Parse(raw) != nil {
		return nil, false
	}
	return &dsRow{line: loc.line, raw: raw, doc: doc, nth: loc.nth}, true
}
