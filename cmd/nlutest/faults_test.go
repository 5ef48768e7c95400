package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fault is one misbehaviour of the fault service, chosen by the utterance
// the case sends, with what the runner must record for it.
type fault struct {
	text     string // the utterance (a material value)
	outcome  string // pass, fail or error
	errType  string // the CallError type when outcome is error
	attempts int    // attempts recorded (retries 1; default retry_on)
}

// The target below: retries 1, retry_on left at its default ["timeout",
// "reset", "429", "502", "503", "504"], max_response_bytes 1 MiB. These
// faults run with a timeout of 60s that never fires (so they do not
// depend on the machine's speed); timeoutFaults with one of 300ms.
var faults = []fault{
	{"你好，正常回答", "pass", "", 1},
	{"连接被重置", "error", "ConnectionError", 2},        // hijack + RST
	{"服务器内部错误", "error", "HTTPError", 1},            // 500 is not in the default retry_on
	{"请求太多带重试时间", "error", "HTTPError", 2},          // 429 with Retry-After: 1
	{"请求太多不带重试时间", "error", "HTTPError", 2},         // 429 without Retry-After
	{"返回无效的JSON", "error", "InvalidJSON", 1},        // not retried
	{"返回一百兆的响应体", "error", "ResponseTooLarge", 1},   // 100 MB, chunked
	{"声明一百兆长度的响应体", "error", "ResponseTooLarge", 1}, // 100 MB, Content-Length announced
	{"回答到一半断开连接", "error", "ConnectionError", 2},    // closes mid-body
	{"网关偶尔出错然后恢复", "pass", "", 2},                   // 502 once, then a normal answer
	{"回答了错误的意图", "fail", "", 1},                     // a usable answer with the wrong intent
}

// timeoutFaults never complete an answer (until the test ends): the
// timeout fires on every attempt however loaded the machine is.
var timeoutFaults = []fault{
	{"请求超时不回答", "error", "Timeout", 2},        // never answers
	{"慢慢地一个字节一个字节地回答", "error", "Timeout", 2}, // 1 byte every 200 ms, for ever
}

const hundredMB = 100 << 20

// faultService answers according to the fault its utterance names. It never
// holds a large body in memory: big bodies are streamed from one 64 KiB
// chunk. It records every attempt's arrival time per utterance.
type faultService struct {
	srv      *httptest.Server
	mu       sync.Mutex
	arrivals map[string][]time.Time
	// streamed counts the bytes the big-body handlers managed to write.
	streamed atomic.Int64
	// release ends the handlers that never answer, when the test ends.
	release chan struct{}
}

func newFaultService(t *testing.T) *faultService {
	t.Helper()
	fs := &faultService{arrivals: map[string][]time.Time{}, release: make(chan struct{})}
	chunk := bytes.Repeat([]byte(`{"填充":"数据数据数据数据"},`), 64<<10/len(`{"填充":"数据数据数据数据"},`))
	fs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Text string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad request body", http.StatusBadRequest)
			return
		}
		fs.mu.Lock()
		fs.arrivals[req.Text] = append(fs.arrivals[req.Text], time.Now())
		n := len(fs.arrivals[req.Text])
		fs.mu.Unlock()
		normal := func(intent string) {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{
				"text":     req.Text,
				"intent":   map[string]any{"name": intent, "confidence": 0.97},
				"entities": []any{},
			})
		}
		switch req.Text {
		case "你好，正常回答":
			normal("问候")
		case "回答了错误的意图":
			normal("订机票")
		case "网关偶尔出错然后恢复":
			if n == 1 {
				http.Error(w, "bad gateway", http.StatusBadGateway)
				return
			}
			normal("问候")
		case "请求超时不回答":
			select {
			case <-r.Context().Done():
			case <-fs.release:
			}
		case "连接被重置":
			hijack(t, w, func(c net.Conn) {
				if tc, ok := c.(*net.TCPConn); ok {
					_ = tc.SetLinger(0) // close sends RST
				}
			})
		case "服务器内部错误":
			http.Error(w, "内部错误", http.StatusInternalServerError)
		case "请求太多带重试时间":
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case "请求太多不带重试时间":
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case "返回无效的JSON":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"intent": {"name": "问候", `))
		case "返回一百兆的响应体", "声明一百兆长度的响应体":
			fs.streamBig(w, req.Text == "声明一百兆长度的响应体", chunk)
		case "慢慢地一个字节一个字节地回答":
			slowBytes(w, r, fs.release)
		case "回答到一半断开连接":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"intent": {"name": "问候", "confidence": 0.9}, "entities": [`))
			w.(http.Flusher).Flush()
			hijack(t, w, nil)
		default:
			http.Error(w, "unknown fault "+req.Text, http.StatusNotImplemented)
		}
	}))
	t.Cleanup(fs.srv.Close)
	t.Cleanup(func() { close(fs.release) }) // before Close, which waits for the handlers
	return fs
}

