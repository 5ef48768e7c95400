package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/nlutest/nlutest/extensions"
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/runner"
	"github.com/nlutest/nlutest/spec/diagfmt"
)

// Exit codes (SPEC §3). CI scripts depend on them.
const (
	ExitPass        = 0   // the verdict is pass
	ExitFail        = 1   // the run finished and the verdict is fail
	ExitInvalid     = 2   // invalid suite, data file or usage; nothing ran
	ExitCannotRun   = 3   // target unreachable, report not writable, internal error
	ExitInterrupted = 130 // interrupted; reports written for what finished
)

// Version is set at build time with -ldflags "-X main.Version=…".
var Version = "dev"

// App is the injected process state of one invocation.
type App struct {
	Stdout, Stderr       io.Writer
	Env                  func(string) (string, bool)
	StdoutTTY, StderrTTY bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Getwd is the working directory for default output paths; "" means ".".
	Getwd string
	// Ext are the extension points (source and target kinds, metric
	// families, report renderers); nil means extensions.Default().
	Ext *extensions.Set
	// ConfigDir is the user's configuration directory, where the response
	// cache's key lives; nil means os.UserConfigDir.
	ConfigDir func() (string, error)
}

// cacheKeyPath is where the user's response cache key is: NAME/nlutest/
// cache.key under the user's configuration directory ($XDG_CONFIG_HOME or
// ~/.config on Linux), outside any working directory, so a .nlutest/cache
// found in one (committed to a repository, say) never comes with its key.
func (a *App) cacheKeyPath() (string, error) {
	dir := a.ConfigDir
	if dir == nil {
		dir = os.UserConfigDir
	}
	d, err := dir()
	if err != nil {
		return "", fmt.Errorf("no directory for the response cache's key: %w", err)
	}
	return filepath.Join(d, "nlutest", "cache.key"), nil
}

// ext returns the app's extension points.
func (a *App) ext() *extensions.Set {
	if a.Ext == nil {
		a.Ext = extensions.Default()
	}
	return a.Ext
}

func (a *App) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func (a *App) getenv(k string) string {
	if a.Env == nil {
		return ""
	}
	v, _ := a.Env(k)
	return v
}

// usageError is a command-line mistake: exit 2 with a hint.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

const usageText = `nlutest — declarative test suites for NLU services and chatbots

Usage:
  nlutest init [DIR]      scaffold a suite that runs at once (--engine rasa|openai|http|demo)
  nlutest run PATH        generate cases, call the target, assert, measure, report
  nlutest validate PATH   parse and check suites; diagnostics with file:line:col
  nlutest generate PATH   write the generated cases (JSONL or CSV) without calling anything
  nlutest stats PATH      distributions of materials, cases, scenes, splits and dimension coverage
  nlutest annotate PATH   draft expectations from live responses (SUITE.annotations.hcl, or --write)
  nlutest fmt PATH        rewrite suite files in the canonical layout (--check: list, exit 1)
{{import}}
  nlutest eval RUN        recompute assertions, metrics, thresholds and reports of a saved run, offline
  nlutest diff RUN RUN    metric deltas and cases that flipped between two runs
  nlutest merge RUN...    join shard runs into one run (--out DIR)
  nlutest coverage RUN    which intents, slots, responses, actions, flow steps of the bot's model a run exercised
  nlutest history add RUN_DIR   record a finished run's metrics in the history file (.nlutest/history.db)
  nlutest history show    each gated metric's series with intervals, slope and change points (also list, remove)
  nlutest ratings export RUN -o sheet.csv   a rating sheet of the run's replies, with the rubric
  nlutest memory agreement RUN --ratings F  Cohen's kappa between a run's memory verdicts and people's
  nlutest judge agreement RUN --ratings F   Cohen's kappa between a run's rubric (or memory) judge and people
  nlutest serve demo      serve the embedded reference NLU service on 127.0.0.1
  nlutest version         print the version

PATH is a suite directory (every *.nlutest.hcl in it) or one suite file.
Run 'nlutest COMMAND -h' for a command's flags. Documentation: README.md.

Exit codes: 0 pass · 1 verdict fail · 2 invalid suite or usage · 3 could not run · 130 interrupted
`

// usage is usageText with a line per import format of the app's set.
func (a *App) usage() string {
	var b strings.Builder
	for _, f := range a.ext().Importers {
		cmd := "nlutest import " + f.Name() + " " + f.Args() + " -o SUITE_DIR"
		fmt.Fprintf(&b, "  %-45s %s\n", cmd, f.Help())
	}
	return strings.Replace(usageText, "{{import}}\n", b.String(), 1)
}

// Run executes one command line and returns the exit code. It never panics
// on user input: an unexpected panic is reported as an internal error (exit 3).
func (a *App) Run(ctx context.Context, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(a.Stderr, "nlutest: internal error: %v\nPlease report this with the command you ran.\n", r)
			if a.getenv("NLUTEST_DEBUG") != "" {
				fmt.Fprintf(a.Stderr, "%s\n", debug.Stack())
			}
			code = ExitCannotRun
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(a.Stderr, a.usage())
		return ExitInvalid
	}
	cmd, rest := args[0], args[1:]
	if code, ok := a.checkExtensions(cmd); !ok {
		return code
	}
	var err error
	switch cmd {
	case "run":
		return a.cmdRun(ctx, rest)
	case "init":
		return a.cmdInit(rest)
	case "validate":
		return a.cmdValidate(rest)
	case "generate":
		return a.cmdGenerate(rest)
	case "stats":
		return a.cmdStats(rest)
	case "serve":
		return a.cmdServe(ctx, rest)
	case "annotate":
		return a.cmdAnnotate(ctx, rest)
	case "fmt":
		return a.cmdFmt(rest)
	case "import":
		return a.cmdImport(rest)
	case "eval":
		return a.cmdEval(ctx, rest)
	case "merge":
		return a.cmdMerge(ctx, rest)
	case "diff":
		return a.cmdDiff(rest)
	case "ratings":
		return a.cmdRatings(rest)
	case "memory":
		return a.cmdMemory(rest)
	case "judge":
		return a.cmdJudge(rest)
	case "coverage":
		return a.cmdCoverage(ctx, rest)
	case "history":
		return a.cmdHistory(rest)
	case "version", "--version", "-version":
		fmt.Fprintf(a.Stdout, "nlutest %s%s\n", version(), buildInfo())
		return ExitPass
	case "help", "-h", "--help":
		fmt.Fprint(a.Stdout, a.usage())
		return ExitPass
	default:
		err = usagef("unknown command %q", cmd)
	}
	return a.fail(err)
}

