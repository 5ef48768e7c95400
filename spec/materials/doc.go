// Package materials owns the material values a suite's `materials` blocks
// hold and the reading of material source files: [Value] is one value
// (its level, tags, normalisations and the file:line it came from), and
// [Parse] reads the bytes of a .txt, .csv or .jsonl material file into
// values, with one diagnostic (file, line and, for JSONL, column) per bad
// row and at most a screenful of them per file. [CheckType] says whether a
// path names a material file at all.
//
// It also owns composed materials (a block's `compose = ["{姓}{名}"]`):
// [Compose] builds a block's values from parsed [Pattern]s and the values
// of the blocks they name, within [ComposeLimit]; [Resolve] composes a
// suite's [Block]s, each after the blocks it names, and reports cycles;
// [LevelLess] orders the material levels (M1 < M2 < …) a composed value
// takes the highest of. Parsing the patterns' placeholders and the
// diagnostic of an unknown name (it points into the suite's source and
// suggests names) stay with the loader.
//
// The package reads no file itself: the suite language (package spec)
// opens the file under its file-access rules and hands the bytes over,
// then appends the diagnostics to its own. It knows nothing of HCL bodies,
// the loader's evaluation context or templates; the combinations come from
// spec/combine.
package materials