// streamBig streams a 100 MB body (declaring its length when declare is
// set) for at most 20 s, counting what it manages to write.
func (fs *faultService) streamBig(w http.ResponseWriter, declare bool, chunk []byte) {
	w.Header().Set("Content-Type", "application/json")
	if declare {
		w.Header().Set("Content-Length", fmt.Sprint(hundredMB))
	}
	deadline := time.Now().Add(20 * time.Second)
	for sent := 0; sent < hundredMB && time.Now().Before(deadline); {
		k, err := w.Write(chunk[:min(len(chunk), hundredMB-sent)])
		sent += k
		fs.streamed.Add(int64(k))
		if err != nil {
			return // the client stopped reading and closed
		}
	}
}

// slowBytes answers one byte every 200 ms and never ends its body: after
// the JSON object it sends white space until the client gives up or
// release is closed.
func slowBytes(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	body := []byte(`{"intent": {"name": "问候", "confidence": 0.9}, "entities": []}`)
	for i := 0; ; i++ {
		b := byte(' ')
		if i < len(body) {
			b = body[i]
		}
		if _, err := w.Write([]byte{b}); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-release:
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// hijack takes the connection over and closes it, after prepare.
func hijack(t *testing.T, w http.ResponseWriter, prepare func(net.Conn)) {
	c, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	_ = buf.Flush()
	if prepare != nil {
		prepare(c)
	}
	_ = c.Close()
}

func (fs *faultService) arrivalsOf(text string) []time.Time {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]time.Time(nil), fs.arrivals[text]...)
}

func faultSuite(fl []fault, timeout string, budget float64, thresholds string) string {
	var vals []string
	for _, f := range fl {
		vals = append(vals, fmt.Sprintf("%q", f.text))
	}
	return fmt.Sprintf(`
suite "故障注入" {
  schema = "rasa"
}

variable "url" {}

target "故障服务" {
  http {
    url  = "${var.url}/model/parse"
    body = jsonencode({ text = case.text })
  }
  timeout            = %q
  retries            = 1
  concurrency        = 4
  max_response_bytes = 1048576
  error_budget       = %g
}

materials "话语" {
  values = [%s]
}

template "故障" {
  text     = "{话语}"
  strategy = "uniq"
  expect = {
    "$.intent.name" = "问候"
  }
}
%s`, timeout, budget, strings.Join(vals, ", "), thresholds)
}

// runBounded runs the CLI and fails the test (with every goroutine's stack)
// if it does not finish within limit: a hung runner is a failure, not a
// test timeout an hour later.
func runBounded(t *testing.T, limit time.Duration, dir string, args ...string) (int, string, string) {
	t.Helper()
	type res struct {
		code     int
		out, err string
	}
	done := make(chan res, 1)
	go func() {
		code, out, errs := runCLI(t, dir, nil, args...)
		done <- res{code, out, errs}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(limit):
		var b strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Fatalf("nlutest run did not finish within %s; goroutines:\n%s", limit, b.String())
		return 0, "", ""
	}
}

type resultLine struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	Outcome  string `json:"outcome"`
	Attempts int    `json:"attempts"`
	Status   int    `json:"status"`
	Error    *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Body string `json:"body"`
}

