// Package turnstream owns the streaming of a long conversation's turn
// blocks (issue 35): it finds, in a suite file's text, the turn blocks of
// each top-level conversation block, masks them out of the text the
// loader parses, and parses them later in batches of at most
// [MaxBatchTurns] blocks ([MaxBatchBytes] bytes), each batch's syntax tree
// dropped once read.
//
// HCL parses a file whole, holding every token (about 100 bytes each) and
// the syntax tree of every turn at once, so a conversation of 100,000
// turns took 600 MB to load. [Skim] reads the text byte by byte (it
// follows strings, heredocs, interpolations, comments and brackets) and
// returns a [Stream] per conversation with the text masked: each run of
// consecutive turn blocks turned into one comment of the same bytes and
// lines, so every position in the masked text stays the file's.
// [Stream.Parse] parses one batch with the file's positions. A turn block
// that does not stand alone on its lines, or text before it on its line
// that is not ASCII (HCL counts columns in grapheme clusters), leaves its
// conversation unstreamed; text the skim cannot follow leaves the file
// unstreamed.
//
// The package knows the HCL syntax only: it does not decode turns, report
// into a suite's diagnostics, or decide when to fall back to the whole
// parse; the suite loader (package spec) does, parsing every batch once
// before decoding so that a syntax error is found as the whole-file parse
// finds it.
package turnstream
