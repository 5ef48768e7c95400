package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/spec"
)

// This file holds the checks every dataset row passes before it is read
// (issue 35, audit 2026-12-05 m9): its text is UTF-8 (a reader replacing
// a bad byte with U+FFFD would test another utterance than the file
// holds), it is at most MaxDataRowBytes long (a 200 MB line took 1 GB to
// read, held several times over), and no JSON object in it names a
// member twice (a reader keeps one of them, and which is not the
// file's to say).

// MaxDataRowBytes caps one row of a dataset: a JSONL line, a CSV record
// (its quoted fields' line breaks included), a line of a Rasa nlu.yml.
const MaxDataRowBytes = 16 << 20

// dataErrorAt is a DiagnosticError at line and column (in characters) of
// path.
func dataErrorAt(path string, line, col int, summary, detail string, args ...any) error {
	pos := hcl.Pos{Line: line, Column: col}
	return &spec.DiagnosticError{Diags: hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary,
		Detail: fmt.Sprintf(detail, args...), Subject: &hcl.Range{Filename: path, Start: pos, End: hcl.Pos{Line: line, Column: col + 1}}}}}
}

// notUTF8 is the diagnostic of the byte at offset i of line (line n of
// path, starting at byte off of the file) that is not UTF-8.
func notUTF8(path string, n int, line []byte, i int, off int64) error {
	col := 1 + utf8.RuneCount(line[:i])
	return dataErrorAt(path, n, col, "Not UTF-8 text",
		"Line %d of %s has a byte that is not UTF-8 (0x%02x) at column %d (byte offset %d in the line, %d in the file), after %q. A dataset is UTF-8 text, read as it is: save the file as UTF-8 (from GBK: iconv -f GBK -t UTF-8), or fix the line.",
		n, path, line[i], col, i, off+int64(i), tail(line[:i], 20))
}

// tail is the last n characters of b.
func tail(b []byte, n int) string {
	i := len(b)
	for k := 0; k < n && i > 0; k++ {
		_, size := utf8.DecodeLastRune(b[:i])
		i -= size
	}
	return string(b[i:])
}

// rowTooLong is the diagnostic of a row over MaxDataRowBytes.
func rowTooLong(path string, n int, what string) error {
	return dataErrorAt(path, n, 1, "Dataset row too long",
		"The %s starting at line %d of %s is longer than %d MiB, the most one dataset row may be, and was not read. A row is one test utterance with its expectations; split the text, or keep long documents in files of their own.",
		what, n, path, MaxDataRowBytes>>20)
}

// repeatedMember finds the first member of an object of doc that repeats
// a key of that object: its key and byte offset in doc's text.
func repeatedMember(doc *jsondoc.Doc, r jsondoc.Ref) (key string, at int, ok bool) {
	switch doc.Kind(r) {
	case jsondoc.Object:
		if doc.RepeatsKeys(r) {
			seen := map[string]bool{}
			k := r + 1
			for range doc.Len(r) {
				name := doc.Str(k)
				if seen[name] {
					return name, doc.Offset(k), true
				}
				seen[name] = true
				k = doc.Next(k + 1)
			}
		}
		k := r + 1
		for range doc.Len(r) {
			if key, at, ok := repeatedMember(doc, k+1); ok {
				return key, at, true
			}
			k = doc.Next(k + 1)
		}
	case jsondoc.Array:
		v := r + 1
		for range doc.Len(r) {
			if key, at, ok := repeatedMember(doc, v); ok {
				return key, at, true
			}
			v = doc.Next(v)
		}
	}
	return "", 0, false
}

// csvGuard reads a CSV dataset for encoding/csv. It refuses a record
// longer than MaxDataRowBytes before the CSV reader holds it (an error
// that ends the file: Err), and notes each line with a byte that is not
// UTF-8 (its first such byte) for the record that holds it to be refused
// instead of read (take), so the rows after it are still read. A record
// ends at a line break outside quotes (a doubled quote inside a quoted
// field flips the state twice).
type csvGuard struct {
	r    io.Reader
	path string
	err  error
	// line is the current line (from 1), lineStart its offset, off the
	// offset read so far; recLine and recStart where the current record
	// began.
	line           int
	lineStart, off int64
	recLine        int
	recStart       int64
	quoted         bool
	pending        []byte // the start of a character cut by a read
	lineBuf        []byte // the current line so far, for a UTF-8 error's column
	// lineBad: the current line has a byte that is not UTF-8, noted.
	lineBad bool
	// bad are the lines' bytes that are not UTF-8, in file order, that no
	// record has taken yet.
	bad []badByte
}

// badByte is a byte that is not UTF-8 at offset off of the file, and its
// diagnostic.
type badByte struct {
	off int64
	err error
}

func newCSVGuard(r io.Reader, path string) *csvGuard {
	return &csvGuard{r: r, path: path, line: 1, recLine: 1}
}

// Err is the guard's diagnostic, once it refused the input.
func (g *csvGuard) Err() error { return g.err }

// take returns the diagnostic of the first byte that is not UTF-8 before
// offset end (the end of the record just read) and forgets those bytes:
// they are in that record, or in one before it whose own error came
// first.
func (g *csvGuard) take(end int64) error {
	var err error
	k := 0
	for k < len(g.bad) && g.bad[k].off < end {
		if err == nil {
			err = g.bad[k].err
		}
		k++
	}
	g.bad = g.bad[k:]
	return err
}

