package spec

// The exported helpers the tools over the language (spec/format,
// spec/annotate) are built on: what they need of the loader's checks,
// without reaching the loader.

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/spec/imeslip"
)

// SuggestName returns the option closest to name (a likely misspelling),
// or "" when none is close; for did-you-mean hints.
func SuggestName(name string, options []string) string { return suggest(name, options) }

// CheckSyntax checks that src (a suite file's text, without a byte order
// mark) is UTF-8 text within the size limits that parses as HCL, and
// returns the diagnostics Load would give for it: the same located
// messages (a slip of the keyboard, a fullwidth character, named), at most
// MaxDiagsPerFile of them and a last one saying how many more there are.
// No diagnostics: the file parses.
func CheckSyntax(filename string, src []byte) hcl.Diagnostics {
	if diags := CheckSource(filename, src); diags.HasErrors() {
		return diags
	}
	if _, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos); diags.HasErrors() {
		return capDiags(imeslip.Explain(diags, src), filename)
	}
	return nil
}

// QuoteString writes s as an HCL quoted string (the literal the
// loader reads back as s): backslash escapes for quotes,
// backslashes and control characters, `$${` and `%%{` for literal template
// openers.
func QuoteString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, c)
		case (c == '$' || c == '%') && i+1 < len(s) && s[i+1] == '{':
			b.WriteByte(c)
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
