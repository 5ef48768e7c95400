package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/browsertest"
)

// TestQuickstartHTMLReport is the HTML report's acceptance test: `run
// suites/quickstart --report-html r.html` writes one self-contained page
// that renders offline in headless Chromium with no console message,
// shows the verdict, the confusion matrix, the latency and scene charts
// and the failing cases, and whose filter script runs. `diff --html`
// renders too. Skipped without Chromium unless NLUTEST_REQUIRE_CHROMIUM=1.
func TestQuickstartHTMLReport(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "r.html")
	code, out, errs := runCLI(t, dir, nil, "run", quickstartSuite(t), "--out", filepath.Join(dir, "run"),
		"--report-html", page, "--quiet")
	if code != ExitPass {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(raw)
	for _, want := range []string{`class="badge">PASS`, `id="thresholds"`, `<svg class="heat"`, `<svg class="cols"`,
		`Accuracy by scene`, `id="failures"`, `<details class="case"`, `<select data-f="scene"`, `<option value="出行/机票">`} {
		if !strings.Contains(html, want) {
			t.Errorf("r.html lacks %q", want)
		}
	}
	if code, _, errs := runCLI(t, dir, nil, "diff", filepath.Join(dir, "run"), filepath.Join(dir, "run"), "--html", filepath.Join(dir, "d.html")); code != ExitPass {
		t.Fatalf("diff --html: exit %d\n%s", code, errs)
	}
	browsertest.Require(t)
	for _, f := range []string{page, filepath.Join(dir, "d.html")} {
		p := browsertest.Load(t, f, 1280, 3000)
		if len(p.Console) > 0 {
			t.Errorf("%s wrote to the console:\n%s", filepath.Base(f), strings.Join(p.Console, "\n"))
		}
		if f == page && !regexp.MustCompile(`<span id="count">9 of 9 shown</span>`).MatchString(p.DOM) {
			t.Errorf("the filter script did not run: no \"9 of 9 shown\" in the DOM")
		}
		t.Logf("screenshot %s (%dx%d)", p.Screenshot, p.Width, p.Height)
	}
}
