package runner_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/runner/transport"
	"github.com/nlutest/nlutest/schema"
)

var (
	cacheKeyA = bytes.Repeat([]byte{0xa1}, runner.CacheKeySize)
	cacheKeyB = bytes.Repeat([]byte{0xb2}, runner.CacheKeySize)
)

// cachedAnswer stores an answer for text and returns its request key and
// entry file.
func cachedAnswer(t *testing.T, c *runner.Cache, text, answer string) (string, string) {
	t.Helper()
	key := c.Key("http svc", transport.Request{Method: "POST", URL: "http://127.0.0.1:9/parse", Body: []byte(`{"text":"` + text + `"}`)})
	c.Put(key, &schema.Result{Status: 200, Response: json.RawMessage(answer), LatencyMS: 12})
	return key, filepath.Join(c.Dir(), key[:2], key+".json")
}

// Minor 8 of the 2026-12-05 security audit: entries of .nlutest/cache were
// trusted as they were, so edited answers turned FAIL into PASS. An entry
// is bound to its request and its content by an HMAC under the user's key:
// one edited, moved to another request's file, signed with another key or
// written in the old unsigned form is refused (a miss, counted), and one
// that is not a regular file is refused without waiting on it.
func TestCacheRefusesEntriesItDidNotSign(t *testing.T) {
	const good, other = `{"intent":{"name":"查天气"}}`, `{"intent":{"name":"订机票"}}`
	for _, c := range []struct {
		name   string
		tamper func(t *testing.T, c *runner.Cache, key, path string) string // the key to get
	}{
		{"edited answer", func(t *testing.T, c *runner.Cache, key, path string) string {
			b, _ := os.ReadFile(path)
			if !bytes.Contains(b, []byte("查天气")) {
				t.Fatalf("entry %s", b)
			}
			write(t, path, bytes.Replace(b, []byte("查天气"), []byte("订机票"), 1))
			return key
		}},
		{"edited latency", func(t *testing.T, c *runner.Cache, key, path string) string {
			b, _ := os.ReadFile(path)
			write(t, path, bytes.Replace(b, []byte(`"latency_ms":12`), []byte(`"latency_ms":1`), 1))
			return key
		}},
		{"another request's entry", func(t *testing.T, c *runner.Cache, key, path string) string {
			_, path2 := cachedAnswer(t, c, "北京天气", other)
			b, _ := os.ReadFile(path2)
			write(t, path, b)
			return key
		}},
		{"another key's entry", func(t *testing.T, c *runner.Cache, key, path string) string {
			theirs, err := runner.NewCache(c.Dir(), cacheKeyB)
			if err != nil {
				t.Fatal(err)
			}
			theirs.Put(key, &schema.Result{Status: 200, Response: json.RawMessage(other)})
			return key
		}},
		{"unsigned (before the MAC)", func(t *testing.T, c *runner.Cache, key, path string) string {
			write(t, path, []byte(`{"status":200,"response":`+other+`,"latency_ms":3}`))
			return key
		}},
		{"MAC of another entry", func(t *testing.T, c *runner.Cache, key, path string) string {
			var f struct {
				MAC   string          `json:"mac"`
				Entry json.RawMessage `json:"entry"`
			}
			b, _ := os.ReadFile(path)
			if err := json.Unmarshal(b, &f); err != nil || f.MAC == "" {
				t.Fatalf("entry %s: %v", b, err)
			}
			f.Entry = json.RawMessage(`{"status":200,"response":` + other + `}`)
			b, _ = json.Marshal(f)
			write(t, path, b)
			return key
		}},
		{"a FIFO", func(t *testing.T, c *runner.Cache, key, path string) string {
			if runtime.GOOS == "windows" {
				t.Skip("no FIFOs")
			}
			os.Remove(path)
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Skip(err)
			}
			return key
		}},
		{"over the size cap", func(t *testing.T, c *runner.Cache, key, path string) string {
			if err := os.Truncate(path, runner.MaxCacheEntry+1); err != nil { // sparse
				t.Fatal(err)
			}
			return key
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cache, err := runner.NewCache(t.TempDir(), cacheKeyA)
			if err != nil {
				t.Fatal(err)
			}
			key, path := cachedAnswer(t, cache, "上海天气", good)
			var r schema.Result
			if !cache.Get(key, &r) || string(r.Response) != good || !r.Cached || cache.Refused() != 0 {
				t.Fatalf("the untouched entry: %s cached %v refused %d", r.Response, r.Cached, cache.Refused())
			}
			key = c.tamper(t, cache, key, path)
			done := make(chan bool, 1)
			go func() {
				var r schema.Result
				done <- cache.Get(key, &r)
			}()
			select {
			case hit := <-done:
				if hit || cache.Refused() != 1 {
					t.Errorf("tampered entry: hit %v, refused %d; want a miss, refused 1", hit, cache.Refused())
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Get waited on the entry")
			}
			// The call made again rewrites it, signed.
			cache.Put(key, &schema.Result{Status: 200, Response: json.RawMessage(good)})
			if !cache.Get(key, &r) || string(r.Response) != good {
				t.Errorf("the rewritten entry: %s", r.Response)
			}
		})
	}
	// A missing entry is a plain miss, not a refusal.
	cache, _ := runner.NewCache(t.TempDir(), cacheKeyA)
	var r schema.Result
	if cache.Get(strings.Repeat("ab", 32), &r) || cache.Refused() != 0 {
		t.Errorf("a missing entry: refused %d", cache.Refused())
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The user's cache key is made once (32 random bytes, a 0600 file in a
// 0700 directory), read back the same by later runs and by runs starting
// together, and refused when others may read it or it holds no key.
func TestLoadCacheKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config", "nlutest")
	path := filepath.Join(dir, "cache.key")
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if keys[i], err = runner.LoadCacheKey(path); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i := range keys {
		if len(keys[i]) != runner.CacheKeySize || !bytes.Equal(keys[i], keys[0]) {
			t.Fatalf("run %d got key %x, run 0 %x: runs starting together must agree", i, keys[i], keys[0])
		}
	}
	again, err := runner.LoadCacheKey(path)
	if err != nil || !bytes.Equal(again, keys[0]) {
		t.Fatalf("the key read back: %x, %v", again, err)
	}
	if bytes.Equal(keys[0], make([]byte, runner.CacheKeySize)) {
		t.Fatal("the key is zero")
	}
	if runtime.GOOS != "windows" {
		st, _ := os.Stat(path)
		dst, _ := os.Stat(dir)
		if st.Mode().Perm() != 0o600 || dst.Mode().Perm() != 0o700 {
			t.Errorf("key file mode %04o, directory %04o; want 0600 and 0700", st.Mode().Perm(), dst.Mode().Perm())
		}
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := runner.LoadCacheKey(path); err == nil || !strings.Contains(err.Error(), "chmod 600 "+path) {
			t.Errorf("a key others can read: %v", err)
		}
		if err := os.Chmod(path, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(t, path, []byte("not a key\n"))
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := runner.LoadCacheKey(path); err == nil || !strings.Contains(err.Error(), "does not hold a response cache key") {
		t.Errorf("a file without a key: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left beside the key: %v", entries)
	}
}
