package spec

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

// Limits on what a suite file may ask of the loader. validate and fmt are
// natural to run on untrusted pull requests, so no input may exhaust the
// stack, memory or the terminal.
const (
	// MaxNesting is the deepest nesting of brackets, braces, parentheses,
	// strings, interpolations and unary operators (`!`, `-`) a suite file
	// may have. HCL parses nesting by recursion; deeper input would
	// overflow the stack, and no suite needs a tenth of it.
	MaxNesting = 100
	// MaxDiagsPerFile is how many diagnostics one file reports; the rest
	// are summed up in one last diagnostic.
	MaxDiagsPerFile = 20
)

// CheckSource checks a file's text before it is parsed: it must hold no
// NUL byte (it is not a text file), be UTF-8 (HCL's lexer gives ranges
// that straddle lines on other bytes) and nest no deeper than MaxNesting.
func CheckSource(filename string, src []byte) hcl.Diagnostics {
	if i := bytes.IndexByte(src, 0); i >= 0 {
		pos := posOf(src, i)
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Not a text file",
			Detail:  fmt.Sprintf("%s holds a NUL byte at line %d, column %d. Suite and variable files are UTF-8 text; remove the binary content or the file.", filename, pos.Line, pos.Column),
			Subject: &hcl.Range{Filename: filename, Start: pos, End: pos}}}
	}
	if !utf8.Valid(src) {
		i := firstInvalidUTF8(src)
		pos := posOf(src, i)
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Not UTF-8 text",
			Detail:  fmt.Sprintf("%s has a byte that is not UTF-8 (0x%02x) at line %d, column %d. Save the file as UTF-8.", filename, src[i], pos.Line, pos.Column),
			Subject: &hcl.Range{Filename: filename, Start: pos, End: pos}}}
	}
	if i := tooDeep(src, MaxNesting); i >= 0 {
		pos := posOf(src, i)
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Nesting too deep",
			Detail:  fmt.Sprintf("Brackets, braces, parentheses, strings and unary operators nest more than %d deep here. Flatten the structure; a suite never needs this depth.", MaxNesting),
			Subject: &hcl.Range{Filename: filename, Start: pos, End: hcl.Pos{Line: pos.Line, Column: pos.Column + 1, Byte: pos.Byte + 1}}}}
	}
	return nil
}

// firstInvalidUTF8 is the offset of src's first byte that is not UTF-8.
func firstInvalidUTF8(src []byte) int {
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(src)
}

// posOf is the line, column (in runes) and byte of offset i in src.
func posOf(src []byte, i int) hcl.Pos {
	line := 1 + bytes.Count(src[:i], []byte{'\n'})
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	return hcl.Pos{Line: line, Column: 1 + len([]rune(string(src[start:i]))), Byte: i}
}

// nestScan is the state of tooDeep: a stack of open constructs — '(', '[',
// '{' in expressions, 'I' for an interpolation or directive in a string,
// '"' for a quoted string, 'H' for a heredoc (its marker in markers).
type nestScan struct {
	src     []byte
	stack   []byte
	markers [][]byte
	unary   int // `!` and `-` in a row (unary operators nest)
}

// tooDeep returns the offset where src nests deeper than max, or -1.
// Comments are skipped; strings and heredocs count one level and their
// interpolations nest inside them.
func tooDeep(src []byte, max int) int {
	sc := &nestScan{src: src}
	for i := 0; i < len(src); i++ {
		var next int
		switch top := sc.top(); top {
		case '"':
			next = sc.inString(i)
		case 'H':
			next = sc.inHeredoc(i)
		default:
			next = sc.inCode(i)
		}
		if len(sc.stack)+sc.unary > max {
			return i
		}
		i = next
	}
	return -1
}

func (sc *nestScan) top() byte {
	if len(sc.stack) == 0 {
		return 0
	}
	return sc.stack[len(sc.stack)-1]
}

func (sc *nestScan) pop() {
	if len(sc.stack) > 0 {
		if sc.top() == 'H' {
			sc.markers = sc.markers[:len(sc.markers)-1]
		}
		sc.stack = sc.stack[:len(sc.stack)-1]
	}
}

// interp pushes an interpolation at i when `${` or `%{` (not `$${`, `%%{`)
// starts there, and returns the offset of its brace.
func (sc *nestScan) interp(i int) (int, bool) {
	src := sc.src
	if (src[i] == '$' || src[i] == '%') && i+1 < len(src) && src[i+1] == '{' {
		sc.stack = append(sc.stack, 'I')
		return i + 1, true
	}
	if (src[i] == '$' || src[i] == '%') && i+2 < len(src) && src[i+1] == src[i] && src[i+2] == '{' {
		return i + 2, true // escaped: literal
	}
	return i, false
}