var errGuard = errors.New("dataset row refused")

func (g *csvGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, errGuard
	}
	n, err := g.r.Read(p)
	if n > 0 {
		if gerr := g.scan(p[:n], err == io.EOF); gerr != nil {
			g.err = gerr
			return 0, errGuard
		}
	} else if err == io.EOF && len(g.pending) > 0 {
		g.noteBad(notUTF8(g.path, g.line, append(g.lineBuf, g.pending...), len(g.lineBuf), g.lineStart), g.off-int64(len(g.pending)))
		g.pending = nil
	}
	return n, err
}

// noteBad notes a byte that is not UTF-8 (the first of its line).
func (g *csvGuard) noteBad(err error, off int64) {
	g.bad = append(g.bad, badByte{off, err})
}

// scan checks a chunk: line breaks and quotes for the record's length,
// and its characters (a character cut at the chunk's end is checked with
// the next chunk).
func (g *csvGuard) scan(b []byte, eof bool) error {
	g.checkUTF8(b, eof)
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\"\n")
		if i < 0 {
			g.off += int64(len(b))
			g.keepLine(b)
			break
		}
		g.off += int64(i) + 1
		if b[i] == '"' {
			g.quoted = !g.quoted
			g.keepLine(b[:i+1])
		} else {
			g.line++
			g.lineStart = g.off
			g.lineBuf = g.lineBuf[:0]
			if !g.quoted {
				if g.off-g.recStart > MaxDataRowBytes+1 {
					return rowTooLong(g.path, g.recLine, "CSV record")
				}
				g.recLine, g.recStart = g.line, g.off
			}
		}
		b = b[i+1:]
	}
	if g.off-g.recStart > MaxDataRowBytes+1 {
		return rowTooLong(g.path, g.recLine, "CSV record")
	}
	return nil
}

// keepLine keeps the start of the current line (up to 4 KiB) for the
// column of a UTF-8 error.
func (g *csvGuard) keepLine(b []byte) {
	if room := 4096 - len(g.lineBuf); room > 0 {
		g.lineBuf = append(g.lineBuf, b[:min(len(b), room)]...)
	}
}

// checkUTF8 checks the chunk b (the guard's line and offsets are still
// those of its start), with the bytes a previous read left cut, noting
// the first byte of each line that is not UTF-8.
func (g *csvGuard) checkUTF8(b []byte, eof bool) {
	pos := 0
	if len(g.pending) > 0 {
		// continuation bytes only: a newline after a cut character is
		// the line's end, not part of it
		for pos < len(b) && len(g.pending) < utf8.UTFMax && !utf8.FullRune(g.pending) && b[pos]&0xC0 == 0x80 {
			g.pending = append(g.pending, b[pos])
			pos++
		}
		if r, size := utf8.DecodeRune(g.pending); r == utf8.RuneError && size <= 1 && !g.lineBad {
			g.noteBad(notUTF8(g.path, g.line, append(slicesClone(g.lineBuf), g.pending...), len(g.lineBuf), g.lineStart), g.off-int64(len(g.pending)-pos))
			g.lineBad = true
		}
		g.pending = g.pending[:0]
	}
	if g.lineBad { // the rest of a line already noted
		nl := bytes.IndexByte(b[pos:], '\n')
		if nl < 0 {
			return
		}
		pos += nl + 1
		g.lineBad = false
	}
	for pos < len(b) {
		rest := b[pos:]
		if utf8.Valid(rest) {
			return
		}
		if cut := cutRune(rest); !eof && cut < len(rest) && utf8.Valid(rest[:cut]) {
			g.pending = append(g.pending[:0], rest[cut:]...)
			return
		}
		i := pos + spec.FirstInvalidUTF8(rest)
		g.noteBad(g.badAt(b, i), g.off+int64(i))
		nl := bytes.IndexByte(b[i:], '\n')
		if nl < 0 {
			g.lineBad = true
			return
		}
		pos = i + nl + 1
	}
}

// cutRune is where a character cut at the end of b starts (len(b) when
// none is).
func cutRune(b []byte) int {
	for k := 1; k < utf8.UTFMax && k <= len(b); k++ {
		if c := b[len(b)-k]; c >= 0xC0 {
			if !utf8.FullRune(b[len(b)-k:]) {
				return len(b) - k
			}
			break
		} else if c < 0x80 {
			break
		}
	}
	return len(b)
}

// badAt is the diagnostic of b[i], a byte that is not UTF-8 in the chunk
// b (the guard's line and offsets those of its start).
func (g *csvGuard) badAt(b []byte, i int) error {
	start := bytes.LastIndexByte(b[:i], '\n') + 1
	line := b[start:]
	lineNo, lineOff := g.line+bytes.Count(b[:start], []byte{'\n'}), g.off+int64(start)
	if start == 0 {
		line = append(slicesClone(g.lineBuf), b...)
		i += len(g.lineBuf)
		lineOff = g.lineStart
	} else {
		i -= start
	}
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	return notUTF8(g.path, lineNo, line, i, lineOff)
}

func slicesClone(b []byte) []byte { return append([]byte(nil), b...) }
