package spec

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
)

// genSuite loads one suite file and fails the test on any error.
func genSuite(t *testing.T, src string, files ...string) *Suite {
	t.Helper()
	m := map[string]string{"s.nlutest.hcl": src}
	for i := 0; i+1 < len(files); i += 2 {
		m[files[i]] = files[i+1]
	}
	s, diags := testLoad(writeFiles(t, m), Options{})
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	return s
}

// genCases returns every case of the suite, and the warnings.
func genCases(t *testing.T, s *Suite, opts GenOptions) ([]*schema.Case, []string) {
	t.Helper()
	var warns []string
	opts.Warn = func(_ hcl.Range, msg string) { warns = append(warns, msg) }
	var out []*schema.Case
	if err := s.Generate(opts, func(c *schema.Case) error { out = append(out, c); return nil }); err != nil {
		t.Fatal(err)
	}
	return out, warns
}

func byTemplate(cases []*schema.Case) map[string][]*schema.Case {
	out := map[string][]*schema.Case{}
	for _, c := range cases {
		out[c.Template] = append(out[c.Template], c)
	}
	return out
}

func slotValues(cases []*schema.Case, key string) []string {
	var out []string
	for _, c := range cases {
		out = append(out, c.Slots[key].Value)
	}
	return out
}

func TestMaterialLevels(t *testing.T) {
	s := genSuite(t, `
suite "素材级别" {}
materials "城市" {
  level  = "M1"
  values = ["北京", "上海"]
  value "拉萨" { level = "M3" }
  value "乌鲁木齐" { level = "M4" }
  value "苏州" { level = "M2" }
}
template "常见" {
  text            = "去{城市}"
  material_levels = ["M1", "M2"]
}
template "难" {
  text            = "到{城市}"
  material_levels = ["M4"]
}
template "全部" { text = "在{城市}" }
template "没有" {
  text            = "从{城市}"
  material_levels = ["M9"]
}
`)
	cases, warns := genCases(t, s, GenOptions{})
	got := byTemplate(cases)
	common := slotValues(got["常见"], "城市")
	sort.Strings(common)
	if strings.Join(common, ",") != "上海,北京,苏州" {
		t.Errorf("material_levels M1, M2 should keep 北京 上海 苏州, got %v", common)
	}
	for _, c := range got["常见"] {
		if lv := c.Slots["城市"].Level; lv != "M1" && lv != "M2" {
			t.Errorf("case %q has a %s value", c.Text, lv)
		}
	}
	if v := slotValues(got["难"], "城市"); len(v) != 1 || v[0] != "乌鲁木齐" {
		t.Errorf("material_levels M4: %v", v)
	}
	if n := len(got["全部"]); n != 5 {
		t.Errorf("without material_levels every value is used: %d cases, want 5", n)
	}
	if len(got["没有"]) != 0 || len(warns) != 1 || !strings.Contains(warns[0], `"没有" generates no cases`) || !strings.Contains(warns[0], "M9") {
		t.Errorf("a template whose levels select nothing warns and generates nothing: %d cases, warnings %q", len(got["没有"]), warns)
	}
}

func TestLevelLimit(t *testing.T) {
	s := genSuite(t, `
suite "级别上限" {
  defaults {
    level       = "S2"
    level_limit = { S3 = 2, S2 = 4 }
  }
}
materials "n" { values = ["一", "二", "三", "四", "五", "六"] }
template "s3" {
  text  = "{n}号"
  level = "S3"
}
template "s3-limit1" {
  text  = "第{n}"
  level = "S3"
  limit = 1
}
template "s3-limit5" {
  text  = "{n}次"
  level = "S3"
  limit = 5
}
template "默认级别" { text = "{n}个" }
template "s1" {
  text  = "{n}位"
  level = "S1"
}
`)
	cases, _ := genCases(t, s, GenOptions{})
	got := byTemplate(cases)
	want := map[string]int{
		"s3":        2, // level_limit S3
		"s3-limit1": 1, // the template's own limit is lower
		"s3-limit5": 2, // level_limit is lower than the template's limit
		"默认级别":      4, // suite default level S2, capped at 4
		"s1":        6, // no cap for S1: uniq gives one case per value
	}
	for name, n := range want {
		if len(got[name]) != n {
			t.Errorf("template %s: %d cases, want %d", name, len(got[name]), n)
		}
	}
	if lv := got["默认级别"][0].Level; lv != "S2" {
		t.Errorf("a template without level takes the suite default: %q", lv)
	}
}

