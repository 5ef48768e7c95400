package materials

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/jsondoc"
)

// Value is one value of a materials block.
type Value struct {
	Value string
	Level string
	// Normalize maps a lower-cased schema name to the normalised value.
	Normalize map[string]string
	Tags      []string
	// Origin is "file:line" for values read from a source file.
	Origin string
}

// CheckType checks a material source file's extension: nil for .txt,
// .csv, .jsonl and .ndjson, otherwise the diagnostic to report (without a
// subject; the caller points it at the attribute that names the file).
func CheckType(path string) hcl.Diagnostics {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".txt", ".csv", ".jsonl", ".ndjson":
		return nil
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unknown materials file type", Detail: fmt.Sprintf("%s: a materials source is a .txt, .csv or .jsonl file.", path)}}
}

// Parse reads the values of a material source file's data: .txt (one
// value a line; blank lines and lines starting with # are skipped), .csv
// (a header row with a `value` column and optional `level`, `tags`
// (separated by |) and `normalize.SCHEMA` columns) or .jsonl (one object a
// line with `value` and optional `level`, `tags`, `normalize`), by path's
// extension. A leading UTF-8 byte order mark is skipped. Values without a
// level of their own get defLevel. Every bad row is a diagnostic whose
// subject is path and the row's line; the rest of the file is still read,
// and past the first 20 problems one summary counts the rest. A repeated
// value is a warning and only its first row is kept. origin names the
// file in values' Origin ("materials/cities.txt:3").
//
// Material files can hold hundreds of thousands of values (the IAO
// corpus-factory write-up's corpus factory had 287k), so the reader keeps
// the garbage collector's work small: values are substrings of one string
// made from data, the "file:line" origins share one backing string, and
// per-row maps exist only for rows that normalise.
func Parse(data []byte, path, origin, defLevel string) ([]Value, hcl.Diagnostics) {
	ext := strings.ToLower(filepath.Ext(path))
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	r := &matReader{path: path, base: origin, lvl: defLevel}
	// One string for the whole file: values are substrings of it.
	text := string(data)
	r.rows = strings.Count(text, "\n") + 1
	r.seen = make(map[string]int32, r.rows)
	r.out = make([]Value, 0, r.rows)
	r.lines = make([]int32, 0, r.rows)
	switch ext {
	case ".txt":
		r.readTxt(text)
	case ".csv":
		r.readCSV(text)
	default:
		r.readJSONL(text)
	}
	r.setOrigins()
	if r.more > 0 {
		sev := hcl.DiagWarning
		if r.moreErrors {
			sev = hcl.DiagError
		}
		r.diags = append(r.diags, &hcl.Diagnostic{Severity: sev, Summary: "More problems in this file",
			Detail: fmt.Sprintf("%d more rows have problems; fix the ones above and run validate again.", r.more)})
	}
	return r.out, r.diags
}

// matReader is the state of reading one material file.
type matReader struct {
	path, base, lvl string
	rows            int // the file's line count, to size the slices once
	out             []Value
	lines           []int32 // the line of each value in out
	seen            map[string]int32
	// diags holds the first maxDiagsPerFile problems; more counts the
	// rest, so a broken 300k-line file does not flood the terminal.
	diags      hcl.Diagnostics
	more       int
	moreErrors bool
	lower      map[string]string // normalize keys, lower-cased once
	// buf and doc parse a JSONL row, reused from row to row.
	buf []byte
	doc jsondoc.Doc
}

func rowDiag(path string, line int, summary, detail string) *hcl.Diagnostic {
	pos := hcl.Pos{Line: line, Column: 1}
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail,
		Subject: &hcl.Range{Filename: path, Start: pos, End: hcl.Pos{Line: line, Column: 2}}}
}

const maxDiagsPerFile = 20

func (r *matReader) diag(d *hcl.Diagnostic) {
	if len(r.diags) < maxDiagsPerFile {
		r.diags = append(r.diags, d)
		return
	}
	r.more++
	r.moreErrors = r.moreErrors || d.Severity == hcl.DiagError
}

