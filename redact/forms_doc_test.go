package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
)

// docSecret is the secret of docs/security.md's table of forms.
const docSecret = "S3cr3t+k/机密"

// documentedForm makes one row of the table: the sensitive value (the
// secret itself unless the row says otherwise) and what the service sent.
type documentedForm struct {
	secret func(string) string
	echo   func(string) string
}

func same(s string) string { return s }

func eachRune(s, format string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, format, r)
	}
	return b.String()
}

// documentedForms has a transformation for every row of the table, by its
// form name.
var documentedForms = map[string]documentedForm{
	"raw":             {echo: same},
	"JSON-escaped":    {echo: func(s string) string { return strings.ReplaceAll(s, "/", `\/`) }},
	"JSON ASCII-only": {echo: func(s string) string { return strings.NewReplacer("机", `\u673a`, "密", `\u5bc6`).Replace(s) }},
	"`\\u`-escaped": {echo: func(s string) string {
		return strings.NewReplacer("+", `\u002B`, "/", `\u002f`, "机", `\u673A`, "密", `\u5bc6`).Replace(s)
	}},
	"all `\\u`": {echo: func(s string) string { return eachRune(s, `\u%04X`) }},
	"double-encoded": {echo: func(s string) string {
		inner := strings.NewReplacer("+", `\u002B`, "/", `\u002F`, "机", `\u673A`, "密", `\u5BC6`).Replace(s)
		b, _ := json.Marshal(`{"key":"` + inner + `"}`)
		return strings.Trim(string(b), `"`)
	}},
	"query-encoded": {echo: url.QueryEscape},
	"path-encoded":  {echo: url.PathEscape},
	"%-encoded bytes": {echo: func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			fmt.Fprintf(&b, "%%%02x", s[i])
		}
		return b.String()
	}},
	"query-decoded": {echo: func(s string) string { return strings.ReplaceAll(s, "+", " ") }},
	"%-decoded": {secret: func(s string) string { return strings.NewReplacer("+", "%2B", "/", "%2F").Replace(s) },
		echo: same},
	"base64":        {echo: func(s string) string { return base64.StdEncoding.EncodeToString([]byte("bot:" + s)) }},
	"upper-cased":   {echo: strings.ToUpper},
	"lower-cased":   {echo: strings.ToLower},
	"hex":           {echo: func(s string) string { return fmt.Sprintf("%x", s) }},
	"reversed":      {echo: func(s string) string { r := []rune(s); slices.Reverse(r); return string(r) }},
	"spaced":        {echo: func(s string) string { return strings.Join(strings.Split(s, ""), " ") }},
	"a part":        {echo: func(s string) string { return string([]rune(s)[:6]) }},
	"HTML entities": {echo: func(s string) string { return eachRune(s, "&#%d;") }},
}

// docRow is a row of the table as docs/security.md writes it.
type docRow struct {
	form, example string
	redacted      bool
}

// readFormsTable reads the table of "The forms a secret is searched in".
func readFormsTable(t *testing.T) []docRow {
	t.Helper()
	doc, err := os.ReadFile("../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "## The forms a secret is searched in\n")
	if !ok {
		t.Fatal("docs/security.md has no section \"The forms a secret is searched in\"")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var rows []docRow
	for _, line := range strings.Split(sec, "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) != 4 || cells[0] == "| form" {
			continue
		}
		ex := strings.TrimSpace(cells[2])
		if len(ex) < 2 || ex[0] != '`' || ex[len(ex)-1] != '`' {
			t.Errorf("row %q: the example %q is not one code span", line, ex)
			continue
		}
		yes := strings.TrimSuffix(cells[3], " |")
		if yes != "yes" && yes != "**no**" {
			t.Errorf("row %q: redacted is %q, want yes or **no**", line, yes)
		}
		rows = append(rows, docRow{form: strings.TrimPrefix(cells[0], "| "), example: ex[1 : len(ex)-1], redacted: yes == "yes"})
	}
	return rows
}

// TestDocumentedForms walks docs/security.md's table of forms: every row
// has a transformation here and every transformation a row, each example
// is what its transformation makes of the documented secret, and the
// redactor redacts exactly the rows marked yes — in text next to Chinese,
// and inside a JSON answer — and leaves the others as they came.
func TestDocumentedForms(t *testing.T) {
	rows := readFormsTable(t)
	if len(rows) < 10 {
		t.Fatalf("read %d rows from the table", len(rows))
	}
	seen := map[string]bool{}
	for _, row := range rows {
		seen[row.form] = true
		f, ok := documentedForms[row.form]
		if !ok {
			t.Errorf("the documented form %q has no transformation in this test", row.form)
			continue
		}
		secret := docSecret
		if f.secret != nil {
			secret = f.secret(docSecret)
		}
		echo := f.echo(docSecret)
		if echo != row.example {
			t.Errorf("%s: the example is %q, the transformation makes %q", row.form, row.example, echo)
		}
		r := New([]string{secret})
		text := "回声：" + echo + "。完"
		got := r.String(text)
		quoted, _ := json.Marshal(text)
		doc := r.JSON([]byte(`{"reply":` + string(quoted) + `}`))
		var dec struct{ Reply string }
		if err := json.Unmarshal(doc, &dec); err != nil {
			t.Errorf("%s: the JSON answer was redacted to invalid JSON %s", row.form, doc)
		}
		if row.redacted {
			if strings.Contains(got, echo) || !strings.HasPrefix(got, "回声：") || !strings.HasSuffix(got, "。完") || !strings.Contains(got, Redacted) {
				t.Errorf("%s: documented as redacted, but %q became %q", row.form, text, got)
			}
			if strings.Contains(dec.Reply, echo) || strings.Contains(dec.Reply, docSecret) || !strings.Contains(dec.Reply, Redacted) {
				t.Errorf("%s: documented as redacted, but in a JSON answer %q became %q", row.form, text, dec.Reply)
			}
		} else if got != text || dec.Reply != text {
			t.Errorf("%s: documented as not redacted, but %q became %q (%q in JSON): update docs/security.md", row.form, text, got, dec.Reply)
		}
	}
	for name := range documentedForms {
		if !seen[name] {
			t.Errorf("docs/security.md's table lacks the form %q", name)
		}
	}
}
