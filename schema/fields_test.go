package schema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sample returns a non-zero value of type t that survives a JSON round
// trip, with every field of nested records set.
func sample(t *testing.T, ty reflect.Type, name string) reflect.Value {
	t.Helper()
	var v any
	switch ty {
	case reflect.TypeFor[string]():
		v = "值 " + name
	case reflect.TypeFor[bool]():
		v = true
	case reflect.TypeFor[int]():
		v = 7
	case reflect.TypeFor[int32]():
		v = int32(3)
	case reflect.TypeFor[float64]():
		v = 1.5
	case reflect.TypeFor[[]string]():
		v = []string{"甲", "b"}
	case reflect.TypeFor[map[string]string]():
		v = map[string]string{"k": "v"}
	case reflect.TypeFor[map[string]Slot]():
		v = map[string]Slot{"城市": {Value: "北京", Normalized: "Beijing", Tag: "city", Level: "M1", Source: "城市 (c.txt:2)"}}
	case reflect.TypeFor[Expectations]():
		v = Expectations{{Path: "$.a", Value: "b"}, {Path: "$.n", Value: int64(2)}}
	case reflect.TypeFor[*Request]():
		v = &Request{Method: "POST", URL: "http://x", Headers: map[string]string{"A": "b"}, Body: "{}"}
	case reflect.TypeFor[json.RawMessage]():
		v = json.RawMessage(`{"a":[1,"二"]}`)
	case reflect.TypeFor[time.Time]():
		v = time.Date(2026, 12, 1, 10, 0, 0, 500, time.UTC)
	case reflect.TypeFor[*CallError]():
		v = &CallError{Type: ErrTimeout, Message: "slow"}
	case reflect.TypeFor[*Usage]():
		v = &Usage{PromptTokens: 30, CompletionTokens: 12, TotalTokens: 42}
	case reflect.TypeFor[*Judgement]():
		v = &Judgement{Target: "nli", Request: &Request{Method: "POST", URL: "http://n", Body: `{"答":"x"}`}, Status: 200,
			Response: json.RawMessage(`{"label":"entailment"}`), Body: "b", Reply: "蕴含", Usage: &Usage{TotalTokens: 3},
			LatencyMS: 2.5, Attempts: 1, Cached: true, Error: &CallError{Type: ErrHTTP, Message: "m"}}
	case reflect.TypeFor[[]RubricVerdict]():
		v = []RubricVerdict{{Name: "共情", Judge: &Judgement{Target: "llm", Reply: "4", Attempts: 1}, Verdict: RubricPass, Score: 4, Detail: "d"}}
	case reflect.TypeFor[[]ToolCall]():
		v = []ToolCall{{Step: 1, ID: "call_1", Name: "search_flights", Arguments: json.RawMessage(`{"city":"上海"}`), Result: json.RawMessage(`{"flights":[]}`)},
			{Step: 2, Name: "book_flight", ArgumentsText: "{city:", Error: "the arguments are not JSON", ResultText: "…"}}
	case reflect.TypeFor[*FinalState]():
		v = &FinalState{From: "url", Request: &Request{Method: "GET", URL: "http://s/state"}, Status: 200, State: json.RawMessage(`{"bookings":[{"city":"上海"}]}`),
			Body: "b", LatencyMS: 1.5, Error: &CallError{Type: ErrFinalState, Message: "m"}}
	case reflect.TypeFor[Outcome]():
		v = Error
	case reflect.TypeFor[[]Failure]():
		v = []Failure{{Kind: "expect", Path: "$.a", Expected: "x", Actual: "y", Missing: true, Message: "m", Dimension: "d", File: "f", Line: 3}}
	default:
		t.Fatalf("field %s: no sample value of type %s; add one here", name, ty)
	}
	return reflect.ValueOf(v)
}

// jsonName is a struct field's JSON member name, "" when it is not written.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	return name
}

