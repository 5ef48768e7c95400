package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlutest/nlutest/runner"
)

// resultLine is a results.jsonl line started at t with latency ms.
func resultLine(id string, t time.Time, ms float64) string {
	return fmt.Sprintf(`{"id":%q,"text":"去北京","started":%q,"latency_ms":%g,"outcome":"pass"}`+"\n", id, t.Format(time.RFC3339Nano), ms)
}

// TestSpentCountsKilledSessions (issue 35, audit m7): the time of the
// sessions a run.json records, including one killed outright (its
// session still set in run.json), counted up to the end of the last
// result it recorded.
func TestSpentCountsKilledSessions(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	results := resultLine("a", t0.Add(time.Second), 200) + resultLine("b", t0.Add(3*time.Second), 500)
	for _, c := range []struct {
		name    string
		meta    Meta
		results string
		want    time.Duration
	}{
		{"finished sessions", Meta{Started: t0, Finished: t0.Add(time.Hour), Seconds: 2}, results, 2 * time.Second},
		{"second session killed", Meta{Started: t0.Add(-time.Hour), Seconds: 2, Session: t0}, results, 5500 * time.Millisecond},
		{"first session killed", Meta{Started: t0, Session: t0}, results, 3500 * time.Millisecond},
		{"killed before its first result", Meta{Started: t0.Add(-time.Hour), Seconds: 2, Session: t0.Add(time.Minute)}, results, 2 * time.Second},
		{"killed, the last line torn", Meta{Started: t0, Session: t0}, results + `{"id":"c","started":"2026-12-05T10:00:09Z","lat`, 3500 * time.Millisecond},
		{"killed, no results file", Meta{Started: t0, Seconds: 2, Session: t0}, "", 2 * time.Second},
		{"a run.json of before 2026-12", Meta{Started: t0, Finished: t0.Add(4 * time.Second)}, results, 4 * time.Second},
		{"a run.json of before 2026-12, killed", Meta{Started: t0}, results, 3500 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.results != "" {
				if err := os.WriteFile(filepath.Join(dir, runner.ResultsFile), []byte(c.results), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := c.meta.spent(dir); got != c.want {
				t.Errorf("spent = %v, want %v", got, c.want)
			}
		})
	}
}

// TestLastLine: the last whole line, however long (up to the limit),
// with or without a torn line after it.
func TestLastLine(t *testing.T) {
	long := strings.Repeat("长", 100_000) // 300,000 bytes: several blocks
	for _, c := range []struct {
		name, content, want string
		ok                  bool
	}{
		{"one line", "a\n", "a", true},
		{"two lines", "a\nb\n", "b", true},
		{"torn tail", "a\nb\nc", "b", true},
		{"long last line", "a\n" + long + "\n", long, true},
		{"long torn tail", "a\nb\n" + long, "b", true},
		{"no newline", "abc", "", false},
		{"empty", "", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := lastLine(p, 1<<20)
			if (err == nil) != c.ok || string(got) != c.want {
				t.Errorf("lastLine = %.20q, %v", got, err)
			}
		})
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("a\n"+long+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := lastLine(p, 1000); err == nil {
		t.Error("a last line over the limit was read")
	}
}
