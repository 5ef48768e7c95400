package targets

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// contentServer is an OpenAI-compatible server answering the content its
// function gives for the last user message; it records each request's
// body and X-Session-Id header.
type contentServer struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  []map[string]any
	headers []string
}

func newContentServer(t *testing.T, content func(last string) string) *contentServer {
	cs := &contentServer{}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		var req struct{ Messages []chatMessage }
		if json.Unmarshal(raw, &body) != nil || json.Unmarshal(raw, &req) != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		cs.mu.Lock()
		cs.bodies = append(cs.bodies, body)
		cs.headers = append(cs.headers, r.Header.Get("X-Session-Id"))
		cs.mu.Unlock()
		c, _ := json.Marshal(content(req.Messages[len(req.Messages)-1].Content))
		_, _ = io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":`+string(c)+`}}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`)
	}))
	t.Cleanup(cs.Close)
	return cs
}

func openaiTarget(attrs string) string {
	return `
suite "s" {}
variable "llm_url" {}
target "bot" {
  openai {
    url   = var.llm_url
    model = "m"
` + attrs + `
  }
}
`
}

// session = { user = true, header = "X-Session-Id" } sends the session id
// (case.conversation) as the body's user member and in the header, the
// same id on every turn of a conversation; a single case gets an id of its
// own (its id, "-" and 8 hex digits), the same in body and header.
func TestOpenAISessionIdentity(t *testing.T) {
	cs := newContentServer(t, func(last string) string { return "好的：" + last })
	s, err := loadWith(t, openaiTarget(`    session = { user = true, header = "X-Session-Id" }`), map[string]string{"NLUTEST_VAR_llm_url": cs.URL})
	if err != nil {
		t.Fatal(err)
	}
	res := converse(t, s, []string{"我想订机票", "去北京"})[0]
	if len(res) != 2 || res[0].Conversation == "" {
		t.Fatalf("results %+v", res)
	}
	for i := range 2 {
		if cs.bodies[i]["user"] != res[0].Conversation || cs.headers[i] != res[0].Conversation {
			t.Errorf("turn %d: user %v, header %q; want the session %q in both", i+1, cs.bodies[i]["user"], cs.headers[i], res[0].Conversation)
		}
	}
	caller, err := NewCaller(context.Background(), s, s.Target(""), runner.CallerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer caller.Close()
	sess, _ := caller.Open(context.Background(), &schema.Script{ID: "c1"})
	r := sess.Call(context.Background(), &schema.Case{ID: "c1", Text: "你好"}, nil)
	u, _ := cs.bodies[2]["user"].(string)
	if r.Error != nil || !strings.HasPrefix(u, "c1-") || len(u) != len("c1-")+8 || cs.headers[2] != u || r.Conversation != "" {
		t.Errorf("single case: user %q, header %q, recorded conversation %q, error %v", u, cs.headers[2], r.Conversation, r.Error)
	}
	// Without session, neither is sent.
	s, err = loadWith(t, openaiTarget(""), map[string]string{"NLUTEST_VAR_llm_url": cs.URL})
	if err != nil {
		t.Fatal(err)
	}
	converse(t, s, []string{"你好"})
	if _, ok := cs.bodies[3]["user"]; ok || cs.headers[3] != "" {
		t.Errorf("without session: body %v, header %q", cs.bodies[3], cs.headers[3])
	}
}

// content = "json": the content (a code fence around it allowed) is
// decoded into the recorded response, so JSONPaths read it; the reply
// stays the content's text and the usage is kept. Content that is not
// JSON is the error ContentError, with the content quoted; the response
// cache keeps the answer as served, so a cached turn decodes alike.
func TestOpenAIJSONContent(t *testing.T) {
	answers := map[string]string{
		"订票": `{"intent":{"name":"book_flight","confidence":0.93},"entities":[{"entity":"city","value":"北京"}]}`,
		"围栏": "```json\n{\"intent\": {\"name\": \"greet\"}}\n```",
		"不是": "我不知道",
		"半截": `{"intent": {"name": "book`,
		"数组": `[1, 2]`,
	}
	cs := newContentServer(t, func(last string) string { return answers[last] })
	s, err := loadWith(t, openaiTarget(`    content = "json"`), map[string]string{"NLUTEST_VAR_llm_url": cs.URL})
	if err != nil {
		t.Fatal(err)
	}
	cache, err := runner.NewCache(t.TempDir(), testCacheKey)
	if err != nil {
		t.Fatal(err)
	}
	caller, err := NewCaller(context.Background(), s, s.Target(""), runner.CallerOptions{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer caller.Close()
	call := func(text string) *schema.Result {
		sess, _ := caller.Open(context.Background(), &schema.Script{ID: text})
		return sess.Call(context.Background(), &schema.Case{ID: text, Text: text}, nil)
	}
	for _, tc := range []struct{ text, response, errType string }{
		{"订票", `{"intent":{"name":"book_flight","confidence":0.93},"entities":[{"entity":"city","value":"北京"}]}`, ""},
		{"围栏", `{"intent":{"name":"greet"}}`, ""},
		{"数组", `[1,2]`, ""},
		{"不是", "", ErrContent},
		{"半截", "", ErrContent},
	} {
		for pass := range 2 { // the second call is answered by the cache
			r := call(tc.text)
			if tc.errType != "" {
				if r.Error == nil || r.Error.Type != tc.errType || !strings.Contains(r.Error.Message, `content = "json", but the answer's content is not JSON`) || r.Outcome != schema.Error {
					t.Errorf("%s: error %+v, want %s", tc.text, r.Error, tc.errType)
				}
				continue
			}
			if r.Error != nil || string(r.Response) != tc.response || r.Reply != answers[tc.text] || r.Usage == nil || r.Usage.TotalTokens != 5 || r.Cached != (pass == 1) {
				t.Errorf("%s (call %d): response %s reply %q usage %+v cached %v error %v", tc.text, pass+1, r.Response, r.Reply, r.Usage, r.Cached, r.Error)
			}
		}
	}
}

// A wrong session or content attribute is a located diagnostic.
func TestOpenAISessionContentErrors(t *testing.T) {
	for _, tc := range []struct{ attrs, want string }{
		{`    session = { user = "yes" }`, "Invalid session"},
		{`    session = { cookie = "x" }`, "Invalid session"},
		{`    session = {}`, "Invalid session"},
		{`    session = { header = "X Session" }`, "Invalid session"},
		{`    content = "yaml"`, "Unknown openai content"},
		{"    session = { user = true }\n    params = { user = \"u\" }", `params may not set "user"`},
	} {
		_, err := loadWith(t, openaiTarget(tc.attrs), map[string]string{"NLUTEST_VAR_llm_url": "http://127.0.0.1:1"})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "s.nlutest.hcl:") {
			t.Errorf("%s: %v, want %s at a location", tc.attrs, err, tc.want)
		}
	}
}
