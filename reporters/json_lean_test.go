package reporters

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/schema"
)

// leanStrings are the texts the cases below draw from: Chinese, HTML
// characters, quotes and backslashes, control characters, U+2028/2029,
// invalid and cut UTF-8, empty.
var leanStrings = []string{
	"", "订机票", "第12次订一张去北京的机票", "<b>北京</b> & 上海", `引号"和\反斜杠`,
	"tab\there\nnewline\r\x00\x01\x1f\x7f", "行\u2028分\u2029段", "bad\xffutf8", "cut\xe5\x8c",
	"天气/查询#0001", "emoji 😀 ok", "é\u0301", strings.Repeat("长", 300),
}

var leanFloats = []float64{0, 1, 12.5, 0.1234567, 1e-6, 9.99e-7, 1e-7, 123456789.123, 1e20, 1e21, 1.5e300,
	5e-324, -3.25, math.MaxFloat64, 1234.000001}

// randomLeanCase returns a case leanCase accepts.
func randomLeanCase(rng *rand.Rand) schema.CaseReport {
	pick := func() string { return leanStrings[rng.IntN(len(leanStrings))] }
	cr := schema.CaseReport{ID: pick(), Template: pick(), Text: pick(), Outcome: schema.Outcome(rng.IntN(7) - 1),
		LatencyMS: leanFloats[rng.IntN(len(leanFloats))],
		Cached:    rng.IntN(2) == 0, Line: rng.IntN(3) * rng.IntN(100000)}
	if rng.IntN(2) == 0 && math.Abs(cr.LatencyMS) < 1e300 {
		cr.LatencyMS *= 1 + rng.Float64()
	}
	if rng.IntN(2) == 0 {
		cr.File = pick()
	}
	for range rng.IntN(4) {
		cr.Scene = append(cr.Scene, pick())
	}
	if rng.IntN(4) == 0 {
		cr.Scene = []string{} // empty, not nil: omitted too
	}
	return cr
}

// TestLeanCaseMatchesEncodingJSON: a report whose listed cases take the
// lean path is byte for byte what encoding/json writes for the report
// whole, indented; cases that do not (failures, errors, NaN) mixed in.
func TestLeanCaseMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2))
	for round := range 200 {
		r := &schema.Report{}
		for range rng.IntN(30) {
			cr := randomLeanCase(rng)
			switch rng.IntN(10) {
			case 0:
				cr.Failures = []schema.Failure{{Path: "$.intent.name", Message: "期望 订机票"}}
			case 1:
				cr.Error = &schema.CallError{Type: schema.ErrHTTP, Message: "HTTP 500 <错误>"}
			case 2:
				cr.Turn, cr.Script = 2, "对话"
			}
			if !leanCase(&cr) && cr.Failures == nil && cr.Error == nil && cr.Turn == 0 {
				t.Fatalf("case %+v not lean", cr)
			}
			r.Cases = append(r.Cases, cr)
		}
		var got, want bytes.Buffer
		if err := JSON(&got, r); err != nil {
			t.Fatal(err)
		}
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("round %d: lean path differs from encoding/json:\n got %s\nwant %s", round, got.Bytes(), want.Bytes())
		}
	}
	for _, f := range leanFloats {
		for _, v := range []float64{f, -f, math.Nextafter(f, 0), math.Nextafter(f, math.Inf(1))} {
			want, err := json.Marshal(v)
			if err != nil {
				continue // past MaxFloat64: leanCase refuses it
			}
			if got, err := jsondoc.AppendFloat(nil, v); err != nil || string(got) != string(want) {
				t.Errorf("jsondoc.AppendFloat(%v) = %s, %v; encoding/json %s", v, got, err, want)
			}
		}
	}
}

// TestLeanCaseNaNIsAnError: a latency JSON cannot hold still fails the
// report, as encoding/json does.
func TestLeanCaseNaNIsAnError(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		r := &schema.Report{Cases: []schema.CaseReport{{ID: "订机票#1", LatencyMS: f}}}
		if err := JSON(&bytes.Buffer{}, r); err == nil {
			t.Errorf("latency %v: no error", f)
		}
	}
}

