// Package cputime reads the CPU time the process has used, for the
// benchmarks that report CPU per case or per request (docs/performance.md):
// unlike wall-clock time, it does not grow when other processes keep the
// machine busy.
package cputime
