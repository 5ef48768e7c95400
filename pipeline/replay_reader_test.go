package pipeline

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// readAll runs the replay's reader over path alone and returns, in the
// order handed out, each line's number, sequence number and text, and the
// error the replay would report.
func readAll(t *testing.T, path string) (got []string, err error) {
	t.Helper()
	p := &replayer{path: path, work: make(chan *batch, 1), free: make(chan *batch, 1)}
	p.inflight.limit = replayInflight
	p.inflight.cond.L = &p.inflight.mu
	p.stopAt.Store(math.MaxInt64)
	done := make(chan error, 1)
	go func() {
		done <- p.read(NewKeySet(), 100)
		close(p.work)
	}()
	for b := range p.work {
		start := 0
		for i, end := range b.ends {
			got = append(got, fmt.Sprintf("line %d seq %d: %s", b.lines[i], b.seqs[i], b.buf[start:end]))
			start = end
		}
		p.inflight.give(b.held)
	}
	if err = <-done; errors.Is(err, errStop) {
		err = p.firstErr
	}
	return got, err
}

// The reader (generated ids looked up 16 at a time, and their lines taken
// out of a batch afterwards when seen before) hands out exactly the first
// line of each record key, numbered in order, as a reader that looks each
// key up in a map as its line comes: ids repeated within a group of 16 and
// across groups and batches, other keys (uppercase hex, Chinese dataset
// ids, repetitions "#2", the id 0) between them, lines long enough to fill
// a batch alone, and a line without an id, which stops the reading after
// every line before it was handed out.
func TestReplayReaderKeepsFirstOfEachKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 3))
	ids := make([]string, 300)
	for i := range ids {
		ids[i] = fmt.Sprintf("%016x", rng.Uint64())
	}
	ids = append(ids, "0000000000000000", "98645C6FF8C4D601", "订票-001", "天气-北京")
	for _, bad := range []int{0, 1500, 2999} { // line (0-based) without an id; 0: none
		var lines, lineIDs []string
		for n := range 3000 {
			var rec string
			id := ids[rng.IntN(len(ids))]
			if n > 0 && rng.IntN(4) == 0 {
				id = lineIDs[n-1-rng.IntN(min(n, 20))] // within a group of 16 or near
			}
			lineIDs = append(lineIDs, id)
			switch {
			case bad > 0 && n == bad:
				rec = `{"suite":"无","text":"没有编号"}`
			case rng.IntN(10) == 0:
				rec = fmt.Sprintf(`{"id":"%s","repeat":%d,"target":"t","text":"第%d行"}`, id, 1+rng.IntN(3), n)
			case rng.IntN(100) == 0:
				rec = fmt.Sprintf(`{"id":"%s","text":"%s"}`, id, strings.Repeat("长", 200_000))
			default:
				rec = fmt.Sprintf(`{"id":"%s","text":"第%d行"}`, id, n)
			}
			lines = append(lines, rec)
		}
		path := filepath.Join(t.TempDir(), "results.jsonl")
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var want []string
		seen := map[string]bool{}
		var wantErr string
		seq := 100
		err := runner.ReadLines(path, func(line []byte, n int) error {
			k, err := schema.RecordKey(line)
			if err != nil {
				wantErr = (&runner.RecordError{Path: path, Line: n, Err: err}).Error()
				return err
			}
			if !seen[k] {
				seen[k] = true
				want = append(want, fmt.Sprintf("line %d seq %d: %s", n, seq, line))
				seq++
			}
			return nil
		})
		if (err != nil) != (bad > 0) {
			t.Fatalf("reference reader: %v", err)
		}
		got, gerr := readAll(t, path)
		if gerr != nil && gerr.Error() != wantErr || gerr == nil && wantErr != "" {
			t.Errorf("bad line %d: error %v, want %s", bad, gerr, wantErr)
		}
		if len(got) != len(want) {
			t.Fatalf("bad line %d: %d lines handed out, want %d", bad, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("bad line %d: handed out\n%.120s\nwant\n%.120s", bad, got[i], want[i])
			}
		}
	}
}

// addGroup answers as add of each key in turn: keys repeated within a
// group and across groups, the key 0, and groups that make the table grow.
func TestHexSetAddGroupMatchesAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 4))
	var one, grouped hexSet
	for range 20000 {
		n := 1 + rng.IntN(keyGroup)
		keys := make([]uint64, n)
		for i := range keys {
			switch rng.IntN(8) {
			case 0:
				keys[i] = 0
			case 1, 2:
				keys[i] = uint64(rng.IntN(500)) // repeats
			default:
				keys[i] = rng.Uint64()
			}
		}
		added := make([]bool, n)
		grouped.addGroup(keys, added)
		for i, k := range keys {
			if want := one.add(k); added[i] != want {
				t.Fatalf("addGroup(%v)[%d] = %v, add %v", keys, i, added[i], want)
			}
		}
	}
	if one.n != grouped.n || one.zero != grouped.zero {
		t.Fatalf("sizes %d and %d", grouped.n, one.n)
	}
}
