package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/sources/conversation"
	"github.com/nlutest/nlutest/sources/dataset"
	"github.com/nlutest/nlutest/sources/scenario"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
)

// leanSuite declares templates of every strategy (limits that drop cases
// and warn, a second distinct draw whose repeats are dropped, material
// levels, a suite level limit, a perturbed template, one generating no
// case), a dataset and a conversation, with Chinese text; splits is the
// suite's split blocks.
const leanSuite = `
suite "精简计数" {
  defaults {
    level_limit = { S3 = 4 }
  }
}
target "fake" {
  http {
    url  = "http://127.0.0.1:1"
    body = jsonencode({ text = case.text })
  }
}
materials "城市" {
  values = ["北京", "上海", "广州", "深圳", "成都", "重庆", "西安"]
}
materials "日期" {
  value "明天" { level = "M1" }
  value "后天" { level = "M1" }
  value "下周一" { level = "M2" }
}
template "查天气" {
  text   = "{城市}{日期}天气怎么样"
  expect = { "$.city" = "{城市}", "$.date" = "{日期}" }
}
template "订机票" {
  text     = "订{日期}从{城市}到{城市#2}的机票"
  strategy = "product"
  limit    = 30
  expect   = { "$.from" = "{城市}", "$.to" = "{城市#2}" }
}
template "全组合" {
  text     = "从{城市}去{城市#2}"
  strategy = "product"
}
template "成对" {
  text     = "{城市}的{日期}呢"
  strategy = "pairwise"
  seed     = 3
}
template "随机" {
  text     = "随便说说{城市}{日期}"
  strategy = "random"
  count    = 9
  seed     = 5
}
template "限级" {
  text            = "{日期}去{城市}"
  level           = "S3"
  material_levels = ["M1"]
}
template "没有值" {
  text            = "{日期}{日期#2}{日期#3}"
  material_levels = ["M2"]
}
template "扰动" {
  text    = "我想去{城市}玩"
  perturb { kinds = ["swap", "width"] }
}
dataset "问句" {
  source = "qa.jsonl"
  id     = row.id
  text   = row.q
  expect = { "$.intent" = row.intent }
}
conversation "订票对话" {
  turn {
    user = "我要订去{城市}的票"
  }
  turn {
    user = "就{日期}吧"
  }
}
%s
`

// TestLeanCountMatchesFullGeneration: Selection.Count generates lean
// (spec.GenOptions.Lean), and count-only (spec.GenOptions.CountOnly) when
// the selection has no filter, shard or --only-failed; for every selection
// of every suite its Counts and warnings equal those of a full generation
// (and the full generation's scripts counted one by one), and a lean
// generation's scripts' ids, sources, turns, splits and (with a filter)
// texts equal a full one's. It fails if lean or count-only generation
// drops or adds a case (a perturbed variant, a where split reading slots,
// a dedupe by text or by drawn values) or a warning.
func TestLeanCountMatchesFullGeneration(t *testing.T) {
	suites := map[string]*spec.Suite{}
	for name, splits := range map[string]string{
		"none":     "",
		"fraction": `split "train" { fraction = 0.7 }` + "\n" + `split "test" { fraction = 0.3 }` + "\n" + `split "抽样" {` + "\n" + `fraction = 0.5` + "\n" + `seed = "另一个"` + "\n}",
		"where":    `split "train" { fraction = 0.7 }` + "\n" + `split "北京" { where = try(case.slots["城市"].value, "") == "北京" }`,
	} {
		suites["synthetic-"+name] = loadLean(t, fmt.Sprintf(leanSuite, splits))
	}
	dirs, _ := filepath.Glob("../suites/*")
	for _, d := range dirs {
		s, diags := spec.Load(d, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}, conversation.Kind{}, dataset.Kind{}, scenario.Kind{}}})
		if diags.HasErrors() {
			t.Logf("%s does not load here, left out: %v", d, diags)
			continue
		}
		suites[filepath.Base(d)] = s
	}
	for name, s := range suites {
		for _, sel := range leanSelections(t, s) {
			t.Run(name+"/"+describe(sel), func(t *testing.T) { compareLean(t, s, sel) })
		}
	}
}

func loadLean(t *testing.T, src string) *spec.Suite {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s"+spec.FileSuffix), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := `{"id": "q1", "q": "今天星期几", "intent": "ask_day"}` + "\n" + `{"id": "q2", "q": "Hello, 世界", "intent": "greet"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "qa.jsonl"), []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}, conversation.Kind{}, dataset.Kind{}, scenario.Kind{}}})
	if diags.HasErrors() {
		for _, d := range diags {
			t.Log(d)
		}
		t.FailNow()
	}
	return s
}