func (r *matReader) errorf(line int, summary, format string, args ...any) {
	r.diag(rowDiag(r.path, line, summary, fmt.Sprintf(format, args...)))
}

// add keeps a value unless it repeats an earlier one (a warning).
func (r *matReader) add(line int, mv Value) {
	if prev, ok := r.seen[mv.Value]; ok {
		r.diag(&hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Duplicate material value",
			Detail:  fmt.Sprintf("%q already appears on line %d; the repeat is ignored.", mv.Value, prev),
			Subject: rowDiag(r.path, line, "", "").Subject})
		return
	}
	r.seen[mv.Value] = int32(line)
	r.out = append(r.out, mv)
	r.lines = append(r.lines, int32(line))
}

// setOrigins gives every value its "file:line" origin. The origins are
// substrings of one string, so 300,000 values make one allocation, not
// 300,000.
func (r *matReader) setOrigins() {
	if len(r.out) == 0 {
		return
	}
	buf := make([]byte, 0, len(r.out)*(len(r.base)+8))
	ends := make([]int, len(r.out))
	for i, ln := range r.lines {
		buf = append(buf, r.base...)
		buf = append(buf, ':')
		buf = strconv.AppendInt(buf, int64(ln), 10)
		ends[i] = len(buf)
	}
	all := string(buf)
	start := 0
	for i := range r.out {
		r.out[i].Origin = all[start:ends[i]]
		start = ends[i]
	}
	r.lines = nil
}

// lowerKey lower-cases a normalize key (schema names match without regard
// to case), once per distinct key.
func (r *matReader) lowerKey(k string) string {
	if l, ok := r.lower[k]; ok {
		return l
	}
	if r.lower == nil {
		r.lower = map[string]string{}
	}
	l := strings.ToLower(k)
	r.lower[k] = l
	return l
}

// eachLine calls fn with every line of text (without its line end) and its
// number, from 1.
func eachLine(text string, fn func(line string, n int) bool) {
	n := 0
	for len(text) > 0 {
		n++
		i := strings.IndexByte(text, '\n')
		line := text
		if i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if !fn(strings.TrimSuffix(line, "\r"), n) {
			return
		}
	}
}

func (r *matReader) readTxt(text string) {
	eachLine(text, func(line string, n int) bool {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			return true
		}
		if !utf8.ValidString(line) {
			r.errorf(n, "Invalid UTF-8", "This line is not valid UTF-8 text; save the file as UTF-8.")
			return true
		}
		r.add(n, Value{Value: line, Level: r.lvl})
		return true
	})
}

// csvColumns are the roles of a CSV file's columns, read from its header.
type csvColumns struct {
	value, level, tags int
	normalize          []csvNormalize
}

type csvNormalize struct {
	col    int
	schema string
}

func (r *matReader) readCSV(text string) {
	cr := csv.NewReader(strings.NewReader(text))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		r.errorf(1, "Invalid CSV header", "The first row must name the columns (at least `value`): %v.", err)
		return
	}
	cols := csvColumns{value: -1, level: -1, tags: -1}
	for i, h := range header {
		switch h = strings.TrimSpace(h); {
		case h == "value":
			cols.value = i
		case h == "level":
			cols.level = i
		case h == "tags":
			cols.tags = i
		case strings.HasPrefix(h, "normalize."):
			cols.normalize = append(cols.normalize, csvNormalize{col: i, schema: strings.ToLower(strings.TrimPrefix(h, "normalize."))})
		}
	}
	if cols.value < 0 {
		r.errorf(1, "Missing value column", "The header row %q has no `value` column; name the column holding the material values `value`.", strings.Join(header, ","))
		return
	}
	cell := func(rec []string, i int) string {
		if i < 0 || i >= len(rec) {
			return ""
		}
		return strings.TrimSpace(rec[i])
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line := 0
		if err == nil || len(rec) > 0 {
			line, _ = cr.FieldPos(0)
		}
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				r.errorf(line, "Invalid CSV row", "%s", err)
				break
			}
			line = pe.StartLine
			if !errors.Is(pe.Err, csv.ErrFieldCount) {
				if errors.Is(pe.Err, csv.ErrQuote) && pe.Line > pe.StartLine {
					r.errorf(line, "Invalid CSV row", "A quoted field starts in this row and is not closed before line %d, so the rest of the file is one field. Close the quote, or double it (\"\") inside a quoted field.", pe.Line)
				} else {
					r.errorf(line, "Invalid CSV row", "%s.", pe.Err)
				}
				continue
			}
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if cols.value >= len(rec) {
			r.errorf(line, "Missing value", "This row has %d fields; the value column is field %d.", len(rec), cols.value+1)
			continue
		}
		v := cell(rec, cols.value)
		if v == "" {
			r.errorf(line, "Empty value", "This row's value column is empty; remove the row or fill it.")
			continue
		}
		if !utf8.ValidString(v) {
			r.errorf(line, "Invalid UTF-8", "This row's value is not valid UTF-8 text; save the file as UTF-8.")
			continue
		}
		mv := Value{Value: v, Level: r.lvl}
		if l := cell(rec, cols.level); l != "" {
			mv.Level = l
		}
		if t := cell(rec, cols.tags); t != "" {
			mv.Tags = strings.Split(t, "|")
		}
		for _, nc := range cols.normalize {
			if n := cell(rec, nc.col); n != "" {
				if mv.Normalize == nil {
					mv.Normalize = make(map[string]string, len(cols.normalize))
				}
				mv.Normalize[nc.schema] = n
			}
		}
		r.add(line, mv)
	}
}

