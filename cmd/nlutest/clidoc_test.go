package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The documentation of the flags, checked against the flag sets.
//
// How the docs mark a command's flags: each command has a section whose
// heading is `nlutest COMMAND` (docs/cli.md; annotate and fmt in
// docs/annotate.md, which cli.md points to), and in it a table whose
// header's first cell is "flag"; every `-x` or `--x …` in backticks in a
// row's first cell is a flag of the command — a flag shared with another
// command is named there too, its meaning "as for `run`". A command
// without flags needs no table.

// cliCommands are the commands of `nlutest help`: each usage line's
// leading lower-case words (`ratings export`, `import botium`).
func cliCommands(t *testing.T) [][]string {
	t.Helper()
	var out [][]string
	word := regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	for _, line := range strings.Split((&App{}).usage(), "\n") {
		rest, ok := strings.CutPrefix(line, "  nlutest ")
		if !ok {
			continue
		}
		var words []string
		for _, w := range strings.Fields(rest) {
			if !word.MatchString(w) {
				break
			}
			words = append(words, w)
		}
		out = append(out, words)
	}
	if len(out) < 15 {
		t.Fatalf("found %d commands in the usage text; the scan is broken", len(out))
	}
	return out
}

// commandFlags builds a command's flag set as the CLI does (`nlutest
// COMMAND -h`) and returns its flags' names.
func commandFlags(t *testing.T, words []string) []string {
	t.Helper()
	code, _, errs := runCLI(t, t.TempDir(), nil, append(slices.Clone(words), "-h")...)
	if code != ExitPass {
		t.Fatalf("nlutest %s -h: exit %d\n%s", strings.Join(words, " "), code, errs)
	}
	var names []string
	for _, line := range strings.Split(errs, "\n") {
		if rest, ok := strings.CutPrefix(line, "  -"); ok {
			names = append(names, strings.Fields(rest)[0])
		}
	}
	return names
}

// docSection is a heading's section of a docs page.
type docSection struct {
	file, heading string
	lines         []string
}

// docSections returns the sections of docs/*.md whose heading is
// "nlutest …" (backticks aside), by that text.
func docSections(t *testing.T) map[string][]docSection {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs pages: %v", err)
	}
	out := map[string][]docSection{}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		fence := false
		for i, l := range lines {
			if strings.HasPrefix(l, "```") {
				fence = !fence
			}
			level := len(l) - len(strings.TrimLeft(l, "#"))
			if fence || level == 0 || !strings.HasPrefix(l[level:], " ") {
				continue
			}
			heading := strings.ReplaceAll(strings.TrimSpace(l[level:]), "`", "")
			if !strings.HasPrefix(heading, "nlutest ") {
				continue
			}
			end := len(lines)
			inFence := false
			for j := i + 1; j < len(lines); j++ {
				if strings.HasPrefix(lines[j], "```") {
					inFence = !inFence
				}
				if l2 := len(lines[j]) - len(strings.TrimLeft(lines[j], "#")); !inFence && l2 > 0 && l2 <= level && strings.HasPrefix(lines[j][l2:], " ") {
					end = j
					break
				}
			}
			out[heading] = append(out[heading], docSection{filepath.Base(p), heading, lines[i+1 : end]})
		}
	}
	return out
}

// documentedFlags are the flags a section's flag tables name.
func documentedFlags(sec docSection) (names []string, tables int) {
	code := regexp.MustCompile("`([^`]*)`")
	inTable := false
	for _, l := range sec.lines {
		if !strings.HasPrefix(l, "|") {
			inTable = false
			continue
		}
		cells := strings.Split(strings.ReplaceAll(l, `\|`, "¦"), "|") // a cell's \| is no border
		first := strings.TrimSpace(cells[1])
		switch {
		case !inTable && first == "flag":
			inTable = true
			tables++
		case inTable && !strings.HasPrefix(first, "---"):
			for _, m := range code.FindAllStringSubmatch(first, -1) {
				if f := strings.Fields(m[1]); len(f) > 0 && strings.HasPrefix(f[0], "-") {
					names = append(names, strings.TrimLeft(f[0], "-"))
				}
			}
		}
	}
	return names, tables
}

// TestCLIDocListsEveryFlag: the docs list every flag of every command of
// `nlutest help`, from the flag sets the commands build (so a flag or a
// command added later is checked as it lands), and no flag a command
// does not have.
func TestCLIDocListsEveryFlag(t *testing.T) {
	sections := docSections(t)
	checked := map[string]bool{}
	for _, words := range cliCommands(t) {
		cmd := strings.Join(words, " ")
		flags := commandFlags(t, words)
		// The section of the command, or of its first words (import
		// botium and import rasa-e2e are documented as nlutest import).
		var secs []docSection
		for n := len(words); n > 0 && secs == nil; n-- {
			secs = sections["nlutest "+strings.Join(words[:n], " ")]
		}
		switch {
		case len(secs) == 0 && len(flags) > 0:
			t.Errorf("nlutest %s has the flags %q but no docs section headed \"nlutest %s\"", cmd, flags, cmd)
			continue
		case len(secs) == 0:
			continue
		case len(secs) > 1:
			t.Errorf("nlutest %s: %d docs sections are headed %q (%s, %s): keep one", cmd, len(secs), secs[0].heading, secs[0].file, secs[1].file)
		}
		sec := secs[0]
		if checked[sec.file+sec.heading] {
			continue
		}
		checked[sec.file+sec.heading] = true
		documented, tables := documentedFlags(sec)
		if tables == 0 && len(flags) > 0 {
			t.Errorf("%s, %q: no flag table (| flag | meaning |), but nlutest %s has the flags %q", sec.file, sec.heading, cmd, flags)
			continue
		}
		for _, f := range flags {
			if !slices.Contains(documented, f) {
				t.Errorf("%s, %q: the flag table lacks -%s, a flag of nlutest %s", sec.file, sec.heading, f, cmd)
			}
		}
		for _, f := range documented {
			if !slices.Contains(flags, f) {
				t.Errorf("%s, %q: the flag table lists -%s, which nlutest %s does not have (its flags: %q)", sec.file, sec.heading, f, cmd, flags)
			}
		}
	}
	if len(checked) < 15 {
		t.Errorf("checked %d docs sections; the scan is broken", len(checked))
	}
}
