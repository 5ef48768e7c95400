package importer

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/sources/conversation"
	"github.com/nlutest/nlutest/sources/template"
	"github.com/nlutest/nlutest/spec"
	"github.com/nlutest/nlutest/spec/jsonpath"
)

// TestYAMLAliases imports the anchors fixtures: each alias is the node its
// anchor names (the audit's N3 read `user: *hello` as the text "hello"
// and dropped a Botium `me: *m` turn), and merge keys merge as YAML 1.1
// says (the mapping's own keys win, then the earlier merged mapping).
func TestYAMLAliases(t *testing.T) {
	r, _, err := ReadRasa([]string{"testdata/yaml/rasa-anchors.yml"}, "", allFeatures)
	if err != nil {
		t.Fatal(err)
	}
	rasa := squash(string(r.Files["rasa-anchors.nlutest.hcl"]))
	b, _, err := ReadBotium("testdata/yaml/botium-anchors", allFeatures)
	if err != nil {
		t.Fatal(err)
	}
	botium := squash(string(b.Files["botium-anchors.nlutest.hcl"]))
	for _, tc := range []struct {
		suite, want string
		count       int
	}{
		{rasa, `user = "你好，我想订机票"`, 2},
		{rasa, `equals = "请问您要去哪里？"`, 2},
		{rasa, `"state:$.slots['城市']" = "北京"`, 2}, // the merged step's assertions
		{rasa, `user = "我想再订一张"`, 1},              // its own user wins
		{rasa, `try(state.slots["舱位"], null) != "北京"`, 1},
		{rasa, `template "改签"`, 1},
		{rasa, `template "改签（合并）"`, 1},
		{rasa, `text = "我要改签"`, 2},
		{rasa, `template "退票" { text = "我要退票"`, 1}, // the earlier merged mapping wins
		{rasa, `"hello"`, 0},
		{botium, `conversation "订票两次"`, 1},
		{botium, `user = "我想订机票"`, 2},
		{botium, `contains = ["请问去哪里"]`, 1},
		{botium, `contains_any = ["北京", "上海"]`, 1},
		{botium, `template "问天气（合并）" { text = "北京天气怎么样"`, 1},
	} {
		if got := strings.Count(squash(strings.ReplaceAll(tc.suite, "\n", " ")), squash(tc.want)); got != tc.count {
			t.Errorf("%s appears %d times, want %d:\n%s", tc.want, got, tc.count, tc.suite)
		}
	}
	if r.Convos != 2 || r.Templates != 3 || r.Turns != 7 || len(r.Problems) != 0 {
		t.Errorf("rasa: %d conversations, %d templates, %d turns, want 2, 3, 7; problems:\n%s", r.Convos, r.Templates, r.Turns, problems(r))
	}
	if b.Convos != 1 || b.Templates != 2 || b.Turns != 4 || len(b.Problems) != 0 {
		t.Errorf("botium: %d conversations, %d templates, %d turns, want 1, 2, 4; problems:\n%s", b.Convos, b.Templates, b.Turns, problems(b))
	}
}

// TestYAMLRefused: YAML the importers cannot take faithfully stops the
// import with one diagnostic at its line (exit 2 in the CLI), never a
// silent translation or a suite that does not load.
func TestYAMLRefused(t *testing.T) {
	deep := "test_cases:\n  - test_case: deep\n    steps:\n      - user: hi\n      - slot_was_set:\n          - x: " + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + "\n"
	for _, tc := range []struct {
		name, src, want string
		line, col       int
	}{
		{"duplicate key", "stories:\n- story: 重复\n  steps:\n  - user: |\n      你好\n    intent: greet\n    intent: other\n", `Duplicate key: The key "intent" appears twice in this mapping (first at line 6)`, 7, 5},
		{"9,000-deep nesting", deep, "YAML nested too deep: Lists and mappings nest more than 64 deep here", 6, 73},
		{"alias in its own anchor", "test_cases:\n  - test_case: c\n    steps: &s\n      - user: hi\n      - slot_was_set: *s\n", "YAML alias inside its own anchor: The alias *s", 5, 23},
		{"merge of a text", "a: &a 文本\ntest_cases:\n  - <<: *a\n    test_case: x\n", "Merge key without a mapping", 3, 5},
		{"two merge keys", "a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: *a\n  <<: *b\n", "Duplicate merge key", 5, 3},
		{"not YAML", "test_cases:\n  - test_case: x\n    steps: [\n", "Not YAML: The file is not YAML: did not find expected node content (the YAML parser's words)", 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"t.yml": tc.src})
			_, _, err := ReadRasa([]string{filepath.Join(dir, "t.yml")}, "", allFeatures)
			checkInputError(t, err, tc.want, "t.yml", tc.line, tc.col)
		})
	}
}

