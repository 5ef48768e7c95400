package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func startServer(t *testing.T) string {
	t.Helper()
	base, stop, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("base URL %q is not on loopback", base)
	}
	return base
}

func call(t *testing.T, method, url, body string) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if method != http.MethodHead {
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s %s: body is not a JSON object: %q", method, url, b)
		}
	}
	return resp.StatusCode, resp.Header, out
}

func TestHTTPEndpoints(t *testing.T) {
	base := startServer(t)

	code, h, body := call(t, http.MethodGet, base+"/health", "")
	if code != 200 || body["status"] != "ok" {
		t.Errorf("health = %d %v", code, body)
	}
	if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}

	code, _, body = call(t, http.MethodPost, base+"/model/parse", `{"text":"帮我订一张明天去北京的机票","message_id":"x"}`)
	if code != 200 {
		t.Fatalf("parse = %d %v", code, body)
	}
	if want := roundTrip(t, Parse("帮我订一张明天去北京的机票")); !reflect.DeepEqual(any(body), want) {
		t.Errorf("parse over HTTP = %v, want %v", body, want)
	}

	b, err := os.ReadFile(filepath.Join("testdata", "iao_corpus_factory_hotel_roommates.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	code, _, body = call(t, http.MethodPost, base+"/iao", `{"query":"查询13301791708的酒店同房间人员"}`)
	if code != 200 || !reflect.DeepEqual(body, want) {
		t.Errorf("iao = %d %v", code, body)
	}
}

func TestHTTPRawBodyDeterministic(t *testing.T) {
	base := startServer(t)
	var first string
	for i := 0; i < 3; i++ {
		resp, err := http.Post(base+"/iao", "application/json", strings.NewReader(`{"query":"查询13301791708的酒店同房间人员"}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if i == 0 {
			first = string(b)
			// Sorted keys, HTML characters unescaped.
			if !strings.HasPrefix(first, `{"code":200,"data":[{"apps":`) {
				t.Errorf("body = %s", first)
			}
		} else if string(b) != first {
			t.Errorf("body changed between calls:\n%s\n%s", first, b)
		}
	}
}

func TestHTTPErrors(t *testing.T) {
	base := startServer(t)
	tests := []struct {
		name, method, path, body string
		status                   int
		errContains              string
	}{
		{"bad json", http.MethodPost, "/model/parse", `{"text": "订机票"`, 400, "not a JSON object"},
		{"not an object", http.MethodPost, "/model/parse", `["订机票"]`, 400, "not a JSON object"},
		{"empty body", http.MethodPost, "/iao", ``, 400, "not a JSON object"},
		{"missing text", http.MethodPost, "/model/parse", `{"query":"订机票"}`, 400, `missing field "text"`},
		{"missing query", http.MethodPost, "/iao", `{"text":"查询13301791708的同行人员"}`, 400, `missing field "query"`},
		{"text not string", http.MethodPost, "/model/parse", `{"text": 5}`, 400, `"text" must be a string`},
		{"query null", http.MethodPost, "/iao", `{"query": null}`, 400, `"query" must be a string`},
		{"GET parse", http.MethodGet, "/model/parse", ``, 405, "use POST"},
		{"PUT iao", http.MethodPut, "/iao", `{"query":"x"}`, 405, "use POST"},
		{"POST health", http.MethodPost, "/health", `{}`, 405, "use GET"},
		{"unknown path", http.MethodGet, "/nope", ``, 404, "no such endpoint"},
		{"too large", http.MethodPost, "/model/parse", `{"text":"` + strings.Repeat("订", MaxRequestBytes) + `"}`, 413, "larger than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, h, body := call(t, tc.method, base+tc.path, tc.body)
			if code != tc.status {
				t.Errorf("status = %d, want %d (%v)", code, tc.status, body)
			}
			msg, _ := body["error"].(string)
			if !strings.Contains(msg, tc.errContains) {
				t.Errorf("error = %q, want it to contain %q", msg, tc.errContains)
			}
			if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q", ct)
			}
			if tc.status == 405 && h.Get("Allow") == "" {
				t.Error("405 without Allow header")
			}
		})
	}
}

func TestStartStop(t *testing.T) {
	base, stop, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if code, _, _ := call(t, http.MethodGet, base+"/health", ""); code != 200 {
		t.Fatalf("health = %d", code)
	}
	stop()
	stop() // idempotent
	client := &http.Client{Timeout: 2 * time.Second}
	if resp, err := client.Get(base + "/health"); err == nil {
		resp.Body.Close()
		t.Error("server still answers after stop()")
	}
}

func TestStartStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	base, stop, err := Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(3 * time.Minute) // only a server that never stops gets here
	for {
		resp, err := client.Get(base + "/health")
		if err != nil {
			return // stopped
		}
		resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatal("server still answers 3 minutes after its context was cancelled")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStartWithDoneContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Start(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Start(done ctx) error = %v, want context.Canceled", err)
	}
}

func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	if code, _, body := call(t, http.MethodPost, base+"/model/parse", `{"text":"谢谢"}`); code != 200 || get(t, body, "intent", "name") != IntentThankYou {
		t.Errorf("parse via Serve = %d %v", code, body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve returned %v after ctx cancel, want nil", err)
		}
	case <-time.After(3 * time.Minute): // only a Serve that never returns gets here
		t.Fatal("Serve did not return after ctx cancel")
	}
}

// Minor 15 of the 2026-12-01 security audit: a 980 KB /model/parse
// request of city names got a 20 MB answer. An answer lists at most
// MaxEntities entities, so no endpoint answers more than about three times
// the request (/iao echoes the query in two segs lists) plus a little.
func TestAnswersAreBoundedByTheRequest(t *testing.T) {
	h := Handler()
	for _, tc := range []struct{ path, field, unit string }{
		{"/model/parse", "text", "北京 "},
		{"/model/parse", "text", "明天"},
		{"/model/parse", "text", "2张"},
		{"/model/parse", "text", "CA1234 "},
		{"/iao", "query", "13033918279的同住人员"},
		{"/booking", "text", "北京 "},
		{"/memory", "text", "北京 "},
	} {
		body, _ := json.Marshal(map[string]string{tc.field: strings.Repeat(tc.unit, (256<<10)/len(tc.unit)), "session": "会话"})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, tc.path, bytes.NewReader(body)))
		if rec.Code != http.StatusOK {
			t.Errorf("%s %q: status %d", tc.path, tc.unit, rec.Code)
		}
		if limit := 3*len(body) + 64<<10; rec.Body.Len() > limit {
			t.Errorf("%s with %d × %q: a %d-byte request got a %d-byte answer, want at most %d", tc.path, len(body)/len(tc.unit), tc.unit, len(body), rec.Body.Len(), limit)
		}
	}
	text := strings.Repeat("去北京 ", 500)
	p := Parse(text)
	all := newText(text)
	if want := classify(all, extractEntities(all))[0]; p.Intent != want {
		t.Errorf("intent %+v, want %+v: it is classified on every entity", p.Intent, want)
	}
	if len(p.Entities) != MaxEntities || p.Entities[0].Start != 1 || p.Entities[MaxEntities-1].Start != 4*(MaxEntities-1)+1 {
		t.Errorf("Parse of 500 cities: %d entities from %d to %d; want the first %d by position", len(p.Entities), p.Entities[0].Start, p.Entities[len(p.Entities)-1].Start, MaxEntities)
	}
}
