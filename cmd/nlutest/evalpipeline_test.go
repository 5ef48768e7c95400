package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/assert"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// varyResults rewrites a bench results file so the results differ: every
// 7th response names another relation (a failure and a wrong relation),
// every 11th has another ontology, every 13th was not JSON (a call error),
// and latencies
// vary. It then appends records that repeat earlier ids with other
// responses, which eval must ignore (the first record of an id wins).
func varyResults(t *testing.T, path string) (lines int) {
	t.Helper()
	var out bytes.Buffer
	var firsts [][]byte
	err := runner.ReadLines(path, func(line []byte, n int) error {
		var r schema.Result
		if err := r.UnmarshalJSON(line); err != nil {
			return err
		}
		switch {
		case n%13 == 0:
			r.Response, r.Body = nil, `{"code":200,"data":[`
			r.Error = &schema.CallError{Type: schema.ErrInvalidJSON, Message: "response is not JSON"}
		case n%7 == 0:
			r.Response = []byte(strings.Replace(seed000Response, "酒店同房间同宿", "同车", 1))
		case n%11 == 0:
			r.Response = []byte(strings.Replace(seed000Response, `"ont":"SIM_Card"`, `"ont":"Phone"`, 1))
		}
		r.LatencyMS = float64(n%97) + 0.25
		b, err := schema.EncodeLine(&r)
		if err != nil {
			return err
		}
		out.Write(b)
		if n <= 40 {
			r.Response = []byte(`{"code":500}`)
			b, _ := schema.EncodeLine(&r)
			firsts = append(firsts, b)
		}
		lines++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range firsts {
		out.Write(b)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return lines
}

// The parallel replay (a reader, a collector per core, merged by sequence
// number) must give exactly what evaluating the file one result at a time
// into one collector gives: metrics, groups and listed cases.
func TestEvalReplayMatchesSerialEvaluation(t *testing.T) {
	s, path, err := writeEvalBench(t.TempDir(), 3000, false)
	if err != nil {
		t.Fatal(err)
	}
	n := varyResults(t, path)

	a := &App{}
	par := assert.NewCollector(s)
	stale, err := a.replayResults(path, assert.NewEvaluator(s), s.NewRebuilder(), par, map[string]bool{})
	if err != nil || stale != 0 {
		t.Fatalf("replay: stale %d, %v", stale, err)
	}

	ev, rb := assert.NewEvaluator(s), s.NewRebuilder()
	ser := assert.NewCollector(s)
	seen := map[string]bool{}
	err = runner.ReadLines(path, func(line []byte, _ int) error {
		var r schema.Result
		if err := r.UnmarshalJSON(line); err != nil {
			return err
		}
		if seen[r.ID] {
			return nil
		}
		seen[r.ID] = true
		c, ok := rb.Rebuild(&r.Case)
		if !ok {
			return fmt.Errorf("case %s does not rebuild", r.ID)
		}
		r.Case = *c
		ser.Add(&r, ev.Evaluate(&r))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	if got := par.Total(); got != n {
		t.Fatalf("replay counted %d results, want %d (repeated ids ignored)", got, n)
	}
	m := par.Metrics()
	if m.Failed == 0 || m.Errored == 0 || m.Passed == 0 {
		t.Fatalf("the varied results should pass, fail and error: %+v", m.Node)
	}
	for _, c := range []struct {
		name     string
		par, ser any
	}{
		{"metrics", par.Metrics(), ser.Metrics()},
		{"groups", par.Groups(), ser.Groups()},
		{"cases", par.Cases(), ser.Cases()},
	} {
		a, _ := json.Marshal(c.par)
		b, _ := json.Marshal(c.ser)
		if !bytes.Equal(a, b) {
			i := 0
			for i < len(a) && i < len(b) && a[i] == b[i] {
				i++
			}
			t.Errorf("%s differ at byte %d:\nparallel: …%s…\nserial:   …%s…", c.name, i, a[max(0, i-100):min(len(a), i+100)], b[max(0, i-100):min(len(b), i+100)])
		}
	}
}

// A record that does not decode stops eval with its file and line, exit 2,
// and leaves the run directory's report alone.
func TestEvalReportsTheLineOfABadRecord(t *testing.T) {
	dir := t.TempDir()
	_, path, err := writeEvalBench(dir, 2000, false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	// Line 1500 (in the third batch): a record cut short inside its slots.
	lines[1499] = append(bytes.TrimRight(lines[1499][:len(lines[1499])/3], "\n"), '\n')
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Dir(path)
	code, _, errs := runCLI(t, dir, nil, "eval", runDir)
	if code != ExitInvalid {
		t.Fatalf("eval exit %d, want %d\n%s", code, ExitInvalid, errs)
	}
	if want := runner.ResultsFile + ":1500: not a result record"; !strings.Contains(errs, want) {
		t.Errorf("stderr should name the line (%q):\n%s", want, errs)
	}
	if _, err := os.Stat(filepath.Join(runDir, "report.json")); !os.IsNotExist(err) {
		t.Errorf("no report.json should be written after a bad record (stat: %v)", err)
	}
}
