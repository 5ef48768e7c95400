package dataset

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/kindtest"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/perturb"
)

const datasetJSONL = `{"id": "q1", "text": "北京的首都机场在哪个区？", "intent": "ask_location", "answer": "朝阳区", "domain": "出行"}
{"id": "q2", "text": "Who wrote Hamlet?", "intent": "ask_person", "answer": ["William Shakespeare", "Shakespeare"], "domain": "literature", "n": 2}

{"id": "q3", "text": "明天上海天气怎么样", "intent": "ask_weather", "answer": null, "domain": "天气"}
`

const datasetSuite = `
dataset "qa" {
  source     = "qa.jsonl"
  text       = row.text
  id         = row.id
  expect     = { "$.intent.name" = row.intent, "$.domain" = upper(row.domain) }
  references = row.answer
  scene      = [row.domain]
  level      = "S2"
  meta       = { domain = row.domain, "答案数" = length(flatten([row.answer])) }
}
`

// JSONL rows become cases: text, id, expectations (plain row.NAME and any
// expression), references (a string, a list, null), scene and level; a
// blank line is skipped.
func TestDatasetJSONL(t *testing.T) {
	s := genSuite(t, datasetSuite, "qa.jsonl", datasetJSONL)
	cases, _ := genCases(t, s, spec.GenOptions{})
	if len(cases) != 3 {
		t.Fatalf("%d cases, want 3", len(cases))
	}
	c := cases[1]
	want := &schema.Case{ID: "q2", Suite: s.Name, Source: "qa", SourceKind: KindDataset, Text: "Who wrote Hamlet?", Level: "S2",
		Scene: []string{"literature"}, References: []string{"William Shakespeare", "Shakespeare"},
		Meta:   map[string]string{"domain": "literature", "答案数": "2"},
		Expect: schema.Expectations{{Path: "$.intent.name", Value: "ask_person"}, {Path: "$.domain", Value: "LITERATURE"}}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("case\n%+v\nwant\n%+v", c, want)
	}
	if cases[0].References[0] != "朝阳区" || cases[2].References != nil {
		t.Errorf("references %q, %q", cases[0].References, cases[2].References)
	}
	// the same suite gives the same cases; eval rebuilds them by id
	again, _ := genCases(t, s, spec.GenOptions{})
	if !reflect.DeepEqual(cases, again) {
		t.Error("a second generation differs")
	}
	src := s.SourceByKind(KindDataset, "qa")
	rc, ok := src.Rebuild(spec.Saved{ID: "q2", Text: "Who wrote Hamlet?"})
	if !ok || !reflect.DeepEqual(rc, want) {
		t.Errorf("Rebuild: %v %+v", ok, rc)
	}
	if _, ok := src.Rebuild(spec.Saved{ID: "q2", Text: "another text"}); ok {
		t.Error("Rebuild of a case whose text changed succeeded")
	}
}

// Without an id expression the id is a hash of the row: stable, and
// different for different rows.
func TestDatasetDefaultIDAndCSV(t *testing.T) {
	csvData := "text,intent,answer\n\"订一张去北京的机票\",book_flight,好的\n\"hello, there\",greet,hi\n"
	s := genSuite(t, `
dataset "csv" {
  source     = "d.csv"
  text       = row.text
  expect     = { "$.intent.name" = row.intent }
  references = [row.answer, "${row.answer}!"]
}
`, "d.csv", csvData)
	cases, _ := genCases(t, s, spec.GenOptions{})
	if len(cases) != 2 || cases[1].Text != "hello, there" || cases[1].Expect[0].Value != "greet" {
		t.Fatalf("cases %+v", cases)
	}
	if cases[0].ID == cases[1].ID || len(cases[0].ID) != 16 {
		t.Errorf("ids %q %q", cases[0].ID, cases[1].ID)
	}
	if got := cases[0].References; !reflect.DeepEqual(got, []string{"好的", "好的!"}) {
		t.Errorf("references %q", got)
	}
	rc, ok := s.CaseSources[0].Rebuild(spec.Saved{ID: cases[1].ID, Text: cases[1].Text})
	if !ok || !reflect.DeepEqual(rc, cases[1]) {
		t.Errorf("Rebuild of a CSV row: %v %+v", ok, rc)
	}
}

