//go:build !race

package assert

// underRace is true when the race detector is on: it slows the large
// single-goroutine checks by an order of magnitude, so they skip.
const underRace = false
