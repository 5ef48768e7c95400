package importer

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec"
)

// MaxImportBytes caps what one import reads: the sum of the sizes of the
// files it imports (convos, partial convos, utterance lists and object
// files; Rasa test files and domain files). It is checked on the sizes
// before any file is parsed, and again on the bytes read. The suite
// written must also fit a suite file (spec.MaxSuiteFileBytes), which
// render checks as it writes.
const MaxImportBytes = 16 << 20

// Skipped is a file (or directory) under an imported directory that was
// not imported, and why.
type Skipped struct {
	Path string // relative to the Botium directory (a Rasa domain directory's entries: joined to it)
	Why  string
}

// listDir lists the regular files under dir that want accepts, relative,
// sorted, with their total size. Everything else is skipped with its
// reason: other files, symbolic links (never followed: an import reads
// only what is in the directory), FIFOs and devices (never opened),
// hidden directories and node_modules (not searched).
func listDir(dir string, want func(name string) bool, other string) (files []string, size int64, skipped []Skipped, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch m := d.Type(); {
		case p == dir:
		case d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules"):
			skipped = append(skipped, Skipped{rel + "/", "a hidden directory or node_modules, not searched"})
			return filepath.SkipDir
		case d.IsDir():
		case m&fs.ModeSymlink != 0:
			to, _ := os.Readlink(p)
			skipped = append(skipped, Skipped{rel, fmt.Sprintf("a symbolic link (to %s), not followed: an import reads only the files in the directory itself; copy the file in to import it", to)})
		case m&fs.ModeNamedPipe != 0:
			skipped = append(skipped, Skipped{rel, "a named pipe (FIFO), not a regular file; it is never opened"})
		case !m.IsRegular():
			skipped = append(skipped, Skipped{rel, "a device or socket, not a regular file; it is never opened"})
		case !want(d.Name()):
			skipped = append(skipped, Skipped{rel, other})
		default:
			info, err := d.Info()
			if err != nil {
				return err
			}
			files = append(files, rel)
			size += info.Size()
		}
		return nil
	})
	sort.Strings(files)
	return files, size, skipped, err
}

// tooMuchInput is the error of an import over MaxImportBytes.
func tooMuchInput(what string, size int64, split string) *InputError {
	return &InputError{Diags: hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Import too large",
		Detail: fmt.Sprintf("%s hold%s %d bytes, over the %s one import reads. Import them in parts, each into its own suite directory: %s.",
			what, plural1(what), size, sizeWords(MaxImportBytes), split)}}}
}

// plural1 is the "s" of a verb after what: "the files hold", "x.yml holds".
func plural1(what string) string {
	if strings.HasPrefix(what, "The files") {
		return ""
	}
	return "s"
}

// reader reads the files of one import, counting the bytes against
// MaxImportBytes.
type reader struct {
	access spec.FileAccess
	read   int64
	what   string // the import's files, for the over-budget message
	split  string // how to split it
}

// file reads one file (a regular file, confined to the directory when
// access has one, never blocking), keeping the total within budget.
func (r *reader) file(path string) ([]byte, error) {
	src, _, err := r.access.Read("", path, MaxImportBytes)
	if err != nil {
		return nil, err
	}
	r.read += int64(len(src))
	if r.read > MaxImportBytes {
		return nil, tooMuchInput(r.what, r.read, r.split)
	}
	return src, nil
}

// checkText refuses a file that is not UTF-8 text (a NUL byte, an invalid
// UTF-8 sequence) at the first bad byte: Botium and Rasa read their files
// as UTF-8, and what is not cannot be imported faithfully.
func (s *suite) checkText(file string, src []byte) error {
	bad, summary, detail := bytes.IndexByte(src, 0), "Not a text file", "The file holds a NUL byte here; convo and test files are UTF-8 text. Remove the binary content, or the file."
	if bad < 0 {
		for i := 0; i < len(src); {
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n <= 1 {
				bad, summary = i, "Not UTF-8 text"
				detail = fmt.Sprintf("The byte 0x%02x here is not UTF-8, which Botium and Rasa read their files as. Save the file as UTF-8.", src[i])
				break
			}
			i += n
		}
	}
	if bad < 0 {
		return nil
	}
	line := 1 + bytes.Count(src[:bad], []byte{'\n'})
	start := bytes.LastIndexByte(src[:bad], '\n') + 1
	col := 1 + utf8.RuneCount(src[start:bad])
	return s.inputError(&hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: s.rangeAt(file, line, col)})
}
