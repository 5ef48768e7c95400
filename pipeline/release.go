package pipeline

import "runtime/debug"

// ReleaseGarbage runs the garbage collector and returns the free heap to
// the operating system once n results have been run or replayed, before
// their report is built, when the report is big: from BigReport results
// on. Through a run or a replay the heap holds, besides what is kept, up
// to as much again of garbage (requests, responses, decoded records; the
// collector's goal with GOGC=100), spread over its pages. The report then
// needs, per listed case, a sort key and a copy of the case's entry in one
// block each (about 150 bytes a case: 3 MB at 20,000 cases, 29 MB at the
// 200,000 a report lists), which those pages seldom hold in one piece, so
// the heap would grow by that much over the peak it had. Released first,
// the report's blocks take the garbage's place instead: measured on
// 2026-12-02 at main 005ceef, the peak RSS of nlutest run of 20,000 cases
// is 31.4-31.9 MB with it and 34.4-36.3 MB without, that of nlutest eval
// of 1,000,000 results 104-111 MB against 124-127 MB (docs/performance.md,
// issue 27). It costs one collection of what is kept, once per report:
// about 10 ms after a run of 20,000 cases, which BenchmarkRunVsClient
// counts as the command does.
func ReleaseGarbage(n int) {
	if n >= BigReport {
		debug.FreeOSMemory()
	}
}

// BigReport is the number of results from which ReleaseGarbage releases
// memory: a report of 8,192 listed cases needs 3 MB in one block.
const BigReport = 8192
