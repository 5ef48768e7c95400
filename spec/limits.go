package spec

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec/nesting"
)

// Limits on what a suite file may ask of the loader. validate and fmt are
// natural to run on untrusted pull requests, so no input may exhaust the
// stack, memory or the terminal.
const (
	// MaxNesting is the deepest nesting of expressions a suite file may
	// have (package spec/nesting says what counts: brackets, braces,
	// parentheses, strings, interpolations, template directives, unary
	// and binary operators, conditionals, index and splat steps). HCL
	// parses and walks nesting by recursion; deeper input would overflow
	// the stack, and no suite needs a tenth of it.
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
	if i := nesting.TooDeep(src, MaxNesting); i >= 0 {
		pos := posOf(src, i)
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Nesting too deep",
			Detail:  fmt.Sprintf("Expressions nest more than %d deep here (brackets, braces, parentheses, strings, interpolations, template directives, conditionals `? :`, unary operators and each operator of a chain such as `a + b + c` count a level). Flatten the structure: contains([…], x) for a long chain of x == … || x == …, a list for a long concatenation, or several attributes; a suite never needs this depth.", MaxNesting),
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
