package demo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// roundTrip encodes v and decodes it into generic JSON values, so that
// responses compare like the seed's JSON text does (numbers as float64).
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestIAOCorpusFactoryExample compares the response for the IAO corpus-factory write-up's example query
// with the response printed in the seed (testdata/iao_corpus_factory_hotel_roommates.json,
// copied from the IAO corpus-factory write-up §1.2.1).
func TestIAOCorpusFactoryExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "iao_corpus_factory_hotel_roommates.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	got := roundTrip(t, IAO("查询13301791708的酒店同房间人员"))
	if !reflect.DeepEqual(got, want) {
		gb, _ := json.MarshalIndent(got, "", "  ")
		t.Errorf("response differs from the IAO corpus-factory write-up:\n%s", gb)
	}
}

// get follows a path of map keys and slice indexes through a decoded response.
func get(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: not an object: %v", p, v)
			}
			if v, ok = m[k]; !ok {
				t.Fatalf("missing key %q in %v", k, m)
			}
		case int:
			s, ok := v.([]any)
			if !ok || k >= len(s) {
				t.Fatalf("at %v: not an array of > %d: %v", p, k, v)
			}
			v = s[k]
		}
	}
	return v
}

// spanText returns the query text a relIdx "start-end" names, in runes.
func spanText(t *testing.T, query string, relIdx any) string {
	t.Helper()
	idx := relIdx.([]any)
	if idx[0] != 0.0 {
		t.Errorf("relIdx segment = %v, want 0", idx[0])
	}
	parts := strings.Split(idx[1].(string), "-")
	s, _ := strconv.Atoi(parts[0])
	e, _ := strconv.Atoi(parts[1])
	return string([]rune(query)[s:e])
}

func TestIAOPhoneRelations(t *testing.T) {
	tests := []struct {
		query, op, phone, relation, relName string
		unknown                             []string
	}{
		{"查询13301791708的酒店同房间人员", "查询", "13301791708", "酒店同房间", "酒店同房间同宿", []string{"酒店"}},
		{"查一下13612349005的同住酒店人员", "查询", "13612349005", "同住酒店", "酒店同住", []string{"酒店"}},
		{"帮我查15900001111的酒店同住人员", "查询", "15900001111", "酒店同住", "酒店同住", []string{"酒店"}},
		{"搜索18912345678的同行人员", "查询", "18912345678", "同行", "同行", nil},
		{"查询17700000000的同乘航班人员", "查询", "17700000000", "同乘航班", "同航班", []string{"航班"}},
		{"查询13301791708的同航班的人员", "查询", "13301791708", "同航班", "同航班", []string{"航班"}},
		{"查询13301791708的同乘火车人员", "查询", "13301791708", "同乘火车", "同车次", []string{"火车"}},
		{"查询13301791708的同车人员？", "查询", "13301791708", "同车", "同车次", nil},
		{"帮我查一下13301791708的网吧同上网人员", "查询", "13301791708", "网吧同上网", "网吧同上网", []string{"网吧"}},
		{"查询13301791708的同出入境人员", "查询", "13301791708", "同出入境", "同出入境", nil},
		{"查询 13301791708 的同行人员", "查询", "13301791708", "同行", "同行", nil},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			r := roundTrip(t, IAO(tc.query))
			if get(t, r, "code") != 200.0 || get(t, r, "msg") != "" {
				t.Fatalf("code/msg = %v/%v", get(t, r, "code"), get(t, r, "msg"))
			}
			d := get(t, r, "data", 0)
			if op := get(t, d, "content_op"); op != tc.op {
				t.Errorf("content_op = %v, want %s", op, tc.op)
			}
			if p := get(t, d, "content", "des", "phone_number"); p != tc.phone {
				t.Errorf("phone_number = %v", p)
			}
			if o := get(t, d, "content", "ont"); o != "SIM_Card" {
				t.Errorf("ont = %v", o)
			}
			user := get(t, d, "content", "rel", 0)
			if n := get(t, user, "relName"); n != "使用人" {
				t.Errorf("outer relName = %v", n)
			}
			inner := get(t, user, "rel", 0)
			if n := get(t, inner, "relName"); n != tc.relName {
				t.Errorf("relName = %v, want %s", n, tc.relName)
			}
			if s := spanText(t, tc.query, get(t, inner, "relIdx")); s != tc.relation {
				t.Errorf("relation relIdx covers %q, want %q", s, tc.relation)
			}
			// 使用人 runs from the end of the phone number to the end of the phrase.
			outer := spanText(t, tc.query, get(t, user, "relIdx"))
			if !strings.HasSuffix(outer, tc.relation) || strings.Contains(outer, tc.phone) || !strings.Contains(outer, "的") {
				t.Errorf("使用人 relIdx covers %q", outer)
			}
			var unknown []string
			for _, u := range get(t, r, "unknown").([]any) {
				unknown = append(unknown, get(t, u, "keyword").(string))
				if get(t, u, "ont") != "unknown" {
					t.Errorf("unknown ont = %v", get(t, u, "ont"))
				}
			}
			if !reflect.DeepEqual(unknown, tc.unknown) {
				t.Errorf("unknown = %v, want %v", unknown, tc.unknown)
			}
		})
	}
}

