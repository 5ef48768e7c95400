package assert

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// compactFields are the fields of schema.CaseReport a compact caseEntry
// keeps itself; Template, File and Line come from the case's source.
var compactFields = map[string]bool{"ID": true, "Text": true, "Scene": true, "Outcome": true, "LatencyMS": true, "Cached": true, "Repeat": true}

// A report with any field set beyond those a compact entry keeps or takes
// from its source is kept whole: a field added to schema.CaseReport and
// not to compactable would otherwise be dropped from the reports.
func TestCompactableSeesEveryField(t *testing.T) {
	base := schema.CaseReport{ID: "7f3a", Template: "订机票", Text: "帮我订明天去北京的机票", Outcome: schema.Pass, LatencyMS: 1.5, File: "s.nlutest.hcl", Line: 16}
	if !compactable(&base, "订机票", "s.nlutest.hcl", 16) {
		t.Fatal("a plain passing template case is not compactable")
	}
	for _, src := range []struct {
		name, file string
		line       int
	}{{"退订", "s.nlutest.hcl", 16}, {"订机票", "t.nlutest.hcl", 16}, {"订机票", "s.nlutest.hcl", 17}} {
		if compactable(&base, src.name, src.file, src.line) {
			t.Errorf("compactable for source %s at %s:%d, whose template, file or line the report does not have", src.name, src.file, src.line)
		}
	}
	typ := reflect.TypeFor[schema.CaseReport]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		cr := base
		v := reflect.ValueOf(&cr).Elem().Field(i)
		setNonZero(t, v, f.Name)
		switch {
		case f.Name == "Template" || f.Name == "File" || f.Name == "Line":
			// checked against the source above
		case compactFields[f.Name]:
			if !compactable(&cr, "订机票", "s.nlutest.hcl", 16) {
				t.Errorf("setting %s, which a compact entry keeps, makes the case not compactable", f.Name)
			}
		case compactable(&cr, "订机票", "s.nlutest.hcl", 16):
			t.Errorf("a case with %s set is compactable, but a compact entry does not keep %s: add it to compactable", f.Name, f.Name)
		}
	}
}

// setNonZero sets v, a field of schema.CaseReport, to a value other than
// its zero value.
func setNonZero(t *testing.T, v reflect.Value, name string) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "北京")
	case reflect.Int, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Float64:
		v.SetFloat(v.Float() + 1)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		m.SetMapIndex(reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem())
		v.Set(m)
	default:
		t.Fatalf("field %s is a %s: teach setNonZero to set it", name, v.Kind())
	}
}

// listedSuite is two templates, the first with a scene, and a dataset
// source.
func listedSuite(t *testing.T) *spec.Suite {
	t.Helper()
	dir := t.TempDir()
	src := `
materials "城市" { values = ["北京", "上海"] }
template "订机票" {
  text  = "帮我订去{城市}的机票"
  scene = ["出行", "机票"]
  expect = { "$.intent" = "book_flight" }
}
template "查天气" {
  text  = "{城市}天气怎么样"
  expect = { "$.intent" = "查天气" }
}
`
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{SourceKinds: testSourceKinds()})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s
}

