package reporters

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/browsertest"
	"github.com/nlutest/nlutest/schema"
)

func renderHTML(t *testing.T, r *schema.Report, o Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, r, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// voidTags have no end tag in HTML.
var voidTags = map[string]bool{"meta": true, "br": true, "input": true, "hr": true, "img": true, "link": true}

var tagRE = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*?(/?)>`)

// checkBalanced fails when an element outside <script> and <style> is
// left open or closed out of order.
func checkBalanced(t *testing.T, page string) {
	t.Helper()
	page = regexp.MustCompile(`(?s)<(script|style)>.*?</(script|style)>`).ReplaceAllString(page, "")
	var stack []string
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		name := strings.ToLower(m[2])
		switch {
		case voidTags[name] || m[3] == "/":
		case m[1] == "":
			stack = append(stack, name)
		case len(stack) == 0 || stack[len(stack)-1] != name:
			t.Fatalf("</%s> closes %v", name, stack)
		default:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		t.Fatalf("elements left open: %v", stack)
	}
}

// checkSelfContained fails when the page would load anything: no src
// attribute, no link, no CSS url() or @import, no http(s) address in an
// attribute.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	for _, bad := range []string{" src=", "<link", "url(", "@import", `href="http`, "<iframe", "<object", "<embed"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page is not self-contained: it holds %q", bad)
		}
	}
}

