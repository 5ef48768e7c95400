package runner

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync/atomic"

	"github.com/nlutest/nlutest/runner/transport"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// Cache stores usable responses on disk, keyed by the target's
// fingerprint and the exact request, so re-running a suite against an
// unchanged service costs no calls. Only responses without error are kept.
//
// Each entry carries an HMAC-SHA256, under the user's cache key
// (LoadCacheKey), of its request key and its content: an entry edited,
// moved to another request's file, written with another key (another
// user's or machine's cache, one committed to a repository) or by a
// version of nlutest before the MAC, does not verify. Get refuses such an
// entry — a miss, counted in Refused — so the request is called again and
// its entry rewritten: whoever can write the cache directory but not read
// the key cannot decide a run's answers (docs/security.md).
type Cache struct {
	dir     string
	key     []byte
	refused atomic.Int64
}

// CacheKeySize is the size of a cache key in bytes.
const CacheKeySize = 32

// MaxCacheEntry is the largest entry file Get reads and Put writes: 256
// MiB, room for a response far over the default max_response_bytes (10
// MiB). A larger file in the cache directory is refused unread.
const MaxCacheEntry = 256 << 20

// NewCache opens (creating) a response cache in dir whose entries are
// signed with key (CacheKeySize bytes, from LoadCacheKey).
func NewCache(dir string, key []byte) (*Cache, error) {
	if len(key) != CacheKeySize {
		return nil, fmt.Errorf("a cache key is %d bytes, not %d", CacheKeySize, len(key))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &Cache{dir: dir, key: bytes.Clone(key)}, nil
}

// Refused is the number of entries Get found and refused: not signed with
// this cache's key for their request and content, or not a regular file
// of at most MaxCacheEntry bytes.
func (c *Cache) Refused() int { return int(c.refused.Load()) }

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

type cacheEntry struct {
	Status    int               `json:"status"`
	Headers   map[string]string `json:"headers,omitempty"`
	Response  json.RawMessage   `json:"response"`
	LatencyMS float64           `json:"latency_ms"`
	// State is the dialogue state read after the call (Result.State).
	State json.RawMessage `json:"state,omitempty"`
}

// cacheFile is an entry file: the entry's bytes and their MAC.
type cacheFile struct {
	// MAC is hex HMAC-SHA256 under the cache key of cacheMACDomain, the
	// request key, a NUL byte and Entry's bytes as they are in the file.
	MAC   string          `json:"mac"`
	Entry json.RawMessage `json:"entry"`
}

// cacheMACDomain starts every MAC, so a cache key's MACs mean nothing
// anywhere else.
const cacheMACDomain = "nlutest response cache v1\x00"

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

// mac is the MAC of an entry's bytes stored under key.
func (c *Cache) mac(key string, entry []byte) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(cacheMACDomain))
	m.Write([]byte(key))
	m.Write([]byte{0})
	m.Write(entry)
	return m.Sum(nil)
}

// Get fills r from the cache and reports whether it had the response. An
// entry that is there but does not verify is a miss, counted in Refused.
func (c *Cache) Get(key string, r *schema.Result) bool {
	b, err := readEntry(c.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	var f cacheFile
	var e cacheEntry
	if err != nil || json.Unmarshal(b, &f) != nil || !c.verify(key, &f) || json.Unmarshal(f.Entry, &e) != nil || len(e.Response) == 0 {
		c.refused.Add(1)
		return false
	}
	r.Status, r.Headers, r.Response, r.LatencyMS, r.State = e.Status, e.Headers, e.Response, e.LatencyMS, e.State
	r.Reply = schema.ReplyOf(r.Response)
	r.Attempts, r.Cached = 0, true
	return true
}

// verify reports whether f's MAC is the one this cache's key gives its
// entry under key.
func (c *Cache) verify(key string, f *cacheFile) bool {
	got, err := hex.DecodeString(f.MAC)
	return err == nil && hmac.Equal(got, c.mac(key, f.Entry))
}

// readEntry reads an entry file: a regular file of at most MaxCacheEntry
// bytes, opened without blocking (a FIFO put in its place is refused, not
// waited on).
func readEntry(path string) ([]byte, error) {
	f, err := spec.FileAccess{AllowOutside: true}.Open("", path, MaxCacheEntry)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxCacheEntry+1))
}

// Put stores a usable response; failures to write are ignored (the cache
// is an optimisation, never a source of errors).
func (c *Cache) Put(key string, r *schema.Result) {
	if r.Error != nil || len(r.Response) == 0 {
		return
	}
	entry, err := json.Marshal(cacheEntry{Status: r.Status, Headers: r.Headers, Response: r.Response, LatencyMS: r.LatencyMS, State: r.State})
	if err != nil {
		return
	}
	b, err := json.Marshal(cacheFile{MAC: hex.EncodeToString(c.mac(key, entry)), Entry: entry})
	if err != nil || len(b) > MaxCacheEntry {
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

// LoadCacheKey reads the cache key in path — CacheKeySize random bytes
// in hex — creating it when missing: drawn from crypto/rand, written with
// mode 0600 in a directory made with mode 0700, and linked into place so
// that two runs starting at once agree on one key. It refuses a key file
// other users may read or write (where the system has such modes): whoever
// reads the key can sign cache entries.
func LoadCacheKey(path string) ([]byte, error) {
	key, err := readCacheKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, ".cache-key-*") // mode 0600
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	key = make([]byte, CacheKeySize)
	if _, err := rand.Read(key); err != nil {
		tmp.Close()
		return nil, err
	}
	_, werr := tmp.WriteString(hex.EncodeToString(key) + "\n")
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	// Another run may have linked its key first: the file is the key.
	return readCacheKey(path)
}

// readCacheKey reads the key file at path.
func readCacheKey(path string) ([]byte, error) {
	f, err := spec.FileAccess{AllowOutside: true}.Open("", path, 4096)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if m := st.Mode().Perm(); runtime.GOOS != "windows" && m&0o077 != 0 {
		return nil, fmt.Errorf("the response cache's key %s may be read or written by other users (mode %04o): whoever reads it can forge cache entries; make it private (chmod 600 %s)", path, m, path)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(string(bytes.TrimSpace(b)))
	if err != nil || len(key) != CacheKeySize {
		return nil, fmt.Errorf("%s does not hold a response cache key (%d hex digits); delete it, and the next run with --cache makes a new one (the entries the old key signed are then called again)", path, 2*CacheKeySize)
	}
	return key, nil
}
