package spec

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenRules: FileAccess.Open, the one function nlutest opens a named
// file with, refuses a FIFO without waiting for a writer, a device, a file
// over the cap and a path leaving the suite directory, each with an error
// errors.Is can tell apart; OwnFiles (the user's own paths) is not
// confined.
func TestOpenRules(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "管道.jsonl"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "子目录"), 0o755); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(dir, "大.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(MaxDataBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	big.Close()
	for name, body := range map[string]string{filepath.Join(dir, "好.jsonl"): "{\"text\":\"北京\"}\n", filepath.Join(outside, "密.txt"): "secret"} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fa := FileAccess{Dir: dir}
	tests := []struct {
		name string
		fa   FileAccess
		path string
		want error // nil: opens
	}{
		{"regular", fa, "好.jsonl", nil},
		{"FIFO", fa, "管道.jsonl", ErrNotRegular},
		{"directory", fa, "子目录", ErrNotRegular},
		{"/dev/zero, outside", fa, "/dev/zero", ErrOutside},
		{"/dev/zero, allowed outside", FileAccess{Dir: dir, AllowOutside: true}, "/dev/zero", ErrNotRegular},
		{"over the cap", fa, "大.jsonl", ErrTooBig},
		{"outside", fa, filepath.Join(outside, "密.txt"), ErrOutside},
		{"outside, the user's own path", OwnFiles, filepath.Join(outside, "密.txt"), nil},
		{"missing", fa, "无.jsonl", fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := tt.fa.Open(dir, tt.path, MaxDataBytes)
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(f)
				f.Close()
				if len(b) == 0 {
					t.Error("read nothing")
				}
				return
			}
			if f != nil {
				f.Close()
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
			if _, cerr := tt.fa.Check(dir, tt.path, MaxDataBytes); !errors.Is(cerr, tt.want) {
				t.Errorf("Check: %v, want %v", cerr, tt.want)
			}
		})
	}
}
