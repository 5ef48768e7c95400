//go:build !race

package spec

// underRace is true when the race detector is on: it slows generation by an
// order of magnitude, so the million-case checks skip.
const underRace = false
