package combine

import (
	"fmt"
	"testing"
	"time"
)

func TestTry3(t *testing.T) {
	for _, s := range [][]int{{800,800,800,800}, {500,500,500,500}, rep(5, 400), {2000, 2000, 3, 3}, {4000,4000,3,3}, {100,100,100,100,100,100}} {
		start := time.Now()
		n, err := Count("pairwise", s, 0, 0)
		fmt.Println(len(s), s[0], n, err, time.Since(start))
	}
}