// TestNotText: a file that is not UTF-8 text is refused at its first bad
// byte (the fuzzer's byte flips wrote them into comments of the suite,
// which then did not parse).
func TestNotText(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"b/a.convo.txt": "名字\n\n#me\n你\xff好\n", "b/ok.convo.txt": "好\n\n#me\n你好\n",
		"t.yml": "test_cases:\n  - test_case: 空字节\n    steps:\n      - user: a\x00b\n",
	})
	_, _, err := ReadBotium(filepath.Join(dir, "b"), allFeatures)
	checkInputError(t, err, "Not UTF-8 text: The byte 0xff here is not UTF-8", "a.convo.txt", 4, 2)
	_, _, err = ReadRasa([]string{filepath.Join(dir, "t.yml")}, "", allFeatures)
	checkInputError(t, err, "Not a text file: The file holds a NUL byte here", "t.yml", 4, 16)
}

// checkInputError checks that err is an *InputError whose one diagnostic
// says want at file:line:col (line 0: anywhere).
func checkInputError(t *testing.T, err error, want, file string, line, col int) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) || len(ie.Diags) == 0 {
		t.Fatalf("error %v, want an InputError saying %q", err, want)
	}
	d := ie.Diags[len(ie.Diags)-1]
	if got := d.Summary + ": " + d.Detail; !strings.Contains(got, want) {
		t.Errorf("diagnostic %q, want %q", got, want)
	}
	if line == 0 {
		return
	}
	if d.Subject == nil || filepath.Base(d.Subject.Filename) != file || d.Subject.Start.Line != line || d.Subject.Start.Column != col {
		t.Errorf("diagnostic at %v, want %s:%d:%d", d.Subject, file, line, col)
	} else if ie.Sources[d.Subject.Filename] == nil {
		t.Errorf("no source for %s, so no source line is printed", d.Subject.Filename)
	}
}

// TestBillionLaughs: aliases that multiply stop at the expansion cap, at
// the first alias past it (l1 to l3 copy 12,330 nodes, each *l3 11,111
// more: the 8th *l3 of l4's line, column 45, passes 100,000), within a
// 64 MB of allocation, in a Rasa file, in a Rasa domain and in a Botium
// convo file. (Allocation, not wall time, is the bound: it is the same on
// a loaded runner and under -race, where this took 1.8 s; expansion
// past the cap would allocate gigabytes.)
func TestBillionLaughs(t *testing.T) {
	laughs, err := os.ReadFile("testdata/yaml/laughs.yml")
	if err != nil {
		t.Fatal(err)
	}
	botium := strings.Replace(string(laughs), "test_cases:\n  - test_case: 笑\n    steps:\n      - user: *l8\n      - slot_was_set:\n          - x: *l8\n",
		"convos:\n  - name: 笑\n    steps:\n      - me: *l8\n", 1)
	dir := writeFiles(t, map[string]string{"t.yml": "test_cases:\n  - test_case: x\n    steps:\n      - user: hi\n", "c/笑.yml": botium})
	for _, tc := range []struct {
		name string
		read func() error
		file string
	}{
		{"rasa", func() error { _, _, err := ReadRasa([]string{"testdata/yaml/laughs.yml"}, "", allFeatures); return err }, "laughs.yml"},
		{"domain", func() error {
			_, _, err := ReadRasa([]string{filepath.Join(dir, "t.yml")}, "testdata/yaml/laughs.yml", allFeatures)
			return err
		}, "laughs.yml"},
		{"botium", func() error { _, _, err := ReadBotium(filepath.Join(dir, "c"), allFeatures); return err }, "笑.yml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			err := tc.read()
			runtime.ReadMemStats(&after)
			checkInputError(t, err, "Import expands too much: The alias *l3 takes the import past its cap on copies", tc.file, 9, 45)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("refusing allocated %d MB, want at most 64 MB", alloc>>20)
			}
		})
	}
}

