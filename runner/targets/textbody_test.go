package targets

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nlutest/nlutest/runner"
)

// TestTextBodyKey: only jsonencode({ KEY = case.text }) is built without
// HCL; any other body goes through HCL as before.
func TestTextBodyKey(t *testing.T) {
	for _, tc := range []struct {
		src, key string
		ok       bool
	}{
		{`jsonencode({ text = case.text })`, "text", true},
		{`jsonencode({ "query" = case.text })`, "query", true},
		{`jsonencode({ "问题" = case.text })`, "问题", true},
		{`jsonencode({ text = case.text, lang = "zh" })`, "", false},
		{`jsonencode({ text = "${case.text}" })`, "", false},
		{`jsonencode({ text = case.id })`, "", false},
		{`jsonencode({ (var.k) = case.text })`, "", false},
		{`jsonencode({ text = case.text.x })`, "", false},
		{`jsonencode([case.text])`, "", false},
		{`jsondecode({ text = case.text })`, "", false},
		{`case.text`, "", false},
	} {
		e, diags := hclsyntax.ParseExpression([]byte(tc.src), "b.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", tc.src, diags)
		}
		if key, ok := textBodyKey(e); key != tc.key || ok != tc.ok {
			t.Errorf("%s: key %q, %v; want %q, %v", tc.src, key, ok, tc.key, tc.ok)
		}
	}
}

// TestTextBodyFastPath: a target whose body is jsonencode({ KEY =
// case.text }) sends, byte for byte and with the same Content-Type, what
// the same body evaluated through HCL sends ("${case.text}" is not the
// fast form) — for Chinese, combining marks NFC composes, HTML characters
// encoding/json escapes, U+2028, invalid UTF-8, quotes and backslashes.
func TestTextBodyFastPath(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Header.Get("Content-Type")+" "+string(b))
		mu.Unlock()
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	texts := []string{"订一张去北京的机票", "cafe\u0301", "\u0301开头", `<a href="x">&amp;</a>`, "行\u2028分隔", "bad \xff\xfe bytes", "",
		"tab\there \"quoted\" \\ back", "😀 emoji", "ｆｕｌｌ　width"}
	suite := func(body, headers string) string {
		return fmt.Sprintf(`
suite "请求" {}
target "bot" {
  http {
    url  = %q
    body = %s
    %s
  }
}
`, srv.URL, body, headers)
	}
	for _, form := range []struct{ fast, slow, headers string }{
		{`jsonencode({ text = case.text })`, `jsonencode({ text = "${case.text}" })`, ""},
		{`jsonencode({ "问题" = case.text })`, `jsonencode({ "问题" = "${case.text}" })`, `headers = { "Content-Type" = "application/json; charset=utf-8" }`},
	} {
		for _, text := range texts {
			mu.Lock()
			got = got[:0]
			mu.Unlock()
			for _, body := range []string{form.fast, form.slow} {
				if r := callOnce(t, "", suite(body, form.headers), runner.CallerOptions{}, text); r.Error != nil {
					t.Fatalf("%s %q: %v", body, text, r.Error.Message)
				}
			}
			mu.Lock()
			if len(got) != 2 || got[0] != got[1] {
				t.Errorf("%s, text %q: fast path sent %q, HCL %q", form.fast, text, got[0], got[1])
			}
			mu.Unlock()
		}
	}
}
