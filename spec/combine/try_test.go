package combine

import (
	"fmt"
	"testing"
	"time"
)

func TestTry(t *testing.T) {
	shapes := [][]int{{5, 5, 5, 5}, {3, 3, 3}, rep(13, 3), rep(10, 10), {10, 2, 7, 3}, rep(4, 4), rep(5, 4), rep(20, 10), rep(100, 2), rep(10, 5), rep(6, 6), {4,4,4,4,4,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2}, rep(20, 10)}
	for _, s := range shapes {
		start := time.Now()
		n, err := Count("pairwise", s, 0, 0)
		fmt.Println(len(s), s[0], n, err, time.Since(start))
	}
}
func rep(n, v int) []int { s := make([]int, n); for i := range s { s[i] = v }; return s }