// TestIncludeBomb: partial convos that include each other twice, 22
// deep, would inline 4 million steps; the import stops at the cap of
// 100,000 copies, having allocated at most 64 MB (32 MB today, 41 MB under
// -race; the 4 million steps would take some 100 times that). Allocation,
// not wall time: it holds on a loaded runner. It used to be 93 MB, and
// 400 MB under -race, where a per-line regexp drew its matcher from a
// sync.Pool the race detector empties at random.
func TestIncludeBomb(t *testing.T) {
	files := map[string]string{"main.convo.txt": "主\n\n#me\n你好\n\n#include p0\n", "p22.pconvo.txt": "p22\n\n#bot\n您好\n"}
	for i := 0; i < 22; i++ {
		files["p"+itoa(i)+".pconvo.txt"] = "p" + itoa(i) + "\n\n#include p" + itoa(i+1) + "\n\n#include p" + itoa(i+1) + "\n"
	}
	dir := writeFiles(t, files)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, err := ReadBotium(dir, allFeatures)
	runtime.ReadMemStats(&after)
	checkInputError(t, err, `Import expands too much: Including the partial convo "p`, "", 0, 0)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("refusing allocated %d MB", alloc>>20)
	if alloc > 64<<20 {
		t.Errorf("refusing allocated %d MB, want at most 64 MB", alloc>>20)
	}
}

// TestInputBudget: an import whose files sum to more than MaxImportBytes
// is refused before any is parsed, with the limit and how to split it;
// the files here are sparse, so nothing is read.
func TestInputBudget(t *testing.T) {
	dir := writeFiles(t, map[string]string{"b/a.convo.txt": "", "b/b.convo.txt": "", "b/note.bin": "", "r/t.yml": ""})
	for _, p := range []string{"b/a.convo.txt", "b/b.convo.txt", "b/note.bin", "r/t.yml"} {
		if err := os.Truncate(filepath.Join(dir, p), 9<<20); err != nil {
			t.Fatal(err)
		}
	}
	_, skipped, err := ReadBotium(filepath.Join(dir, "b"), allFeatures)
	checkInputError(t, err, "Import too large: The files to import under "+filepath.Join(dir, "b")+" hold 18874368 bytes, over the 16 MiB one import reads. Import them in parts, each into its own suite directory: a subdirectory at a time", "", 0, 0)
	if len(skipped) != 1 || skipped[0].Path != "note.bin" {
		t.Errorf("skipped %v, want note.bin (not counted)", skipped)
	}
	_, _, err = ReadRasa([]string{filepath.Join(dir, "r/t.yml")}, filepath.Join(dir, "b/a.convo.txt"), allFeatures)
	checkInputError(t, err, "Import too large: The files to import hold 18874368 bytes, over the 16 MiB one import reads", "", 0, 0)
	if err := os.Truncate(filepath.Join(dir, "r/t.yml"), 17<<20); err != nil {
		t.Fatal(err)
	}
	_, _, err = ReadRasa([]string{filepath.Join(dir, "r/t.yml")}, "", allFeatures)
	checkInputError(t, err, "Import too large: The files to import hold 17825792 bytes, over the 16 MiB one import reads. Import them in parts, each into its own suite directory: a few test files at a time", "", 0, 0)
}

