package redact

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

const secret = "S3cr3t+k/机密=Q7"

// TestStringForms: every way a secret reaches recorded text is redacted.
func TestStringForms(t *testing.T) {
	r := New([]string{secret})
	jsonEsc, _ := json.Marshal(secret)
	cases := map[string]string{
		"raw":            "token " + secret + " end",
		"json":           string(jsonEsc),
		"query":          "?t=" + url.QueryEscape(secret),
		"path":           "/x/" + url.PathEscape(secret),
		"userinfo":       (&url.URL{Scheme: "http", User: url.UserPassword("me", secret), Host: "h"}).String(),
		"basic":          "Basic " + base64.StdEncoding.EncodeToString([]byte("me:"+secret)),
		"basic-aligned1": "Basic " + base64.StdEncoding.EncodeToString([]byte("m:"+secret)),
		"basic-aligned2": "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+secret)),
		"base64url":      base64.URLEncoding.EncodeToString([]byte("ab:" + secret + ":cd")),
		"query-lower":    "?t=" + lowerHex(url.QueryEscape(secret)),
		"non-ascii-only": "/steal?token=S3cr3t+k/%e6%9c%ba%e5%af%86=Q7",
	}
	for name, text := range cases {
		got := r.String(text)
		if !strings.Contains(got, Redacted) || strings.Contains(got, "S3cr3t") {
			t.Errorf("%s: %q redacted to %q", name, text, got)
		}
		for _, b64 := range []string{"UzNjcjN0", "M2NyM3Q", "TM2Ny"} {
			if strings.HasPrefix(name, "basic") && strings.Contains(got, b64) {
				t.Errorf("%s: base64 part %q left in %q", name, b64, got)
			}
		}
	}
	if got := r.String("Basic " + base64.StdEncoding.EncodeToString([]byte("me:other"))); strings.Contains(got, Redacted) {
		t.Errorf("an unrelated Basic credential was redacted: %q", got)
	}
}

// TestJSONDecodedStrings: a service that escapes characters JSON allows
// escaping (System.Text.Json writes "+" as \u002B) does not hide the secret,
// and the document stays valid JSON.
func TestJSONDecodedStrings(t *testing.T) {
	r := New([]string{secret, "73914628"})
	escaped := strings.NewReplacer("+", `\u002B`, "/", `\/`, "机", `\u673a`).Replace(secret)
	docs := []string{
		`{"echo":"` + escaped + `"}`,
		`{"` + escaped + `":1}`,
		`{"auth":"Basic ` + base64.StdEncoding.EncodeToString([]byte("u:"+secret)) + `"}`,
		`{"pin":73914628,"list":[1,"x\u0020` + escaped + `"]}`,
	}
	for _, d := range docs {
		got := r.JSON([]byte(d))
		if !json.Valid(got) {
			t.Errorf("%s: redacted to invalid JSON %s", d, got)
		}
		var v any
		_ = json.Unmarshal(got, &v)
		flat, _ := json.Marshal(v)
		if strings.Contains(string(flat), "S3cr3t") || strings.Contains(string(got), "S3cr3t") || strings.Contains(string(got), "73914628") || !strings.Contains(string(got), Redacted) {
			t.Errorf("%s: redacted to %s", d, got)
		}
	}
	plain := []byte(`{"text":"a\"b","n":1}`)
	if got := r.JSON(plain); string(got) != string(plain) {
		t.Errorf("a document without secrets changed: %s", got)
	}
}

func TestHeaders(t *testing.T) {
	r := New([]string{secret})
	got := r.Headers(http.Header{"Authorization": {"Basic x"}, "X-Echo": {secret}, "X-Other": {"ok"}})
	if got["Authorization"] != Redacted || got["X-Echo"] != Redacted || got["X-Other"] != "ok" {
		t.Errorf("headers: %v", got)
	}
}

func TestEmpty(t *testing.T) {
	var r *Redactor
	if r.String("x") != "x" || string(r.JSON([]byte(`"x"`))) != `"x"` || !New([]string{""}).Empty() {
		t.Error("a redactor without secrets changed text")
	}
}