// TestLeanCaseChecksEveryOtherField: setting any member appendLeanCase
// does not write makes the case not lean, so a member added to
// CaseReport cannot be dropped from report.json silently.
func TestLeanCaseChecksEveryOtherField(t *testing.T) {
	written := map[string]bool{"ID": true, "Template": true, "Scene": true, "Text": true, "Outcome": true,
		"LatencyMS": true, "Cached": true, "File": true, "Line": true}
	typ := reflect.TypeFor[schema.CaseReport]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if written[f.Name] {
			continue
		}
		var cr schema.CaseReport
		if !leanCase(&cr) {
			t.Fatal("the zero case is not lean")
		}
		setNonZero(t, reflect.ValueOf(&cr).Elem().Field(i))
		if leanCase(&cr) {
			t.Errorf("CaseReport.%s set, the case is still lean: leanCase must check it (or appendLeanCase write it)", f.Name)
		}
	}
}

func setNonZero(t *testing.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("非空")
	case reflect.Int:
		v.SetInt(1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		m.SetMapIndex(reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem())
		v.Set(m)
	default:
		t.Fatalf("no non-zero value for a %s", v.Type())
	}
}

// BenchmarkJSONListedCases writes a report of 20,000 passing cases (the
// live-run benchmark's) as JSON does, and, for comparison, with
// encoding/json case by case as JSON did before the lean path:
//
//	go test -run '^$' -bench BenchmarkJSONListedCases -benchmem ./reporters
func BenchmarkJSONListedCases(b *testing.B) {
	r := &schema.Report{}
	for i := range 20_000 {
		r.Cases = append(r.Cases, schema.CaseReport{ID: "订机票#" + strings.Repeat("0", 5) + string(rune('0'+i%10)),
			Template: "订机票", Text: "第" + string(rune('0'+i%10)) + "次订一张去北京的机票", Outcome: schema.Pass,
			LatencyMS: 0.123456 + float64(i), File: "/tmp/bench.nlu.hcl", Line: 18})
	}
	b.Run("JSON", func(b *testing.B) {
		for b.Loop() {
			if err := JSON(io.Discard, r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			enc := newJSONEncoder(trimNewline{bufio.NewWriterSize(io.Discard, 64<<10)}, "    ")
			for i := range r.Cases {
				if err := enc.Encode(&r.Cases[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// trimNewline drops the newline json.Encoder ends each value with, as JSON
// did when it encoded every listed case with encoding/json.
type trimNewline struct{ w *bufio.Writer }

func (t trimNewline) Write(p []byte) (int, error) {
	_, err := t.w.Write(bytes.TrimSuffix(p, []byte("\n")))
	return len(p), err
}

// TestLeanMemoMatchesFresh: cases written one after another with one memo
// are written as each alone, when they share their template, scene and
// file (the same strings, or equal ones built apart), change one of them,
// or go from a scene to none and back.
func TestLeanMemoMatchesFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 3))
	scenes := [][]string{{"出行", "机票"}, {"入境", "机票"}, {"出行", "机票", "改签"}, {"出行"}, nil, {}, {"天气/查询", "<b>"}}
	var m leanMemo
	var got, want []byte
	for i := range 5000 {
		cr := randomLeanCase(rng)
		cr.Template = []string{"订机票", "查天气", "订" + "机票", ""}[rng.IntN(4)] // "订"+"机票" is built apart
		cr.Scene = scenes[rng.IntN(len(scenes))]
		if rng.IntN(3) == 0 {
			cr.Scene = slices.Clone(cr.Scene)
		}
		cr.File = []string{"/tmp/套件/s.nlutest.hcl", "", "a.hcl", strings.Clone("a.hcl")}[rng.IntN(4)]
		got = m.appendLeanCase(got[:0], &cr)
		want = appendLeanCase(want[:0], &cr)
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d with the memo:\n%s\nalone:\n%s", i, got, want)
		}
	}
}
