package reporters

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nlutest/nlutest/schema"
)

// stripANSI removes terminal escape sequences: CSI (ESC [ … final byte),
// OSC, DCS, SOS, PM and APC strings (ended by BEL or ESC \) and two-byte ESC
// sequences. A lone ESC at the end is dropped. Other characters are kept;
// clean removes the remaining control characters.
func stripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != 0x1b {
			b.WriteByte(c)
			i++
			continue
		}
		i++ // ESC
		if i >= len(s) {
			break
		}
		switch s[i] {
		case '[': // CSI: parameters 0x30–0x3F, intermediates 0x20–0x2F, final 0x40–0x7E
			i++
			for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
				i++
			}
			if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
				i++
			}
		case ']', 'P', 'X', '^', '_': // string sequences, ended by BEL or ST (ESC \)
			i++
			for i < len(s) {
				if s[i] == 0x07 {
					i++
					break
				}
				if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
					i += 2
					break
				}
				i++
			}
		default:
			// Two-byte sequence (ESC c, ESC 7, ESC ( B's first part …):
			// drop the ESC and the byte after it when it is printable ASCII.
			if s[i] >= 0x20 && s[i] <= 0x7e {
				i++
			}
		}
	}
	return b.String()
}

// legalXMLRune reports whether r is allowed by XML 1.0's Char production:
// #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
func legalXMLRune(r rune) bool {
	switch {
	case r == 0x9 || r == 0xA || r == 0xD:
		return true
	case r >= 0x20 && r <= 0xD7FF:
		return true
	case r >= 0xE000 && r <= 0xFFFD:
		return true
	case r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// clean makes user data safe for every report: ANSI escapes are stripped,
// each run of invalid UTF-8 (lone surrogates included, which Go sees as
// invalid bytes) becomes one U+FFFD, and characters XML 1.0 forbids (C0
// controls other than tab, newline and carriage return, U+FFFE, U+FFFF) are
// removed, as are DEL and the C1 controls, which terminals interpret.
func clean(s string) string {
	s = stripANSI(s)
	ok := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || !legalXMLRune(r) || (r >= 0x7f && r <= 0x9f) {
			ok = false
			break
		}
		i += n
	}
	if ok {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	lastBad := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r == utf8.RuneError && n == 1 {
			if !lastBad {
				b.WriteRune(utf8.RuneError)
			}
			lastBad = true
			continue
		}
		lastBad = false
		if !legalXMLRune(r) || (r >= 0x7f && r <= 0x9f) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// oneLine cleans s and turns line breaks and tabs into spaces, for table
// cells, attributes and headings.
func oneLine(s string) string {
	s = clean(s)
	if !strings.ContainsAny(s, "\r\n\t") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", " ")
	return strings.Map(func(r rune) rune {
		switch r {
		case '\r', '\n', '\t':
			return ' '
		}
		return r
	}, s)
}

// capBytes cuts s to at most max bytes on a rune boundary, saying how much
// was left out. The note is counted in max.
func capBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	note := func(n int) string { return fmt.Sprintf("\n… (truncated: %d more bytes)", n) }
	cut := max - len(note(len(s)))
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + note(len(s)-cut)
}

// capLine cuts a one-line string to at most max bytes, ending it with "…".
func capLine(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// fmtNum prints a count or a fractional figure: integers without decimals,
// other values rounded to three decimals with trailing zeros dropped.
func fmtNum(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	r := math.Round(f*1000) / 1000
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// fmtFixed prints a ratio's value with three decimals.
func fmtFixed(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	if s == "-0.000" {
		s = "0.000"
	}
	return s
}

// noData is shown for a ratio whose denominator is zero.
const noData = "n/a"

// fmtRatio prints a ratio as "0.875 (35/40)"; "n/a (0/0)" without data.
// fmtMean prints a macro average: the mean of per-label figures, whose
// denominator is the number of labels, not a sample size.
func fmtMean(r schema.Ratio) string {
	v, ok := r.Value()
	if !ok {
		return noData + " (no label)"
	}
	return fmtFixed(v) + " (mean of " + fmtNum(r.Den) + " " + plural(int(r.Den), "label", "labels") + ")"
}

func fmtRatio(r schema.Ratio) string {
	v, ok := r.Value()
	val := noData
	if ok {
		val = fmtFixed(v)
	}
	return val + " (" + fmtNum(r.Num) + "/" + fmtNum(r.Den) + ")"
}

// fmtCI prints a ratio's confidence interval as " [0.521, 0.833]", the
// bounds with the value's three decimals (so a bound a threshold reads is
// shown as the threshold's observed line shows it); "" without one.
func fmtCI(r schema.Ratio) string {
	lo, hi, ok := r.CI()
	if !ok {
		return ""
	}
	return " [" + fmtFixed(lo) + ", " + fmtFixed(hi) + "]"
}

// fmtRatioCI is fmtRatio followed by the ratio's interval, when it has
// one: "0.700 (21/30) [0.521, 0.833]".
func fmtRatioCI(r schema.Ratio) string { return fmtRatio(r) + fmtCI(r) }

// fmtRatioPtrCI is fmtRatioCI for optional ratios; "" when absent.
func fmtRatioPtrCI(r *schema.Ratio) string {
	if r == nil {
		return ""
	}
	return fmtRatioCI(*r)
}

// fmtRatioPtr is fmtRatio for optional ratios; "" when absent.
func fmtRatioPtr(r *schema.Ratio) string {
	if r == nil {
		return ""
	}
	return fmtRatio(*r)
}

// ratioValue returns a ratio's value or nil without data.
func ratioValue(r *schema.Ratio) *float64 {
	if r == nil {
		return nil
	}
	v, ok := r.Value()
	if !ok {
		return nil
	}
	return &v
}

// fmtMS prints milliseconds with one decimal.
func fmtMS(ms float64) string { return strconv.FormatFloat(ms, 'f', 1, 64) }

// fmtSeconds prints a duration for people: "31ms", "3.2s", "2m05s", "1h02m".
func fmtSeconds(s float64) string {
	if s < 0 || math.IsNaN(s) {
		s = 0
	}
	switch {
	case s < 1:
		return strconv.Itoa(int(math.Round(s*1000))) + "ms"
	case s < 60:
		return strconv.FormatFloat(s, 'f', 1, 64) + "s"
	case s < 3600:
		t := int(math.Round(s))
		return fmt.Sprintf("%dm%02ds", t/60, t%60)
	default:
		t := int(math.Round(s / 60))
		return fmt.Sprintf("%dh%02dm", t/60, t%60)
	}
}

// junitSeconds prints seconds the way every JUnit consumer parses them:
// three decimals, '.' as the decimal point, no grouping, never negative.
func junitSeconds(s float64) string {
	if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		s = 0
	}
	return strconv.FormatFloat(s, 'f', 3, 64)
}

// fmtValue prints an expected or actual JSON value compactly, without HTML
// escaping, so strings show their quotes and Chinese text stays readable.
func fmtValue(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimRight(b.String(), "\n")
}

// fmtDelta prints cur − base with a sign ("+0.021", "-0.013", "±0"); "" when
// either side has no value.
func fmtDelta(cur, base *float64) string {
	if cur == nil || base == nil {
		return ""
	}
	d := math.Round((*cur-*base)*1000) / 1000
	switch {
	case d > 0:
		return "+" + fmtNum(d)
	case d < 0:
		return fmtNum(d)
	}
	return "±0"
}

// naturalLess orders strings with runs of ASCII digits compared as numbers,
// so S2 comes before S10; ties fall back to byte order.
func naturalLess(a, b string) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si := i
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			sj := j
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na := strings.TrimLeft(a[si:i], "0")
			nb := strings.TrimLeft(b[sj:j], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			continue
		}
		if ca != cb {
			return ca < cb
		}
		i++
		j++
	}
	if len(a)-i != len(b)-j {
		return len(a)-i < len(b)-j
	}
	return a < b
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// sortedKeys returns a map's keys in natural order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return naturalLess(keys[i], keys[j]) })
	return keys
}

// metricKey appends a map key to a metrics-tree address the way thresholds
// write it: `.key` for identifiers, `["key"]` otherwise (scene paths,
// latency buckets).
func metricKey(prefix, key string) string {
	ident := key != ""
	for i, r := range key {
		// As conditions spell them: HCL identifiers take letters of any
		// script (metrics.scene.出行), so only other keys are quoted.
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r > 127 && unicode.IsLetter(r) ||
			(i > 0 && (r >= '0' && r <= '9' || r == '-')) {
			continue
		}
		ident = false
		break
	}
	if ident {
		return prefix + "." + key
	}
	return prefix + "[" + strconv.Quote(key) + "]"
}