// Every field of Case is in CaseFields (and back), is written by the
// hand-written encoder, read back by UnmarshalJSON and by DecodeForEval +
// DecodeCase, and read by its CaseFields getter. A field added to Case and
// forgotten in one of them fails here, whatever the fixtures set.
func TestEveryCaseFieldIsEncodedDecodedAndListed(t *testing.T) {
	ct := reflect.TypeFor[Case]()
	seen := map[string]bool{}
	for i := 0; i < ct.NumField(); i++ {
		sf := ct.Field(i)
		name := jsonName(sf)
		if name == "" {
			continue
		}
		seen[name] = true
		f := CaseFieldByName(name)
		if f == nil {
			t.Errorf("Case.%s (%q) is not in CaseFields", sf.Name, name)
			continue
		}
		val := sample(t, sf.Type, name)
		var c Case
		reflect.ValueOf(&c).Elem().Field(i).Set(val)
		checkGetter(t, f, &c, val)
		line, err := EncodeLine(&c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(string(line), `"`+name+`":`) {
			t.Errorf("the case encoder does not write %q: %s", name, line)
		}
		var back Case
		if err := json.Unmarshal(line, &back); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := reflect.ValueOf(back).Field(i).Interface(); !reflect.DeepEqual(got, val.Interface()) {
			t.Errorf("Case.UnmarshalJSON reads %s back as %#v, want %#v", name, got, val.Interface())
		}
		r := Result{Case: c}
		rl, err := EncodeLine(&r)
		if err != nil {
			t.Fatal(err)
		}
		var lazy Result
		var rest Deferred
		if err := lazy.DecodeForEval(rl, &rest); err != nil {
			t.Fatal(err)
		}
		if err := rest.DecodeCase(&lazy.Case); err != nil {
			t.Fatal(err)
		}
		if got := reflect.ValueOf(lazy.Case).Field(i).Interface(); !reflect.DeepEqual(got, val.Interface()) {
			t.Errorf("DecodeForEval + DecodeCase read %s as %#v, want %#v", name, got, val.Interface())
		}
	}
	for _, f := range CaseFields {
		if !seen[f.Name] {
			t.Errorf("CaseFields lists %q, which Case has not", f.Name)
		}
	}
}

func checkGetter(t *testing.T, f *CaseField, c *Case, want reflect.Value) {
	t.Helper()
	var got any
	switch f.Kind {
	case FieldString:
		got = f.Str(c)
	case FieldBool:
		got = f.Bool(c)
	case FieldStrings:
		got = f.List(c)
	case FieldInt:
		got = f.Int(c)
	default:
		return // slots and expect are read whole
	}
	if !reflect.DeepEqual(got, want.Interface()) {
		t.Errorf("CaseFields[%q] reads %#v, want %#v: its getter reads another field", f.Name, got, want.Interface())
	}
}

// CSV positions are 1…n without gaps or repeats.
func TestCaseFieldsCSVColumns(t *testing.T) {
	for i, f := range CSVCaseFields() {
		if f.CSV != i+1 {
			t.Errorf("CSV column %d is %q at position %d", i+1, f.Name, f.CSV)
		}
	}
}

// Every field a result adds to the case is written by the encoder and read
// back by UnmarshalJSON, and (but the outcome, failures and verdict, which
// evaluation recomputes) by DecodeForEval.
func TestEveryResultFieldIsEncodedAndDecoded(t *testing.T) {
	rt := reflect.TypeFor[Result]()
	for i := 0; i < rt.NumField(); i++ {
		sf := rt.Field(i)
		name := jsonName(sf)
		if sf.Anonymous || name == "" {
			continue
		}
		val := sample(t, sf.Type, name)
		var r Result
		reflect.ValueOf(&r).Elem().Field(i).Set(val)
		line, err := EncodeLine(&r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(string(line), `"`+name+`":`) {
			t.Errorf("the result encoder does not write %q: %s", name, line)
		}
		var back Result
		if err := json.Unmarshal(line, &back); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := reflect.ValueOf(back).Field(i).Interface(); !reflect.DeepEqual(got, val.Interface()) {
			t.Errorf("Result.UnmarshalJSON reads %s back as %#v, want %#v", name, got, val.Interface())
		}
		if name == "outcome" || name == "failures" || name == "verdict" {
			continue
		}
		var lazy Result
		var rest Deferred
		if err := lazy.DecodeForEval(line, &rest); err != nil {
			t.Fatal(err)
		}
		if got := reflect.ValueOf(lazy).Field(i).Interface(); !reflect.DeepEqual(got, val.Interface()) {
			t.Errorf("DecodeForEval reads %s as %#v, want %#v", name, got, val.Interface())
		}
	}
}
