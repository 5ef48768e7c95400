// Package readguard holds a test that keeps every file nlutest reads on
// its one opening function, spec.FileAccess.Open (and Read, built on it):
// regular files only, under a size cap, inside the suite directory unless
// --allow-outside (docs/language.md, "Files a suite reads"). It fails on a
// call to os.Open, os.OpenFile, os.ReadFile, ioutil.ReadFile or
// tls.LoadX509KeyPair in any other function than the few it lists, each
// with the reason it may (an os.OpenFile with O_WRONLY writes, and is
// not its concern). It has no code of its own.
package readguard
