// Package browsertest owns the tests' use of a headless browser: it finds
// Chromium, loads a local HTML file in it (no network), and returns the
// page's DOM after its scripts ran, the messages the page wrote to the
// browser console, and a screenshot. Tests skip when Chromium is not
// installed, unless NLUTEST_REQUIRE_CHROMIUM=1 (CI) makes that a failure.
package browsertest

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Page is what the browser made of one file.
type Page struct {
	// DOM is the serialised document after the page's scripts ran.
	DOM string
	// Console holds the messages the page wrote to the console (errors,
	// uncaught exceptions, failed loads, console.log): a self-contained
	// report writes none.
	Console []string
	// Screenshot is the PNG file of the rendered page.
	Screenshot string
	// Width and Height are the screenshot's size in pixels.
	Width, Height int
}

// Find returns the path of a Chromium binary; "" when none is installed.
func Find() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Require returns Chromium's path, or skips the test when it is missing
// (fails it when NLUTEST_REQUIRE_CHROMIUM=1).
func Require(t testing.TB) string {
	t.Helper()
	p := Find()
	if p == "" {
		if os.Getenv("NLUTEST_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("Chromium is not installed but NLUTEST_REQUIRE_CHROMIUM=1 (apt-get install chromium)")
		}
		t.Skip("Chromium is not installed (Debian: apt-get install chromium); set NLUTEST_REQUIRE_CHROMIUM=1 to fail instead")
	}
	return p
}

// consoleLine matches a console message in Chromium's log:
// `[…:INFO:CONSOLE:12] "Uncaught ReferenceError: …", source: file:///… (12)`
// (older versions write CONSOLE(12)).
var consoleLine = regexp.MustCompile(`:CONSOLE[:(]\d*\)?\]?\s*(.*)$`)

// Load renders file in headless Chromium twice, once for the DOM and the
// console, once for a screenshot of width×height pixels saved beside the
// test's temporary files (or in $NLUTEST_SCREENSHOT_DIR when set).
func Load(t testing.TB, file string, width, height int) Page {
	t.Helper()
	bin := Require(t)
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(abs)
	var p Page
	dom, logs := run(t, bin, "--dump-dom", url)
	p.DOM = dom
	for _, line := range strings.Split(logs, "\n") {
		if m := consoleLine.FindStringSubmatch(line); m != nil {
			p.Console = append(p.Console, m[1])
		}
	}
	dir := os.Getenv("NLUTEST_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	p.Screenshot = filepath.Join(dir, strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))+".png")
	run(t, bin, "--screenshot="+p.Screenshot, "--window-size="+itoa(width)+","+itoa(height), url)
	raw, err := os.ReadFile(p.Screenshot)
	if err != nil {
		t.Fatalf("Chromium wrote no screenshot: %v", err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("screenshot %s: %v", p.Screenshot, err)
	}
	p.Width, p.Height = cfg.Width, cfg.Height
	return p
}

func itoa(n int) string { return strconv.Itoa(n) }

// run runs Chromium headless on one page, without network access beyond
// the file, and returns stdout and stderr.
func run(t testing.TB, bin string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-background-networking", "--disable-sync", "--disable-component-update",
		"--mute-audio", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, tail(errb.String(), 40))
	}
	return out.String(), errb.String()
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
