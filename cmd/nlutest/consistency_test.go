package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateCountsConversations (issue 28 item 6): validate of a
// conversation suite counts its conversation blocks, the conversations
// they generate and the cases (turns) in them, not "0 templates … N
// cases" (issue 35: a turn is a case, as run counts it).
func TestValidateCountsConversations(t *testing.T) {
	suite := filepath.Join("..", "..", "suites", "booking-dialogue")
	code, out, errs := runCLI(t, t.TempDir(), nil, "validate", suite)
	if code != ExitPass {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	want := `✓ suite "booking-dialogue" is valid: 1 file, 4 conversation blocks, 5 materials, 56 cases in 15 conversations, 4 thresholds (` + suite + ").\n"
	if out != want {
		t.Errorf("validate says\n%s\nwant\n%s", out, want)
	}
}

// TestDocsOnStepSummaryAndInstall (issue 28 item 6): no page recommends
// --report-markdown "$GITHUB_STEP_SUMMARY" (a replaced file would drop
// the earlier steps' summaries); reports.md shows appending a file
// instead; the README says where go install puts the binary.
func TestDocsOnStepSummaryAndInstall(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	pages = append(pages, filepath.Join("..", "..", "README.md"))
	texts := map[string]string{}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts[filepath.Base(p)] = string(b)
		for _, bad := range []string{`--report-markdown "$GITHUB_STEP_SUMMARY"`, "e.g. `\"$GITHUB_STEP_SUMMARY\"`"} {
			if strings.Contains(string(b), bad) {
				t.Errorf("%s recommends %s, which replaces the job summary", p, bad)
			}
		}
	}
	if !strings.Contains(texts["reports.md"], `cat summary.md >> "$GITHUB_STEP_SUMMARY"`) {
		t.Errorf("reports.md does not show appending the Markdown report to the job summary")
	}
	if !strings.Contains(texts["README.md"], "$(go env GOPATH)/bin") {
		t.Errorf("README.md does not say go install puts the binary in $(go env GOPATH)/bin")
	}
}
