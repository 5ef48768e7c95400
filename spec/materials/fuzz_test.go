package materials

// To fuzz the material file reader for a minute:
//
//	go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 60s ./spec/materials

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse reads arbitrary bytes as a .txt, .csv or .jsonl material file
// (SPEC §11 asks for fuzz tests of the material readers). It must not
// panic; every value is non-empty, trimmed, unique and carries its file
// and line; every diagnostic points at a line of the file.
func FuzzParse(f *testing.F) {
	const txt, csv, jsonl = 0, 1, 2
	f.Add(uint8(txt), []byte("# 城市\n北京\n上海\n\n北京\n  广州  \r\n"))
	f.Add(uint8(txt), []byte("\xef\xbb\xbf酒店同房间\n\xff\xfe\n"))
	f.Add(uint8(csv), []byte("value,level,tags,normalize.iao\n酒店同房间,M1,住宿|同住,酒店同房间同宿\n\"带,逗号\",M2,,\n,M3,,\n北京,M1\n"))
	f.Add(uint8(csv), []byte("level,tags\nM1,a\n"))
	f.Add(uint8(csv), []byte("value\n\"未闭合\n北京\n"))
	f.Add(uint8(csv), []byte("a,value\n1\n"))
	f.Add(uint8(jsonl), []byte("{\"value\": \"北京\", \"level\": \"M1\", \"normalize\": {\"IAO\": \"北京市\"}}\n{\"value\": \"\"}\n{\"值\": 1}\nnot json\n{\"value\": \"北京\"}\n"))
	f.Add(uint8(jsonl), []byte("{\"value\": \"上海\", \"tags\": [\"直辖市\"]} {\"value\": \"广州\"}\n"))
	exts := []string{".txt", ".csv", ".jsonl"}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		path := filepath.Join("materials", "材料"+exts[int(kind)%len(exts)])
		vals, diags := Parse(data, path, filepath.Base(path), "M2")
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, d := range diags {
			if d.Subject == nil {
				continue
			}
			r := d.Subject
			if r.Filename != path {
				t.Errorf("diagnostic %q names %q, not the file", d.Summary, r.Filename)
			}
			if r.Start.Line < 1 || r.Start.Line > lines+1 || r.Start.Column < 1 {
				t.Errorf("diagnostic %q at %d:%d, the file has %d lines", d.Summary, r.Start.Line, r.Start.Column, lines)
			}
		}
		if len(diags) > maxDiagsPerFile+1 {
			t.Errorf("%d diagnostics, want at most %d", len(diags), maxDiagsPerFile+1)
		}
		seen := map[string]bool{}
		base := filepath.Base(path) + ":"
		for _, v := range vals {
			if v.Value == "" || v.Value != strings.TrimSpace(v.Value) {
				t.Errorf("value %q is empty or not trimmed", v.Value)
			}
			if seen[v.Value] {
				t.Errorf("value %q appears twice", v.Value)
			}
			seen[v.Value] = true
			if v.Level == "" {
				t.Errorf("value %q has no level", v.Value)
			}
			if !strings.HasPrefix(v.Origin, base) {
				t.Errorf("value %q has origin %q, want %s<line>", v.Value, v.Origin, base)
			}
			var line int
			if _, err := fmt.Sscanf(strings.TrimPrefix(v.Origin, base), "%d", &line); err != nil || line < 1 || line > lines {
				t.Errorf("value %q has origin %q outside the file's %d lines", v.Value, v.Origin, lines)
			}
			if exts[int(kind)%len(exts)] != ".csv" && !utf8.ValidString(v.Value) {
				t.Errorf("value %q is not valid UTF-8", v.Value)
			}
		}
	})
}
