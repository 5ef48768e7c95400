package ratings

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/ratings/sheet"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/schema"
)

// writeResults writes results as a run directory's results.jsonl, with
// tail appended (a torn last line) and returns the directory.
func writeResults(t *testing.T, rs []*schema.Result, tail string) string {
	t.Helper()
	dir := t.TempDir()
	var b []byte
	for _, r := range rs {
		line, err := schema.EncodeLine(r)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, line...)
	}
	b = append(b, tail...)
	if err := os.WriteFile(filepath.Join(dir, runner.ResultsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func turn(id, script string, n, repeat int, text, reply string) *schema.Result {
	return &schema.Result{Case: schema.Case{ID: id, Text: text, Script: script, Turn: n, Repeat: repeat}, Reply: reply, Response: []byte(`{"r":1}`)}
}

// TestSheetItems: items sorted by id, a conversation's turns in turn order
// whatever the file's order, its lowest repetition under --repeat, a torn
// last line dropped; ReadSheetItems' digests equal ReplyDigests', and
// change when any turn's reply does.
func TestSheetItems(t *testing.T) {
	rs := []*schema.Result{
		turn("b2", "会话", 2, 1, "订明天的票", "好的，明天"),
		turn("z", "", 0, 0, "你好", "你好呀"),
		turn("b1", "会话", 1, 2, "我要订票", "第二遍"),
		turn("b1", "会话", 1, 1, "我要订票", "去哪里？"),
		{Case: schema.Case{ID: "a", Text: "=1+1"}, Response: []byte(`{"answer":"=2"}`)},
	}
	dir := writeResults(t, rs, `{"id":"torn","text":"x"`)
	var items []*SheetItem
	n, err := ReadSheetItems(filepath.Join(dir, runner.ResultsFile), 1000, func(s string, _ int) string { return s }, func(it *SheetItem) error {
		c := *it
		items = append(items, &c)
		return nil
	})
	if err != nil || n != 3 || len(items) != 3 {
		t.Fatalf("%d items, %v", n, err)
	}
	if items[0].ID != "a" || items[0].Text != "=1+1" || items[0].Reply != `{"answer":"=2"}` {
		t.Errorf("single case without reply text: %+v", items[0])
	}
	if items[1].ID != "z" || items[2].ID != "会话" {
		t.Errorf("order: %q %q %q", items[0].ID, items[1].ID, items[2].ID)
	}
	conv := items[2]
	if conv.ID != "会话" || conv.Text != "1 用户: 我要订票\n1 助手: 去哪里？\n2 用户: 订明天的票\n2 助手: 好的，明天" || conv.Reply != "好的，明天" {
		t.Errorf("conversation: %+v", conv)
	}
	digests, err := ReplyDigests([]string{dir})
	if err != nil || len(digests) != 3 {
		t.Fatalf("digests %v, %v", digests, err)
	}
	for _, it := range items {
		if !strings.HasPrefix(it.Digest, "sha256:") || len(it.Digest) != 23 || digests[it.ID] != it.Digest {
			t.Errorf("%s: export digest %s, run digest %s", it.ID, it.Digest, digests[it.ID])
		}
	}

	// The same replies in another order and run: the same digests. The
	// first turn answered otherwise: the conversation's digest changes.
	same, _ := ReplyDigests([]string{writeResults(t, []*schema.Result{rs[4], rs[3], rs[0], rs[1]}, "")})
	rs[3].Reply = "去哪儿？"
	other, _ := ReplyDigests([]string{writeResults(t, rs, "")})
	for id := range digests {
		if same[id] != digests[id] {
			t.Errorf("%s: digest %s in another order, %s", id, same[id], digests[id])
		}
		if changed := other[id] != digests[id]; changed != (id == "会话") {
			t.Errorf("%s: digest changed %v after the conversation's first reply did", id, changed)
		}
	}
}

// TestSheetItemsCut: a reply far over the cell limit is cut (cut gets at
// most 4·max bytes of it) and its digest still covers all of it.
func TestSheetItemsCut(t *testing.T) {
	long := strings.Repeat("长", 1<<20)
	dir := writeResults(t, []*schema.Result{turn("a", "", 0, 0, "说点什么", long)}, "")
	var got int
	_, err := ReadSheetItems(filepath.Join(dir, runner.ResultsFile), 100, func(s string, _ int) string {
		got = max(got, len(s))
		return ""
	}, func(*SheetItem) error { return nil })
	if err != nil || got > 400 || got < 300 {
		t.Errorf("cut was handed %d bytes (want at most 400, a whole character short at most), %v", got, err)
	}
	short, _ := ReplyDigests([]string{writeResults(t, []*schema.Result{turn("a", "", 0, 0, "说点什么", long[:400])}, "")})
	all, _ := ReplyDigests([]string{dir})
	if short["a"] == all["a"] {
		t.Errorf("the digest covers only the kept part of the reply")
	}
}

// WriteSheet: a byte order mark, the header with each dimension and
// reply_sha, one row per item and rater slot, and no cell that a
// spreadsheet would run as a formula (OWASP's CSV Injection rule: a
// leading ' before = + - @ TAB CR LF).
func TestWriteSheet(t *testing.T) {
	rs := []*schema.Result{
		{Case: schema.Case{ID: "q1", Text: "=HYPERLINK(\"http://127.0.0.1:9/\",\"点我\")"}, Reply: "+1+cmd|' /C calc'!A0", Response: []byte(`{"r":1}`)},
		{Case: schema.Case{ID: "q2", Text: "明天北京天气怎么样"}, Reply: "晴，25度", Response: []byte(`{"r":2}`)},
	}
	dir := writeResults(t, rs, "")
	var b strings.Builder
	n, err := WriteSheet(&b, filepath.Join(dir, runner.ResultsFile), &sheet.Ratings{Dimensions: []string{"流畅度", "相关性"}, Scale: 5}, 2)
	if err != nil || n != 2 {
		t.Fatalf("%d items, %v", n, err)
	}
	out := b.String()
	if !strings.HasPrefix(out, "\ufeffcase,rater,text,reply,流畅度,相关性,reply_sha\n") {
		t.Errorf("header:\n%s", out)
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(out, "\ufeff"))).ReadAll()
	if err != nil || len(rows) != 5 {
		t.Fatalf("%d rows, %v:\n%s", len(rows), err, out)
	}
	if rows[1][1] != "R1" || rows[2][1] != "R2" || rows[1][2] != `'=HYPERLINK("http://127.0.0.1:9/","点我")` || rows[1][3] != "'+1+cmd|' /C calc'!A0" || rows[3][3] != "晴，25度" {
		t.Errorf("rows: %q", rows)
	}
	for _, row := range rows {
		for _, c := range row {
			if c != "" && strings.ContainsRune("=+-@\t\r\n", rune(c[0])) {
				t.Errorf("cell %q begins with a formula character", c)
			}
		}
	}
	var rb strings.Builder
	if err := WriteRubric(&rb, &sheet.Ratings{Dimensions: []string{"流畅度"}, Scale: 5}); err != nil || !strings.Contains(rb.String(), "未给出此维度的评分准则") {
		t.Errorf("rubric of a dimension YD/T 4394.2 has none: %v\n%s", err, rb.String())
	}
}
