package spec

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

// ReadMaterials reads a material source file: .txt (one value a line; blank
// lines and lines starting with # are skipped), .csv (a header row with a
// `value` column and optional `level`, `tags` (separated by |) and
// `normalize.SCHEMA` columns) or .jsonl (one object a line with `value` and
// optional `level`, `tags`, `normalize`). Every bad row is a diagnostic with
// the file and line; the rest of the file is still read.
func ReadMaterials(path, defLevel string) ([]MaterialValue, hcl.Diagnostics) {
	f, err := os.Open(path)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read materials file", Detail: fmt.Sprintf("%s. The path is resolved from the directory of the suite file that names it.", err)}}
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	if b, _ := r.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = r.Discard(3)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".txt":
		return readTxt(path, r, defLevel)
	case ".csv":
		return readCSV(path, r, defLevel)
	case ".jsonl", ".ndjson":
		return readJSONL(path, r, defLevel)
	}
	return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unknown materials file type", Detail: fmt.Sprintf("%s: a materials source is a .txt, .csv or .jsonl file.", path)}}
}

func rowDiag(path string, line int, summary, detail string) *hcl.Diagnostic {
	pos := hcl.Pos{Line: line, Column: 1}
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail,
		Subject: &hcl.Range{Filename: path, Start: pos, End: hcl.Pos{Line: line, Column: 2}}}
}

const maxDiagsPerFile = 20

func readTxt(path string, r io.Reader, lvl string) ([]MaterialValue, hcl.Diagnostics) {
	var out []MaterialValue
	var diags hcl.Diagnostics
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	seen := map[string]int{}
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(strings.TrimSuffix(sc.Text(), "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !utf8.ValidString(line) {
			diags = append(diags, rowDiag(path, n, "Invalid UTF-8", "This line is not valid UTF-8 text; save the file as UTF-8."))
			continue
		}
		if prev, ok := seen[line]; ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Duplicate material value", Detail: fmt.Sprintf("%q already appears on line %d; the repeat is ignored.", line, prev),
				Subject: rowDiag(path, n, "", "").Subject})
			continue
		}
		seen[line] = n
		out = append(out, MaterialValue{Value: line, Level: lvl, Origin: fmt.Sprintf("%s:%d", filepath.Base(path), n)})
	}
	if err := sc.Err(); err != nil {
		diags = append(diags, rowDiag(path, n+1, "Cannot read materials file", err.Error()))
	}
	return out, capDiags(diags)
}

func readCSV(path string, r io.Reader, lvl string) ([]MaterialValue, hcl.Diagnostics) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, hcl.Diagnostics{rowDiag(path, 1, "Invalid CSV header", fmt.Sprintf("The first row must name the columns (at least `value`): %v.", err))}
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	vi, ok := col["value"]
	if !ok {
		return nil, hcl.Diagnostics{rowDiag(path, 1, "Missing value column", fmt.Sprintf("The header row %q has no `value` column; name the column holding the material values `value`.", strings.Join(header, ",")))}
	}
	var out []MaterialValue
	var diags hcl.Diagnostics
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line := 0
		if err == nil || len(rec) > 0 {
			line, _ = cr.FieldPos(0)
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
				if !errors.Is(pe.Err, csv.ErrFieldCount) {
					diags = append(diags, rowDiag(path, line, "Invalid CSV row", pe.Err.Error()+"."))
					if len(diags) > maxDiagsPerFile {
						break
					}
					continue
				}
			} else {
				diags = append(diags, rowDiag(path, line, "Invalid CSV row", err.Error()))
				break
			}
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if vi >= len(rec) {
			diags = append(diags, rowDiag(path, line, "Missing value", fmt.Sprintf("This row has %d fields; the value column is field %d.", len(rec), vi+1)))
			continue
		}
		v := strings.TrimSpace(rec[vi])
		if v == "" {
			diags = append(diags, rowDiag(path, line, "Empty value", "This row's value column is empty; remove the row or fill it."))
			continue
		}
		if prev, ok := seen[v]; ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Duplicate material value", Detail: fmt.Sprintf("%q already appears on line %d; the repeat is ignored.", v, prev), Subject: rowDiag(path, line, "", "").Subject})
			continue
		}
		seen[v] = line
		mv := MaterialValue{Value: v, Level: lvl, Origin: fmt.Sprintf("%s:%d", filepath.Base(path), line)}
		for name, i := range col {
			if i >= len(rec) || strings.TrimSpace(rec[i]) == "" {
				continue
			}
			cell := strings.TrimSpace(rec[i])
			switch {
			case name == "level":
				mv.Level = cell
			case name == "tags":
				mv.Tags = strings.Split(cell, "|")
			case strings.HasPrefix(name, "normalize."):
				if mv.Normalize == nil {
					mv.Normalize = map[string]string{}
				}
				mv.Normalize[strings.ToLower(strings.TrimPrefix(name, "normalize."))] = cell
			}
		}
		out = append(out, mv)
	}
	return out, capDiags(diags)
}

type jsonlRow struct {
	Value     *string           `json:"value"`
	Level     string            `json:"level"`
	Tags      []string          `json:"tags"`
	Normalize map[string]string `json:"normalize"`
}

func readJSONL(path string, r io.Reader, lvl string) ([]MaterialValue, hcl.Diagnostics) {
	var out []MaterialValue
	var diags hcl.Diagnostics
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	seen := map[string]int{}
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var row jsonlRow
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&row); err != nil {
			diags = append(diags, rowDiag(path, n, "Invalid JSONL row", fmt.Sprintf("%s. Each line is one object such as {\"value\": \"北京\", \"level\": \"M1\", \"normalize\": {\"iao\": \"北京市\"}}.", err)))
			if len(diags) > maxDiagsPerFile {
				break
			}
			continue
		}
		if row.Value == nil || strings.TrimSpace(*row.Value) == "" {
			diags = append(diags, rowDiag(path, n, "Missing value", "This row has no non-empty \"value\"."))
			continue
		}
		v := strings.TrimSpace(*row.Value)
		if prev, ok := seen[v]; ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Duplicate material value", Detail: fmt.Sprintf("%q already appears on line %d; the repeat is ignored.", v, prev), Subject: rowDiag(path, n, "", "").Subject})
			continue
		}
		seen[v] = n
		mv := MaterialValue{Value: v, Level: lvl, Tags: row.Tags, Origin: fmt.Sprintf("%s:%d", filepath.Base(path), n)}
		if row.Level != "" {
			mv.Level = row.Level
		}
		if len(row.Normalize) > 0 {
			mv.Normalize = map[string]string{}
			for k, x := range row.Normalize {
				mv.Normalize[strings.ToLower(k)] = x
			}
		}
		out = append(out, mv)
	}
	if err := sc.Err(); err != nil {
		diags = append(diags, rowDiag(path, n+1, "Cannot read materials file", err.Error()))
	}
	return out, capDiags(diags)
}

// capDiags keeps the first maxDiagsPerFile diagnostics and says how many
// more there were, so a broken 300k-line file does not flood the terminal.
func capDiags(d hcl.Diagnostics) hcl.Diagnostics {
	if len(d) <= maxDiagsPerFile {
		return d
	}
	rest := d[maxDiagsPerFile:]
	sev := hcl.DiagWarning
	if rest.HasErrors() {
		sev = hcl.DiagError
	}
	d = d[:maxDiagsPerFile:maxDiagsPerFile]
	return append(d, &hcl.Diagnostic{Severity: sev, Summary: "More problems in this file", Detail: fmt.Sprintf("%d more rows have problems; fix the ones above and run validate again.", len(rest))})
}