func (r *matReader) readJSONL(text string) {
	eachLine(text, func(line string, n int) bool {
		line = strings.TrimSpace(line)
		if line == "" {
			return true
		}
		row, err := r.parseRow(line)
		if err != nil {
			r.errorf(n, "Invalid JSONL row", "%s. Each line is one object such as {\"value\": \"北京\", \"level\": \"M1\", \"normalize\": {\"iao\": \"北京市\"}}.", err)
			return true
		}
		v := strings.TrimSpace(row.value)
		if !row.hasValue || v == "" {
			r.errorf(n, "Missing value", "This row has no non-empty \"value\".")
			return true
		}
		mv := Value{Value: v, Level: r.lvl, Tags: row.tags, Normalize: row.normalize}
		if row.level != "" {
			mv.Level = row.level
		}
		r.add(n, mv)
		return true
	})
}

// jsonlRow is one decoded row of a .jsonl material file.
type jsonlRow struct {
	value     string
	hasValue  bool
	level     string
	tags      []string
	normalize map[string]string
}

// parseRow decodes one JSONL row: an object with the keys value, level
// (strings), tags (list of strings) and normalize (object of strings);
// null stands for absent, any other key is an error. The row is parsed by
// jsondoc, the JSON reader of every other JSON nlutest reads; each problem
// names the column (in characters) of the value at fault. Strings
// without escapes are substrings of line, so a row allocates only its
// tags and normalize map.
func (r *matReader) parseRow(line string) (jsonlRow, error) {
	var row jsonlRow
	r.buf = append(r.buf[:0], line...)
	d := &r.doc
	if err := d.Parse(r.buf); err != nil {
		return row, r.syntaxError(err)
	}
	root := d.Root()
	if d.Kind(root) != jsondoc.Object {
		return row, r.failAt(d.Offset(root), "a row is a JSON object and starts with {")
	}
	k := root + 1
	for range d.Len(root) {
		v := k + 1
		key, err := r.str(line, k)
		if err != nil {
			return row, err
		}
		switch key {
		case "value", "level":
			s, null, err := r.strOrNull(line, v, `"`+key+`"`)
			if err != nil {
				return row, err
			}
			if key == "value" {
				row.value, row.hasValue = s, !null
			} else {
				row.level = s
			}
		case "tags":
			if row.tags, err = r.tags(line, v); err != nil {
				return row, err
			}
		case "normalize":
			if row.normalize, err = r.normalize(line, v); err != nil {
				return row, err
			}
		default:
			return row, fmt.Errorf("unknown field %q (a row has value, level, tags and normalize)", key)
		}
		k = d.Next(v)
	}
	return row, nil
}

