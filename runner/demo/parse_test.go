package demo

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// wantEnt is an expected entity; normalized is compared after a JSON round
// trip (numbers become float64).
type wantEnt struct {
	entity, value string
	start, end    int
	role          string
	normalized    any
}

func TestParseIntentsAndEntities(t *testing.T) {
	tests := []struct {
		text    string
		intent  string
		minConf float64
		ents    []wantEnt
	}{
		{"帮我订一张明天去北京的机票", IntentBookFlight, 0.85, []wantEnt{
			{"number", "一", 3, 4, "tickets", 1.0},
			{"date", "明天", 5, 7, "", "tomorrow"},
			{"city", "北京", 8, 10, "destination", "Beijing"},
		}},
		// Mixed Chinese/ASCII: offsets count code points, not bytes.
		{"订3张Beijing到Shanghai的机票", IntentBookFlight, 0.85, []wantEnt{
			{"number", "3", 1, 2, "tickets", 3.0},
			{"city", "Beijing", 3, 10, "departure", "Beijing"},
			{"city", "Shanghai", 11, 19, "destination", "Shanghai"},
		}},
		{"大后天从Xi'an飞Hong Kong，要头等舱", IntentBookFlight, 0.5, []wantEnt{
			{"date", "大后天", 0, 3, "", "in_3_days"},
			{"city", "Xi'an", 4, 9, "departure", "Xi'an"},
			{"city", "Hong Kong", 10, 19, "destination", "Hong Kong"},
			{"seat_class", "头等舱", 21, 24, "", "first"},
		}},
		{"Book two business class tickets from Beijing to New York next Friday", IntentBookFlight, 0.7, []wantEnt{
			{"number", "two", 5, 8, "tickets", 2.0},
			{"seat_class", "business class", 9, 23, "", "business"},
			{"city", "Beijing", 37, 44, "departure", "Beijing"},
			{"city", "New York", 48, 56, "destination", "New York"},
			{"date", "next Friday", 57, 68, "", "next_friday"},
		}},
		{"帮我订上海的五星级酒店，两间房住三晚", IntentBookHotel, 0.95, []wantEnt{
			{"city", "上海", 3, 5, "", "Shanghai"},
			{"hotel_star", "五星级", 6, 9, "", 5.0},
			{"number", "两", 12, 13, "rooms", 2.0},
			{"number", "三", 16, 17, "nights", 3.0},
		}},
		{"I need a room in Shanghai for 2 nights", IntentBookHotel, 0.75, []wantEnt{
			{"city", "Shanghai", 17, 25, "", "Shanghai"},
			{"number", "2", 30, 31, "nights", 2.0},
		}},
		{"下周三在成都订一间4星酒店", IntentBookHotel, 0.9, []wantEnt{
			{"date", "下周三", 0, 3, "", "next_wednesday"},
			{"city", "成都", 4, 6, "", "Chengdu"},
			{"number", "一", 7, 8, "rooms", 1.0},
			{"hotel_star", "4星", 9, 11, "", 4.0},
		}},
		{"从北京到上海的高铁票两张", IntentBookTrain, 0.9, []wantEnt{
			{"city", "北京", 1, 3, "departure", "Beijing"},
			{"city", "上海", 4, 6, "destination", "Shanghai"},
			{"number", "两", 10, 11, "tickets", 2.0},
		}},
		{"book a train from Nanjing to Hangzhou for three people", IntentBookTrain, 0.8, []wantEnt{
			{"city", "Nanjing", 18, 25, "departure", "Nanjing"},
			{"city", "Hangzhou", 29, 37, "destination", "Hangzhou"},
			{"number", "three", 42, 47, "people", 3.0},
		}},
		{"取消我后天去深圳的火车票", IntentCancelBooking, 0.5, []wantEnt{
			{"date", "后天", 3, 5, "", "day_after_tomorrow"},
			{"city", "深圳", 6, 8, "destination", "Shenzhen"},
		}},
		{"Please cancel my reservation for tomorrow", IntentCancelBooking, 0.6, []wantEnt{
			{"date", "tomorrow", 33, 41, "", "tomorrow"},
		}},
		{"明天北京天气怎么样", IntentCheckWeather, 0.9, []wantEnt{
			{"date", "明天", 0, 2, "", "tomorrow"},
			{"city", "北京", 2, 4, "", "Beijing"},
		}},
		{"will it rain in London tomorrow", IntentCheckWeather, 0.75, []wantEnt{
			{"city", "London", 16, 22, "", "London"},
			{"date", "tomorrow", 23, 31, "", "tomorrow"},
		}},
		{"CA1234航班延误了吗", IntentAskFlightStatus, 0.95, []wantEnt{
			{"flight_no", "CA1234", 0, 6, "", "CA1234"},
		}},
		{"Is flight mu5101 delayed?", IntentAskFlightStatus, 0.95, []wantEnt{
			{"flight_no", "mu5101", 10, 16, "", "MU5101"},
		}},
		{"你好，我想订周五去厦门的经济舱", IntentBookFlight, 0.6, []wantEnt{
			{"date", "周五", 6, 8, "", "friday"},
			{"city", "厦门", 9, 11, "destination", "Xiamen"},
			{"seat_class", "经济舱", 12, 15, "", "economy"},
		}},
		{"你好呀，在吗", IntentGreet, 0.8, nil},
		{"Hello, good morning to you", IntentGreet, 0.8, nil},
		{"好的，再见啦", IntentGoodbye, 0.8, nil},
		{"OK bye, see you later", IntentGoodbye, 0.8, nil},
		{"非常感谢你的帮助", IntentThankYou, 0.8, nil},
		{"thanks a lot for the help", IntentThankYou, 0.8, nil},
		{"帮我推荐一家附近的餐厅", IntentFallback, 0, nil},
		{"", IntentFallback, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			r := Parse(tc.text)
			if r.Text != tc.text {
				t.Errorf("text = %q", r.Text)
			}
			if r.Intent.Name != tc.intent {
				t.Errorf("intent = %s (%.4f), want %s; ranking %v", r.Intent.Name, r.Intent.Confidence, tc.intent, r.IntentRanking)
			}
			if r.Intent.Confidence < tc.minConf {
				t.Errorf("confidence = %.4f, want ≥ %.2f", r.Intent.Confidence, tc.minConf)
			}
			checkEntities(t, tc.text, r.Entities, tc.ents)
		})
	}
}

