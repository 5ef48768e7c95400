package spec

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec/diagfmt"
)

// TestBadRowInBigFile puts one bad row half-way through a 300,000-row
// material file of each format (30,000 under the race detector): the diagnostic names the file and the exact
// line, and every other row is still read.
func TestBadRowInBigFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes three 300,000-row files")
	}
	rows := benchPhones
	if underRace {
		rows = 30_000 // the race detector slows reading tenfold
	}
	bad := rows / 2 // 0-based data row; see line below
	cases := []struct {
		ext, row, summary string
		// line is the file line of data row `bad` (the CSV header is line 1).
		line int
	}{
		{".txt", "1380013\xff8000\n", "Invalid UTF-8", bad + 1},
		{".csv", "\"13800138000,M1,,\n", "Invalid CSV row", bad + 2},
		{".jsonl", "{\"value\": \"13800138000\", \"levl\": \"M1\"}\n", "Invalid JSONL row", bad + 1},
	}
	for _, c := range cases {
		t.Run(c.ext[1:], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "手机号"+c.ext)
			writeMaterialFile(t, path, rows, func(i int) string {
				if i == bad {
					return c.row
				}
				return ""
			})
			start := time.Now()
			vals, diags := ReadMaterials(path, "M1")
			took := time.Since(start)
			var errs hcl.Diagnostics
			for _, d := range diags {
				if d.Severity == hcl.DiagError {
					errs = append(errs, d)
				}
			}
			if c.ext == ".csv" {
				// An unterminated quote swallows the rest of the file into
				// one field: that row is the error, and nothing after it
				// can be read as rows.
				if len(errs) != 1 || len(vals) != bad {
					t.Fatalf("%d values, errors %v", len(vals), errs)
				}
			} else if len(errs) != 1 || len(vals) != rows-1 {
				t.Fatalf("%d values (want %d), errors %v", len(vals), rows-1, errs)
			}
			d := errs[0]
			if d.Summary != c.summary || d.Subject == nil || d.Subject.Filename != path || d.Subject.Start.Line != c.line {
				t.Errorf("got %q at %v, want %q at %s:%d", d.Summary, d.Subject, c.summary, path, c.line)
			}
			if c.ext == ".jsonl" && !strings.Contains(d.Detail, `unknown field "levl"`) {
				t.Errorf("detail %q should name the unknown field", d.Detail)
			}
			// The values around the bad row keep their own lines.
			near, wantLine := vals[bad-1], c.line-1
			if c.ext != ".csv" {
				near, wantLine = vals[bad], c.line+1
			}
			if want := fmt.Sprintf("%s:%d", filepath.Base(path), wantLine); near.Origin != want {
				t.Errorf("origin %q, want %q", near.Origin, want)
			}
			t.Logf("read %d rows in %v", len(vals), took)
		})
	}
}

// TestManyBadRowsCapped: a file where every row is bad gets the first
// problems in full and one summary, however long it is.
func TestManyBadRowsCapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "坏.jsonl")
	writeMaterialFile(t, path, 5000, func(i int) string {
		if i%2 == 0 {
			return "不是 JSON\n"
		}
		return fmt.Sprintf("{\"value\": \"值%d\"}\n", i)
	})
	vals, diags := ReadMaterials(path, "M1")
	if len(vals) != 2500 {
		t.Errorf("%d good rows read, want 2500", len(vals))
	}
	if len(diags) != maxDiagsPerFile+1 {
		t.Fatalf("%d diagnostics, want %d", len(diags), maxDiagsPerFile+1)
	}
	last := diags[len(diags)-1]
	if last.Summary != "More problems in this file" || last.Severity != hcl.DiagError || !strings.Contains(last.Detail, "2480 more rows") {
		t.Errorf("summary diagnostic: %+v", last)
	}
	if diags[1].Subject.Start.Line != 3 {
		t.Errorf("second bad row at line %d, want 3", diags[1].Subject.Start.Line)
	}
}

