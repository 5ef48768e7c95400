package importer

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/format"
)

// quote writes s as an HCL string literal: backslash escapes for quotes,
// backslashes and control characters, and $${ and %%{ for the template
// openers HCL would otherwise read.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == utf8.RuneError:
			b.WriteString(`\uFFFD`)
		case r < 0x20 || r == 0x7f:
			const hex = "0123456789ABCDEF"
			b.WriteString(`\u00`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&15])
		case (r == '$' || r == '%') && strings.HasPrefix(s[i+1:], "{"):
			b.WriteRune(r)
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// literal is quote for text the suite reads for {slot} placeholders
// (user texts, expected values, reply check values): braces are doubled.
func literal(s string) string {
	return quote(strings.NewReplacer("{", "{{", "}", "}}").Replace(s))
}

// value renders an expected value: strings as literal, since expect
// values are read for {slot} placeholders.
func value(v any) string { return renderValue(v, literal) }

// exprValue renders a value inside an expression (an assert's condition),
// where braces are plain text.
func exprValue(v any) string { return renderValue(v, quote) }

func renderValue(v any, str func(string) string) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return str(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = renderValue(e, str)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = quote(k) + " = " + renderValue(x[k], str)
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return str(fmt.Sprint(v))
}

func list(vs []string) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = literal(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// comment writes text as # lines at the given indent.
func comment(b *strings.Builder, indent, text string) {
	for _, l := range strings.Split(text, "\n") {
		b.WriteString(strings.TrimRight(indent+"# "+l, " ") + "\n")
	}
}

// maxSuiteBytes is the most a written suite may hold: what a suite file
// may (a variable so a test can lower it).
var maxSuiteBytes = spec.MaxSuiteFileBytes

// render writes the suite as one canonical suite file, refusing (an
// InputError) a suite over maxSuiteBytes as soon as it passes it.
func (s *suite) render(f Features, header, target string) ([]byte, error) {
	var b strings.Builder
	comment(&b, "", header)
	fmt.Fprintf(&b, "\nsuite %s {\n  description = %s\n}\n\n%s", quote(s.name), quote("Imported from "+s.from), target)
	for _, m := range s.materials {
		fmt.Fprintf(&b, "\nmaterials %s {\n  values = %s\n}\n", quote(m.name), list(m.values))
	}
	used := map[string]int{}
	for i, c := range s.convos {
		b.WriteString("\n")
		if len(c.turns) == 0 {
			// Listed as a problem: a conversation needs a turn.
			comment(&b, "", fmt.Sprintf("SKIPPED %s:%d %s: it sends the bot no message", c.file, c.line, c.name))
			for _, cm := range c.comments {
				comment(&b, "", cm)
			}
			continue
		}
		renderConvo(&b, c, uniqueName(used, c.name), f)
		if b.Len() > maxSuiteBytes {
			return nil, s.tooBig(i+1, b.Len())
		}
	}
	out, diags := format.FormatSource([]byte(b.String()), s.name+spec.FileSuffix)
	if diags.HasErrors() {
		return nil, &BugError{Err: "the written suite does not parse: " + diags.Error()}
	}
	if len(out) > maxSuiteBytes {
		return nil, s.tooBig(len(s.convos), len(out))
	}
	return out, nil
}

// tooBig is the error of a suite over the size of a suite file, found
// after writing n of the convos into size bytes.
func (s *suite) tooBig(n, size int) *InputError {
	return &InputError{Diags: hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Imported suite too large",
		Detail: fmt.Sprintf("The suite written from %s passed %s, the most a suite file may hold, at %d bytes after %d of its %d tests (quoting text for HCL lengthens it). Import the tests in parts, each into its own suite directory.",
			s.from, sizeWords(maxSuiteBytes), size, n, len(s.convos))}}}
}

// uniqueName gives a second convo of one name a " (2)" suffix.
func uniqueName(used map[string]int, name string) string {
	if strings.TrimSpace(name) == "" {
		name = "convo"
	}
	used[name]++
	if n := used[name]; n > 1 {
		return fmt.Sprintf("%s (%d)", name, n)
	}
	return name
}

// isTemplate reports whether a convo is written as a template: one user
// turn that the bot does not open.
func isTemplate(c *convo) bool {
	return len(c.turns) == 1 && !c.turns[0].botFirst
}

func renderConvo(b *strings.Builder, c *convo, name string, f Features) {
	where := fmt.Sprintf("%s:%d", c.file, c.line)
	if c.description != "" {
		comment(b, "", c.description)
	}
	if isTemplate(c) {
		comment(b, "", "from "+where)
		fmt.Fprintf(b, "template %s {\n", quote(name))
		for _, cm := range c.comments {
			comment(b, "  ", cm)
		}
		renderTurnBody(b, c.turns[0], "  ", "text", f)
		b.WriteString("}\n")
		return
	}
	comment(b, "", "from "+where)
	fmt.Fprintf(b, "conversation %s {\n", quote(name))
	for _, cm := range c.comments {
		comment(b, "  ", cm)
	}
	for i, t := range c.turns {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("  turn {\n")
		renderTurnBody(b, t, "    ", "user", f)
		b.WriteString("  }\n")
	}
	b.WriteString("}\n")
}

