package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sort"

	"github.com/nlutest/nlutest/runner/transport"
	"github.com/nlutest/nlutest/schema"
)

// Cache stores usable responses on disk, keyed by the target's
// fingerprint and the exact request, so re-running a suite against an
// unchanged service costs no calls. Only responses without error are kept.
type Cache struct {
	dir string
}

// NewCache opens (creating) a response cache in dir.
func NewCache(dir string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &Cache{dir: dir}, nil
}

type cacheEntry struct {
	Status    int               `json:"status"`
	Headers   map[string]string `json:"headers,omitempty"`
	Response  json.RawMessage   `json:"response"`
	LatencyMS float64           `json:"latency_ms"`
	// State is the dialogue state read after the call (Result.State).
	State json.RawMessage `json:"state,omitempty"`
}

// Key hashes the fingerprint and the request (headers sorted). Secrets in
// the request only enter the hash, never the file.
func (c *Cache) Key(fingerprint string, r transport.Request) string {
	h := sha256.New()
	h.Write([]byte(fingerprint))
	h.Write([]byte{0})
	h.Write([]byte(r.Method + " " + r.URL))
	names := make([]string, 0, len(r.Header))
	for k := range r.Header {
		names = append(names, http.CanonicalHeaderKey(k))
	}
	sort.Strings(names)
	for _, k := range names {
		h.Write([]byte{0})
		h.Write([]byte(k + ": "))
		for _, v := range r.Header.Values(k) {
			h.Write([]byte(v + "\n"))
		}
	}
	h.Write([]byte{0})
	h.Write(r.Body)
	return hex.EncodeToString(h.Sum(nil))
}

func (c *Cache) path(key string) string { return filepath.Join(c.dir, key[:2], key+".json") }

// Get fills r from the cache and reports whether it had the response.
func (c *Cache) Get(key string, r *schema.Result) bool {
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return false
	}
	var e cacheEntry
	if json.Unmarshal(b, &e) != nil || len(e.Response) == 0 {
		return false
	}
	r.Status, r.Headers, r.Response, r.LatencyMS, r.State = e.Status, e.Headers, e.Response, e.LatencyMS, e.State
	r.Reply = schema.ReplyOf(r.Response)
	r.Attempts, r.Cached = 0, true
	return true
}

// Put stores a usable response; failures to write are ignored (the cache
// is an optimisation, never a source of errors).
func (c *Cache) Put(key string, r *schema.Result) {
	if r.Error != nil || len(r.Response) == 0 {
		return
	}
	b, err := json.Marshal(cacheEntry{Status: r.Status, Headers: r.Headers, Response: r.Response, LatencyMS: r.LatencyMS, State: r.State})
	if err != nil {
		return
	}
	p := c.path(key)
	if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), p) != nil {
		os.Remove(tmp.Name())
	}
}