func readResultLines(t *testing.T, path string) []resultLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []resultLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r resultLine
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: bad line %q: %v", path, sc.Text(), err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// heapWatch samples HeapAlloc every few milliseconds until stopped and
// returns the peak.
func heapWatch() (stop func() uint64) {
	var peak atomic.Uint64
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-quit:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(quit)
		<-done
		return peak.Load()
	}
}

func TestFaultInjection(t *testing.T) {
	variants := []struct {
		name       string
		budget     float64
		thresholds string
		want       int
	}{
		// No thresholds: every case must pass, so the errors (and the one
		// wrong intent) fail the verdict whatever the budget.
		{"no thresholds", 1, "", ExitFail},
		// The threshold passes (2 of 3 usable answers are right), but 8 of
		// 11 calls errored: above a 50% budget.
		{"errors beyond the budget", 0.5, `
threshold "准确率" { condition = metrics.accuracy >= 0.6 }`, ExitFail},
		// The same threshold with a budget that allows the errors.
		{"budget allows the errors", 0.8, `
threshold "准确率" { condition = metrics.accuracy >= 0.6 }`, ExitPass},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			fs := newFaultService(t)
			dir := writeSuite(t, faultSuite(faults, "60s", v.budget, v.thresholds))
			runDir := filepath.Join(dir, "run")
			junit := filepath.Join(dir, "junit.xml")

			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			stop := heapWatch()
			start := time.Now()
			code, out, errs := runBounded(t, hangLimit, dir, "run", dir, "--var", "url="+fs.srv.URL,
				"--out", runDir, "--report-junit", junit, "--color", "never")
			elapsed := time.Since(start)
			peak := stop()
			runtime.ReadMemStats(&after)
			if code != v.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, v.want, out, errs)
			}
			t.Logf("run took %s; heap %d MiB → peak %d MiB; %d MiB allocated in all; the service streamed %d MiB of big bodies",
				elapsed.Round(time.Millisecond), before.HeapAlloc>>20, peak>>20,
				(after.TotalAlloc-before.TotalAlloc)>>20, fs.streamed.Load()>>20)

			checkFaultMemory(t, fs, &before, &after, peak)

			wantErrors := checkFaultResults(t, fs, runDir, faults)
			checkFaultJUnit(t, junit, wantErrors, v.thresholds == "")
		})
	}
}

// TestFaultTimeouts: a service that never answers and one that drips its
// body for ever time out on each attempt (retried once), with a timeout
// short enough to keep the test quick; the handlers never finish on their
// own, so it fires however loaded the machine is.
func TestFaultTimeouts(t *testing.T) {
	fs := newFaultService(t)
	dir := writeSuite(t, faultSuite(timeoutFaults, "300ms", 1, ""))
	runDir := filepath.Join(dir, "run")
	junit := filepath.Join(dir, "junit.xml")
	code, out, errs := runBounded(t, hangLimit, dir, "run", dir, "--var", "url="+fs.srv.URL,
		"--out", runDir, "--report-junit", junit, "--color", "never")
	if code != ExitFail {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitFail, out, errs)
	}
	wantErrors := checkFaultResults(t, fs, runDir, timeoutFaults)
	checkFaultJUnit(t, junit, wantErrors, true)
}

// checkFaultMemory: the 100 MB bodies are cut at max_response_bytes
// (1 MiB) and never read further, so the whole run allocates a few MiB.
func checkFaultMemory(t *testing.T, fs *faultService, before, after *runtime.MemStats, peak uint64) {
	t.Helper()
	const bound = 32 << 20
	if d := after.TotalAlloc - before.TotalAlloc; d > bound {
		t.Errorf("the run allocated %d MiB in all, want under %d MiB with 100 MB bodies capped at 1 MiB", d>>20, bound>>20)
	}
	if peak > before.HeapAlloc && peak-before.HeapAlloc > bound {
		t.Errorf("heap grew by %d MiB during the run, want under %d MiB", (peak-before.HeapAlloc)>>20, bound>>20)
	}
	if s := fs.streamed.Load(); s >= 2*hundredMB {
		t.Errorf("the service streamed %d MiB: the client read the 100 MB bodies in full", s>>20)
	}
}

