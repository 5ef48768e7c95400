package redact

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// The secrets of the audit (2026-12-01, majors A–C): a token a query
// string mangles, the same stored already encoded, an OpenAI-style key
// with + / _ -, and a Chinese one.
const (
	tokA   = "S3cr3tTok/en+xyz"
	tokPre = "S3cr3tTok%2Fen%2Bxyz"
	tokKey = "sk-proj-Ab3+De/Fg9_Hi-Jk7Lm0Qr"
	tokZh  = "密钥-Ab+c/d_e"
)

// allU \u-escapes every character of s (surrogate pairs for the rest),
// with format's hex case.
func allU(s, format string) string {
	var b strings.Builder
	for _, r := range s {
		if r > 0xFFFF {
			r1, r2 := utf16Pair(r)
			fmt.Fprintf(&b, format+format, r1, r2)
			continue
		}
		fmt.Fprintf(&b, format, r)
	}
	return b.String()
}

// netEscape \u-escapes every character but ASCII letters and digits, as
// System.Text.Json-based services do.
func netEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, `\u%04X`, r)
		}
	}
	return b.String()
}

// pctAll %-encodes every byte of s.
func pctAll(s, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, format, s[i])
	}
	return b.String()
}

// jsonEscapeTimes JSON-escapes s n times (as a string inside a string…).
func jsonEscapeTimes(s string, n int) string {
	for range n {
		b, _ := json.Marshal(s)
		s = string(b[1 : len(b)-1])
	}
	return s
}

