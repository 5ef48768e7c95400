// Package nesting owns the check that a suite file's HCL does not nest too
// deep, run on the file's bytes before HCL parses them ([TooDeep]):
// HCL's parser and hclsyntax.Walk recurse once per level of an expression,
// so a file nesting a million levels deep overflows the Go stack (a fatal
// error, not a diagnostic). The check walks the bytes once, without
// parsing, and counts a level for every construct that makes the parse
// tree deeper:
//
//   - brackets, braces and parentheses, quoted strings, heredocs and the
//     interpolations and directives (${…}, %{…}) in them, while open;
//   - template directives %{ if } and %{ for } until their %{ endif } or
//     %{ endfor } (the body nests inside the directive);
//   - a conditional's `?` for the rest of its expression (a conditional in
//     the condition, the true or the false branch nests in it);
//   - a binary operator for the rest of its chain: a + b + c parses as
//     (a + b) + c, one level per operator. A looser operator ends the
//     tighter chains before it (a == b || c == d is two levels, not
//     three), as precedence does in the parse tree;
//   - a unary operator (!, -), an index step after a value (x[i]), a splat
//     (x[*], x.*) and an attribute step after an index or a call, for the
//     rest of the operand.
//
// A comma or `=` ends an expression (a list item, an argument, an
// attribute), and a `:` ends a conditional's true branch or a for
// expression's part. The count is never below the depth HCL builds for an
// expression and at most a few times it, so a bound on it bounds the stack
// HCL and Walk use.
//
// The package reads bytes only: the limit (spec.MaxNesting) and the
// diagnostic are the suite language's (spec.CheckSource); it does not
// parse HCL or know its blocks.
package nesting
