package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nlutest/nlutest/spec"
)

// Targets is what targets.json records of a run against several targets,
// written before the first target runs: the suite, the selection, and
// each target with its run directory's name, in the order they run. It
// lets `run --resume DIR` finish every target (those interrupted, those
// never started) and `eval DIR` rebuild the comparison.
type Targets struct {
	Tool      string        `json:"tool"`
	Version   string        `json:"version"`
	Suite     string        `json:"suite"`
	SuiteName string        `json:"suite_name,omitempty"`
	Targets   []TargetEntry `json:"targets"`
	Split     string        `json:"split,omitempty"`
	Filter    string        `json:"filter,omitempty"`
	Shard     string        `json:"shard,omitempty"`
	Repeat    int           `json:"repeat,omitempty"`
	Started   time.Time     `json:"started"`
}

// TargetEntry is one target of a run against several targets: its name
// and its run directory's name in DIR (PathName of the name).
type TargetEntry struct {
	Name string `json:"name"`
	Dir  string `json:"dir"`
}

// Names are the targets' names, in order.
func (t Targets) Names() []string {
	out := make([]string, len(t.Targets))
	for i, e := range t.Targets {
		out[i] = e.Name
	}
	return out
}

// TargetEntries are names with their run directories' names; an error
// (an internal one: pickTargets refuses them first) when two would
// share one.
func TargetEntries(names []string) ([]TargetEntry, error) {
	out := make([]TargetEntry, len(names))
	seen := map[string]string{}
	for i, n := range names {
		d := PathName(n)
		if prev, ok := seen[PathKey(d)]; ok {
			return nil, fmt.Errorf("targets %q and %q share the run directory %s", prev, n, d)
		}
		seen[PathKey(d)] = n
		out[i] = TargetEntry{Name: n, Dir: d}
	}
	return out, nil
}

// IsTargetsDir reports whether dir holds a run against several targets
// (targets.json).
func IsTargetsDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, TargetsFile))
	return err == nil
}

// WriteTargets writes dir/targets.json atomically.
func WriteTargets(dir string, t Targets) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(t); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, TargetsFile), b.Bytes())
}

// ReadTargets reads dir/targets.json, and checks that every target's
// directory is a name of its own inside dir.
func ReadTargets(dir string) (Targets, error) {
	var t Targets
	path := filepath.Join(dir, TargetsFile)
	b, _, err := spec.OwnFiles.Read("", path, spec.MaxFileBytes)
	if err != nil {
		return t, fmt.Errorf("%s is not a run against several targets: %s", dir, spec.FileError(err))
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return t, fmt.Errorf("%s: %w", path, err)
	}
	if len(t.Targets) == 0 {
		return t, fmt.Errorf("%s names no target", path)
	}
	seen := map[string]bool{}
	for _, e := range t.Targets {
		if err := checkComponent(e.Dir); err != nil || seen[PathKey(e.Dir)] {
			return t, fmt.Errorf("%s: target %q has the run directory %q, which is not a name of its own in %s", path, e.Name, e.Dir, dir)
		}
		seen[PathKey(e.Dir)] = true
	}
	return t, nil
}

// TargetState is how far one target's run in a run against several
// targets has come.
type TargetState int

const (
	// NotRun: no run.json, the target's run never began.
	NotRun TargetState = iota
	// Unfinished: interrupted (its report says so), killed (run.json's
	// session still set, or no report yet): --resume finishes it.
	Unfinished
	// Finished: its report covers the whole selection.
	Finished
)

// StateOf is how far the run in dir has come.
func StateOf(dir string) TargetState {
	m, err := ReadMeta(dir)
	if err != nil {
		return NotRun
	}
	if !m.Session.IsZero() {
		return Unfinished
	}
	rep, err := ReadReport(filepath.Join(dir, ReportFile))
	if err != nil || rep.Run.Interrupted {
		return Unfinished
	}
	return Finished
}

// Missing says which targets of t in dir have not finished ("b has not
// run", "a was interrupted"), "" when all have.
func (t Targets) Missing(dir string) string {
	var parts []string
	for _, e := range t.Targets {
		switch StateOf(filepath.Join(dir, e.Dir)) {
		case NotRun:
			parts = append(parts, fmt.Sprintf("%s has not run", e.Name))
		case Unfinished:
			parts = append(parts, fmt.Sprintf("%s has not finished", e.Name))
		}
	}
	return strings.Join(parts, ", ")
}

// notOneRun is ReadMeta's answer for a directory without run.json that
// holds a run against several targets: which directories hold its runs.
func notOneRun(dir string) error {
	t, err := ReadTargets(dir)
	if err != nil {
		return nil
	}
	var dirs []string
	for _, e := range t.Targets {
		dirs = append(dirs, filepath.Join(dir, e.Dir))
	}
	return fmt.Errorf("%s is a run against several targets (%s), not one run: name one target's run directory (%s), or use run --resume or eval on %s itself", dir, TargetsFile, strings.Join(dirs, ", "), dir)
}

// ComparisonTargets are the names of the targets a comparison.json lists,
// in order.
func ComparisonTargets(path string) ([]string, error) {
	b, _, err := spec.OwnFiles.Read("", path, spec.MaxDataBytes)
	if err != nil {
		return nil, fmt.Errorf("%s", spec.FileError(err))
	}
	var c struct {
		Kind    string `json:"kind"`
		Targets []struct {
			Name string `json:"name"`
		} `json:"targets"`
	}
	if err := json.Unmarshal(b, &c); err != nil || c.Kind != "comparison" || len(c.Targets) == 0 {
		return nil, fmt.Errorf("%s is not an nlutest comparison", path)
	}
	names := make([]string, len(c.Targets))
	for i, t := range c.Targets {
		names[i] = t.Name
	}
	return names, nil
}