func TestDistinctDraws(t *testing.T) {
	s := genSuite(t, `
suite "两个城市" {}
materials "城市" {
  values = ["北京", "上海", "广州"]
  value "深圳" { level = "M2" }
}
template "乘积" {
  text     = "从{城市}到{城市#2}"
  strategy = "product"
  expect   = { "$.from" = "{城市}", "$.to" = "{城市#2}" }
}
template "唯一" { text = "{城市}飞{城市#2}" }
template "三个" {
  text     = "{城市}、{城市#2}和{城市#3}"
  strategy = "pairwise"
}
template "不够" {
  text            = "{城市}或{城市#2}"
  material_levels = ["M2"]
}
`)
	cases, warns := genCases(t, s, GenOptions{})
	got := byTemplate(cases)
	// Every ordered pair of distinct cities once: 4 × 3.
	pairs := map[string]bool{}
	for _, c := range got["乘积"] {
		a, b := c.Slots["城市"].Value, c.Slots["城市#2"].Value
		if a == b {
			t.Errorf("{城市#2} repeats {城市}: %q", c.Text)
		}
		if c.Expect[0].Value != a || c.Expect[1].Value != b {
			t.Errorf("expectations %v do not follow the draws of %q", c.Expect, c.Text)
		}
		pairs[a+"→"+b] = true
	}
	if len(got["乘积"]) != 12 || len(pairs) != 12 {
		t.Errorf("product of distinct draws: %d cases, %d distinct pairs, want 12 and 12", len(got["乘积"]), len(pairs))
	}
	if n := len(got["唯一"]); n != 4 {
		t.Errorf("uniq with a second draw: %d cases, want 4", n)
	}
	for _, c := range append(got["唯一"], got["三个"]...) {
		vals := []string{c.Slots["城市"].Value, c.Slots["城市#2"].Value}
		if v, ok := c.Slots["城市#3"]; ok {
			vals = append(vals, v.Value)
		}
		if len(slices.Compact(slices.Sorted(slices.Values(vals)))) != len(vals) {
			t.Errorf("draws not distinct in %q", c.Text)
		}
	}
	if len(got["三个"]) == 0 {
		t.Error("three distinct draws of four cities generate cases")
	}
	if len(got["不够"]) != 0 || len(warns) != 1 || !strings.Contains(warns[0], "draws 2 distinct values") {
		t.Errorf("two draws from one M2 value: %d cases, warnings %q", len(got["不够"]), warns)
	}
}

func TestRepeatedSlotAndBraces(t *testing.T) {
	s := genSuite(t, `
suite "重复" {}
materials "城市" { values = ["北京", "上海"] }
template "往返" {
  text   = "{城市}到{城市}再回{{家}}"
  expect = {
    "$.city"    = "{城市}"
    "$.literal" = "{{原样}}"
    "$.mixed"   = "{{{城市}}}"
    "$.list"    = ["{{a}}", 1]
  }
}
`)
	cases, _ := genCases(t, s, GenOptions{})
	if len(cases) != 2 {
		t.Fatalf("a repeated placeholder is one slot: %d cases, want 2", len(cases))
	}
	c := cases[0]
	v := c.Slots["城市"].Value
	if c.Text != v+"到"+v+"再回{家}" || len(c.Slots) != 1 {
		t.Errorf("text %q, slots %v", c.Text, c.Slots)
	}
	want := map[string]any{"$.city": v, "$.literal": "{原样}", "$.mixed": "{" + v + "}"}
	for _, e := range c.Expect {
		if w, ok := want[e.Path]; ok && e.Value != w {
			t.Errorf("%s = %#v, want %#v", e.Path, e.Value, w)
		}
	}
	if l, ok := c.Expect[3].Value.([]any); !ok || l[0] != "{a}" || l[1] != int64(1) {
		t.Errorf("$.list = %#v, want [{a} 1]", c.Expect[3].Value)
	}
}

