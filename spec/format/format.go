// Package format owns the canonical layout of suite files (`nlutest fmt`):
// FormatSource lays a file out with hclwrite's format, keeping its blocks,
// attributes, comments, byte order mark and line ends, and refuses a file
// that does not parse with the loader's own located diagnostics
// (spec.CheckSyntax). It also writes values as HCL (Value; strings through spec.QuoteString), as the
// tools that write suite files (annotate, import) need. It is a tool over
// the language, built on spec's exported API only.
package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/nlutest/nlutest/spec"
)

var utf8BOM = []byte("\xef\xbb\xbf")

// FormatSource returns src in the canonical layout of suite files:
// hclwrite's format (indentation by nesting, one space around operators,
// aligned `=` in runs of attributes and map items), no trailing blank
// lines, one final newline. Block and attribute order and every comment are
// kept; a UTF-8 BOM and CRLF line ends are kept as they were. A file that
// does not parse is returned unchanged with its diagnostics.
func FormatSource(src []byte, filename string) ([]byte, hcl.Diagnostics) {
	body, bom, crlf := SplitSource(src)
	if diags := spec.CheckSyntax(filename, body); diags.HasErrors() {
		return src, diags
	}
	out := hclwrite.Format(body)
	out = append(bytes.TrimRight(out, " \t\n"), '\n')
	if len(bytes.TrimSpace(out)) == 0 {
		out = nil
	}
	return JoinSource(out, bom, crlf), nil
}

// SplitSource strips a UTF-8 byte order mark and turns CRLF line ends
// into LF, reporting both so JoinSource can restore them.
func SplitSource(src []byte) (body []byte, bom, crlf bool) {
	if bytes.HasPrefix(src, utf8BOM) {
		src, bom = src[len(utf8BOM):], true
	}
	lf := bytes.Count(src, []byte("\n"))
	if lf > 0 && bytes.Count(src, []byte("\r\n")) == lf {
		return bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n")), bom, true
	}
	return src, bom, false
}

// JoinSource undoes SplitSource: it puts CRLF line ends (crlf) and a byte
// order mark (bom) back on body.
func JoinSource(body []byte, bom, crlf bool) []byte {
	if crlf {
		body = bytes.ReplaceAll(body, []byte("\n"), []byte("\r\n"))
	}
	if bom {
		body = append(append([]byte{}, utf8BOM...), body...)
	}
	return body
}

// Value writes a generic JSON value (nil, string, bool, int64, int,
// json.Number, float64, []any, map[string]any with its keys sorted) as an
// HCL expression; a value of any other type is written as the quoted text
// fmt.Sprint makes of it.
func Value(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return spec.QuoteString(t)
	case bool:
		return strconv.FormatBool(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case int:
		return strconv.Itoa(t)
	case json.Number:
		return string(t) // a number float64 does not hold exactly, as written
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return spec.QuoteString(strconv.FormatFloat(t, 'g', -1, 64))
		}
		return strconv.FormatFloat(t, 'g', -1, 64)
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = Value(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := slices.Sorted(maps.Keys(t))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = spec.QuoteString(k) + " = " + Value(t[k])
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return spec.QuoteString(fmt.Sprint(v))
}
