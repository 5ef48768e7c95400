package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestImportYAMLAliases: anchors and aliases import as what they stand
// for (the 2026-12-05 audit's N3: `user: *hello` became the text "hello",
// a Botium `me: *m` turn was dropped, exit 0), merge keys merge, and the
// suites validate.
func TestImportYAMLAliases(t *testing.T) {
	data, err := filepath.Abs("../../importer/testdata/yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		args        []string
		wrote, want string
	}{
		{[]string{"rasa-e2e", filepath.Join(data, "rasa-anchors.yml")}, "2 conversations, 3 templates, 7 turns.", `template "退票"`},
		{[]string{"botium", filepath.Join(data, "botium-anchors")}, "1 conversation, 2 templates, 4 turns.", `contains_any = ["北京", "上海"]`},
	} {
		suite := filepath.Join(dir, tc.args[0])
		code, out, errs := runCLI(t, dir, nil, append(append([]string{"import"}, tc.args...), "-o", suite)...)
		if code != ExitPass || !strings.Contains(out, tc.wrote) || errs != "" {
			t.Errorf("import %s: exit %d, want 0 and %q\n%s%s", tc.args[0], code, tc.wrote, out, errs)
			continue
		}
		files, _ := filepath.Glob(filepath.Join(suite, "*.nlutest.hcl"))
		raw, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), tc.want) || strings.Contains(string(raw), `"hello"`) || strings.Count(string(raw), "user = \"我想订机票\"")+strings.Count(string(raw), "user = \"你好，我想订机票\"") != 2 {
			t.Errorf("import %s wrote:\n%s", tc.args[0], raw)
		}
		if code, out, errs := runCLI(t, dir, nil, "validate", suite); code != ExitPass {
			t.Errorf("validate %s: exit %d\n%s%s", suite, code, out, errs)
		}
	}
}

// TestImportRefusesOddInput: the audit's importer crashes (minor 1) and
// alias bomb are exit 2 with a diagnostic at file:line:col, or a correct
// translation; never "internal error"/"importer bug" (exit 3), never a
// half-written suite.
func TestImportRefusesOddInput(t *testing.T) {
	data, err := filepath.Abs("../../importer/testdata/yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deep := write("deep.yml", "test_cases:\n  - test_case: 深\n    steps:\n      - user: 你好\n      - slot_was_set:\n          - x: "+strings.Repeat("[", 9000)+strings.Repeat("]", 9000)+"\n")
	dup := write("dup.yml", "stories:\n- story: 重复\n  steps:\n  - user: |\n      你好\n    intent: greet\n    intent: other\n")
	nan := write("nan.yml", "test_cases:\n  - test_case: 非数\n    steps:\n      - user: 你好\n      - slot_was_set:\n          - a: !!float nan\n      - slot_was_not_set:\n          - b: .inf\n")
	slash := write("slash.yml", "test_cases:\n  - test_case: 反斜杠\n    steps:\n      - user: 你好\n      - slot_was_set:\n          - \"q\\\\\": 2\n          - \"a']['b\": 1\n")
	empty := write("empty/空.convo.txt", "空\n")
	write("binary/坏.convo.txt", "坏\n描述\xfe\n\n#me\n你好\n")
	write("mixed/空.convo.txt", "空\n")
	write("mixed/问候.convo.txt", "问候\n\n#me\n你好\n\n#bot\n您好\n")
	for i, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"rasa-e2e", filepath.Join(data, "laughs.yml")}, ExitInvalid, []string{"Error: Import expands too much", "laughs.yml:9:45", "The alias *l3 takes the import past its cap on copies", "100000 nodes"}},
		{[]string{"rasa-e2e", dup, "--partial"}, ExitInvalid, []string{"Error: Duplicate key", "dup.yml:7:5", `The key "intent" appears twice in this mapping (first at line 6)`}},
		{[]string{"rasa-e2e", deep, "--partial"}, ExitInvalid, []string{"Error: YAML nested too deep", "deep.yml:6:", "more than 64 deep"}},
		{[]string{"rasa-e2e", nan}, ExitInvalid, []string{"nan.yml:6:13", "nan.yml:8:13", "NaN and infinite numbers have no JSON form", "2 steps cannot be translated; nothing was written"}},
		{[]string{"rasa-e2e", nan, "--partial"}, ExitPass, []string{"Warning: Untranslatable Rasa step", "nan.yml:6:13"}},
		{[]string{"rasa-e2e", slash, "--partial"}, ExitPass, nil},
		{[]string{"botium", filepath.Dir(empty), "--partial"}, ExitInvalid, []string{"Convo without a turn", "Error: Nothing to import"}},
		{[]string{"botium", filepath.Join(dir, "binary"), "--partial"}, ExitInvalid, []string{"Error: Not UTF-8 text", "坏.convo.txt:2:3", "The byte 0xfe here is not UTF-8"}},
		{[]string{"botium", filepath.Join(dir, "mixed"), "--partial"}, ExitPass, []string{"Warning: Convo without a turn", "it is left out of the imported suite"}},
	} {
		suite := filepath.Join(dir, fmt.Sprintf("out%d", i))
		start := time.Now()
		code, out, errs := runCLI(t, dir, nil, append(append([]string{"import"}, tc.args...), "-o", suite)...)
		took := time.Since(start)
		if code != tc.code || strings.Contains(errs, "internal error") || strings.Contains(errs, "importer bug") {
			t.Errorf("import %v: exit %d, want %d\n%s%s", tc.args, code, tc.code, out, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(errs, w) {
				t.Errorf("import %v does not say %q:\n%s", tc.args, w, errs)
			}
		}
		if took > 5*time.Second {
			t.Errorf("import %v took %v", tc.args, took)
		}
		_, statErr := os.Stat(suite)
		switch {
		case tc.code != ExitPass && statErr == nil:
			t.Errorf("import %v failed but wrote %s", tc.args, suite)
		case tc.code == ExitPass:
			if code, out, errs := runCLI(t, dir, nil, "validate", suite); code != ExitPass {
				t.Errorf("validate the import of %v: exit %d\n%s%s", tc.args, code, out, errs)
			}
		}
	}
}