// TestSuiteTooBig: a suite that would pass the most a suite file holds
// is an input error found while writing, not a suite that then fails to
// load (the audit's three 25 MB convos: exit 3). The cap is lowered to
// 1 MiB here; text that quoting lengthens (a control character is
// written \u0001, six bytes) passes it from 200 KB of input.
func TestSuiteTooBig(t *testing.T) {
	defer func(n int) { maxSuiteBytes = n }(maxSuiteBytes)
	maxSuiteBytes = 1 << 20
	dir := writeFiles(t, map[string]string{"a.convo.txt": "短\n\n#me\n你好\n", "b.convo.txt": "长\n\n#me\n" + strings.Repeat("\x01", 200<<10) + "\n"})
	_, _, err := ReadBotium(dir, allFeatures)
	checkInputError(t, err, "Imported suite too large: The suite written from Botium convos in "+filepath.Base(dir)+" passed 1 MiB, the most a suite file may hold, at 1229", "", 0, 0)
	checkInputError(t, err, "after 2 of its 2 tests (quoting text for HCL lengthens it). Import the tests in parts, each into its own suite directory.", "", 0, 0)
	maxSuiteBytes = 2 << 20
	if _, _, err := ReadBotium(dir, allFeatures); err != nil {
		t.Errorf("under the cap: %v", err)
	}
}