// A bad row is a diagnostic at the data file's line: invalid JSON, a
// missing member, a wrong type, a CSV row with too many fields; a column
// the header lacks is found when the suite loads.
func TestDatasetBadRows(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
		line             int
	}{
		{"invalid JSON", "{\"text\": \"a\", \"intent\": \"x\"}\n{\"text\": \"b\",\n", "Invalid JSON in dataset row", 2},
		{"missing member", "{\"text\": \"a\", \"intent\": \"x\"}\n\n{\"intent\": \"y\"}\n", `the row has no member "text"`, 3},
		{"wrong type", "{\"text\": {\"a\": 1}, \"intent\": \"x\"}\n", "want a string, got an object", 1},
		{"not an object", "[1, 2]\n", "Dataset row is not an object", 1},
	} {
		s := genSuite(t, `dataset "d" {
  source = "d.jsonl"
  text   = row.text
  expect = { "$.intent.name" = row.intent }
}`, "d.jsonl", tc.data)
		err := s.Generate(spec.GenOptions{}, func(*schema.Case) error { return nil })
		var de *spec.DiagnosticError
		if !errors.As(err, &de) {
			t.Errorf("%s: error %v, want a DiagnosticError", tc.name, err)
			continue
		}
		d := de.Diags[0]
		if !strings.HasSuffix(d.Subject.Filename, "d.jsonl") || d.Subject.Start.Line != tc.line || !strings.Contains(d.Summary+d.Detail, tc.want) {
			t.Errorf("%s: %s:%d %s: %s", tc.name, d.Subject.Filename, d.Subject.Start.Line, d.Summary, d.Detail)
		}
	}
	s := genSuite(t, `dataset "d" {
  source = "d.csv"
  text   = row.text
}`, "d.csv", "text\na\nb,c\n")
	err := s.Generate(spec.GenOptions{}, func(*schema.Case) error { return nil })
	var de *spec.DiagnosticError
	if !errors.As(err, &de) || de.Diags[0].Subject.Start.Line != 3 {
		t.Errorf("CSV row with an extra field: %v", err)
	}
	dir := kindtest.WriteFiles(t, map[string]string{"s.nlutest.hcl": `dataset "d" {
  source = "d.csv"
  text   = row.txt
}`, "d.csv": "text,intent\na,b\n"})
	_, diags := load(dir)
	if d := kindtest.FindDiag(diags, "Unknown dataset column"); d == nil || !strings.Contains(d.Detail, `Did you mean "text"?`) || d.Subject.Start.Line != 3 {
		t.Errorf("unknown CSV column: %v", diags)
	}
}

const rasaNLU = `version: "3.1"
# training data
nlu:
- intent: book_flight
  examples: |
    - book a flight to [Berlin](city)
    - fly to [New York]{"entity": "city", "value": "NYC"} on [Monday](date)
    - 订一张去[北京](city)的机票
- synonym: NYC
  examples: |
    - New York
- intent: greet
  metadata:
    author: someone
  examples: |
    - hello
    - 你好 [there]
rules:
- rule: x
  steps:
  - intent: greet
`