func TestHTMLStructure(t *testing.T) {
	page := renderHTML(t, quickstart(), Options{})
	checkBalanced(t, page)
	checkSelfContained(t, page)
	// The verdict and thresholds come first, the failing cases last.
	order := []string{`id="verdict"`, `class="badge">FAIL`, `id="cases"`, `<svg class="heat"`,
		`id="latency"`, `<svg class="cols"`, `id="failures"`}
	at := -1
	for _, s := range order {
		i := strings.Index(page, s)
		if i < 0 {
			t.Fatalf("the page lacks %q", s)
		}
		if i < at {
			t.Errorf("%q comes before what precedes it in %v", s, order)
		}
		at = i
	}
	// Every failing case is listed with its filter facets, expected vs
	// actual, and the response.
	fail := failingCases(quickstart())
	if n := strings.Count(page, `<details class="case"`); n != len(fail) {
		t.Errorf("%d failing cases listed, want %d", n, len(fail))
	}
	for _, want := range []string{`<input type="search" id="q"`, `<select data-f="source"`, `<select data-f="error"`,
		`<select data-f="expect"`, "<th>expected</th><th>actual</th>", "response: ", "<script>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Numerators and denominators are in the metric tables.
	if !strings.Contains(page, "(2/4)") {
		t.Errorf("ratios lack their numerator and denominator")
	}
}

// withScenes is quickstart with scene paths on its cases, as a suite's
// scene attribute gives them.
func withScenes() *schema.Report {
	r := quickstart()
	scenes := [][]string{{"出行", "天气"}, {"出行", "机票"}, {"出行", "机票"}, {"闲聊"}, {"出行", "天气"}, {"出行", "机票"}}
	for i := range r.Cases {
		r.Cases[i].Scene = scenes[i]
	}
	return r
}

// TestHTMLFiltersByScene (issue 17: failing cases filterable by template,
// scene, expectation and error type): each failing case carries its
// scene path and every prefix of it, and the filter bar has a scene
// select, after the template one, counting the failing cases under each
// scene; a report without scenes has no scene select.
func TestHTMLFiltersByScene(t *testing.T) {
	page := renderHTML(t, withScenes(), Options{})
	checkBalanced(t, page)
	for _, want := range []string{
		`<select data-f="scene" aria-label="scene"><option value="">any scene</option><option value="出行">出行 (3)</option><option value="出行/天气">出行/天气 (1)</option><option value="出行/机票">出行/机票 (2)</option><option value="闲聊">闲聊 (1)</option></select>`,
		"data-scene=\"出行\n出行/机票\"",
		"data-scene=\"闲聊\"",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if src, scene := strings.Index(page, `<select data-f="source"`), strings.Index(page, `<select data-f="scene"`); src < 0 || scene < src {
		t.Errorf("the scene select does not follow the template select")
	}
	if plain := renderHTML(t, quickstart(), Options{}); strings.Contains(plain, `data-f="scene"`) || strings.Contains(plain, "data-scene") {
		t.Errorf("a report without scenes has a scene filter")
	}
}

func TestHTMLSceneTreeAndBaseline(t *testing.T) {
	fail, pass := iaoFail(), iaoPass()
	page := renderHTML(t, fail, Options{Baseline: pass})
	checkBalanced(t, page)
	if !strings.Contains(page, "Δ baseline") || strings.Index(page, `id="thresholds"`) > strings.Index(page, `id="cases"`) {
		t.Errorf("no Δ column against the baseline")
	}
	if !strings.Contains(page, "baseline <code>"+pass.Run.ID+"</code>") {
		t.Errorf("the page does not name the baseline run %s", pass.Run.ID)
	}
}

func TestHTMLEscapesUserText(t *testing.T) {
	r := quickstart()
	r.Suite.Name = `<b>x</b>`
	r.Cases[0].Text = `<script>alert("x")</script>`
	r.Cases[0].Response = `</pre><img src=x onerror=alert(1)>`
	r.Cases[0].Outcome = schema.Fail
	page := renderHTML(t, r, Options{})
	for _, bad := range []string{"<b>x</b>", `<script>alert`, "<img"} {
		if strings.Contains(page, bad) {
			t.Errorf("user text %q reached the page unescaped", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Errorf("the case text is not shown escaped")
	}
	checkBalanced(t, page)
}

// bigReport is a run of n cases, all failing with a 4 KB response, and a
// label dimension of 200 labels: the page must still stay under 5 MB.
func bigReport(n int) *schema.Report {
	r := quickstart()
	resp := strings.Repeat(`{"intent":"x"}`, 300)
	r.Cases = nil
	for i := 0; i < n; i++ {
		c := schema.CaseReport{ID: fmt.Sprintf("%016x", i), Template: fmt.Sprintf("tpl-%d", i%40),
			Text: strings.Repeat("长", 30) + fmt.Sprint(i), Outcome: schema.Fail, LatencyMS: float64(i % 700), Response: resp,
			Failures: []schema.Failure{{Kind: "expect", Path: fmt.Sprintf("$.slot%d", i%7), Expected: "a", Actual: "b"}}}
		r.Cases = append(r.Cases, c)
	}
	l := &schema.Label{Confusion: &schema.Confusion{}, Labels: map[string]*schema.LabelStats{}}
	for i := 0; i < 200; i++ {
		name := fmt.Sprintf("label_%03d", i)
		l.Labels[name] = &schema.LabelStats{Precision: schema.R(1, 2), Recall: schema.R(1, 3), F1: schema.R(2, 5), Support: 5}
		l.Confusion.Labels = append(l.Confusion.Labels, name)
		row := make([]int, 200)
		row[i] = 5
		l.Confusion.Counts = append(l.Confusion.Counts, row)
	}
	r.Metrics.Label["many"] = l
	return r
}

func TestHTMLSizeCap(t *testing.T) {
	page := renderHTML(t, bigReport(10_000), Options{})
	if len(page) >= 5<<20 {
		t.Errorf("the page of 10,000 failing cases is %d bytes, want under 5 MB", len(page))
	}
	if !regexp.MustCompile(`…and \d+ more failing cases left out of this page`).MatchString(page) {
		t.Errorf("the page does not say how many failing cases it left out")
	}
	if !strings.Contains(page, "200 labels, more than 60") {
		t.Errorf("the 200-label confusion matrix is not replaced by a note")
	}
	if !strings.Contains(page, "…and 140 more not drawn") {
		t.Errorf("the 200-label bar chart does not say how many labels it left out")
	}
	checkBalanced(t, page)
}

// TestHTMLInChromium renders the pages in headless Chromium (when it is
// installed; CI sets NLUTEST_REQUIRE_CHROMIUM=1): no console message
// (script errors, failed loads), the filter script ran, and a screenshot
// was taken.
func TestHTMLInChromium(t *testing.T) {
	browsertest.Require(t)
	dir := t.TempDir()
	for name, r := range map[string]*schema.Report{"quickstart": quickstart(), "scenes": withScenes(), "big": bigReport(10_000)} {
		file := filepath.Join(dir, name+".html")
		if err := os.WriteFile(file, []byte(renderHTML(t, r, Options{})), 0o644); err != nil {
			t.Fatal(err)
		}
		p := browsertest.Load(t, file, 1280, 2400)
		if len(p.Console) > 0 {
			t.Errorf("%s: the page wrote to the console:\n%s", name, strings.Join(p.Console, "\n"))
		}
		if !regexp.MustCompile(`<span id="count">\d+ of \d+ shown</span>`).MatchString(p.DOM) {
			t.Errorf("%s: the filter script did not run (no \"N of M shown\")", name)
		}
		if p.Width != 1280 || p.Height != 2400 {
			t.Errorf("%s: screenshot %dx%d, want 1280x2400", name, p.Width, p.Height)
		}
	}
}

// TestJUnitPropertyNamesAsConditions (issue 17 friction 11): JUnit
// property names spell a key as a condition would — metrics.split.smoke,
// metrics.scene.出行 — and quote only keys that are not identifiers.
func TestJUnitPropertyNamesAsConditions(t *testing.T) {
	for key, want := range map[string]string{"smoke": "metrics.x.smoke", "出行": "metrics.x.出行", "出行/天气": `metrics.x["出行/天气"]`, "<=20": `metrics.x["<=20"]`} {
		if got := metricKey("metrics.x", key); got != want {
			t.Errorf("metricKey(%q) = %s, want %s", key, got, want)
		}
	}
}

// TestHTMLSceneFilterInChromium: choosing a scene in the page's filter
// bar (a script appended to the page sets the select and fires change,
// as a click would) shows only the failing cases under that scene.
func TestHTMLSceneFilterInChromium(t *testing.T) {
	browsertest.Require(t)
	dir := t.TempDir()
	for scene, want := range map[string]string{"出行/机票": "2 of 4 shown", "出行": "3 of 4 shown"} {
		page := renderHTML(t, withScenes(), Options{})
		pick := `<script>(function(){var s=document.querySelector('select[data-f="scene"]');s.value="` + scene + `";s.dispatchEvent(new Event("change"));}());</script>`
		i := strings.LastIndex(page, "</body>")
		if i < 0 {
			t.Fatal("the page has no </body>")
		}
		file := filepath.Join(dir, "scene.html")
		if err := os.WriteFile(file, []byte(page[:i]+pick+page[i:]), 0o644); err != nil {
			t.Fatal(err)
		}
		p := browsertest.Load(t, file, 1280, 1600)
		if len(p.Console) > 0 {
			t.Errorf("%s: the page wrote to the console:\n%s", scene, strings.Join(p.Console, "\n"))
		}
		if !strings.Contains(p.DOM, `<span id="count">`+want+`</span>`) {
			t.Errorf("scene %s: want %q in the filtered page", scene, want)
		}
	}
}
