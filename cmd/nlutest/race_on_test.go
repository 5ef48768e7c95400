//go:build race

package main

// underRace is true when the race detector is on. Its shadow memory grows
// with every allocation the program makes, so peak-RSS checks measure the
// detector rather than nlutest and skip under it; .ci/run runs them once
// without it.
const underRace = true