func checkEntities(t *testing.T, text string, got []Entity, want []wantEnt) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("entities = %s, want %d", mustJSON(t, got), len(want))
	}
	for i, w := range want {
		g := got[i]
		var norm any
		if err := json.Unmarshal([]byte(mustJSON(t, g.Normalized)), &norm); err != nil {
			t.Fatal(err)
		}
		if g.Entity != w.entity || g.Value != w.value || g.Start != w.start || g.End != w.end || g.Role != w.role || norm != w.normalized {
			t.Errorf("entity %d = %s, want %+v", i, mustJSON(t, g), w)
		}
		if r := []rune(text); g.End > len(r) || string(r[g.Start:g.End]) != g.Value {
			t.Errorf("entity %d: value %q is not text[%d:%d] in runes", i, g.Value, g.Start, g.End)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParseInvariants checks the response shape on every utterance used in
// this package's tests plus awkward inputs.
func TestParseInvariants(t *testing.T) {
	inputs := append(goldenUtterances(),
		"", " ", "\xff\xfe 北京", "🙂订机票🙂去上海", "ＡＢＣ１２３", strings.Repeat("订机票", 500),
		"İstanbul to Paris", "12345678901234567890张")
	names := map[string]bool{}
	for _, n := range IntentNames() {
		names[n] = true
	}
	for _, in := range inputs {
		r := Parse(in)
		if n := len(r.IntentRanking); n < 1 || n > rankingSize {
			t.Fatalf("%q: ranking has %d entries", in, n)
		}
		if r.Intent != r.IntentRanking[0] {
			t.Errorf("%q: intent %v is not ranking[0] %v", in, r.Intent, r.IntentRanking[0])
		}
		sum := 0.0
		for i, s := range r.IntentRanking {
			if !names[s.Name] {
				t.Errorf("%q: unknown intent %q", in, s.Name)
			}
			if s.Confidence < 0 || s.Confidence > 1 {
				t.Errorf("%q: confidence %v out of range", in, s.Confidence)
			}
			if i > 0 && s.Confidence > r.IntentRanking[i-1].Confidence {
				t.Errorf("%q: ranking not sorted: %v", in, r.IntentRanking)
			}
			sum += s.Confidence
		}
		if sum > 1+1e-9 {
			t.Errorf("%q: confidences sum to %v", in, sum)
		}
		if r.Entities == nil {
			t.Errorf("%q: entities is nil (must encode as [])", in)
		}
		runes := []rune(in)
		end := 0
		for _, e := range r.Entities {
			if e.Start < end || e.End <= e.Start || e.End > len(runes) {
				t.Errorf("%q: bad or overlapping span %d-%d", in, e.Start, e.End)
				continue
			}
			end = e.End
			if string(runes[e.Start:e.End]) != e.Value {
				t.Errorf("%q: value %q != runes[%d:%d]", in, e.Value, e.Start, e.End)
			}
		}
	}
}

func TestIntentNames(t *testing.T) {
	want := "greet goodbye book_flight book_hotel book_train cancel_booking check_weather ask_flight_status thank_you nlu_fallback"
	names := IntentNames()
	if got := strings.Join(names, " "); got != want {
		t.Errorf("IntentNames() = %s", got)
	}
	names[0] = "changed"
	if IntentNames()[0] != IntentGreet {
		t.Error("IntentNames returns shared state")
	}
}

func TestParseDeterministicAndConcurrent(t *testing.T) {
	in := goldenUtterances()
	first := make([]string, len(in))
	for i, s := range in {
		first[i] = mustJSON(t, Parse(s))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(in))
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, s := range in {
				b, _ := json.Marshal(Parse(s))
				if string(b) != first[i] {
					errs <- s
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Errorf("Parse(%q) differs between calls", s)
	}
}

func goldenUtterances() []string {
	b, err := os.ReadFile(filepath.Join("testdata", "parse_utterances.txt"))
	if err != nil {
		panic(err) // test fixture missing: a broken checkout
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// TestParseGolden pins the exact JSON of /model/parse for a corpus of
// utterances (one JSON line each). Refresh with: go test ./runner/demo -update
func TestParseGolden(t *testing.T) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, s := range goldenUtterances() {
		if err := enc.Encode(Parse(s)); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join("testdata", "parse_golden.jsonl")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		gl := strings.Split(buf.String(), "\n")
		wl := strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("line %d differs:\n got %s\nwant %s\n(run with -update if the change is intended)", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("golden file has %d lines, output %d (run with -update if intended)", len(wl), len(gl))
	}
}