// leanSelections is the whole suite, each split, filters on a source, an
// id and a text (its first two characters), shards, and --only-failed on
// some scripts and turns.
func leanSelections(t *testing.T, s *spec.Suite) []Selection {
	t.Helper()
	var all []*schema.Script
	if err := (Selection{}).Generate(s, nil, func(sc *schema.Script) error {
		all = append(all, sc)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatalf("suite %s generates nothing", s.Name)
	}
	sels := []Selection{{}}
	for _, sp := range s.SplitNames() {
		sels = append(sels, mustSel(t, sp, "", ""), mustSel(t, sp, "", "2/3"))
	}
	mid := all[len(all)/2]
	text := []rune(mid.Turns[len(mid.Turns)-1].Text)
	sels = append(sels,
		mustSel(t, "", regexp.QuoteMeta(mid.Source), ""),
		mustSel(t, "", regexp.QuoteMeta(mid.ID), ""),
		mustSel(t, "", regexp.QuoteMeta(string(text[:min(2, len(text))])), ""),
		mustSel(t, "", regexp.QuoteMeta(string(text[:min(2, len(text))])), "1/2"),
		mustSel(t, "", "没有这样的", ""),
		mustSel(t, "", "", "1/3"), mustSel(t, "", "", "3/3"))
	only := Selection{Only: map[string]bool{}, OnlyFrom: "runs/x"}
	for i, sc := range all {
		if i%5 == 0 {
			only.Only[sc.ID] = true
		}
		if i%7 == 0 {
			only.Only[sc.Turns[len(sc.Turns)-1].ID] = true
		}
	}
	return append(sels, only)
}

func mustSel(t *testing.T, split, filter, shard string) Selection {
	t.Helper()
	sel, err := NewSelection(split, filter, shard)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

func describe(sel Selection) string {
	return fmt.Sprintf("split=%s,filter=%s,shard=%s,only=%d", sel.Split, sel.Filter, sel.Shard, len(sel.Only))
}

// leanView is what a lean generation must give as a full one does.
type leanView struct {
	ID, Source, Kind string
	Turns            []string // id, splits and (with a filter) text of each turn
	Dynamic          bool     // a scenario: its turns come as it runs
}

func viewOf(sc *schema.Script, texts bool) leanView {
	v := leanView{ID: sc.ID, Source: sc.Source, Kind: sc.SourceKind, Dynamic: sc.Next != nil}
	for _, c := range sc.Turns {
		turn := c.ID + "|" + fmt.Sprint(c.Split)
		if texts {
			turn += "|" + c.Text
		}
		v.Turns = append(v.Turns, turn)
	}
	return v
}

func compareLean(t *testing.T, s *spec.Suite, sel Selection) {
	var views [2][]leanView
	var warns [2][]string
	var counts [2]Counts
	for i, lean := range []bool{false, true} {
		warn := func(msg string) { warns[i] = append(warns[i], msg) }
		if err := sel.generate(s, lean, false, warn, func(sc *schema.Script) error {
			views[i] = append(views[i], viewOf(sc, sel.filter != nil))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		n, err := sel.count(s, lean, nil)
		if err != nil {
			t.Fatal(err)
		}
		counts[i] = n
	}
	// The counts of the full generation's scripts, counted here.
	want := Counts{PerSource: map[string]int{}}
	for _, v := range views[0] {
		want.Scripts++
		want.Total += len(v.Turns)
		want.PerSource[v.Source] += len(v.Turns)
		if v.Dynamic {
			want.Dynamic++
		}
	}
	if !reflect.DeepEqual(counts[0], want) {
		t.Errorf("full count %+v, the scripts generated %+v", counts[0], want)
	}
	if !reflect.DeepEqual(counts[0], counts[1]) {
		t.Errorf("lean count %+v, full %+v", counts[1], counts[0])
	}
	if !slices.Equal(warns[0], warns[1]) {
		t.Errorf("lean warnings %q, full %q", warns[1], warns[0])
	}
	if len(views[0]) != len(views[1]) {
		t.Fatalf("lean generation gives %d scripts, full %d", len(views[1]), len(views[0]))
	}
	for i := range views[0] {
		if !reflect.DeepEqual(views[0][i], views[1][i]) {
			t.Fatalf("script %d: lean %+v, full %+v", i, views[1][i], views[0][i])
		}
	}
	if got, err := sel.Count(s, nil); err != nil || !reflect.DeepEqual(got, counts[0]) {
		t.Errorf("Count = %+v, %v; want the full generation's %+v", got, err, counts[0])
	}
}

// Prepare's counts under --repeat are the full generation's times the
// repeat, with the selection's warnings.
func TestPrepareLeanCountWithRepeat(t *testing.T) {
	s := loadLean(t, fmt.Sprintf(leanSuite, `split "train" { fraction = 0.7 }`))
	sel := mustSel(t, "train", "北京|今天", "")
	full, err := sel.count(s, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r, err := Prepare(s, Options{SuitePath: "s" + spec.FileSuffix, Target: s.Target(""), Selection: sel, Repeat: 3,
		Out: filepath.Join(dir, "run"), Root: dir, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := Counts{Scripts: 3 * full.Scripts, Total: 3 * full.Total, PerSource: map[string]int{}}
	for k, v := range full.PerSource {
		want.PerSource[k] = 3 * v
	}
	if !reflect.DeepEqual(r.Counts, want) || full.Total == 0 {
		t.Errorf("Prepare with --repeat 3 counts %+v, want %+v", r.Counts, want)
	}
}
