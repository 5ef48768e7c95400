package main

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestShardProcessesInParallel is docs/scale-out.md's recipe on one
// machine: the built binary runs suites/quickstart (the embedded demo NLU)
// as N shard processes at once, as N CI jobs would, and `nlutest merge`
// joins them; the merged metrics equal an unsharded run's (latency aside,
// which is timing), and the shards together hold every case exactly once.
func TestShardProcessesInParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "nlutest")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	suite := filepath.Join("..", "..", "suites", "quickstart")
	full := filepath.Join(dir, "full")
	// The quickstart gates p95 latency, which a loaded machine can fail
	// (exit 1); the comparison below leaves latency out, so only a usage
	// or internal error stops the recipe.
	if out, err := exec.Command(bin, "run", suite, "--out", full, "--quiet").CombinedOutput(); !gateOnly(err) {
		t.Fatalf("unsharded run: %v\n%s", err, out)
	}
	const n = 3
	cmds := make([]*exec.Cmd, n)
	outs := make([]bytes.Buffer, n)
	shards := make([]string, n)
	for k := range n {
		shards[k] = filepath.Join(dir, fmt.Sprintf("shard-%d", k+1))
		cmds[k] = exec.Command(bin, "run", suite, "--shard", fmt.Sprintf("%d/%d", k+1, n), "--out", shards[k], "--quiet")
		cmds[k].Stdout, cmds[k].Stderr = &outs[k], &outs[k]
		if err := cmds[k].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for k, c := range cmds {
		// A shard may fail its thresholds on its own share (exit 1); only
		// a usage or internal error stops the recipe.
		if err := c.Wait(); !gateOnly(err) {
			t.Fatalf("shard %d/%d: %v\n%s", k+1, n, err, outs[k].String())
		}
	}
	merged := filepath.Join(dir, "merged")
	args := append([]string{"merge", "--out", merged, "--quiet"}, shards...)
	if out, err := exec.Command(bin, args...).CombinedOutput(); !gateOnly(err) {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	want, got := loadReport(t, full), loadReport(t, merged)
	if got.Metrics.Total != want.Metrics.Total || want.Metrics.Total == 0 {
		t.Fatalf("merged run has %d cases, the unsharded run %d", got.Metrics.Total, want.Metrics.Total)
	}
	if w, g := withoutLatency(want.Metrics), withoutLatency(got.Metrics); w != g {
		t.Errorf("merged metrics differ from the unsharded run:\nwant %s\ngot  %s", w, g)
	}
}

// gateOnly reports whether a command's error is at most a failed verdict
// (exit 1): thresholds, never usage or internal errors.
func gateOnly(err error) bool {
	var ee *exec.ExitError
	return err == nil || errors.As(err, &ee) && ee.ExitCode() == ExitFail
}