// listedResult is result i of a mix that takes every path of the listing:
// passing cases of both templates (some cached, some without a scene),
// failures with slots, requests and responses, errors, a passing case
// with a rubric verdict, a case whose source is not its template, one of a
// template the suite no longer has, a turn of a conversation, and
// repetitions (--repeat).
func listedResult(i int) *schema.Result {
	r := &schema.Result{Case: schema.Case{ID: fmt.Sprintf("%016x", i*7919), Template: "订机票", Text: fmt.Sprintf("帮我订去北京的机票 #%d", i),
		Scene: []string{"出行", "机票"}}, LatencyMS: float64(i%977) / 7, Outcome: schema.Pass, Cached: i%13 == 0}
	switch {
	case i%2 == 1:
		r.Template, r.Scene, r.Text = "查天气", nil, "上海天气怎么样"
	case i%2 == 0 && i%5 == 0:
		r.Scene = []string{}
	}
	if i%3 == 0 { // repetitions under --repeat, one beyond a compact entry's 65,535
		r.Repeat = 1 + i%4
		if i == 12 {
			r.Repeat = 70000
		}
	}
	switch i % 11 {
	case 3:
		r.Outcome = schema.Fail
		r.Failures = []schema.Failure{{Kind: "expect", Path: "$.intent", Expected: "book_flight", Actual: "问候"}}
		r.Slots = map[string]schema.Slot{"城市": {Value: "北京", Tag: "地点"}}
		r.Request = &schema.Request{Method: "POST", URL: "http://127.0.0.1:1/parse", Body: `{"text":"帮我订去北京的机票"}`}
		r.Response = []byte(`{"intent":"问候"}`)
	case 5:
		r.Outcome = schema.Error
		r.Error = &schema.CallError{Type: schema.ErrTimeout, Message: "超时"}
	case 7:
		r.Rubrics = []schema.RubricVerdict{{Name: "礼貌", Verdict: "pass", Judge: &schema.Judgement{}}}
	case 8:
		r.Source = "查天气"
	case 9:
		r.Template = "已删除的模板"
	case 10:
		r.Turn, r.Conversation, r.Reply = 1, "c1", "好的，去北京"
		r.Response = []byte(`{"reply":"好的"}`)
	}
	return r
}

// Cases lists the same reports, in the same order, whether listed cases
// are kept compact or whole — fed to one collector, and to forks merged;
// 20,000 cases, so that Cases works in halves on two cores — and whether
// the listing copies the entries in order or reads them where they are.
func TestListedCasesCompactEqualWhole(t *testing.T) {
	bothListings(t, listedCasesCompactEqualWhole)
}

// bothListings runs test with listings that read the collector's entries
// where they are and with listings that copy them (copyListFrom 0).
func bothListings(t *testing.T, test func(t *testing.T)) {
	t.Run("in place", test)
	t.Run("copied", func(t *testing.T) {
		defer func(from int) { copyListFrom = from }(copyListFrom)
		copyListFrom = 0
		test(t)
	})
}

func listedCasesCompactEqualWhole(t *testing.T) {
	s := listedSuite(t)
	const n = 20000
	collect := func() (one, merged *Collector) {
		one = NewCollector(s, nil)
		merged = NewCollector(s, nil)
		forks := []*Collector{merged.Fork(), merged.Fork()}
		for i := range n {
			one.Add(listedResult(i), nil)
			forks[(i/100)%2].AddAt(listedResult(i), nil, int64(i))
		}
		merged.Merge(forks[1])
		merged.Merge(forks[0])
		return one, merged
	}
	one, merged := collect()
	listCompact = false
	wholeOne, wholeMerged := collect()
	listCompact = true
	compact, whole := 0, 0
	for i := range one.cases.len() {
		if one.cases.at(i).full == nil {
			compact++
		}
		if wholeOne.cases.at(i).full != nil {
			whole++
		}
	}
	if compact < n/2 || compact == n || whole != n {
		t.Fatalf("%d of %d cases listed compact, %d of %d whole with listCompact off: the test does not take both paths", compact, n, whole, n)
	}
	for _, c := range []struct {
		name           string
		compact, whole *Collector
	}{{"one collector", one, wholeOne}, {"merged forks", merged, wholeMerged}} {
		got, want := c.compact.Cases(), c.whole.Cases()
		if !reflect.DeepEqual(got, want) {
			for i := range min(len(got), len(want)) {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("%s: case %d listed compact is\n%+v\nwhole it is\n%+v", c.name, i, got[i], want[i])
				}
			}
			t.Fatalf("%s: %d cases listed compact, %d whole", c.name, len(got), len(want))
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			t.Errorf("%s: the JSON of the cases differs", c.name)
		}
		// The listing a report reads gives the same reports, case by
		// case, into a scratch report that held another case (a failing
		// one, with members a compact case leaves empty) before.
		l := c.compact.Listed()
		if l.Len() != len(want) {
			t.Fatalf("%s: the listing lists %d cases, Cases %d", c.name, l.Len(), len(want))
		}
		var scratch schema.CaseReport
		for i := range want {
			scratch = want[(i+len(want)/2)%len(want)]
			if got := l.Case(i, &scratch); !reflect.DeepEqual(*got, want[i]) {
				t.Fatalf("%s: case %d through the listing is\n%+v\nwhole it is\n%+v", c.name, i, *got, want[i])
			}
		}
	}
}

