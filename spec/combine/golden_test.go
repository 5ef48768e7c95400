package combine

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt from the current output")

// TestGolden pins the exact tuples of every strategy for a few shapes and
// seeds, so that the output stays byte-for-byte the same across runs,
// machines and Go versions. Refresh with `go test ./spec/combine -update`
// only for an intended change of output.
func TestGolden(t *testing.T) {
	var b bytes.Buffer
	section := func(title string, run func(yield func([]int) bool) error) {
		fmt.Fprintf(&b, "# %s\n", title)
		err := run(func(tuple []int) bool {
			for i, v := range tuple {
				if i > 0 {
					b.WriteByte(' ')
				}
				fmt.Fprint(&b, v)
			}
			b.WriteByte('\n')
			return true
		})
		if err != nil {
			t.Fatalf("%s: %v", title, err)
		}
	}
	uniq := func(sizes []int, seed uint64) {
		section(fmt.Sprintf("uniq sizes=%v seed=%d", sizes, seed), func(y func([]int) bool) error {
			return Uniq(sizes, seed, y)
		})
	}
	product := func(sizes []int, limit int) {
		section(fmt.Sprintf("product sizes=%v limit=%d", sizes, limit), func(y func([]int) bool) error {
			_, err := Product(sizes, limit, y)
			return err
		})
	}
	pairwise := func(sizes []int, seed uint64) {
		section(fmt.Sprintf("pairwise sizes=%v seed=%d", sizes, seed), func(y func([]int) bool) error {
			return Pairwise(sizes, seed, y)
		})
	}
	random := func(sizes []int, count int, seed uint64) {
		section(fmt.Sprintf("random sizes=%v count=%d seed=%d", sizes, count, seed), func(y func([]int) bool) error {
			_, err := Random(sizes, count, seed, y)
			return err
		})
	}

	uniq([]int{3, 5, 4}, 0) // {查询操作}{手机号11位}的{伴随关系}人员
	uniq([]int{10, 2, 7, 3}, 42)
	product([]int{3, 2, 2}, 10)
	pairwise([]int{3, 3, 3, 3}, 1)       // orthogonal array
	pairwise([]int{10, 2, 7, 3}, 42)     // IPOG
	pairwise([]int{4, 4, 4, 4, 4, 4}, 5) // IPOG from OA(16; 5, 4, 2), tabu search
	pairwise(repeat(13, 3), 0)           // tabu search
	pairwise([]int{6, 1, 5}, 3)          // Latin rectangle
	random([]int{4, 3, 2}, 10, 9)        // explicit shuffle
	random([]int{1000, 1000, 7}, 8, 9)   // keyed permutation
	random([]int{1 << 40, 1 << 40}, 5, 9)

	path := filepath.Join("testdata", "golden.txt")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		got, wantLines := bytes.Split(b.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := range min(len(got), len(wantLines)) {
			if !bytes.Equal(got[i], wantLines[i]) {
				t.Fatalf("output differs from %s at line %d:\n got: %s\nwant: %s", path, i+1, got[i], wantLines[i])
			}
		}
		t.Fatalf("output differs from %s in length: %d lines, want %d", path, len(got), len(wantLines))
	}
}
