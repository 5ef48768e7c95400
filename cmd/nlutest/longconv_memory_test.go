package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxRSSOf runs the test binary as nlutest with args and returns its peak
// resident set size in bytes (VmHWM, which the child reports: see
// TestMain).
func maxRSSOf(t *testing.T, args ...string) int64 {
	t.Helper()
	status := filepath.Join(t.TempDir(), "status")
	cmd := childCmd(args...)
	cmd.Env = append(cmd.Env, "NLUTEST_TEST_HWM="+status)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nlutest %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	raw, err := os.ReadFile(status)
	if err != nil {
		t.Skipf("no /proc/self/status here: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		var kb int64
		if _, err := fmt.Sscanf(line, "VmHWM: %d kB", &kb); err == nil {
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/self/status")
	return 0
}

// Issue 35 (audit 2026-12-05, minor 9): memory per turn of one long
// conversation. validate and run of a conversation of 20,000 turns against
// the embedded memory bot, beside one of 2,000: the peak resident set may
// grow by 2 KiB a turn for validate and 4 KiB for run (the run lists every
// turn in its report). On 0bdf656 it grew 6.4 and
// 13.5 KiB a turn (145 and 281 MB at 20,000 turns); now about 1.1 and 1.7.
func TestLongConversationMemoryPerTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 22,000 turns")
	}
	if underRace {
		t.Skip("the race detector's shadow memory grows per allocation (2.8 and 6.6 KiB a turn under -race); .ci/run runs this without it")
	}
	suite := func(n int) string {
		var b strings.Builder
		b.WriteString("suite \"longconv\" {}\ntarget \"bot\" {\n  demo { endpoint = \"memory\" }\n}\nconversation \"long\" {\n")
		for i := range n {
			fmt.Fprintf(&b, "  turn {\n    user = \"第%d条消息\"\n  }\n", i)
		}
		b.WriteString("}\n")
		return b.String()
	}
	rss := map[string][2]int64{}
	for k, n := range []int{2000, 20000} {
		dir := writeSuite(t, suite(n))
		v := rss["validate"]
		v[k] = maxRSSOf(t, "validate", dir)
		rss["validate"] = v
		r := rss["run"]
		r[k] = maxRSSOf(t, "run", dir, "--out", filepath.Join(dir, "run"), "--quiet")
		rss["run"] = r
	}
	for cmd, limit := range map[string]int64{"validate": 2 << 10, "run": 4 << 10} {
		per := (rss[cmd][1] - rss[cmd][0]) / 18000
		t.Logf("%s: %d MB at 2,000 turns, %d MB at 20,000: %d bytes a turn", cmd, rss[cmd][0]>>20, rss[cmd][1]>>20, per)
		if per > limit {
			t.Errorf("%s: peak RSS grows %d bytes a turn (%d MB at 2,000 turns, %d MB at 20,000), want at most %d", cmd, per, rss[cmd][0]>>20, rss[cmd][1]>>20, limit)
		}
	}
}
