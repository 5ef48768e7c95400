package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/nlutest/nlutest/extensions"
)

// --list-metrics prints every number of the tree the descriptor
// describes, with its address and num/den: the reporters' fixture reports
// (every family, keyed maps, Chinese keys, ratios without data) pin it.
func TestListMetricsGolden(t *testing.T) {
	for _, name := range []string{"iao_fail", "quickstart"} {
		t.Run(name, func(t *testing.T) {
			rep := loadReport(t, filepath.Join("..", "..", "reporters", "testdata", name+".json"))
			var got bytes.Buffer
			tree, err := extensions.Default().Tree()
			if err != nil {
				t.Fatal(err)
			}
			listMetrics(&got, tree, rep.Metrics)
			golden := filepath.Join("testdata", "list-metrics-"+name+".golden")
			if *update {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("--list-metrics differs from %s:\n%s", golden, got.String())
			}
		})
	}
}
