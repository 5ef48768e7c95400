package memory

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// BenchmarkMemoryGenerate generates the scripts of a memory block of two
// facts (three questions), 300 names × 8 cities by product and distances
// 0, 2 and 5 — 7,200 scripts, 52,800 turns — and encodes every turn as a
// JSONL line to io.Discard, as `nlutest generate` does.
func BenchmarkMemoryGenerate(b *testing.B) {
	dir := b.TempDir()
	var names []string
	for i := range 300 {
		names = append(names, fmt.Sprintf("%q", fmt.Sprintf("用户%03d", i)))
	}
	src := `suite "m" {}
materials "姓名" { values = [` + strings.Join(names, ", ") + `] }
materials "城市" { values = ["北京", "上海", "广州", "深圳", "杭州", "成都", "武汉", "西安"] }
memory "m" {
  strategy = "product"
  fact {
    say    = "我叫{姓名}。"
    ask    = ["我叫什么名字？", "我是谁？"]
    expect = "{姓名}"
  }
  fact {
    say    = "我住在{城市}。"
    ask    = "我住在哪里？"
    expect = "{城市}"
  }
  filler   = ["今天天气怎么样？", "讲个笑话。"]
  distance = [0, 2, 5]
}
`
	if err := os.WriteFile(filepath.Join(dir, "s.nlutest.hcl"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	s, diags := load(dir)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	b.ReportAllocs()
	turns := 0
	for b.Loop() {
		turns = 0
		err := s.GenerateScripts(spec.GenOptions{}, func(sc *schema.Script) error {
			for _, c := range sc.Turns {
				line, err := schema.EncodeLine(c)
				if err != nil {
					return err
				}
				_, _ = io.Discard.Write(line)
				turns++
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if turns != 52_800 {
		b.Fatalf("generated %d turns, want 52,800", turns)
	}
	b.ReportMetric(float64(turns)*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
}
