// Package combine owns the combination strategies that turn a template's
// slots into cases: it decides which value of every slot goes into each
// generated case, and nothing else.
//
// A template has n slots; slot i offers sizes[i] candidate values, named by
// their indices 0..sizes[i]-1. A strategy streams index tuples (one per case)
// to a yield callback and stops when the callback returns false:
//
//   - [Uniq] (the default, the IAO corpus-factory write-up §4.1.3): every value of every slot at
//     least once, no two tuples alike, max(sizes) tuples.
//   - [Product]: the full cartesian product in mixed-radix order, optionally
//     capped, reporting how many tuples the cap dropped.
//   - [Pairwise]: an all-pairs covering array, far smaller than the product.
//   - [Random]: seeded draws without repeats while repeats can be avoided.
//
// [Count] says how many tuples a strategy will yield without streaming them.
//
// The package works on indices only: it knows nothing of HCL, material
// values or I/O. Every seeded choice uses the package's own splitmix64
// generator with explicit seeding, so the same sizes and seed give the same
// tuples on any machine and any Go version. Tuples are handed to yield in a
// slice that the strategy reuses: the callback must copy it to keep it. It
// may change the slice (to shift a value, say); the strategy keeps its state
// elsewhere and rewrites every element before the next call.
//
// Streaming allocates nothing per tuple. [Pairwise] holds its covering
// array, which is small by construction, and [Random] holds a seen-set only
// for tuple spaces too large to index with 62 bits.
package combine
