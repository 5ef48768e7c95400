package dataset

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

func discardCase(*schema.Case) error { return nil }

// Rows sharing an explicit id are refused at the second row, naming both
// rows' file and line, in every format; the rebuild index (eval, merge)
// refuses them the same way.
func TestDuplicateDatasetIDs(t *testing.T) {
	for _, tc := range []struct {
		name, block, file, data string
		first, second           int
	}{
		{"jsonl", `dataset "d" {
  source = "问句.jsonl"
  id     = row.id
  text   = row.q
}`, "问句.jsonl", "{\"id\":\"a\",\"q\":\"订机票\"}\n\n{\"id\":\"b\",\"q\":\"查天气\"}\n{\"id\":\"a\",\"q\":\"退票\"}\n", 1, 4},
		{"csv", `dataset "d" {
  source = "问句.csv"
  id     = row.id
  text   = row.q
}`, "问句.csv", "id,q\na,订机票\nb,\"查\n天气\"\na,退票\n", 2, 5},
		{"rasa", `dataset "d" {
  source = "nlu.yml"
  id     = row.intent
}`, "nlu.yml", "nlu:\n- intent: greet\n  examples: |\n    - 你好\n    - 早安啊\n- intent: bye\n  examples: |\n    - 再见\n", 4, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := genSuite(t, tc.block, tc.file, tc.data)
			path := s.SourceByKind(KindDataset, "d").(*datasetSource).path
			wantDup := func(err error) {
				t.Helper()
				var de *spec.DiagnosticError
				if !errors.As(err, &de) || len(de.Diags) != 1 {
					t.Fatalf("want one located diagnostic, got %v", err)
				}
				d := de.Diags[0]
				if d.Summary != "Duplicate case id" || d.Subject.Filename != path || d.Subject.Start.Line != tc.second ||
					!strings.Contains(d.Detail, path+":"+strconv.Itoa(tc.first)+" and "+path+":"+strconv.Itoa(tc.second)) {
					t.Errorf("diagnostic %s:%d %q %q", d.Subject.Filename, d.Subject.Start.Line, d.Summary, d.Detail)
				}
			}
			wantDup(s.Generate(spec.GenOptions{}, discardCase))
			wantDup(s.CheckCaseIDs())
		})
	}
}

// Two ids of one 64-bit hash are not a duplicate: generation reads the
// file again to find the earlier row before refusing.
func TestCaseIDHashCollisionIsNotADuplicate(t *testing.T) {
	s := genSuite(t, `dataset "d" {
  source = "d.jsonl"
  id     = row.id
  text   = row.q
}`, "d.jsonl", "{\"id\":\"a\",\"q\":\"一\"}\n{\"id\":\"b\",\"q\":\"二\"}\n")
	ds := s.SourceByKind(KindDataset, "d").(*datasetSource)
	ids := &caseIDs{}
	if err := ids.add(ds, "a", 1); err != nil {
		t.Fatal(err)
	}
	ids.seen.add(idHash("b")) // as if "b" hashed like "a"
	if err := ids.add(ds, "b", 2); err != nil {
		t.Errorf("a hash collision was taken for a duplicate: %v", err)
	}
	if err := ids.add(ds, "a", 3); err == nil || !strings.Contains(err.Error(), "d.jsonl:1 and ") {
		t.Errorf("the real duplicate: %v", err)
	}
}

// Identical rows without an id are numbered in file order, in every
// format, and the rebuild index numbers them the same.
func TestIdenticalRowsNumbered(t *testing.T) {
	for _, tc := range []struct{ name, block, file, data string }{
		{"jsonl", `dataset "d" {
  source = "d.jsonl"
  text   = row.q
}`, "d.jsonl", "{\"q\":\"订机票\"}\n{\"q\":\"订机票\"}\n{\"q\":\"查天气\"}\n{\"q\":\"订机票\"}\n"},
		{"csv", `dataset "d" {
  source = "d.csv"
  text   = row.q
}`, "d.csv", "q\n订机票\n订机票\n查天气\n订机票\n"},
		{"rasa", `dataset "d" { source = "nlu.yml" }`, "nlu.yml",
			"nlu:\n- intent: book\n  examples: |\n    - 订机票\n    - 订机票\n- intent: weather\n  examples: |\n    - 查天气\n- intent: book\n  examples: |\n    - 订机票\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := genSuite(t, tc.block, tc.file, tc.data)
			cases, _ := genCases(t, s, spec.GenOptions{})
			if len(cases) != 4 {
				t.Fatalf("%d cases", len(cases))
			}
			h := cases[0].ID
			if cases[1].ID != h+"-2" || cases[3].ID != h+"-3" || cases[2].ID == h || strings.Contains(cases[2].ID, "-") {
				t.Fatalf("ids %s %s %s %s", cases[0].ID, cases[1].ID, cases[2].ID, cases[3].ID)
			}
			if err := s.CheckCaseIDs(); err != nil {
				t.Fatal(err)
			}
			src := s.SourceByKind(KindDataset, "d")
			for _, c := range cases {
				rc, ok := src.Rebuild(spec.Saved{ID: c.ID, Text: c.Text})
				if !ok || rc.ID != c.ID {
					t.Errorf("Rebuild(%s): %v %+v", c.ID, ok, rc)
				}
			}
		})
	}
}

// The hash set grows past its first table and keeps every hash.
func TestHashSet(t *testing.T) {
	var hs hashSet
	const n = 5000
	for i := uint64(1); i <= n; i++ {
		if hs.add(i * 0x9e3779b97f4a7c15) {
			t.Fatalf("hash %d reported present before it was added", i)
		}
	}
	for i := uint64(1); i <= n; i++ {
		if !hs.add(i * 0x9e3779b97f4a7c15) {
			t.Fatalf("hash %d lost", i)
		}
	}
	if hs.n != n || len(hs.slots) < 2*n {
		t.Errorf("%d hashes in %d slots", hs.n, len(hs.slots))
	}
}
