package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
	"slices"
)

// Fingerprint is a digest of what the suite's cases are made of: its suite
// files and the materials sources they name (each name and content, in a
// fixed order). A run records it, so a resume or a merge notices a suite
// edited since. Variable values are left out: they never reach disk.
func (s *Suite) Fingerprint() string {
	h := sha256.New()
	add := func(name string, content []byte) {
		io.WriteString(h, name)
		h.Write([]byte{0})
		io.WriteString(h, hex.EncodeToString(sha(content)))
		h.Write([]byte{0})
	}
	for _, f := range s.Files {
		add(filepath.Base(f), s.Sources[f])
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range s.Materials {
			if !yield(n) {
				return
			}
		}
	})
	for _, n := range names {
		m := s.Materials[n]
		if m.Source == "" {
			continue
		}
		b, _, err := s.Access.Read(filepath.Dir(m.DeclRange.Filename), m.Source, MaxMaterialBytes)
		if err != nil {
			b = []byte(err.Error())
		}
		add("materials:"+n, b)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))[:32]
}

func sha(b []byte) []byte {
	sum := sha256.Sum256(b)
	return sum[:]
}