func TestCaseIDMatchesCaseID(t *testing.T) {
	s := genSuite(t, `
suite "编号" {}
materials "城市" { values = ["北京", "上海", "广州"] }
materials "日期" { values = ["明天", "后天"] }
template "订票" {
  text     = "{日期}从{城市}到{城市#2}"
  strategy = "product"
}
`)
	cases, _ := genCases(t, s, GenOptions{})
	seen := map[string]bool{}
	for _, c := range cases {
		if want := CaseID(c.Template, c.Slots); c.ID != want {
			t.Errorf("%q: id %s, CaseID says %s", c.Text, c.ID, want)
		}
		if seen[c.ID] {
			t.Errorf("id %s repeats", c.ID)
		}
		seen[c.ID] = true
	}
	// The id of a known assignment, computed outside Go with
	//   printf '订票\0城市\001北京\0城市#2\001上海\0日期\001明天' | sha256sum | cut -c1-16
	// (template name, then each slot sorted by key: NUL key SOH value).
	const want = "d463e5a39dc4d05f"
	if id := CaseID("订票", map[string]schema.Slot{"日期": {Value: "明天"}, "城市": {Value: "北京"}, "城市#2": {Value: "上海"}}); id != want {
		t.Errorf("CaseID = %s, want %s", id, want)
	}
	if !seen[want] {
		t.Errorf("the case 明天从北京到上海 (id %s) was not generated", want)
	}
}

func TestGenerateConcurrently(t *testing.T) {
	s := genSuite(t, `
suite "并发" {}
materials "城市" { values = ["北京", "上海", "广州"] }
template "a" { text = "去{城市}" }
template "b" { text = "在{城市}" }
`)
	var wg sync.WaitGroup
	counts := make([]int, 4)
	for i := range counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = s.Generate(GenOptions{}, func(*schema.Case) error { counts[i]++; return nil })
		}()
	}
	wg.Wait()
	for i, n := range counts {
		if n != 6 {
			t.Errorf("goroutine %d generated %d cases, want 6", i, n)
		}
	}
}