func (sc *nestScan) inString(i int) int {
	switch sc.src[i] {
	case '\\':
		return i + 1
	case '"':
		sc.pop()
		return i
	case '\n':
		sc.pop() // unterminated: the parser reports it
		return i
	}
	j, _ := sc.interp(i)
	return j
}

func (sc *nestScan) inHeredoc(i int) int {
	src := sc.src
	if i == 0 || src[i-1] == '\n' {
		end := bytes.IndexByte(src[i:], '\n')
		if end < 0 {
			end = len(src) - i
		}
		if bytes.Equal(bytes.TrimSpace(src[i:i+end]), sc.markers[len(sc.markers)-1]) {
			sc.pop()
			return i + end - 1
		}
	}
	j, _ := sc.interp(i)
	return j
}

func (sc *nestScan) inCode(i int) int {
	src := sc.src
	c := src[i]
	if c == '!' || c == '-' {
		sc.unary++
		return i
	}
	if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
		sc.unary = 0
	}
	if j, ok := sc.comment(i); ok {
		return j
	}
	switch {
	case c == '"':
		sc.stack = append(sc.stack, '"')
	case c == '<' && i+1 < len(src) && src[i+1] == '<':
		return sc.heredoc(i)
	case c == '(' || c == '[' || c == '{':
		sc.stack = append(sc.stack, c)
	case c == ')' || c == ']' || c == '}':
		sc.pop()
	}
	return i
}

// comment skips a comment starting at i, returning the offset of its last
// byte (before the newline of a line comment).
func (sc *nestScan) comment(i int) (int, bool) {
	src := sc.src
	c := src[i]
	switch {
	case c == '#' || c == '/' && i+1 < len(src) && src[i+1] == '/':
		if end := bytes.IndexByte(src[i:], '\n'); end >= 0 {
			return i + end - 1, true
		}
		return len(src), true
	case c == '/' && i+1 < len(src) && src[i+1] == '*':
		if end := bytes.Index(src[i+2:], []byte("*/")); end >= 0 {
			return i + 2 + end + 1, true
		}
		return len(src), true
	}
	return i, false
}

// heredoc pushes a heredoc when `<<MARKER` or `<<-MARKER` and a newline
// start at i, and returns the offset of that newline.
func (sc *nestScan) heredoc(i int) int {
	src := sc.src
	j := i + 2
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
		return i + 1
	}
	sc.stack = append(sc.stack, 'H')
	sc.markers = append(sc.markers, src[j:k])
	return end
}

// materialLevels reads a template's material_levels and checks its names.
func (l *loader) materialLevels(attrs hcl.Attributes) []string {
	levels := l.strList(attrs, "material_levels")
	if a, ok := attrs["material_levels"]; ok {
		l.checkLevels(a, levels)
	}
	return levels
}

// checkLevels reports level names of a material_levels attribute that no
// material value of the suite has (a typo such as "m1" for "M1" would
// silently select no value).
func (l *loader) checkLevels(a *hcl.Attribute, levels []string) {
	known := map[string]bool{}
	for _, m := range l.suite.Materials {
		if m.Level != "" {
			known[m.Level] = true
		}
		for i := range m.Values {
			if lv := m.Values[i].Level; lv != "" {
				known[lv] = true
			}
		}
	}
	names := slices.Sorted(maps.Keys(known))
	for _, lv := range levels {
		if !known[lv] {
			list := "none"
			if len(names) > 0 {
				list = strings.Join(names, ", ")
			}
			l.warnf(a.Expr.Range().Ptr(), "Unknown material level", "material_levels names %q, which no material value of the suite has (levels: %s), so it selects nothing.%s", lv, list, didYouMean(lv, names))
		}
	}
}

// capDiags keeps the first MaxDiagsPerFile diagnostics of one file and
// sums the rest up in one more.
func capDiags(diags hcl.Diagnostics, filename string) hcl.Diagnostics {
	if len(diags) <= MaxDiagsPerFile {
		return diags
	}
	more := len(diags) - MaxDiagsPerFile
	out := append(diags[:MaxDiagsPerFile:MaxDiagsPerFile], &hcl.Diagnostic{Severity: hcl.DiagError,
		Summary: "Too many errors",
		Detail:  fmt.Sprintf("%d more problems in %s, from here on, are not shown; fix the ones above and validate again.", more, filename),
		Subject: diags[MaxDiagsPerFile].Subject})
	return out
}
