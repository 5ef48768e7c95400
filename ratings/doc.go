// Package ratings owns the rating sheets people fill in (`nlutest ratings
// export`, a suite's ratings block): the items of a run's results (one per
// single case, one per conversation with its transcript) and the digest of
// the replies each item shows (ReadSheetItems, ReplyDigests), so a sheet is
// never applied to other replies; and the CSV sheet and rubric files
// written for spreadsheet programs (WriteSheet, WriteRubric: a byte order
// mark, cells cut to the spreadsheet limit and neutralised against formula
// injection). The ratings block and reading a filled sheet back are
// ratings/sheet's (a leaf the ratings family decodes the block through),
// and the figures a sheet gives are the ratings family's (assert).
package ratings