// TestEscapedAndDecodedForms: the forms of the audit's majors A, B and C
// and minor 1 — a secret as the service decoded it from a query string, a
// pre-encoded secret decoded, %-encoded in either hex case or byte by
// byte, \u-escaped in any case in a text or an error body, JSON inside a
// JSON string — are redacted in text and in JSON answers, next to Chinese
// text, and only the escaped text that spelled the secret is replaced.
func TestEscapedAndDecodedForms(t *testing.T) {
	mixed := func(s string) string { // \u escapes alternating hex case
		var b strings.Builder
		for i, r := range s {
			f := `\u%04x`
			if i%2 == 0 {
				f = `\u%04X`
			}
			fmt.Fprintf(&b, f, r)
		}
		return b.String()
	}
	doubled := `{\"key\":\"` + strings.ReplaceAll(netEscape(tokKey), `\`, `\\`) + `\"}`
	cases := []struct {
		name, secret, in, want string
		json                   bool // in is a JSON answer: redact with JSON
	}{
		{"query-decoded", tokA, "意图：S3cr3tTok/en xyz，完", "意图：[redacted]，完", false},
		{"query-decoded in JSON", tokA, `{"intent":{"name":"S3cr3tTok\u002Fen\u0020xyz"},"n":1}`, `{"intent":{"name":"[redacted]"},"n":1}`, true},
		{"pre-encoded, plain", tokPre, "echo S3cr3tTok/en+xyz!", "echo [redacted]!", false},
		{"pre-encoded, plain in JSON", tokPre, `{"k":"S3cr3tTok\u002Fen\u002Bxyz"}`, `{"k":"[redacted]"}`, true},
		{"pre-encoded lower-case, plain", "S3cr3tTok%2fen%2bxyz", "回声S3cr3tTok/en+xyz回声", "回声[redacted]回声", false},
		{"pre-encoded, query-decoded", tokPre, "got S3cr3tTok/en+xyz", "got [redacted]", false},
		{"query-encoded upper", tokKey, "?k=" + url.QueryEscape(tokKey) + "&z=1", "?k=[redacted]&z=1", false},
		{"query-encoded lower", tokKey, "?k=" + lowerHex(url.QueryEscape(tokKey)) + "&z=1", "?k=[redacted]&z=1", false},
		{"path-encoded lower", tokZh, "/x/" + lowerHex(url.PathEscape(tokZh)) + "/y", "/x/[redacted]/y", false},
		{"every byte %-encoded", tokKey, "redirect to http://127.0.0.1:9/steal?k=" + pctAll(tokKey, "%%%02X") + "&x=1 not followed",
			"redirect to http://127.0.0.1:9/steal?k=[redacted]&x=1 not followed", false},
		{"every byte %-encoded, lower", tokZh, "k=" + pctAll(tokZh, "%%%02x"), "k=[redacted]", false},
		{"all \\u upper in text", tokKey, "trace: auth=xyz u=" + allU(tokKey, `\u%04X`) + " end", "trace: auth=xyz u=[redacted] end", false},
		{"all \\u lower in text", tokKey, "u=" + allU(tokKey, `\u%04x`), "u=[redacted]", false},
		{"all \\u mixed case", tokKey, "u=" + mixed(tokKey) + ".", "u=[redacted].", false},
		{"all \\u Chinese", tokZh, "密码是" + allU(tokZh, `\u%04X`) + "。", "密码是[redacted]。", false},
		{"surrogate pair", "tok😀en-42", "t=" + allU("tok😀en-42", `\u%04x`), "t=[redacted]", false},
		{"401 body as text", tokKey, `{"error":{"message":"Incorrect API key provided: ` + netEscape(tokKey) + `","type":"invalid_request_error"}}`,
			`{"error":{"message":"Incorrect API key provided: [redacted]","type":"invalid_request_error"}}`, false},
		{"401 body as JSON", tokKey, `{"error":{"message":"Incorrect API key provided: ` + netEscape(tokKey) + `","type":"invalid_request_error"}}`,
			`{"error":{"message":"Incorrect API key provided: [redacted]","type":"invalid_request_error"}}`, true},
		{"double-encoded reply", tokKey, `{"key":"` + netEscape(tokKey) + `"}`, `{"key":"[redacted]"}`, false},
		{"double-encoded answer", tokKey, `{"choices":[{"message":{"content":"` + doubled + `"}}],"usage":{"total_tokens":2}}`,
			`{"choices":[{"message":{"content":"{\"key\":\"[redacted]\"}"}}],"usage":{"total_tokens":2}}`, true},
		{"double-encoded Chinese", tokZh, `{"content":"` + jsonEscapeTimes(`{"k":"`+netEscape(tokZh)+`"}`, 1) + `"}`, `{"content":"{\"k\":\"[redacted]\"}"}`, true},
		{"escapes around kept", tokKey, `x\u0041y ` + netEscape(tokKey) + `\n z%41 50%`, `x\u0041y [redacted]\n z%41 50%`, false},
		{"4 layers in text", tokKey, "a " + jsonEscapeTimes(netEscape(tokKey), 3) + " b", "a [redacted] b", false},
		{"5 layers in text: not searched", tokKey, "a " + jsonEscapeTimes(netEscape(tokKey), 4) + " b", "a " + jsonEscapeTimes(netEscape(tokKey), 4) + " b", false},
		{"5 layers in JSON", tokKey, `{"r":"` + jsonEscapeTimes(netEscape(tokKey), 4) + `"}`, `{"r":"[redacted]"}`, true},
		{"6 layers in JSON: not searched", tokKey, `{"r":"` + jsonEscapeTimes(netEscape(tokKey), 5) + `"}`, `{"r":"` + jsonEscapeTimes(netEscape(tokKey), 5) + `"}`, true},
		{"no secret, escapes", tokKey, `C:\path\u00e9 50% %41%zz \u12 \\ "q"`, `C:\path\u00e9 50% %41%zz \u12 \\ "q"`, false},
		{"no secret, JSON escapes", tokKey, `{"a":"\u00e9\n\"q\" 50%41","b":[1,-2.5e3]}`, `{"a":"\u00e9\n\"q\" 50%41","b":[1,-2.5e3]}`, true},
		{"a part is not redacted", tokKey, "sk-proj-Ab3", "sk-proj-Ab3", false},
		{"query-decoded short secret", "a+b", "x a b y", "x [redacted] y", false},
		{"decoded form too short: not searched", "%41%42", "AB CD %41%42", "AB CD [redacted]", false},
	}
	for _, c := range cases {
		r := New([]string{c.secret})
		var got string
		if c.json {
			if !json.Valid([]byte(c.in)) {
				t.Fatalf("%s: the input is not JSON: %s", c.name, c.in)
			}
			got = string(r.JSON([]byte(c.in)))
			if !json.Valid([]byte(got)) {
				t.Errorf("%s: redacted to invalid JSON %s", c.name, got)
			}
		} else {
			got = r.String(c.in)
		}
		if got != c.want {
			t.Errorf("%s:\n in   %s\n got  %s\n want %s", c.name, c.in, got, c.want)
		}
	}
}

// FuzzRedact: any text redacts without a panic, a valid JSON document
// stays valid, a text holding no escape and no secret comes back as it
// was, and a secret put into the text in one of its escaped forms never
// survives.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"", `\`, `%`, `%4`, `\u12`, `\uD83D`, `\uD83D\u0041`, `\ud83d\ude00`, `{"a":"\u002B"}`, "50% 密", `\\\\u0073k`, `"\"`} {
		f.Add(s, s)
	}
	r := New([]string{tokKey, tokZh})
	f.Fuzz(func(t *testing.T, before, after string) {
		text := before + after
		got := r.String(text)
		if !hasEscape(text) && !r.m.any(text) && got != text {
			t.Errorf("%q changed to %q", text, got)
		}
		if json.Valid([]byte(text)) && !json.Valid(r.JSON([]byte(text))) {
			t.Errorf("%q redacted to invalid JSON %q", text, r.JSON([]byte(text)))
		}
		for _, form := range []string{netEscape(tokKey), allU(tokZh, `\u%04x`), pctAll(tokKey, "%%%02X")} {
			in := before + "|" + form + "|" + after
			if out := r.String(in); strings.Contains(out, tokKey) || strings.Contains(out, form) || strings.Count(out, "|") < 2 {
				t.Errorf("%q redacted to %q", in, out)
			}
		}
	})
}
