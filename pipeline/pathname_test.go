package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPathName (issue 35, N2): every name a suite gives (a target's, the
// suite's own) becomes one component that stays in the directory it is
// joined to, is no file nlutest keeps there, and is readable.
func TestPathName(t *testing.T) {
	long := strings.Repeat("长", 200) // 600 bytes
	for _, c := range []struct{ name, want string }{
		{"..", "_.._"}, // a trailing dot gets a "_" too: Windows drops it
		{".", "_._"},
		{"...", "_..._"},
		{"/", "-"},
		{`\`, "-"},
		{"../../escape", "_..-..-escape"},
		{`..\..\escape`, "_..-..-escape"},
		{"a/b", "a-b"},
		{"a-b", "a-b"},
		{"a\x00b", "a-b"},
		{"\x00", "-"},
		{"", "_"},
		{"A", "A"},
		{"a", "a"},
		{"生产 环境", "生产-环境"},
		{"候选", "候选"},
		{".lock", "_.lock"},
		{".hidden", "_.hidden"},
		{"comparison.json", "_comparison.json"},
		{"Report.JSON", "_Report.JSON"},
		{"results.jsonl", "_results.jsonl"},
		{"run.json", "_run.json"},
		{"targets.json", "_targets.json"},
		{"...", "_..._"},
		{"com1.txt", "_com1.txt"},
		{"console", "console"},
		{"v1.", "v1._"},
		{"e\u0301", "é"}, // NFD in, NFC out: one directory on macOS
		{"C:evil", "C-evil"},
	} {
		got := PathName(c.name)
		if got != c.want {
			t.Errorf("PathName(%q) = %q, want %q", c.name, got, c.want)
		}
		if err := checkComponent(got); err != nil {
			t.Errorf("PathName(%q): %v", c.name, err)
		}
	}
	// A long name is cut at a whole character and ends in a hash of the
	// whole name: two long names with one start stay apart.
	a, b := PathName(long+"甲"), PathName(long+"乙")
	for _, p := range []string{a, b} {
		if len(p) > maxPathName || !utf8.ValidString(p) || !strings.HasPrefix(p, "长长长") || !strings.Contains(p, "~") {
			t.Errorf("long name: %q (%d bytes)", p, len(p))
		}
	}
	if a == b || PathKey(a) == PathKey(b) {
		t.Errorf("two long names share %q", a)
	}
	if again := PathName(long + "甲"); again != a {
		t.Errorf("PathName is not stable: %q then %q", a, again)
	}
}

// TestPathKeyCollisions: names that a case-insensitive (or
// normalisation-insensitive) file system takes for one directory share a
// key; others do not.
func TestPathKeyCollisions(t *testing.T) {
	same := [][2]string{{"A", "a"}, {"OK", "ok"}, {"Straße", "STRASSE"}, {"é", "e\u0301"}, {"a/b", "a-b"}, {`a\b`, "a b"}, {"Ω", "ω"}}
	for _, p := range same {
		if PathKey(PathName(p[0])) != PathKey(PathName(p[1])) {
			t.Errorf("%q and %q should collide", p[0], p[1])
		}
	}
	differ := [][2]string{{"a", "b"}, {"..", "."}, {"生产", "测试"}, {"a.b", "a-b"}}
	for _, p := range differ {
		if PathKey(PathName(p[0])) == PathKey(PathName(p[1])) {
			t.Errorf("%q and %q should not collide", p[0], p[1])
		}
	}
}

// TestChildDirStaysUnder: the directory of every hostile name is a direct
// child of DIR, and making it there creates nothing outside DIR.
func TestChildDirStaysUnder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "par", "child")
	names := []string{"..", ".", "/", `\`, "\x00", "../..", "../../escape", "/etc", "a/../../b", strings.Repeat("../", 100), "C:\\x", "comparison.json", ".lock"}
	for _, n := range names {
		p, err := ChildDir(dir, n)
		if err != nil {
			t.Fatalf("%q: %v", n, err)
		}
		if filepath.Dir(p) != dir {
			t.Errorf("%q → %s, not directly under %s", n, p, dir)
		}
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(root, "par"))
	if len(entries) != 1 || entries[0].Name() != "child" {
		t.Errorf("par/ holds %v, want only child", entries)
	}
	for _, c := range []string{"", ".", "..", "a/b", `a\b`, "a\x00"} {
		if checkComponent(c) == nil {
			t.Errorf("checkComponent(%q) accepted it", c)
		}
	}
}
