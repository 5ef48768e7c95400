package main

import (
	"github.com/nlutest/nlutest/pipeline"
	"github.com/nlutest/nlutest/schema"
)

// RunMetaFile is the name of a run directory's metadata file.
const RunMetaFile = pipeline.MetaFile

// readReport reads a run directory's report.json (or a report file).
func readReport(path string) (*schema.Report, error) { return pipeline.ReadReport(path) }
