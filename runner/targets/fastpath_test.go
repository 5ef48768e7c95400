package targets

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/redact"
)

// jsonBody builds {"KEY": text} without a map: the same bytes as
// json.Marshal of the map, for keys and texts that need escaping (HTML
// characters, U+2028, control characters, invalid UTF-8, Chinese).
func TestJSONBodyAsMarshal(t *testing.T) {
	texts := []string{
		"订一张去北京的机票", "", `引号"与\反斜杠`, "<b>粗体</b> & 符号", "行\u2028分隔\u2029段",
		"制表\t换行\n回车\r", "\x00\x1f控制", "无效\xff\xfeUTF-8", "表情😀", "ｆｕｌｌ－ｗｉｄｔｈ", "e\u0301 组合",
	}
	for c := range 256 { // every byte alone, and inside Chinese text
		texts = append(texts, string([]byte{byte(c)}), "北"+string([]byte{byte(c)})+"京")
	}
	for _, r := range []rune{0x7f, 0x80, 0xa0, 0x2028, 0x2029, 0xfeff, 0xfffd, 0x10ffff} {
		texts = append(texts, "城市"+string(r))
	}
	for _, key := range []string{"text", "query", "文本", "<key>&", "换\n行", "\u2028"} {
		for _, text := range texts {
			want, err := json.Marshal(map[string]string{key: text})
			if err != nil {
				t.Fatal(err)
			}
			if got := jsonBody(key, text); !bytes.Equal(got, want) {
				t.Errorf("jsonBody(%q, %q) = %s, want %s", key, text, got, want)
			}
		}
	}
}

// A response already checked to be JSON and holding no space, tab or line
// break is recorded as it came; any other goes through json.Compact. Both
// ways give json.Compact's bytes, and the same error for what is not JSON.
func TestCompactJSONFastPath(t *testing.T) {
	bodies := []string{
		`{"intent":{"name":"订机票","confidence":0.97},"entities":[{"entity":"城市","value":"北京"}]}`,
		`{"intent": {"name": "订机票"}, "entities": []}`,
		"{\n  \"text\": \"北京 上海\"\n}\n",
		`{"text":"有 空格 的 字符串"}`,
		`{"text":"转义\"引号\\ 和\u2028"}`,
		`"只是一个字符串"`, `42`, `null`, `[1,2,3]`, ` [1] `,
		`{"text":"未完`, `{"a":1}{"b":2}`, `不是JSON`, ``,
	}
	for _, b := range bodies {
		var want bytes.Buffer
		wantErr := json.Compact(&want, []byte(b))
		for _, checked := range []bool{false, true} {
			if checked && !json.Valid([]byte(b)) {
				continue // the transport sets JSONChecked only for valid JSON
			}
			got, err := compactJSON([]byte(b), checked)
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Errorf("compactJSON(%q, %v): error %v, want %v", b, checked, err, wantErr)
				continue
			}
			if err == nil && !bytes.Equal(got, want.Bytes()) {
				t.Errorf("compactJSON(%q, %v) = %q, want %q", b, checked, got, want.Bytes())
			}
		}
	}
}

// The request headers a result records are redacted once per header map
// and shared; another map (per-case headers) is recorded on its own.
func TestRecordHeadersPerMap(t *testing.T) {
	h := &httpCaller{red: redact.New([]string{"令牌-秘密"})}
	static := http.Header{"Authorization": {"Bearer 令牌-秘密"}, "X-Note": {"含 令牌-秘密 的备注"}}
	a, b := h.recordHeaders(static), h.recordHeaders(static)
	if a["X-Note"] != h.red.String("含 令牌-秘密 的备注") || a["Authorization"] != redact.Redacted {
		t.Errorf("recorded %v: secrets not redacted", a)
	}
	if len(a) != 2 || !sameRecord(a, b) {
		t.Errorf("the same map recorded twice: %v and %v", a, b)
	}
	other := http.Header{"X-Note": {"城市 北京"}}
	if c := h.recordHeaders(other); c["X-Note"] != "城市 北京" || len(c) != 1 {
		t.Errorf("another map recorded as %v", c)
	}
	if d := h.recordHeaders(static); d["X-Note"] != a["X-Note"] || len(d) != 2 {
		t.Errorf("the static map recorded again as %v", d)
	}
}

// Answers with equal headers share one redacted record; an answer whose
// headers differ in a name or a value is recorded anew, and its record is
// the one shared next.
func TestResponseHeadersShared(t *testing.T) {
	h := &httpCaller{red: redact.New([]string{"令牌-秘密"})}
	answer := func(date string) http.Header {
		return http.Header{"Content-Type": {"application/json"}, "Date": {date}, "X-Echo": {"令牌-秘密 回显"}}
	}
	a, b := h.responseHeaders(answer("Wed, 02 Dec 2026 08:00:00 GMT")), h.responseHeaders(answer("Wed, 02 Dec 2026 08:00:00 GMT"))
	if a["X-Echo"] != h.red.String("令牌-秘密 回显") || strings.Contains(a["X-Echo"], "令牌-秘密") || len(a) != 3 {
		t.Fatalf("recorded %v: want three headers, the secret redacted", a)
	}
	if reflect.ValueOf(a).UnsafePointer() != reflect.ValueOf(b).UnsafePointer() {
		t.Errorf("equal headers recorded twice: %v and %v", a, b)
	}
	c := h.responseHeaders(answer("Wed, 02 Dec 2026 08:00:01 GMT"))
	if c["Date"] != "Wed, 02 Dec 2026 08:00:01 GMT" || a["Date"] != "Wed, 02 Dec 2026 08:00:00 GMT" {
		t.Errorf("a new Date recorded as %v (the earlier record now %v)", c, a)
	}
	more := answer("Wed, 02 Dec 2026 08:00:01 GMT")
	more.Add("X-Echo", "第二个")
	if d := h.responseHeaders(more); d["X-Echo"] != c["X-Echo"]+", 第二个" {
		t.Errorf("a second value recorded as %q", d["X-Echo"])
	}
	fewer := answer("Wed, 02 Dec 2026 08:00:01 GMT")
	delete(fewer, "X-Echo")
	if e := h.responseHeaders(fewer); len(e) != 2 {
		t.Errorf("two headers recorded as %v", e)
	}
	if f := h.responseHeaders(http.Header{}); f != nil {
		t.Errorf("no header recorded as %v, want none", f)
	}
}

func sameRecord(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
