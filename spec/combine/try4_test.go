package combine

import (
	"os"
	"testing"
)

func TestTry4(t *testing.T) {
	s := rep(200, 5)
	if os.Getenv("SHAPE") == "2" { s = rep(1000, 2) }
	if os.Getenv("SHAPE") == "3" { s = []int{300,300,300} }
	Count("pairwise", s, 0, 0)
}