func renderTurnBody(b *strings.Builder, t *turn, ind, textAttr string, f Features) {
	for _, cm := range t.comments {
		comment(b, ind, cm)
	}
	if t.botFirst {
		// The bot speaks first: no user text (a rasa target sends /session_start).
		fmt.Fprintf(b, "%sbot_first = true\n", ind)
	} else {
		fmt.Fprintf(b, "%s%s = %s\n", ind, textAttr, t.user)
	}
	if len(t.expect) > 0 {
		fmt.Fprintf(b, "%sexpect = {\n", ind)
		for _, e := range t.expect {
			fmt.Fprintf(b, "%s  %s = %s\n", ind, quote(e.path), value(e.value))
		}
		fmt.Fprintf(b, "%s}\n", ind)
	}
	asserts, rest := t.asserts, t.checks
	if f.ReplyBlocks && len(t.checks) > 0 {
		var blk []check
		blk, rest = replyBlock(t.checks)
		renderReply(b, blk, ind)
	}
	for _, c := range rest {
		asserts = append(asserts, c.assert())
	}
	for _, a := range asserts {
		fmt.Fprintf(b, "%sassert {\n%s  condition = %s\n%s  message   = %s\n%s}\n", ind, ind, a.condition, ind, quote(a.message), ind)
	}
}

// replyBlock gathers the checks one reply block holds (a case has one):
// those of the first check's ignore_case, contains and not_contains
// lists merged, one each of contains_any, matches and equals/one_of. The
// rest become asserts.
func replyBlock(cs []check) (blk []check, rest []check) {
	for _, c := range cs {
		if len(blk) > 0 && blk[0].ignoreCase != c.ignoreCase {
			rest = append(rest, c)
			continue
		}
		placed := false
		for i, o := range blk {
			same := o.kind == c.kind || (isEquality(o.kind) && isEquality(c.kind))
			if !same {
				continue
			}
			if c.kind == "contains" || c.kind == "not_contains" {
				blk[i].values = append(append([]string(nil), o.values...), c.values...)
				placed = true
			}
			break
		}
		switch {
		case placed:
		case slices.ContainsFunc(blk, func(o check) bool { return o.kind == c.kind || (isEquality(o.kind) && isEquality(c.kind)) }):
			rest = append(rest, c)
		default:
			blk = append(blk, c)
		}
	}
	return blk, rest
}

func isEquality(kind string) bool { return kind == "equals" || kind == "one_of" }

func renderReply(b *strings.Builder, blk []check, ind string) {
	fmt.Fprintf(b, "%sreply {\n", ind)
	for _, c := range blk {
		switch c.kind {
		case "matches":
			fmt.Fprintf(b, "%s  %s = %s\n", ind, c.kind, quote(c.values[0]))
		case "equals":
			fmt.Fprintf(b, "%s  %s = %s\n", ind, c.kind, literal(c.values[0]))
		default:
			fmt.Fprintf(b, "%s  %s = %s\n", ind, c.kind, list(c.values))
		}
	}
	if blk[0].ignoreCase {
		fmt.Fprintf(b, "%s  ignore_case = true\n", ind)
	}
	fmt.Fprintf(b, "%s}\n", ind)
}

// assert is the closest existing form of a reply check: a condition over
// reply (strcontains, regexall, ==).
func (c check) assert() assertion {
	subject := "reply"
	val := func(v string) string { return quote(v) }
	if c.ignoreCase {
		subject = "lower(reply)"
		val = func(v string) string { return "lower(" + quote(v) + ")" }
	}
	var parts []string
	join := " && "
	cond := ""
	switch c.kind {
	case "contains", "contains_any", "not_contains":
		for _, v := range c.values {
			p := fmt.Sprintf("strcontains(%s, %s)", subject, val(v))
			if c.kind == "not_contains" {
				p = "!" + p
			}
			parts = append(parts, p)
		}
		if c.kind == "contains_any" {
			join = " || "
		}
		cond = strings.Join(parts, join)
	case "matches":
		re := c.values[0]
		if c.ignoreCase {
			re = "(?i)" + re
		}
		cond = fmt.Sprintf("length(regexall(%s, reply)) > 0", quote(re))
	case "equals":
		cond = fmt.Sprintf("%s == %s", subject, val(c.values[0]))
	case "one_of":
		for _, v := range c.values {
			parts = append(parts, val(v))
		}
		cond = fmt.Sprintf("contains([%s], %s)", strings.Join(parts, ", "), subject)
	}
	return assertion{condition: cond, message: c.origin}
}
