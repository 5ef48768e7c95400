package transport

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// TestRedirects (issue 12, item 3): by default no redirect is followed and
// the 3xx is an HTTPError naming its Location; with RedirectSameOrigin only
// redirects to the same scheme, host and port that keep the method are
// followed, with the request's headers and body and without Referer, and the
// followed URLs are reported.
func TestRedirects(t *testing.T) {
	var otherHits atomic.Int32
	other := server(t, func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	})
	var origin string
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/same-307":
			http.Redirect(w, r, "/final?from=307", http.StatusTemporaryRedirect)
		case "/same-302":
			http.Redirect(w, r, "/final", http.StatusFound) // POST would become GET
		case "/other-port":
			http.Redirect(w, r, other.URL+"/steal", http.StatusFound)
		case "/other-host":
			http.Redirect(w, r, strings.Replace(origin, "127.0.0.1", "localhost", 1)+"/final", http.StatusTemporaryRedirect)
		case "/final":
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]string{
				"method": r.Method, "body": string(body), "referer": r.Header.Get("Referer"), "key": r.Header.Get("X-Key"),
			})
		}
	})
	origin = srv.URL
	req := func(path string) Request {
		return Request{Method: "POST", URL: srv.URL + path + "?token=s3cret-q", Header: http.Header{"X-Key": {"k3y"}}, Body: []byte(`{"text":"去北京"}`)}
	}
	cases := []struct {
		policy, path string
		wantErr      string // "" for a followed redirect
	}{
		{"", "/same-307", "HTTP 307 Temporary Redirect: redirect to " + srv.URL + "/final?from=307 not followed"},
		{RedirectNone, "/other-port", "redirect to " + other.URL + "/steal not followed"},
		{RedirectSameOrigin, "/same-307", ""},
		{RedirectSameOrigin, "/same-302", "HTTP 302 Found: redirect to " + srv.URL + "/final not followed (only"},
		{RedirectSameOrigin, "/other-port", "redirect to " + other.URL + "/steal not followed"},
		{RedirectSameOrigin, "/other-host", "not followed"},
	}
	for _, c := range cases {
		t.Run(c.policy+c.path, func(t *testing.T) {
			cl := NewClient(Policy{Redirects: c.policy, Retries: 2, ExpectJSON: true}, 1, nil)
			defer cl.Close()
			resp := do(t, context.Background(), cl, req(c.path))
			if c.wantErr != "" {
				if resp.Err == nil || resp.Err.Type != schema.ErrHTTP || !strings.Contains(resp.Err.Message, c.wantErr) {
					t.Fatalf("got %+v, want an HTTPError with %q", resp.Err, c.wantErr)
				}
				if resp.Attempts != 1 || len(resp.Redirects) != 0 {
					t.Errorf("attempts %d, redirects %v: a redirect not followed is not retried or recorded", resp.Attempts, resp.Redirects)
				}
				return
			}
			if resp.Err != nil {
				t.Fatalf("same-origin 307 not followed: %+v", resp.Err)
			}
			var got map[string]string
			_ = json.Unmarshal(resp.Body, &got)
			want := map[string]string{"method": "POST", "body": `{"text":"去北京"}`, "referer": "", "key": "k3y"}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("the followed request's %s is %q, want %q", k, got[k], v)
				}
			}
			if len(resp.Redirects) != 1 || resp.Redirects[0] != srv.URL+"/final?from=307" {
				t.Errorf("recorded redirects %v", resp.Redirects)
			}
		})
	}
	if n := otherHits.Load(); n != 0 {
		t.Errorf("the other port received %d requests", n)
	}
}

// Without redirects to follow a call goes to the transport itself
// (Client.roundTrip), not through http.Client.Do: it must send what Do
// sends (a URL's user as basic auth, no other header) and fail as Do
// fails. A same-origin client, which goes through Do, is the reference,
// on calls where the two policies agree: no redirect or one neither
// follows.
func TestRoundTripAsClientDo(t *testing.T) {
	other := server(t, func(w http.ResponseWriter, r *http.Request) {})
	var seen atomic.Pointer[http.Header]
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Clone()
		seen.Store(&h)
		if r.URL.Path == "/away" {
			http.Redirect(w, r, other.URL+"/去", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"text":"去北京"}`)
	})
	closed := server(t, func(w http.ResponseWriter, r *http.Request) {})
	closed.Close()
	withUser := strings.Replace(srv.URL, "://", "://bot:pa55-w0rd@", 1)
	calls := []struct {
		name string
		r    Request
	}{
		{"user", Request{Method: "POST", URL: withUser + "/parse", Body: []byte(`{"text":"你好"}`)}},
		{"user and own auth", Request{Method: "POST", URL: withUser + "/parse", Header: http.Header{"Authorization": {"Bearer tok3n"}}, Body: []byte(`{}`)}},
		{"headers", Request{Method: "GET", URL: srv.URL + "/parse", Header: http.Header{"X-Key": {"k3y-钥匙"}}}},
		{"redirect away", Request{Method: "POST", URL: srv.URL + "/away", Body: []byte(`{}`)}},
		{"https to http", Request{Method: "POST", URL: strings.Replace(srv.URL, "http:", "https:", 1) + "/parse", Body: []byte(`{}`)}},
		{"refused", Request{Method: "POST", URL: closed.URL + "/parse", Body: []byte(`{}`)}},
	}
	direct := NewClient(Policy{}, 1, nil)
	viaDo := NewClient(Policy{Redirects: RedirectSameOrigin}, 1, nil)
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			var got [2]Response
			var sent [2]http.Header
			for i, cl := range []*Client{direct, viaDo} {
				seen.Store(nil)
				got[i] = do(t, context.Background(), cl, c.r)
				if h := seen.Load(); h != nil {
					sent[i] = *h
				}
			}
			if got[0].Status != got[1].Status || string(got[0].Body) != string(got[1].Body) {
				t.Errorf("status %d body %q, through Do %d %q", got[0].Status, got[0].Body, got[1].Status, got[1].Body)
			}
			e0, e1 := got[0].Err, got[1].Err
			if c.name == "redirect away" && e0 != nil && e1 != nil {
				e1 = &schema.CallError{Type: e1.Type, Message: e0.Message} // the message names the policy
			}
			if (e0 == nil) != (e1 == nil) || e0 != nil && *e0 != *e1 {
				t.Errorf("error %+v, through Do %+v", got[0].Err, got[1].Err)
			}
			if !reflect.DeepEqual(sent[0], sent[1]) {
				t.Errorf("sent headers %v, through Do %v", sent[0], sent[1])
			}
			if strings.HasPrefix(c.name, "user") && got[0].Status != http.StatusOK {
				t.Fatalf("status %d, %+v", got[0].Status, got[0].Err)
			}
			if auth := sent[0].Get("Authorization"); strings.HasPrefix(c.name, "user") && auth != c.r.Header.Get("Authorization") {
				u, p, _ := (&http.Request{Header: sent[0]}).BasicAuth()
				if c.r.Header != nil || u != "bot" || p != "pa55-w0rd" {
					t.Errorf("sent Authorization %q", auth)
				}
			}
		})
	}
}