// TestImportListsSkipped: every entry of the directory that is not
// imported is listed with its reason (the audit's minor 2: a symlink and a
// FIFO were left out silently); a link's target outside the directory is
// never read, a FIFO never opened, and a symlinked directory argument is
// followed.
func TestImportListsSkipped(t *testing.T) {
	dir := t.TempDir()
	convos := filepath.Join(dir, "convos")
	for name, body := range map[string]string{
		"convos/ok.convo.txt": "好\n\n#me\n你好\n\n#bot\n您好\n", "convos/说明.md": "说明\n", "convos/.git/x.convo.txt": "x\n\n#me\nx\n",
		"outside/秘密.convo.txt": "秘密\n\n#me\n机密内容\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range [][2]string{{"../outside/秘密.convo.txt", "convos/link.convo.txt"}, {"../outside", "convos/sub"}, {"convos", "convos-link"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(convos, "fifo.convo.txt"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	want := []string{
		"nlutest: skipped .git/: a hidden directory or node_modules, not searched",
		"nlutest: skipped fifo.convo.txt: a named pipe (FIFO), not a regular file; it is never opened",
		"nlutest: skipped link.convo.txt: a symbolic link (to ../outside/秘密.convo.txt), not followed",
		"nlutest: skipped sub: a symbolic link (to ../outside), not followed",
		"nlutest: skipped 说明.md: not a Botium convo, partial convo or utterances file",
	}
	for _, arg := range []string{"convos", "convos-link"} {
		suite := filepath.Join(dir, "out-"+arg)
		code, errs := runCLIWithin(t, dir, "import", "botium", arg, "-o", suite)
		if code != ExitPass {
			t.Fatalf("import botium %s: exit %d\n%s", arg, code, errs)
		}
		for _, w := range want {
			if !strings.Contains(errs, w) {
				t.Errorf("import botium %s does not list %q:\n%s", arg, w, errs)
			}
		}
		files, _ := filepath.Glob(filepath.Join(suite, "*.nlutest.hcl"))
		if len(files) != 1 {
			t.Fatalf("import botium %s wrote %v", arg, files)
		}
		raw, _ := os.ReadFile(files[0])
		if !strings.Contains(string(raw), `text = "你好"`) || strings.Contains(string(raw), "机密") {
			t.Errorf("import botium %s wrote:\n%s", arg, raw)
		}
	}
}

