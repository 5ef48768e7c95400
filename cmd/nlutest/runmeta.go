package main

import (
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/schema"
)

// RunMetaFile is the name of a run directory's metadata file.
const RunMetaFile = pipeline.MetaFile

// readReport reads a run directory's report.json (or a report file).
// readReport reads a report.json (or a run directory's) with the app's
// metrics-tree descriptor, so its families and source groups read and
// render as they were written.
func (a *App) readReport(path string) (*schema.Report, error) {
	rep, err := pipeline.ReadReport(path)
	if err != nil {
		return nil, err
	}
	t, err := a.ext().Tree()
	if err != nil {
		return nil, err
	}
	rep.Tree = t
	return rep, nil
}
