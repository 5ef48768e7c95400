package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlutest/nlutest/internal/cputime"
)

// inlineSuite writes a suite whose materials list n values inline (or,
// with forExpr, builds about n values with nested for expressions).
func inlineSuite(tb testing.TB, n int, forExpr bool) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString("suite \"x\" {}\nmaterials \"m\" { values = ")
	if forExpr {
		side := 1
		for side*side < n {
			side++
		}
		fmt.Fprintf(&b, `flatten([for a in range(%d) : [for c in range(%d) : "${a}-${c}"]])`, side, side)
	} else {
		b.WriteString("[")
		for i := range n {
			fmt.Fprintf(&b, "\"值%d\", ", i)
		}
		b.WriteString("]")
	}
	b.WriteString(" }\ntemplate \"t\" { text = \"{m}\" }\n")
	p := filepath.Join(tb.TempDir(), "x"+FileSuffix)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

func loadInline(tb testing.TB, p string, n int) {
	s, diags := testLoad(p, Options{})
	if diags.HasErrors() {
		tb.Fatal(diags)
	}
	if got := len(s.Materials["m"].Values); got < n {
		tb.Fatalf("%d values, want %d", got, n)
	}
}

// BenchmarkLoadInlineValues: loading a suite with n inline values
// (docs/performance.md has the figures).
func BenchmarkLoadInlineValues(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, forExpr := range []bool{false, true} {
			name := fmt.Sprintf("n=%d", n)
			if forExpr {
				name += "/nested-for"
			}
			b.Run(name, func(b *testing.B) {
				p := inlineSuite(b, n, forExpr)
				for b.Loop() {
					loadInline(b, p, n)
				}
			})
		}
	}
}

// Inline values load in linear time (issue 12: go-cty's list conversion
// unified element types pairwise, 40,000 values took 16 s, 100,000 took
// 124 s). Ten times the values must cost less than 30 times the CPU time
// (quadratic would be 100 times); CPU time, the least of a few tries,
// so a loaded machine does not decide.
func TestInlineValuesLoadInLinearTime(t *testing.T) {
	if testing.Short() {
		t.Skip("measures CPU time; skipped with -short")
	}
	if _, ok := cputime.Process(); !ok {
		t.Skip("no CPU time on this system")
	}
	for _, forExpr := range []bool{false, true} {
		small, large := inlineSuite(t, 3_000, forExpr), inlineSuite(t, 30_000, forExpr)
		cost := func(p string, n, tries int) time.Duration {
			best := time.Duration(1 << 62)
			for range tries {
				before, _ := cputime.Process()
				loadInline(t, p, n)
				after, _ := cputime.Process()
				best = min(best, after-before)
			}
			return best
		}
		// Up to three rounds: a busy machine (other processes' cache and
		// GC pressure) has inflated one round's ratio to ×47, while the
		// quadratic conversion costs ×100 in every round, so the check
		// still fails on quadratic code and no longer on a loaded machine.
		var ratios []string
		for round := range 3 {
			a, b := cost(small, 3_000, 5), cost(large, 30_000, 3)
			t.Logf("nested for %v, round %d: 3,000 values %s CPU, 30,000 values %s CPU (×%.1f)", forExpr, round+1, a, b, float64(b)/float64(a))
			if b <= 30*a {
				ratios = nil
				break
			}
			ratios = append(ratios, fmt.Sprintf("×%.1f", float64(b)/float64(a)))
		}
		if ratios != nil {
			t.Errorf("nested for %v: 10× the values cost %s the CPU time in three rounds; want linear (under 30×)", forExpr, strings.Join(ratios, ", "))
		}
	}
}
