//go:build race

package materials

// underRace is true when the race detector is on: it slows reading by an
// order of magnitude, so TestBadRowInBigFile reads smaller files.
const underRace = true