// TestImportOutDir: -o an existing empty directory keeps it (the same
// directory, its mode), -o a symlink to one writes into its target and
// keeps the link (the audit's minor 3: both were replaced, the first by a
// 0700 directory), a new directory gets the mode a new directory gets, a
// link to nothing is refused.
func TestImportOutDir(t *testing.T) {
	samples, err := filepath.Abs("../../importer/testdata/botium-zh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept")
	target := filepath.Join(dir, "target")
	ref := filepath.Join(dir, "ref")
	for _, d := range []string{kept, target, ref} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(kept, 0o750); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(kept)
	for _, l := range [][2]string{{"target", "link"}, {"missing", "dangling"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	for _, out := range []string{"kept", "link", "fresh"} {
		if code, o, errs := runCLI(t, dir, nil, "import", "botium", samples, "-o", out); code != ExitPass {
			t.Fatalf("-o %s: exit %d\n%s%s", out, code, o, errs)
		}
	}
	after, _ := os.Stat(kept)
	if !os.SameFile(before, after) || after.Mode().Perm() != 0o750 {
		t.Errorf("-o kept: the directory was replaced (same: %v) or its mode changed: %v", os.SameFile(before, after), after.Mode())
	}
	if st, err := os.Lstat(filepath.Join(dir, "link")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("-o link: the link was replaced (%v, %v)", st.Mode(), err)
	}
	refMode, _ := os.Stat(ref)
	fresh, _ := os.Stat(filepath.Join(dir, "fresh"))
	if fresh.Mode().Perm() != refMode.Mode().Perm() {
		t.Errorf("-o fresh: mode %v, want %v as os.Mkdir makes", fresh.Mode().Perm(), refMode.Mode().Perm())
	}
	for _, d := range []string{kept, target, filepath.Join(dir, "fresh")} {
		if _, err := os.Stat(filepath.Join(d, "botium-zh.nlutest.hcl")); err != nil {
			t.Errorf("%s lacks the suite: %v", d, err)
		}
	}
	code, _, errs := runCLI(t, dir, nil, "import", "botium", samples, "-o", "dangling")
	if code != ExitInvalid || !strings.Contains(errs, "is a symbolic link to missing, which does not exist") {
		t.Errorf("-o dangling: exit %d\n%s", code, errs)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 6 {
		t.Errorf("leftovers in %s: %v", dir, entries)
	}
}

// TestImportInputCap: an import over 16 MiB of input is refused before a
// file is parsed, saying the limit and how to split it (the audit's
// minor 4: three 25 MB convos took 13.9 s and 793 MB, then exit 3 for a
// suite over 64 MiB). The files are sparse: nothing is read.
func TestImportInputCap(t *testing.T) {
	dir := t.TempDir()
	convos := filepath.Join(dir, "many")
	if err := os.Mkdir(convos, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"c0.convo.txt", "c1.convo.txt", "c2.convo.txt"} {
		f, err := os.Create(filepath.Join(convos, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(25 << 20); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	start := time.Now()
	code, out, errs := runCLI(t, dir, nil, "import", "botium", "many", "-o", "manyo")
	if code != ExitInvalid || !strings.Contains(errs, "Error: Import too large") || !strings.Contains(errs, "hold 78643200 bytes, over the 16 MiB one import reads. Import them in parts, each into its own suite directory") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("refusing took %v", took)
	}
	if _, err := os.Stat(filepath.Join(dir, "manyo")); !os.IsNotExist(err) {
		t.Errorf("manyo was written (%v)", err)
	}
}
