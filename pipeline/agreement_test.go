package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bad sheet is refused with the file, line and column.
func TestReadVerdictsLocated(t *testing.T) {
	for _, c := range []struct{ sheet, want string }{
		{"id,verdict\nq/1,也许\n", `:2:5: "也许" is not a verdict`},
		{"编号,判定\n", `:1:1: the header row needs the columns id and verdict`},
		{"id,verdict\n,entailed\n", `:2:1: the row has no id or no verdict`},
	} {
		path := filepath.Join(t.TempDir(), "人工.csv")
		if err := os.WriteFile(path, []byte(c.sheet), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readVerdicts(path)
		if _, ok := err.(*InvalidError); !ok || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an invalid-input error with %s", c.sheet, err, c.want)
		}
	}
}