// tags reads a row's tags: a list of strings, or null.
func (r *matReader) tags(line string, v jsondoc.Ref) ([]string, error) {
	d := &r.doc
	switch d.Kind(v) {
	case jsondoc.Null:
		return nil, nil
	case jsondoc.Array:
	default:
		return nil, r.failAt(d.Offset(v), `"tags" must be a list of strings`)
	}
	var out []string
	e := v + 1
	for range d.Len(v) {
		if d.Kind(e) != jsondoc.String {
			return nil, r.failAt(d.Offset(e), "every tag must be a string")
		}
		t, err := r.str(line, e)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		e = d.Next(e)
	}
	return out, nil
}

// normalize reads a row's normalize: an object from schema name to a
// string (a null value is left out), or null.
func (r *matReader) normalize(line string, v jsondoc.Ref) (map[string]string, error) {
	d := &r.doc
	switch d.Kind(v) {
	case jsondoc.Null:
		return nil, nil
	case jsondoc.Object:
	default:
		return nil, r.failAt(d.Offset(v), `"normalize" must be an object from schema name to value, e.g. {"iao": "北京市"}`)
	}
	var out map[string]string
	k := v + 1
	for range d.Len(v) {
		name, err := r.str(line, k)
		if err != nil {
			return nil, err
		}
		val, null, err := r.strOrNull(line, k+1, "a normalize value")
		if err != nil {
			return nil, err
		}
		if !null {
			if out == nil {
				out = map[string]string{}
			}
			out[r.lowerKey(name)] = val
		}
		k = d.Next(k + 1)
	}
	return out, nil
}

// strOrNull reads the string or null v; what names the field in errors.
func (r *matReader) strOrNull(line string, v jsondoc.Ref, what string) (string, bool, error) {
	switch r.doc.Kind(v) {
	case jsondoc.Null:
		return "", true, nil
	case jsondoc.String:
		s, err := r.str(line, v)
		return s, false, err
	}
	return "", false, r.failAt(r.doc.Offset(v), what+" must be a string")
}

// str is the string v of the row line (a key or a value). One without
// escapes is a substring of the line; one with escapes is decoded.
func (r *matReader) str(line string, v jsondoc.Ref) (string, error) {
	d := &r.doc
	raw := d.StrBytes(v)
	if !utf8.Valid(raw) {
		return "", r.failAt(d.Offset(v), "a string is not valid UTF-8")
	}
	if d.Plain(v) {
		start := d.Offset(v) + 1
		return line[start : start+len(raw)], nil
	}
	return d.Str(v), nil
}

// failAt is a row's problem at byte offset off of the row.
func (r *matReader) failAt(off int, msg string) error {
	if off >= len(r.buf) {
		return fmt.Errorf("%s (the line ends early)", msg)
	}
	_, col := jsondoc.LineColumn(r.buf, off)
	return fmt.Errorf("%s (at column %d)", msg, col)
}

// syntaxError words jsondoc's syntax error of a row for the people who
// write material files, at the column it found.
func (r *matReader) syntaxError(err error) error {
	var se *jsondoc.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	reason, at := se.Reason(), se.Offset
	msg := reason
	switch {
	case strings.HasSuffix(reason, "after top-level value"):
		msg = "one object per line; more text follows the object"
	case reason == "unexpected end of JSON input in string literal":
		msg = "a string is not closed"
	case strings.Contains(reason, "escape"):
		// At the string, as the row's other string problems are.
		msg, at = "a string has an invalid escape", stringStart(r.buf, at)
	case strings.HasSuffix(reason, "in string literal"):
		msg = "a control character inside a string must be escaped"
	case strings.HasPrefix(reason, "unexpected end of JSON input"):
		msg = "the JSON object is not complete"
	}
	return r.failAt(at, msg)
}

// stringStart is the offset of the opening quote of the string of the
// JSON text b that holds offset off (off itself when none does).
func stringStart(b []byte, off int) int {
	start, in := off, false
	for i := 0; i < off && i < len(b); i++ {
		switch {
		case in && b[i] == '\\':
			i++
		case b[i] == '"':
			in = !in
			start = i
		}
	}
	if !in {
		return off
	}
	return start
}
