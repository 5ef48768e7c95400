package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/nlutest/nlutest/runner"
)

// Names that a suite controls (its own name, its targets' names) become
// file names: the default run directory .nlutest/runs/<time>-<SUITE>, and
// DIR/TARGET in a run against several targets. PathName is the one place
// such a name becomes a path component; nothing else joins a suite's name
// to a path.

// maxPathName is the longest component PathName returns, in bytes (file
// systems allow 255; the rest is left for the time prefix, temporary
// files' ".x.*.tmp" affixes and a human reading a listing).
const maxPathName = 96

// ownFiles are the names of the files nlutest keeps in a run directory or
// in the directory of a run against several targets: a target must not
// take one of them as its directory.
var ownFiles = []string{runner.ResultsFile, MetaFile, ReportFile, LockFile, ComparisonFile, TargetsFile}

// unsafeChars is what PathName replaces: anything but letters (Chinese
// included), digits, '.', '_' and '-'. That takes '/', '\\', NUL, ':',
// spaces and control characters out of a name.
var unsafeChars = regexp.MustCompile(`[^\p{L}\p{N}._-]+`)

// windowsDevices are the names Windows gives to devices in every
// directory ("nul.txt" included): a run directory named so cannot be
// made there.
var windowsDevices = regexp.MustCompile(`(?i)^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)`)

// PathName makes a name from a suite into one path component that stays
// in the directory it is joined to:
//
//   - the name is put in Unicode NFC (as macOS's file systems compare
//     names), and every run of characters other than letters (Chinese
//     included), digits, '.', '_' and '-' becomes one '-': "a/b", `a\b`
//     and "a b" are all "a-b", NUL is '-';
//   - a name that would start with '.' ("." and ".." among them: the
//     directory itself and its parent, or a hidden file), that names a
//     file nlutest keeps beside it (report.json, comparison.json, …), or
//     a Windows device (CON, NUL, COM1, …) gets a leading '_'; one that
//     would end with '.' (which Windows drops) a trailing '_'; the empty
//     name is "_";
//   - a name longer than 96 bytes keeps its first 80 or so bytes (whole
//     characters) and ends in '~' and 12 hex digits of the SHA-256 of
//     the whole name, so two long names that share their start stay
//     apart.
//
// Different names can still share a component ("a/b" and "a-b", and "A"
// and "a" on a file system that ignores case): callers that join several
// names to one directory compare their PathKey and refuse a collision.
func PathName(name string) string {
	s := unsafeChars.ReplaceAllString(norm.NFC.String(name), "-")
	if len(s) > maxPathName {
		sum := sha256.Sum256([]byte(name))
		tail := "~" + hex.EncodeToString(sum[:6])
		cut := maxPathName - len(tail)
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + tail
	}
	switch {
	case s == "":
		return "_"
	case s[0] == '.' || windowsDevices.MatchString(s) || isOwnFile(s):
		s = "_" + s
	}
	if strings.HasSuffix(s, ".") {
		s += "_"
	}
	return s
}

// isOwnFile reports whether s names one of ownFiles, case aside.
func isOwnFile(s string) bool {
	for _, f := range ownFiles {
		if strings.EqualFold(s, f) {
			return true
		}
	}
	return false
}

// folder folds case for PathKey (full Unicode folding: "ß" and "SS").
var folder = cases.Fold()

// PathKey is the key two components share when a file system may take
// them for one directory: they are compared with case folded and in NFC,
// as the default file systems of macOS and Windows compare names.
func PathKey(component string) string {
	return norm.NFC.String(folder.String(norm.NFC.String(component)))
}

// ChildDir is dir joined with the component PathName makes of name,
// checked to be a direct child of dir: an error (an internal one: PathName
// never lets a name out) instead of a path outside dir.
func ChildDir(dir, name string) (string, error) {
	c := PathName(name)
	if err := checkComponent(c); err != nil {
		return "", fmt.Errorf("%q: %w", name, err)
	}
	return filepath.Join(dir, c), nil
}

// checkComponent refuses a component that is not one local name: empty,
// ".", "..", one with a separator, or one a volume name could read.
func checkComponent(c string) error {
	if c == "" || c == "." || c == ".." || strings.ContainsAny(c, `/\`+"\x00") || !filepath.IsLocal(c) || filepath.Base(c) != c {
		return fmt.Errorf("%q is not a name of a file inside a directory", c)
	}
	return nil
}