// TestSplitStability100Templates checks SPEC §5's promise: adding 100
// templates (before, between and after the existing ones, with their own
// materials) moves no existing case to another split, because fraction
// splits hash the case id and the id depends only on the template name and
// its slot assignment.
func TestSplitStability100Templates(t *testing.T) {
	head := `
suite "稳定划分" {}
materials "城市" { values = [%s] }
materials "日期" { values = ["今天", "明天", "后天", "周末"] }
split "train" { fraction = 0.8 }
split "dev"   { fraction = 0.1 }
split "test"  { fraction = 0.1 }
split "抽样" {
  fraction = 0.3
  seed     = "独立"
}
split "冒烟" { where = case.level == "S1" }
`
	var cities []string
	for i := range 60 {
		cities = append(cities, fmt.Sprintf("%q", fmt.Sprintf("城市%02d", i)))
	}
	head = fmt.Sprintf(head, strings.Join(cities, ", "))
	old := []string{
		"template \"订机票\" {\n  text  = \"{日期}去{城市}的机票\"\n  level = \"S1\"\n}\n",
		"template \"查天气\" {\n  text     = \"{城市}{日期}天气\"\n  strategy = \"product\"\n}\n",
		"template \"订酒店\" {\n  text     = \"{城市}的酒店\"\n  strategy = \"random\"\n  count    = 30\n  seed     = 3\n}\n",
	}
	newTemplate := func(i int) string {
		return fmt.Sprintf("materials \"新素材%03d\" { values = [\"甲%d\", \"乙%d\", \"丙%d\"] }\n"+
			"template \"新模板%03d\" {\n  text     = \"{新素材%03d}在{城市}\"\n  strategy = \"pairwise\"\n  level    = \"S%d\"\n}\n", i, i, i, i, i, i, 1+i%3)
	}
	before := head + strings.Join(old, "")
	var b strings.Builder
	b.WriteString(head)
	n := 0
	for i := range 100 {
		// New templates before, between and after the old ones.
		b.WriteString(newTemplate(i))
		if i%40 == 39 && n < len(old) {
			b.WriteString(old[n])
			n++
		}
	}
	for ; n < len(old); n++ {
		b.WriteString(old[n])
	}
	after := b.String()

	splitsOf := func(src string) (map[string]string, int) {
		s := genSuite(t, src)
		cases, _ := genCases(t, s, GenOptions{})
		out := map[string]string{}
		for _, c := range cases {
			out[c.ID] = strings.Join(c.Split, ",")
		}
		return out, len(cases)
	}
	was, nWas := splitsOf(before)
	now, nNow := splitsOf(after)
	if nWas != 60+60*4+30 || nWas != len(was) {
		t.Fatalf("the old suite generated %d cases (%d distinct ids), want 330", nWas, len(was))
	}
	if nNow <= nWas {
		t.Fatalf("adding 100 templates should add cases: %d → %d", nWas, nNow)
	}
	moved := 0
	for id, sp := range was {
		if got, ok := now[id]; !ok || got != sp {
			moved++
			if moved <= 5 {
				t.Errorf("case %s: splits %q → %q (still generated: %v)", id, sp, got, ok)
			}
		}
	}
	if moved > 0 {
		t.Errorf("%d of %d existing cases changed split after adding 100 templates", moved, len(was))
	}
	// The fraction splits still partition the grown suite.
	parts := map[string]int{}
	for _, sp := range now {
		k := 0
		for _, name := range strings.Split(sp, ",") {
			if name == "train" || name == "dev" || name == "test" {
				k++
				parts[name]++
			}
		}
		if k != 1 {
			t.Fatalf("a case is in %d of train/dev/test: %q", k, sp)
		}
	}
	if parts["train"] < nNow*7/10 || parts["dev"] == 0 || parts["test"] == 0 {
		t.Errorf("train/dev/test of %d cases: %v", nNow, parts)
	}
}

// TestGenerateStopsAndOrders: a yield error stops generation and comes back
// as is, with the generating goroutine gone; warnings arrive on the
// caller's goroutine between the cases, in generation order.
func TestGenerateStopsAndOrders(t *testing.T) {
	var vals []string
	for i := range 2000 {
		vals = append(vals, fmt.Sprintf("%q", fmt.Sprintf("值%d", i)))
	}
	s := genSuite(t, fmt.Sprintf(`
suite "停止" {}
materials "n" { values = [%s] }
materials "少" {
  value "甲" { level = "M1" }
}
template "大" {
  text     = "{n}和{n#2}"
  strategy = "product"
  limit    = 5000
}
template "空" {
  text            = "{少}"
  material_levels = ["M4"]
}
template "小" { text = "只有{少}" }
`, strings.Join(vals, ", ")))
	before := runtime.NumGoroutine()
	stop := errors.New("够了")
	n := 0
	err := s.Generate(GenOptions{}, func(*schema.Case) error {
		if n++; n == 700 {
			return stop
		}
		return nil
	})
	if err != stop || n != 700 {
		t.Fatalf("Generate returned %v after %d cases, want the yield's error after 700", err, n)
	}
	// Goroutines end in their own time on a loaded machine: wait for them
	// (a leaked one never ends; the bound is only for that).
	for deadline := time.Now().Add(3 * time.Minute); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines after a stopped Generate, %d before", g, before)
	}
	// The order of cases and warnings: 大's 5000 cases (its product warning
	// after them), 空's warning, 小's case.
	var events []string
	err = s.Generate(GenOptions{Warn: func(_ hcl.Range, msg string) {
		events = append(events, "warn:"+strings.SplitN(msg, ":", 2)[0])
	}}, func(c *schema.Case) error {
		if len(events) == 0 || events[len(events)-1] != "case:"+c.Template {
			events = append(events, "case:"+c.Template)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"case:大", `warn:template "大"`, `warn:template "空" generates no cases`, "case:小"}
	if !slices.Equal(events, want) {
		t.Errorf("events %q, want %q", events, want)
	}
}