// checkExtensions checks the app's extension set before a command that
// uses it (all but version and help) runs. A set whose parts clash (two
// renderers of one name would both be --report-NAME) is a mistake in the
// program built on nlutest, which no suite or flag of its user can fix:
// it says so and what clashes, and ends with exit 3 (the run could not be
// done; 2 would send the user to their suite), before anything is read.
func (a *App) checkExtensions(cmd string) (int, bool) {
	switch cmd {
	case "version", "--version", "-version", "help", "-h", "--help":
		return 0, true
	}
	err := a.ext().Validate()
	if err == nil {
		return 0, true
	}
	fmt.Fprintf(a.Stderr, "nlutest: this program's extensions do not fit together, so nothing ran:\n")
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(a.Stderr, "  - %s\n", line)
	}
	fmt.Fprintf(a.Stderr, "This is a mistake in the program (the extensions.Set it runs with), not in the suite or the command line: the program's author must fix it.\n")
	return ExitCannotRun, false
}

// version is the tool's version: the one set at link time, else the
// module version `go install …@version` records, else "dev" followed by
// the commit `go build` in a checkout embeds ("dev-1a2b3c4d5e6f", with
// "-dirty" for uncommitted changes); plain "dev" for go run and tests.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(Version, bi, ok)
}

// versionOf is version for the link-time version v and the build info bi
// (ok false when the binary has none).
func versionOf(v string, bi *debug.BuildInfo, ok bool) string {
	if v != "dev" || !ok {
		return v
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	v += "-" + rev[:min(12, len(rev))]
	if dirty {
		v += "-dirty"
	}
	return v
}

// buildInfo is what `nlutest version` adds after the version: the
// commit's time and the Go version, when the binary records them.
func buildInfo() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var parts []string
	for _, s := range bi.Settings {
		if s.Key == "vcs.time" {
			parts = append(parts, "committed "+s.Value)
		}
	}
	parts = append(parts, bi.GoVersion)
	return " (" + strings.Join(parts, ", ") + ")"
}

// fail prints err and returns its exit code: 2 for a usage error (ours or
// a request pipeline refuses) and a suite that does not generate, 3 else.
func (a *App) fail(err error) int {
	var (
		ue usageError
		ie *pipeline.InvalidError
		ge *pipeline.GenerateError
		se *pipeline.SheetError
		re *runner.RecordError
	)
	switch {
	case err == nil:
		return ExitPass
	case errors.As(err, &ue):
		fmt.Fprintf(a.Stderr, "nlutest: %s\nRun 'nlutest help' for usage.\n", ue.msg)
		return ExitInvalid
	case errors.As(err, &ie):
		fmt.Fprintf(a.Stderr, "nlutest: %s\nRun 'nlutest help' for usage.\n", ie.Msg)
		return ExitInvalid
	case errors.As(err, &se):
		diagfmt.Write(a.Stderr, se.Diags, nil, a.useColor("auto", a.StderrTTY))
		n := len(se.Diags.Errs())
		fmt.Fprintf(a.Stderr, "nlutest: %d error%s in the files the suite imports at report time (rating sheets, TREC files); no report was written.\n", n, plural(n))
		return ExitInvalid
	case errors.As(err, &ge):
		fmt.Fprintf(a.Stderr, "nlutest: %s\n", ge)
		return ExitInvalid
	case errors.As(err, &re):
		// A bad line in a run's results: bad input, as eval reports it.
		fmt.Fprintf(a.Stderr, "nlutest: %s\n", err)
		fmt.Fprintf(a.Stderr, "nlutest: %s\n", recordHint(re.Path))
		return ExitInvalid
	default:
		fmt.Fprintf(a.Stderr, "nlutest: %s\n", err)
		return ExitCannotRun
	}
}

// recordHint is what to do about a bad line of the results file path:
// nlutest never writes one (a run killed mid-write leaves only a torn last
// line, which --resume repairs), so the file was edited or damaged.
func recordHint(path string) string {
	hint := "the file was edited or damaged after nlutest wrote it: restore it from a copy, or delete the line"
	if filepath.Base(path) == runner.ResultsFile {
		return hint + " and run `nlutest run --resume " + filepath.Dir(path) + "` to call its case again."
	}
	return hint + "."
}

// closedPipe reports whether err is a write to stdout after its reader
// closed the pipe (`nlutest generate … | head -1`, with SIGPIPE caught by
// withSignals): the reader has what it wanted, so the command ends as it
// would have, not with an error.
func closedPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parseInterleaved parses flags that may come before or after positional
// arguments (`nlutest run suites/x --report-junit out.xml`).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func newFlagSet(a *App, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(a.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(a.Stderr, "Usage: nlutest %s\n\nFlags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// flagErr turns a flag parsing error into an exit code (-h is not an error).
func (a *App) flagErr(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return ExitPass
	}
	return ExitInvalid
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