// BuildReport lists the collector's cases through its listing: the
// report's cases (ExpandCases, CaseAt) are Cases' reports, and they stay
// so when the collector lists more cases afterwards; with no case listed,
// Cases is an empty list (report.json's "cases": []).
func TestBuildReportListsCases(t *testing.T) {
	bothListings(t, buildReportListsCases)
}

func buildReportListsCases(t *testing.T) {
	s := listedSuite(t)
	col := NewCollector(s, nil)
	const n = caseChunk - 10 // the cases added later fill the block and start another
	for i := range n {
		col.Add(listedResult(i), nil)
	}
	want := col.Cases()
	// The report's order, worked out here from the cases as added: worst
	// outcome, most failed checks, source order, id, then as added.
	ref := make([]schema.CaseReport, col.cases.len())
	for i := range ref {
		reportInto(&ref[i], col.cases.at(i), col.places())
	}
	slices.SortStableFunc(ref, func(a, b schema.CaseReport) int {
		return cmp.Or(-cmp.Compare(a.Outcome, b.Outcome), -cmp.Compare(len(a.Failures), len(b.Failures)),
			cmp.Compare(col.order(&a), col.order(&b)), strings.Compare(a.ID, b.ID))
	})
	if !reflect.DeepEqual(want, ref) {
		t.Fatalf("Cases lists %d cases in another order than the report's", len(want))
	}
	rep := BuildReport(s, col, schema.RunInfo{}, "dev", nil)
	if rep.Cases != nil || rep.NumCases() != len(want) {
		t.Fatalf("the report has %d cases in Cases and lists %d; want none and %d", len(rep.Cases), rep.NumCases(), len(want))
	}
	for i := range 100 {
		col.Add(listedResult(n+i), nil)
	}
	var scratch schema.CaseReport
	for i := range want {
		if got := rep.CaseAt(i, &scratch); !reflect.DeepEqual(*got, want[i]) {
			t.Fatalf("case %d: %+v, want %+v", i, *got, want[i])
		}
	}
	rep.ExpandCases()
	if !reflect.DeepEqual(rep.Cases, want) {
		t.Errorf("ExpandCases differs from Cases")
	}
	empty := BuildReport(s, NewCollector(s, nil), schema.RunInfo{}, "dev", nil)
	if empty.Cases == nil || len(empty.Cases) != 0 {
		t.Errorf("a report with no case listed has Cases %#v, want an empty list", empty.Cases)
	}
}

// A passing case of a template is listed in under 100 bytes of the
// collector's own (its id and text are the result's strings, shared): at
// the report's cap of 100,000 passing cases, under 10 MB held through the
// run, where a whole schema.CaseReport per case held 36.8 MB.
func TestListedPassingCaseSize(t *testing.T) {
	s := listedSuite(t)
	const n = 40000
	results := make([]schema.Result, n)
	for i := range results {
		results[i] = schema.Result{Case: schema.Case{ID: "7f3a", Template: "订机票", Text: "帮我订去北京的机票", Scene: []string{"出行", "机票"}}, LatencyMS: 1, Outcome: schema.Pass}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := NewCollector(s, nil)
	for i := range results {
		c.Add(&results[i], nil)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	runtime.KeepAlive(c)
	runtime.KeepAlive(results)
	if per >= 100 {
		t.Errorf("a listed passing case holds %d bytes of the collector's heap, want under 100", per)
	}
	t.Logf("%d bytes per listed passing case", per)
}
