package pipeline

import "runtime"

// ReleaseGarbage runs the garbage collector once n results have been run
// or replayed, before their report is built, when the report is big: from
// BigReport results on. Through a run or a replay the heap holds, besides
// what is kept, up to as much again of garbage (requests, responses,
// decoded records; the collector's goal with GOGC=100), spread over its
// pages. The report then needs, per listed case, a sort key and a copy of
// the case's entry in one block each (about 150 bytes a case: 3 MB at
// 20,000 cases, 29 MB at the 200,000 a report lists), which those pages
// seldom hold in one piece, so the heap would grow by that much over the
// peak it had. Collected first, the report's blocks take the garbage's
// place instead.
//
// It collects without returning the free pages to the operating system
// (debug.FreeOSMemory, which it called until 2026-12-02): that second
// step cost 12-16 ms after a run of 20,000 cases against 2-4.5 ms for the
// collection, and kept the peak RSS of that run lower only by 0.5-1.7 MB
// (31.3-31.7 MB with it, 32.0-33.4 MB without; without any collection
// 34.4-36.3 MB). `nlutest eval` of 1,000,000 results peaks at 105-118 MB
// either way (docs/performance.md, issue 27).
func ReleaseGarbage(n int) {
	if n >= BigReport {
		runtime.GC()
	}
}

// BigReport is the number of results from which ReleaseGarbage collects
// garbage: a report of 8,192 listed cases needs 3 MB in one block.
const BigReport = 8192
