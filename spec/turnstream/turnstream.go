package turnstream

import (
	"bytes"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Bounds of one batch of streamed turn blocks.
const (
	// MaxBatchTurns is the most turn blocks one batch holds.
	MaxBatchTurns = 256
	// MaxBatchBytes is the most bytes of suite text one batch of more than
	// one turn block spans.
	MaxBatchBytes = 256 << 10
)

// Stream is the turn blocks of one conversation block, read from the
// source in batches.
type Stream struct {
	file    string
	at      int
	src     []byte
	batches []batch
}

// batch is a run of consecutive turn blocks (only blanks and comments
// between them): src[from:to], starting at pos, n blocks.
type batch struct {
	from, to int
	pos      hcl.Pos
	n        int
}

// File is the name of the file the conversation block is in.
func (ts *Stream) File() string { return ts.file }

// At is the byte offset where the conversation block starts in its file
// (the Start.Byte of the block's DefRange).
func (ts *Stream) At() int { return ts.at }

// Batches is the number of batches of the conversation's turn blocks.
func (ts *Stream) Batches() int { return len(ts.batches) }

var turnOnlySchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "turn"}}}

// Parse parses batch i: its turn blocks, the syntax body holding them
// (every range the file's own) and the parse's diagnostics. Each call
// parses the batch again; nothing parsed is kept.
func (ts *Stream) Parse(i int) ([]*hcl.Block, *hclsyntax.Body, hcl.Diagnostics) {
	b := ts.batches[i]
	f, diags := hclsyntax.ParseConfig(ts.src[b.from:b.to], ts.file, b.pos)
	if diags.HasErrors() {
		return nil, nil, diags
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok || len(body.Attributes) > 0 || len(body.Blocks) != b.n {
		return nil, nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Turn batch"}}
	}
	c, more := body.Content(turnOnlySchema)
	if more.HasErrors() {
		return nil, nil, more
	}
	return c.Blocks, body, diags
}

// skimmer reads suite text byte by byte, following HCL's lexical
// structure without parsing it.
type skimmer struct {
	src []byte
	i   int
}

// Skim finds the turn blocks of the top-level conversation blocks of src
// (the text of file name) that can be streamed, and returns them with src
// masked: each run of consecutive turn blocks replaced by one comment of
// the same bytes and lines, so every position in the masked text is the
// file's. No streams when there is nothing to stream or the skim cannot
// follow the file. Skim parses nothing: the caller parses the masked text
// and each stream's batches.
func Skim(src []byte, name string) ([]*Stream, []byte) {
	s := &skimmer{src: src}
	type conv struct {
		at    int
		turns [][2]int // byte spans of its turn blocks
		runs  []int    // index in turns where each run starts
		ok    bool
	}
	var convs []conv
	for {
		s.gap(true)
		if s.i >= len(src) {
			break
		}
		if s.src[s.i] == '}' {
			return nil, nil
		}
		start := s.i
		if s.word("conversation") && s.labels() {
			c := conv{at: start, ok: true}
			if !s.conversationBody(func(from, to int, alone, newRun bool) {
				c.ok = c.ok && alone
				if newRun || len(c.turns) == 0 {
					c.runs = append(c.runs, len(c.turns))
				}
				c.turns = append(c.turns, [2]int{from, to})
			}) {
				return nil, nil
			}
			if c.ok && len(c.turns) > 0 {
				convs = append(convs, c)
			}
			continue
		}
		s.i = start
		if !s.item() || s.i < len(src) && src[s.i] == '}' {
			return nil, nil
		}
	}
	if len(convs) == 0 {
		return nil, nil
	}
	masked := slices.Clone(src)
	var streams []*Stream
	lines := lineCounter{src: src, line: 1}
	for _, c := range convs {
		ts := &Stream{file: name, at: c.at, src: src}
		for r, first := range c.runs {
			last := len(c.turns)
			if r+1 < len(c.runs) {
				last = c.runs[r+1]
			}
			maskRun(masked, c.turns[first][0], c.turns[last-1][1])
			for k := first; k < last; {
				n := 1
				for k+n < last && n < MaxBatchTurns && c.turns[k+n][1]-c.turns[k][0] <= MaxBatchBytes {
					n++
				}
				from := c.turns[k][0]
				pos, ok := lines.pos(from)
				if !ok {
					return nil, nil
				}
				ts.batches = append(ts.batches, batch{from: from, to: c.turns[k+n-1][1], pos: pos, n: n})
				k += n
			}
		}
		streams = append(streams, ts)
	}
	return streams, masked
}

// lineCounter finds the line and column of increasing offsets of src.
type lineCounter struct {
	src       []byte
	at        int // offset counted up to
	line      int
	lineStart int
}

// pos is the position of offset i; ok is false when the text before it
// on its line is not ASCII (HCL counts columns in grapheme clusters).
func (lc *lineCounter) pos(i int) (hcl.Pos, bool) {
	for {
		j := bytes.IndexByte(lc.src[lc.at:i], '\n')
		if j < 0 {
			break
		}
		lc.line++
		lc.at += j + 1
		lc.lineStart = lc.at
	}
	lc.at = i
	for _, c := range lc.src[lc.lineStart:i] {
		if c >= 0x80 {
			return hcl.Pos{}, false
		}
	}
	return hcl.Pos{Line: lc.line, Column: i - lc.lineStart + 1, Byte: i}, true
}

// maskRun turns masked[from:to] (a run of turn blocks, starting with the
// word turn) into one comment: newlines stay, so lines and offsets after
// it do not move; every other byte becomes a blank, the first two /* and
// the last two bytes not split by a newline */; bytes after those (the
// rest of a line holding only the closing brace) stay blanks.
func maskRun(masked []byte, from, to int) {
	for k := from; k < to; k++ {
		if masked[k] != '\n' {
			masked[k] = ' '
		}
	}
	masked[from], masked[from+1] = '/', '*'
	end := to - 1
	for end-1 >= from+2 && (masked[end] == '\n' || masked[end-1] == '\n') {
		end--
	}
	masked[end-1], masked[end] = '*', '/'
}

// conversationBody reads a conversation block's body after its opening
// brace, through its closing brace, calling turn for each turn block:
// its span, whether it stands alone on its lines (only blanks before it
// on its first line, only blanks or a comment after it on its last) and
// whether another item came between it and the turn before. False when
// the skim cannot follow the body.
func (s *skimmer) conversationBody(turn func(from, to int, alone, newRun bool)) bool {
	src := s.src
	newRun := true
	for {
		s.gap(true)
		if s.i >= len(src) {
			return false
		}
		if src[s.i] == '}' {
			s.i++
			return true
		}
		start := s.i
		if s.word("turn") {
			s.blanks()
			if s.i < len(src) && src[s.i] == '{' {
				s.i++
				if !s.code(true) {
					return false
				}
				end := s.i
				alone := startsLine(src, start) && s.restOfLine()
				turn(start, end, alone, newRun)
				newRun = false
				continue
			}
		}
		s.i = start
		if !s.item() {
			return false
		}
		newRun = true
	}
}

// startsLine reports whether only blanks come before offset i on its line.
func startsLine(src []byte, i int) bool {
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	return i == 0 || src[i-1] == '\n'
}

// restOfLine skips blanks and a comment after a block; true when the line
// ends there (a newline or the end of the text).
func (s *skimmer) restOfLine() bool {
	s.blanks()
	if s.i >= len(s.src) || s.src[s.i] == '\n' {
		return true
	}
	if s.lineComment() {
		return true
	}
	if s.blockComment() {
		s.blanks()
		return s.i >= len(s.src) || s.src[s.i] == '\n'
	}
	return false
}

// word reports whether the name at s.i is w (followed by a byte that
// cannot continue a name), moving past it when it is.
func (s *skimmer) word(w string) bool {
	src := s.src
	if !bytes.HasPrefix(src[s.i:], []byte(w)) {
		return false
	}
	j := s.i + len(w)
	if j < len(src) && (isNameStart(src[j]) || src[j] == '-' || src[j] >= '0' && src[j] <= '9') {
		return false
	}
	s.i = j
	return true
}

// labels reads a block's labels (quoted strings or names) up to and past
// its opening brace; false when something else comes first.
func (s *skimmer) labels() bool {
	src := s.src
	for {
		s.blanks()
		if s.i >= len(src) {
			return false
		}
		switch c := src[s.i]; {
		case c == '{':
			s.i++
			return true
		case c == '"':
			if !s.str() {
				return false
			}
		case isNameStart(c):
			for s.i < len(src) && (isNameStart(src[s.i]) || src[s.i] == '-' || src[s.i] >= '0' && src[s.i] <= '9') {
				s.i++
			}
		default:
			return false
		}
	}
}

// blanks skips spaces, tabs and carriage returns.
func (s *skimmer) blanks() {
	for s.i < len(s.src) && (s.src[s.i] == ' ' || s.src[s.i] == '\t' || s.src[s.i] == '\r') {
		s.i++
	}
}

// gap skips blanks, comments and (with newlines) line ends.
func (s *skimmer) gap(newlines bool) {
	for s.i < len(s.src) {
		s.blanks()
		switch {
		case s.i >= len(s.src):
		case newlines && s.src[s.i] == '\n':
			s.i++
			continue
		case s.lineComment(), s.blockComment():
			continue
		}
		return
	}
}

// lineComment skips a # or // comment up to its newline.
func (s *skimmer) lineComment() bool {
	src := s.src
	if src[s.i] != '#' && !(src[s.i] == '/' && s.i+1 < len(src) && src[s.i+1] == '/') {
		return false
	}
	if j := bytes.IndexByte(src[s.i:], '\n'); j >= 0 {
		s.i += j
	} else {
		s.i = len(src)
	}
	return true
}

// blockComment skips a /* */ comment (an unterminated one to the end: the
// parse reports it).
func (s *skimmer) blockComment() bool {
	src := s.src
	if src[s.i] != '/' || s.i+1 >= len(src) || src[s.i+1] != '*' {
		return false
	}
	if j := bytes.Index(src[s.i+2:], []byte("*/")); j >= 0 {
		s.i += j + 4
	} else {
		s.i = len(src)
	}
	return true
}

// item skips one body item (an attribute or a block): up to the newline
// that ends it or the closing brace of the body it is in, which it does
// not consume.
func (s *skimmer) item() bool { return s.code(false) }

// code skips code. closing: up to and past the brace closing the
// construct s.i is inside (a block body, an interpolation); otherwise up
// to a newline or closing brace outside any bracket, or the end.
func (s *skimmer) code(closing bool) bool {
	src := s.src
	depth := 0
	for s.i < len(src) {
		switch c := src[s.i]; {
		case c == '\n' && depth == 0 && !closing:
			return true
		case c == '"':
			if !s.str() {
				return false
			}
			continue
		case c == '<' && s.i+1 < len(src) && src[s.i+1] == '<':
			if !s.heredoc() {
				return false
			}
			continue
		case c == '#' || c == '/':
			if s.lineComment() || s.blockComment() {
				continue
			}
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth == 0 {
				if closing && c == '}' {
					s.i++
				}
				return c == '}'
			}
			depth--
		}
		s.i++
	}
	return depth == 0 && !closing
}

// str skips a quoted template string; false when it is not closed on its
// line.
func (s *skimmer) str() bool {
	src := s.src
	s.i++
	for s.i < len(src) {
		switch c := src[s.i]; {
		case c == '\\':
			s.i += 2
			continue
		case c == '"':
			s.i++
			return true
		case c == '\n':
			return false
		case c == '$' || c == '%':
			if !s.templateSeq() {
				return false
			}
			continue
		}
		s.i++
	}
	return false
}

// templateSeq handles a $ or % in a template: an interpolation or
// directive ${…} %{…} is skipped as code, an escaped $${ %%{ is literal.
func (s *skimmer) templateSeq() bool {
	src := s.src
	c := src[s.i]
	switch {
	case s.i+1 < len(src) && src[s.i+1] == '{':
		s.i += 2
		return s.code(true)
	case s.i+2 < len(src) && src[s.i+1] == c && src[s.i+2] == '{':
		s.i += 3
	default:
		s.i++
	}
	return true
}

// heredoc skips <<MARKER or <<-MARKER, its lines and its closing marker
// line (up to that line's newline). A << that starts no heredoc is two
// bytes of code.
func (s *skimmer) heredoc() bool {
	src := s.src
	j := s.i + 2
	if j < len(src) && src[j] == '-' {
		j++
	}
	k := j
	for k < len(src) && (src[k] == '_' || src[k] >= 'A' && src[k] <= 'Z' || src[k] >= 'a' && src[k] <= 'z' || src[k] >= '0' && src[k] <= '9') {
		k++
	}
	end := k
	for end < len(src) && src[end] == '\r' {
		end++
	}
	if k == j || end >= len(src) || src[end] != '\n' {
		s.i += 2
		return true
	}
	marker := src[j:k]
	s.i = end + 1
	lineStart := true
	for s.i < len(src) {
		if lineStart {
			e := bytes.IndexByte(src[s.i:], '\n')
			if e < 0 {
				e = len(src) - s.i
			}
			if bytes.Equal(bytes.TrimSpace(src[s.i:s.i+e]), marker) {
				s.i += e
				return true
			}
		}
		c := src[s.i]
		lineStart = c == '\n'
		if c == '$' || c == '%' {
			if !s.templateSeq() {
				return false
			}
			continue
		}
		s.i++
	}
	return false
}

// isNameStart reports whether c starts a name: a letter, _ or a byte of a
// non-ASCII character (HCL names may be Chinese).
func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
