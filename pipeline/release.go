package pipeline

import "runtime/debug"

// ReleaseGarbage runs the garbage collector and returns the free heap to
// the operating system once n results have been run or replayed, before
// their report is built, when the report is big: from BigReport results
// on. Through a run or a replay the heap holds, besides what is kept, up
// to as much again of garbage (requests, responses, decoded records; the
// collector's goal with GOGC=100), spread over its pages. The report then
// needs one block of 360 bytes per listed case (7.2 MB at 20,000 cases,
// up to 72 MB at the 200,000 a report lists), which those pages seldom
// hold in one piece, so the heap grew by that much over the peak it had.
// Released first, the report's block takes the garbage's place instead:
// the peak RSS of nlutest run of 20,000 cases falls by 2-4 MB, that of
// nlutest eval of 1,000,000 results by about 30 MB (docs/performance.md,
// issue 27). It costs one collection of what is kept, once per report.
func ReleaseGarbage(n int) {
	if n >= BigReport {
		debug.FreeOSMemory()
	}
}

// BigReport is the number of results from which ReleaseGarbage releases
// memory: a report of 8,192 listed cases needs 3 MB in one block.
const BigReport = 8192
