package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nlutest/nlutest/reporters"
	"github.com/nlutest/nlutest/schema"
)

// RunMetaFile is the name of a run directory's metadata file.
const RunMetaFile = "run.json"

// runMeta records how a run was made, so eval, merge and resume can find
// the suite and repeat the selection. It holds no variable values: secrets
// never reach disk; pass the same --var flags again.
type runMeta struct {
	Tool     string    `json:"tool"`
	Version  string    `json:"version"`
	Suite    string    `json:"suite"`
	Target   string    `json:"target"`
	Split    string    `json:"split,omitempty"`
	Filter   string    `json:"filter,omitempty"`
	Shard    string    `json:"shard,omitempty"`
	Total    int       `json:"total"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished,omitempty"`
}

func writeRunMeta(dir string, m runMeta) error {
	return reporters.WriteFile(filepath.Join(dir, RunMetaFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(m)
	})
}

func readRunMeta(dir string) (runMeta, error) {
	var m runMeta
	b, err := os.ReadFile(filepath.Join(dir, RunMetaFile))
	if err != nil {
		return m, fmt.Errorf("%s is not a run directory (no %s): %w", dir, RunMetaFile, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", filepath.Join(dir, RunMetaFile), err)
	}
	return m, nil
}

// readReport reads a run directory's report.json (or a report file).
func readReport(path string) (*schema.Report, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		path = filepath.Join(path, "report.json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r schema.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s is not an nlutest report: %w", path, err)
	}
	return &r, nil
}