// TestJSONLRows covers the JSONL row reader's grammar against what the
// previous encoding/json reader accepted.
func TestJSONLRows(t *testing.T) {
	cases := []struct {
		row, value, level, err string
		tags                   []string
		norm                   map[string]string
	}{
		{row: `{"value": "北京"}`, value: "北京", level: "M1"},
		{row: ` { "value" : "北京" , "level" : "M2" } `, value: "北京", level: "M2"},
		{row: `{"value": "\u5317\u4eac\t", "tags": ["a", "b\"c"]}`, value: "北京", level: "M1", tags: []string{"a", `b"c`}},
		{row: `{"value": "上海", "normalize": {"IAO": "上海市", "Rasa": null}, "level": null, "tags": null}`, value: "上海", level: "M1", norm: map[string]string{"iao": "上海市"}},
		{row: `{"value": "x", "value": "y"}`, value: "y", level: "M1"},
		{row: `{"value": "广州", "tags": []}`, value: "广州", level: "M1"},
		{row: `{"value": 3}`, err: `"value" must be a string`},
		{row: `{"value": "a", "extra": 1}`, err: `unknown field "extra"`},
		{row: `{"value": "a"} {"value": "b"}`, err: "more text follows"},
		{row: `{"value": "a"`, err: "the line ends early"},
		{row: `{"value": "a}`, err: "not closed"},
		{row: "{\"value\": \"a\x01\"}", err: "control character"},
		{row: `{"value": "\q"}`, err: "invalid escape"},
		{row: `{"tags": "a", "value": "b"}`, err: `"tags" must be a list`},
		{row: `{"tags": [1], "value": "b"}`, err: "every tag must be a string"},
		{row: `{"normalize": {"iao": 1}, "value": "b"}`, err: "a normalize value must be a string"},
		{row: `{"normalize": ["iao"], "value": "b"}`, err: `"normalize" must be an object`},
		{row: `["value"]`, err: "starts with {"},
		{row: "{\"value\": \"\xff\"}", err: "not valid UTF-8"},
		{row: "{\"value\": \"\xff\\n\"}", err: "not valid UTF-8"},
		// The column of the value at fault, in characters after Chinese text.
		{row: `{"value": "北京", "tags": ["城市", 3]}`, err: "every tag must be a string (at column 32)"},
		{row: `{"值": "北京"}`, err: `unknown field "值"`},
		{row: `{"value": "北京", "level": 2}`, err: `"level" must be a string (at column 26)`},
		{row: `{"value": "北京\q"}`, err: "a string has an invalid escape (at column 11)"},
		{row: "{\"value\": \"北京\x01\"}", err: "a control character inside a string must be escaped (at column 14)"},
		{row: `{"value": "北京"} {"value": "上海"}`, err: "more text follows the object (at column 17)"},
		{row: `{"value": "北京", "tags": ["城市"`, err: "(the line ends early)"},
		{row: `{"value" "北京"}`, err: "(at column 10)"},
	}
	for _, c := range cases {
		r := &matReader{lvl: "M1"}
		row, err := r.parseRow(c.row)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one containing %q", c.row, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.row, err)
			continue
		}
		lvl := row.level
		if lvl == "" {
			lvl = "M1"
		}
		if v := strings.TrimSpace(row.value); v != c.value || lvl != c.level || !slices.Equal(row.tags, c.tags) || !maps.Equal(row.normalize, c.norm) {
			t.Errorf("%s: got %+v", c.row, row)
		}
	}
}

// TestMaterialRowSnippet: a bad row's diagnostic prints the row itself
// under its file:line, like a suite file's.
func TestMaterialRowSnippet(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"s.nlutest.hcl": "suite \"坏\" {}\nmaterials \"名\" { source = \"m/n.jsonl\" }\ntemplate \"t\" { text = \"{名}\" }\n",
		"m/n.jsonl":     "{\"value\": \"张三\"}\n{\"value\": \"李四\", \"levl\": \"M2\"}\n",
	})
	s, diags := testLoad(dir, Options{})
	if !diags.HasErrors() {
		t.Fatal("want an error")
	}
	var b strings.Builder
	diagfmt.Write(&b, diags, s.Sources, false)
	out := b.String()
	for _, want := range []string{"n.jsonl:2:1:", "2 | {\"value\": \"李四\", \"levl\": \"M2\"}", "^^^", `unknown field "levl"`} {
		if !strings.Contains(out, want) {
			t.Errorf("diagnostic lacks %q:\n%s", want, out)
		}
	}
}
