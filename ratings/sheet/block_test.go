package sheet

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/spec"
)

// loadBlocks loads a suite file holding src with the ratings blocks
// declared (Settings) and returns its blocks and its errors as
// "Summary@line:col".
func loadBlocks(t *testing.T, src string) ([]*Ratings, []string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s"+spec.FileSuffix), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(dir, spec.Options{Settings: []spec.SettingsBlock{Settings{}}})
	var errs []string
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			errs = append(errs, fmt.Sprintf("%s@%d:%d", d.Summary, d.Subject.Start.Line, d.Subject.Start.Column))
		}
	}
	return Of(s), errs
}

// TestRatingsBlock: the ratings blocks a suite declares through the
// family's labelled settings block come back (Of) in order, with their
// defaults (YD/T 4394.2-2023's five dimensions, scale 5, 3 raters, every
// item kept) and the sheet resolved from the suite file's directory; a
// repeated name and every attribute's mistake are located errors of the
// one load; without Settings the block is unknown to the loader.
func TestRatingsBlock(t *testing.T) {
	blocks, errs := loadBlocks(t, `suite "s" {}
ratings "第一轮" {
  source = "sheets/一.csv"
}
ratings "两人" {
  source               = "二.jsonl"
  scale                = 4
  dimensions           = ["流畅度", "相关性"]
  keep_if_diff_at_most = 1
  raters               = 2
}
`)
	if len(errs) != 0 || len(blocks) != 2 {
		t.Fatalf("blocks %v, errors %v", blocks, errs)
	}
	a, b := blocks[0], blocks[1]
	if a.Name != "第一轮" || filepath.Base(a.Path) != "一.csv" || !filepath.IsAbs(a.Path) || a.Format != "csv" || a.Scale != 5 || a.Raters != 3 || a.KeepIfDiffAtMost != -1 || strings.Join(a.Dimensions, ",") != strings.Join(YDTDimensions, ",") {
		t.Errorf("defaults: %+v", a)
	}
	if b.Name != "两人" || b.Format != "jsonl" || b.Scale != 4 || b.Raters != 2 || b.KeepIfDiffAtMost != 1 || strings.Join(b.Dimensions, ",") != "流畅度,相关性" {
		t.Errorf("set: %+v", b)
	}

	blocks, errs = loadBlocks(t, `suite "s" {}
ratings "人工" {
  source = "a.csv"
}
ratings "人工" {
  source = "b.csv"
}
ratings "坏" {
  format     = "xls"
  scale      = 1
  dimensions = ["case"]
}
`)
	want := "Duplicate ratings block@5:9 Missing required argument@8:13 Unknown ratings format@9:16 Value out of range@10:16 Invalid dimension@11:16"
	if got := strings.Join(errs, " "); got != want || len(blocks) != 1 || filepath.Base(blocks[0].Path) != "a.csv" {
		t.Errorf("errors %s\nwant   %s\nblocks %v", got, want, blocks)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s"+spec.FileSuffix), []byte("ratings \"x\" {\n  source = \"a.csv\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, diags := spec.Load(dir, spec.Options{}); !diags.HasErrors() || diags[0].Summary != "Unsupported block type" {
		t.Errorf("without Settings: %v", diags)
	}
}