func TestIAOIdentityCard(t *testing.T) {
	q := "查询身份证号11010119900307851X的同行人员"
	r := roundTrip(t, IAO(q))
	d := get(t, r, "data", 0)
	if v := get(t, d, "content", "des", "id_number"); v != "11010119900307851X" {
		t.Errorf("id_number = %v", v)
	}
	if v := get(t, d, "content", "ont"); v != "Person" {
		t.Errorf("ont = %v", v)
	}
	if v := get(t, d, "content_op"); v != "查询" {
		t.Errorf("content_op = %v", v)
	}
	rel := get(t, d, "content", "rel", 0)
	if v := get(t, rel, "relName"); v != "同行" {
		t.Errorf("relName = %v", v)
	}
	if s := spanText(t, q, get(t, rel, "relIdx")); s != "同行" {
		t.Errorf("relIdx covers %q", s)
	}
	if v := get(t, rel, "ont"); !reflect.DeepEqual(v, []any{"Person", "Person"}) {
		t.Errorf("rel ont = %v", v)
	}
	if v := get(t, r, "msg"); v != "" {
		t.Errorf("msg = %v", v)
	}
}

func TestIAOPhoneWithoutRelation(t *testing.T) {
	r := roundTrip(t, IAO("查询13301791708"))
	d := get(t, r, "data", 0)
	if v := get(t, d, "content", "rel"); !reflect.DeepEqual(v, []any{}) {
		t.Errorf("rel = %v, want []", v)
	}
	if v := get(t, d, "content", "des", "phone_number"); v != "13301791708" {
		t.Errorf("phone_number = %v", v)
	}
}

func TestIAOFreshResult(t *testing.T) {
	a := IAO("查询13301791708的酒店同房间人员")
	a["code"] = 500
	a["data"].([]any)[0].(map[string]any)["content_op"] = "changed"
	b := roundTrip(t, IAO("查询13301791708的酒店同房间人员"))
	if get(t, b, "code") != 200.0 || get(t, b, "data", 0, "content_op") != "查询" {
		t.Error("IAO results share state between calls")
	}
}

func TestIAONoPanicOnOddInput(t *testing.T) {
	for _, q := range []string{"", "的", "人员", "+", "+1", "1234567", "查询1330179170８的人", "\xff\xfe13301791708的同行人员",
		strings.Repeat("1", 10000), "查询13301791708的的的", "13301791708的人员"} {
		r := roundTrip(t, IAO(q))
		if get(t, r, "code") != 200.0 {
			t.Errorf("%q: code = %v", q, get(t, r, "code"))
		}
	}
}