// checkFaultResults checks that every case is recorded once, with its
// outcome, error type and attempts, and that the service saw as many
// attempts; it returns the error type of each errored case by id.
func checkFaultResults(t *testing.T, fs *faultService, runDir string, fl []fault) map[string]string {
	t.Helper()
	lines := readResultLines(t, filepath.Join(runDir, "results.jsonl"))
	byText := map[string][]resultLine{}
	for _, r := range lines {
		byText[r.Text] = append(byText[r.Text], r)
	}
	if len(lines) != len(fl) {
		t.Errorf("results.jsonl has %d lines, want %d", len(lines), len(fl))
	}
	wantErrors := map[string]string{} // case id → error type
	for _, f := range fl {
		rs := byText[f.text]
		if len(rs) != 1 {
			t.Errorf("%s: %d results, want exactly 1", f.text, len(rs))
			continue
		}
		r := rs[0]
		gotType := ""
		if r.Error != nil {
			gotType = r.Error.Type
			if r.Error.Message == "" {
				t.Errorf("%s: error %s without a message", f.text, gotType)
			}
		}
		if r.Outcome != f.outcome || gotType != f.errType {
			msg := ""
			if r.Error != nil {
				msg = r.Error.Message
			}
			t.Errorf("%s: outcome %s %s (%s), want %s %s", f.text, r.Outcome, gotType, msg, f.outcome, f.errType)
		}
		if r.Attempts != f.attempts {
			t.Errorf("%s: %d attempts, want %d", f.text, r.Attempts, f.attempts)
		}
		if f.outcome == "error" {
			wantErrors[r.ID] = f.errType
		}
	}
	for text := range byText {
		if !knownFault(fl, text) {
			t.Errorf("unexpected case %q in results.jsonl", text)
		}
	}
	if got := byText["服务器内部错误"]; len(got) == 1 && (got[0].Status != 500 || !strings.Contains(got[0].Body, "内部错误")) {
		t.Errorf("500: status %d, body %q; want 500 with the body kept", got[0].Status, got[0].Body)
	}

	// The server saw as many attempts as were recorded, and the
	// retry after `Retry-After: 1` waited at least a second.
	for _, f := range fl {
		if n := len(fs.arrivalsOf(f.text)); n != f.attempts {
			t.Errorf("%s: the service saw %d attempts, want %d", f.text, n, f.attempts)
		}
	}
	if a := fs.arrivalsOf("请求太多带重试时间"); len(a) == 2 && a[1].Sub(a[0]) < 950*time.Millisecond {
		t.Errorf("429 with Retry-After: 1 was retried after %s, want ≥ 1s", a[1].Sub(a[0]))
	}
	return wantErrors
}

func knownFault(fl []fault, text string) bool {
	for _, f := range fl {
		if f.text == text {
			return true
		}
	}
	return false
}

// checkFaultJUnit checks that, in a suite without thresholds, every errored
// case is a testcase with an <error type="…"> naming its error type.
func checkFaultJUnit(t *testing.T, path string, wantErrors map[string]string, perCase bool) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name  string `xml:"name,attr"`
				Error []struct {
					Type string `xml:"type,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("JUnit does not parse: %v", err)
	}
	if !perCase {
		return
	}
	got := map[string]string{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if len(c.Error) == 0 {
				continue
			}
			if len(c.Error) > 1 {
				t.Errorf("testcase %q has %d <error> elements", c.Name, len(c.Error))
			}
			for id := range wantErrors {
				if strings.HasSuffix(c.Name, "["+id+"]") {
					got[id] = c.Error[0].Type
				}
			}
		}
	}
	var ids []string
	for id := range wantErrors {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if got[id] != wantErrors[id] {
			t.Errorf("JUnit: case %s has <error type=%q>, want %q", id, got[id], wantErrors[id])
		}
	}
	if len(got) != len(wantErrors) {
		t.Errorf("JUnit has %d <error> testcases for errored cases, want %d", len(got), len(wantErrors))
	}
	validateJUnitXSD(t, raw)
}
