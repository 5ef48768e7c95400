package ranking_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/ranking"
	"github.com/nlutest/nlutest/spec"
)

// load writes the suite and its files to a temporary directory and loads
// it with the ranking kind alone, as a program built on spec's public API
// would.
func load(t *testing.T, suite string, files map[string]string) (*spec.Suite, hcl.Diagnostics) {
	t.Helper()
	dir := t.TempDir()
	files["s.nlutest.hcl"] = `suite "排序" {}` + "\n" + suite
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{ranking.Kind{}}})
}

const rankRows = `{"id": "q1", "query": "北京今天天气怎么样？", "candidates": [{"text": "晴，25度。", "grade": 5}, {"text": "我不知道。", "grade": 1}]}
{"query": "推荐一家餐厅", "candidates": [{"text": "全聚德烤鸭店。", "grade": 4}]}
`

// TestRankingCases: score mode makes one case per (question, candidate),
// order mode one per question with its candidates; each case rebuilds
// from the file as it is.
func TestRankingCases(t *testing.T) {
	for _, c := range []struct {
		mode  string
		cases []string // text | candidate or candidates
	}{
		{"score = response.score", []string{"北京今天天气怎么样？|晴，25度。", "北京今天天气怎么样？|我不知道。", "推荐一家餐厅|全聚德烤鸭店。"}},
		{"order = response.order", []string{"北京今天天气怎么样？|晴，25度。,我不知道。", "推荐一家餐厅|全聚德烤鸭店。"}},
	} {
		s, diags := load(t, "ranking \"回复选择\" {\n  source = \"rank.jsonl\"\n  "+c.mode+"\n}\n", map[string]string{"rank.jsonl": rankRows})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", c.mode, diags)
		}
		var got []string
		ids := map[string]bool{}
		err := s.Generate(spec.GenOptions{}, func(k *schema.Case) error {
			got = append(got, k.Text+"|"+k.Candidate+strings.Join(k.Candidates, ","))
			if k.SourceKind != ranking.Block || ids[k.ID] {
				t.Errorf("%s: case %s of kind %q (ids must be unique)", c.mode, k.ID, k.SourceKind)
			}
			ids[k.ID] = true
			if re, same := s.SourceByKind(ranking.Block, "回复选择").Rebuild(spec.Saved{Case: k}); !same || re.ID != k.ID {
				t.Errorf("%s: case %s does not rebuild", c.mode, k.ID)
			}
			return nil
		})
		if err != nil || strings.Join(got, "\n") != strings.Join(c.cases, "\n") {
			t.Errorf("%s: %v\n%s", c.mode, err, strings.Join(got, "\n"))
		}
	}
}

// TestRankingDiagnostics: each mistake is a diagnostic at its file and
// line, through the public Decoder.
func TestRankingDiagnostics(t *testing.T) {
	for _, c := range []struct {
		name, block, rows, want string
	}{
		{"bad row", `source = "rank.jsonl"
  score = response.score`, rankRows + `{"query": "缺少候选"}` + "\n", `rank.jsonl:3,1-1: Invalid ranking row; The row needs a query and at least one candidate.`},
		{"no grade", `source = "rank.jsonl"
  score = response.score`, `{"query": "你好", "candidates": [{"text": "您好"}]}`, `rank.jsonl:1,1-1: Missing grade; Candidate 1 of question 1 has no grade.`},
		{"both modes", `source = "rank.jsonl"
  score = response.score
  order = response.order`, rankRows, `Score or order`},
		{"bad grade", `source = "rank.jsonl"
  score = response.score
  positive_grade = "高"`, rankRows, `s.nlutest.hcl:5,20-23: Invalid positive_grade`},
		{"grade from a case", `source = "rank.jsonl"
  score = response.score
  positive_grade = case.text`, rankRows, `Name not available here`},
		{"score naming a slot", `source = "rank.jsonl"
  score = slot.城市`, rankRows, `s.nlutest.hcl:4,15-18: Unknown slot`},
		{"half a TREC pair", `qrels = "qrels"`, "", `Incomplete TREC pair`},
	} {
		_, diags := load(t, "ranking \"r\" {\n  "+c.block+"\n}\n", map[string]string{"rank.jsonl": c.rows})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) {
			t.Errorf("%s: want %q in\n%v", c.name, c.want, diags)
		}
	}
}