// TestSlotValues: NaN and infinite slot values are listed (JSON has no
// form for them; the audit's nan.yml wrote Go's NaN into the suite), YAML
// numbers read as YAML reads them, and slot names with quotes,
// backslashes and control characters get paths that select them.
func TestSlotValues(t *testing.T) {
	src := "test_cases:\n  - test_case: 槽位\n    steps:\n      - user: 你好\n      - slot_was_set:\n" +
		"          - a: !!float nan\n          - b: .inf\n          - c: [1, -.inf]\n          - d: 0x1F\n" +
		"          - \"q\\\\\": 2\n          - \"引号'\": 3\n          - \"换\\n行\": 4\n" +
		"      - slot_was_not_set:\n          - e: !!float -Infinity\n          - f: \"{城市}\"\n"
	dir := writeFiles(t, map[string]string{"t.yml": src})
	r, _, err := ReadRasa([]string{filepath.Join(dir, "t.yml")}, "", allFeatures)
	if err != nil {
		t.Fatal(err)
	}
	got := problems(r)
	for _, line := range []string{"6", "7", "8", "14"} {
		if !strings.Contains(got, "t.yml:"+line+" Untranslatable Rasa step: ") {
			t.Errorf("line %s is not listed:\n%s", line, got)
		}
	}
	if n := strings.Count(got, "NaN and infinite numbers have no JSON form"); n != 4 || len(r.Problems) != 4 {
		t.Errorf("%d NaN/Inf problems of %d, want 4:\n%s", n, len(r.Problems), got)
	}
	out := r.Files["t.nlutest.hcl"]
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "t.nlutest.hcl"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(tmp, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}, conversation.Kind{}}})
	if s == nil || diags.HasErrors() {
		t.Fatalf("the suite does not load: %v\n%s", diags, out)
	}
	if !strings.Contains(string(out), `!= "{城市}"`) {
		t.Errorf("a value in an assert's condition is plain text, not a {slot} template:\n%s", out)
	}
	tracker := map[string]any{"slots": map[string]any{"d": int64(31), `q\`: int64(2), "引号'": int64(3), "换\n行": int64(4)}}
	for name, want := range map[string]int64{"d": 31, `q\`: 2, "引号'": 3, "换\n行": 4} {
		x, _, _, err := jsonpath.CompileExpect("state:" + slotPath(name))
		if err != nil {
			t.Errorf("%q: %s does not compile: %v", name, slotPath(name), err)
			continue
		}
		if got := x.Get(tracker); len(got) != 1 || got[0] != want {
			t.Errorf("%q: %s selects %v, want %d", name, slotPath(name), got, want)
		}
		if !strings.Contains(squash(string(out)), squash(quote("state:"+slotPath(name))+" = "+itoa(int(want)))) {
			t.Errorf("the suite lacks %s = %d:\n%s", quote("state:"+slotPath(name)), want, out)
		}
	}
}

// TestTurnlessTestsSkipped: a convo or test that sends no message is
// listed and left out of the suite (a SKIPPED comment marks its place),
// not written as a conversation without turns, which does not load.
func TestTurnlessTestsSkipped(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"b/空.convo.txt":  "空\n描述\n",
		"b/问候.convo.txt": "问候\n\n#me\n你好\n\n#bot\n您好\n",
		"t.yml":          "test_cases:\n  - test_case: 只有机器人\n    steps:\n      - utter: utter_x\n  - test_case: 问候\n    steps:\n      - user: 你好\n",
	})
	b, _, err := ReadBotium(filepath.Join(dir, "b"), noFeatures)
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := ReadRasa([]string{filepath.Join(dir, "t.yml")}, "", noFeatures)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		res           *Result
		file, problem string
	}{
		{b, "b.nlutest.hcl", "空.convo.txt:1 Convo without a turn"},
		{r, "t.nlutest.hcl", "t.yml:4 Test without a user message"},
	} {
		out := string(tc.res.Files[tc.file])
		if !strings.Contains(problems(tc.res), tc.problem) || !strings.Contains(out, "# SKIPPED ") {
			t.Errorf("want %q listed and a SKIPPED comment:\n%s\n%s", tc.problem, problems(tc.res), out)
		}
		if w := tc.res.Warnings(); !strings.Contains(w[len(w)-1].Detail, "it is left out of the imported suite") {
			t.Errorf("the --partial warning says %q", w[len(w)-1].Detail)
		}
		tmp := t.TempDir()
		if err := os.WriteFile(filepath.Join(tmp, tc.file), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		if s, diags := spec.Load(tmp, spec.Options{SourceKinds: []spec.SourceKind{template.Kind{}, conversation.Kind{}}}); s == nil || diags.HasErrors() {
			t.Errorf("the suite does not load: %v\n%s", diags, out)
		}
	}
	_, _, err = ReadBotium(writeFiles(t, map[string]string{"空.convo.txt": "空\n"}), noFeatures)
	checkInputError(t, err, "Nothing to import: No test sends the bot a message", "", 0, 0)
}

// TestDomainDirSkipped: the entries of a Rasa domain directory that are
// not YAML files are listed with the directory's path; a link is not
// followed, and the responses of the YAML files are read.
func TestDomainDirSkipped(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"domain/responses.yml": "responses:\n  utter_hi:\n  - text: 您好\n", "domain/说明.md": "x\n", "elsewhere.yml": "responses:\n  utter_x:\n  - text: x\n",
		"t.yml": "test_cases:\n  - test_case: 问候\n    steps:\n      - user: 你好\n      - utter: utter_hi\n",
	})
	if err := os.Symlink("../elsewhere.yml", filepath.Join(dir, "domain", "link.yml")); err != nil {
		t.Fatal(err)
	}
	r, skipped, err := ReadRasa([]string{filepath.Join(dir, "t.yml")}, filepath.Join(dir, "domain"), allFeatures)
	if err != nil {
		t.Fatal(err)
	}
	want := []Skipped{
		{filepath.Join(dir, "domain", "link.yml"), "a symbolic link (to ../elsewhere.yml), not followed: an import reads only the files in the directory itself; copy the file in to import it"},
		{filepath.Join(dir, "domain", "说明.md"), "not a .yml or .yaml file"},
	}
	if len(skipped) != 2 || skipped[0] != want[0] || skipped[1] != want[1] {
		t.Errorf("skipped %v, want %v", skipped, want)
	}
	if out := squash(string(r.Files["t.nlutest.hcl"])); !strings.Contains(out, `contains = ["您好"]`) || len(r.Problems) != 0 {
		t.Errorf("the domain's response is not read (%s):\n%s", problems(r), out)
	}
}