// Rasa's nlu.yml: intent examples become cases with the intent and, per
// entity type, the annotated values as expectations; synonym items and
// other sections are skipped.
func TestDatasetRasaNLU(t *testing.T) {
	s := genSuite(t, `dataset "rasa" { source = "nlu.yml" }`, "nlu.yml", rasaNLU)
	cases, _ := genCases(t, s, spec.GenOptions{})
	var texts []string
	for _, c := range cases {
		texts = append(texts, c.Text)
	}
	want := []string{"book a flight to Berlin", "fly to New York on Monday", "订一张去北京的机票", "hello", "你好 [there]"}
	if !reflect.DeepEqual(texts, want) {
		t.Fatalf("texts %q, want %q", texts, want)
	}
	exp := schema.Expectations{
		{Path: "$.intent.name", Value: "book_flight"},
		{Path: "$.entities", Value: []any{map[string]any{"entity": "city", "value": "NYC"}, map[string]any{"entity": "date", "value": "Monday"}}},
	}
	if !reflect.DeepEqual(cases[1].Expect, exp) {
		t.Errorf("expectations %v, want %v", cases[1].Expect, exp)
	}
	// An example without annotations expects no entity.
	if want := (schema.Expectations{{Path: "$.intent.name", Value: "greet"}, {Path: "$.entities", Value: []any{}}}); !reflect.DeepEqual(cases[3].Expect, want) {
		t.Errorf("greet: %v, want %v", cases[3].Expect, want)
	}
	s2 := genSuite(t, `dataset "rasa" {
  source = "nlu.yml"
  text   = upper(row.text)
  expect = { "$.intent.name" = row.intent, "$.n" = length(row.entities) }
}`, "nlu.yml", rasaNLU)
	cases, _ = genCases(t, s2, spec.GenOptions{})
	if cases[1].Text != "FLY TO NEW YORK ON MONDAY" || cases[1].Expect[1].Path != "$.n" {
		t.Errorf("expressions over a Rasa example: %+v", cases[1])
	}
	bad := genSuite(t, `dataset "rasa" { source = "nlu.yml" }`, "nlu.yml", "nlu:\n- intent: x\n  examples: |\n    - a [b]{\"value\": 1}\n")
	err := bad.Generate(spec.GenOptions{}, func(*schema.Case) error { return nil })
	var de *spec.DiagnosticError
	if !errors.As(err, &de) || de.Diags[0].Subject.Start.Line != 4 || de.Diags[0].Summary != "Invalid entity annotation" {
		t.Errorf("bad annotation: %v", err)
	}
}

// Perturbed variants follow their original with their own stable ids,
// kind and original; every text differs from the original's and from the
// other variants'; a template's perturb block works the same way, and
// eval rebuilds the variants.
func TestPerturbVariants(t *testing.T) {
	s := genSuite(t, `
materials "同义" { values = ["订|预订|预定", "机票|飞机票"] }
materials "城市" { values = ["北京", "上海"] }
template "订票" {
  text   = "帮我订一张去{城市}的机票"
  expect = { "$.intent.name" = "book_flight" }
  perturb {
    kinds    = ["swap", "delete", "insert", "width", "punct", "synonym", "homophone"]
    count    = 3
    seed     = 7
    synonyms = "同义"
  }
}
dataset "qa" {
  source = "qa.jsonl"
  text   = row.text
  id     = row.id
  perturb {
    kinds = ["swap", "width", "punct"]
    count = 2
  }
}
`, "qa.jsonl", datasetJSONL)
	cases, _ := genCases(t, s, spec.GenOptions{})
	byOrig := map[string][]*schema.Case{}
	originals := map[string]*schema.Case{}
	ids := map[string]bool{}
	for _, c := range cases {
		if ids[c.ID] {
			t.Errorf("duplicate id %s", c.ID)
		}
		ids[c.ID] = true
		if c.Perturbation == "" {
			originals[c.ID] = c
			continue
		}
		byOrig[c.Original] = append(byOrig[c.Original], c)
	}
	if len(originals) != 5 {
		t.Fatalf("%d originals, want 5", len(originals))
	}
	kinds := map[string]int{}
	for id, vs := range byOrig {
		o := originals[id]
		seen := map[string]bool{o.Text: true}
		for _, v := range vs {
			kinds[v.Perturbation]++
			if seen[v.Text] {
				t.Errorf("variant %s repeats a text: %q", v.ID, v.Text)
			}
			seen[v.Text] = true
			if !reflect.DeepEqual(v.Expect, o.Expect) || !strings.HasPrefix(v.ID, o.ID+"-"+v.Perturbation) {
				t.Errorf("variant %s of %s: expect %v id", v.ID, o.ID, v.Expect)
			}
			rc, ok := s.SourceByKind(v.SourceKind, v.Source).Rebuild(spec.Saved{Case: v})
			if !ok || !reflect.DeepEqual(rc, v) {
				t.Errorf("Rebuild of %s: %v %+v", v.ID, ok, rc)
			}
		}
	}
	for _, k := range perturb.Kinds {
		if kinds[k] == 0 {
			t.Errorf("no %s variants", k)
		}
	}
	if kinds["swap"] != 2*3+3*2 {
		t.Errorf("%d swap variants, want 12", kinds["swap"])
	}
}
