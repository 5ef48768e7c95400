package assert

import (
	"hash/maphash"
	"strconv"

	"github.com/nlutest/nlutest/schema"
	"github.com/ohler55/ojg/jp"
)

// canon is the canonical text dimension units compare on.
func canon(v any) string { return schema.CanonicalJSON(v) }

var pathSeed = maphash.MakeSeed()

// pathHash identifies a normalised path without building its text.
func pathHash(p jp.Expr) uint64 {
	var h maphash.Hash
	h.SetSeed(pathSeed)
	for _, f := range p {
		switch t := f.(type) {
		case jp.Child:
			h.WriteByte('.')
			h.WriteString(string(t))
		case jp.Nth:
			h.WriteByte('[')
			var buf [20]byte
			h.Write(strconv.AppendInt(buf[:0], int64(t), 10))
		default:
			h.WriteByte('$')
		}
	}
	return h.Sum64()
}
