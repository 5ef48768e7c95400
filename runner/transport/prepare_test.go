package transport

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// wireRequest is what a server sees of a request.
type wireRequest struct {
	method, uri, host, body string
	length                  int64
	header                  string // names and values, sorted
}

func recorder(t *testing.T) (url string, seen func() []wireRequest) {
	var mu sync.Mutex
	var got []wireRequest
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var hs []string
		for k, vs := range r.Header {
			if k != "Accept-Encoding" { // the transport's, not the request's
				hs = append(hs, k+": "+strings.Join(vs, " | "))
			}
		}
		slices.Sort(hs)
		mu.Lock()
		got = append(got, wireRequest{r.Method, r.RequestURI, r.Host, string(b), r.ContentLength, strings.Join(hs, "\n")})
		mu.Unlock()
		_, _ = io.WriteString(w, weatherJSON)
	})
	return srv.URL, func() []wireRequest {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// A client keeps the request it built last (method, URL and headers
// checked once) for calls that repeat them. Differential: a sequence of
// requests that repeat and vary method, URL, headers, Host, and a body's
// presence goes once through one client (the kept request reused where it
// matches) and once through a fresh client per request (always built from
// scratch); the server must see the same requests, Chinese text included.
func TestPrepareReusesOnlyTheSameRequest(t *testing.T) {
	base, seen := recorder(t)
	json := http.Header{"Content-Type": {"application/json"}}
	auth := http.Header{"Authorization": {"Bearer 令牌"}, "X-Trace": {"一", "二"}}
	reqs := []Request{
		{Method: "POST", URL: base + "/parse", Header: json, Body: []byte(`{"text":"订一张去北京的机票"}`)},
		{Method: "POST", URL: base + "/parse", Header: json, Body: []byte(`{"text":"明天上海天气怎么样"}`)},
		{Method: "POST", URL: base + "/parse", Header: json, Body: []byte{}},
		{Method: "POST", URL: base + "/parse", Header: json},
		{Method: "POST", URL: base + "/parse", Body: []byte(`{"text":"无类型"}`)},
		{Method: "POST", URL: base + "/parse", Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, Body: []byte("纯文本 <b>")},
		{Method: "POST", URL: base + "/parse", Header: auth, Body: []byte(`{"text":"带令牌"}`)},
		{Method: "POST", URL: base + "/parse", Header: http.Header{"Authorization": {"Bearer 别的"}, "X-Trace": {"一", "二"}}, Body: []byte(`{"text":"换令牌"}`)},
		{Method: "POST", URL: base + "/parse", Header: http.Header{"Authorization": {"Bearer 别的"}, "X-Trace": {"一"}}, Body: []byte(`{"text":"少一个值"}`)},
		{Method: "PUT", URL: base + "/parse", Header: json, Body: []byte(`{"text":"换方法"}`)},
		{URL: base + "/parse?q=" + "%E5%8C%97%E4%BA%AC"},
		{URL: base + "/parse?q=" + "%E4%B8%8A%E6%B5%B7"},
		{Method: "GET", URL: base + "/parse?q=" + "%E4%B8%8A%E6%B5%B7", Header: http.Header{"Host": {"nlu.example"}}},
		{Method: "GET", URL: base + "/parse?q=" + "%E4%B8%8A%E6%B5%B7", Header: http.Header{"Host": {"nlu.example"}, "User-Agent": {"机器人/1.0"}}},
		{Method: "POST", URL: base + "/parse", Header: json, Body: []byte(`{"text":"回到开头"}`)},
	}
	kept := newClient(t, Policy{})
	for i, r := range reqs {
		if res := do(t, context.Background(), kept, r); res.Err != nil {
			t.Fatalf("request %d: %v", i, res.Err.Message)
		}
	}
	viaKept := seen()
	for i, r := range reqs {
		if res := do(t, context.Background(), newClient(t, Policy{}), r); res.Err != nil {
			t.Fatalf("request %d: %v", i, res.Err.Message)
		}
	}
	fresh := seen()[len(reqs):]
	if len(viaKept) != len(reqs) || len(fresh) != len(reqs) {
		t.Fatalf("the server saw %d and %d requests, want %d each", len(viaKept), len(fresh), len(reqs))
	}
	for i := range reqs {
		if viaKept[i] != fresh[i] {
			t.Errorf("request %d differs:\nkept:  %s\nfresh: %s", i, show(viaKept[i]), show(fresh[i]))
		}
	}
	// A header map the caller changes after a call is not served from
	// the kept copy.
	hdr := http.Header{"X-Mode": {"甲"}}
	do(t, context.Background(), kept, Request{Method: "POST", URL: base + "/parse", Header: hdr, Body: []byte(`{}`)})
	hdr.Set("X-Mode", "乙")
	do(t, context.Background(), kept, Request{Method: "POST", URL: base + "/parse", Header: hdr, Body: []byte(`{}`)})
	if got := seen(); !strings.Contains(got[len(got)-1].header, "X-Mode: 乙") {
		t.Errorf("a changed header was sent as before: %s", show(got[len(got)-1]))
	}
	// An invalid header is refused whether or not a request was kept.
	res := do(t, context.Background(), kept, Request{Method: "POST", URL: base + "/parse", Header: http.Header{"Bad Name": {"x"}}, Body: []byte(`{}`)})
	wantErr(t, res, schema.ErrRequest, `invalid header "Bad Name"`)
}

func show(w wireRequest) string {
	return fmt.Sprintf("%s %s host=%s len=%d body=%q headers=%q", w.method, w.uri, w.host, w.length, w.body, w.header)
}
