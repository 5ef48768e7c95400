package conversation

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec"
)

// longSuite is a conversation of 3×256+7 turns (three batches of streamed
// turns and a few more), with scene and tags between turns, beside a
// conversation that trips a skim of the text (braces and quotes in
// strings, heredocs, comments, a fragment, captures) and a one-turn one.
func longSuite() string {
	var b strings.Builder
	b.WriteString("suite \"s\" {}\nmaterials \"m\" { values = [\"甲\", \"乙\"] }\nconversation \"长\" {\n")
	for i := range 3*256 + 7 {
		switch i {
		case 50:
			b.WriteString("  scene = [\"出行\"]\n")
		case 300:
			b.WriteString("  tags = [\"长\"]\n  # 注释\n")
		}
		fmt.Fprintf(&b, "  turn {\n    user = \"第%d轮 {m}\"\n", i)
		if i%3 == 0 {
			fmt.Fprintf(&b, "    expect = { \"$.n\" = %d }\n", i)
		}
		b.WriteString("  }\n")
	}
	b.WriteString("}\n")
	return b.String() + lexicalRest
}

// lexicalRest is the rest of the suite: a fragment, a conversation
// written to trip a skim of its text, a one-turn conversation.
const lexicalRest = `variable "who" { default = "小明" }
materials "城市" { values = ["北京", "上海"] }
fragment "确认" {
  turn {
    user   = "确认 }}{{ \" 订单"
    expect = { "$.intent.name" = "confirm" }
  }
}
conversation "订票" {
  level = "S1"
  # a comment with } and "quotes
  turn {
    user   = "我想去{城市}，${var.who} 说 \"}}\" 和 ${ "{{" }"
    expect = { "$.entities[0].value" = "{城市}" }
    assert {
      condition = strcontains(reply, "}") || reply != "/* not a comment */"
      message   = "回复 ${ lookup({ a = "}" }, "a", "x") } 不对"
    }
  } // after the block
  /* a block comment
     between turns, with turn { user = "x" } inside */
  turn {
    user = "$${{not}} %%{{ also not }} 第二轮"
    capture_reply = { order = "订单号\\s*([A-Z0-9]+)" }
    reply {
      contains = ["好的"]
    }
  }
  tags = ["a", "b"]
  turn {
    use = "确认"
  }
turn {
    user = <<-EOT
      第四轮 ${var.who} }}
        EOT
}
  turn {
    user = "最后 {城市}"
    assert {
      condition = reply != ""
      message   = <<EOT
The reply is polite. "quoted" }
EOT
    }
  }
}
conversation "短" {
  turn { user = "一" }
}
target "t" {
  demo {}
}
template "单" {
  text = "你好 {城市}"
}
`

// A conversation longer than lazyTurnsAfter makes its turns after the
// first on demand (schema.Script.Rest): the same cases as made at once,
// each made anew when asked, and each rebuilt from its record as eval
// does.
func TestLazyTurnsAreTheEagerOnes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s"+spec.FileSuffix), []byte(longSuite()), 0o644); err != nil {
		t.Fatal(err)
	}
	generate := func(after int) (lines []string, lazy int) {
		old := lazyTurnsAfter
		lazyTurnsAfter = after
		defer func() { lazyTurnsAfter = old }()
		s, diags := load(dir)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		rb := s.NewRebuilder()
		err := s.GenerateScripts(spec.GenOptions{}, func(sc *schema.Script) error {
			if sc.Rest != nil {
				lazy++
				first, again := sc.At(2), sc.At(2)
				if len(sc.Turns) != 1 || sc.Len() != 1+sc.RestLen || first == again {
					t.Errorf("script %s: %d turns held, Len %d, RestLen %d; At must make a new case each time", sc.ID, len(sc.Turns), sc.Len(), sc.RestLen)
				}
			}
			for i := range sc.Len() {
				c := sc.At(i)
				line, err := schema.EncodeLine(c)
				if err != nil {
					return err
				}
				lines = append(lines, string(line))
				saved := *c
				re, ok := rb.Rebuild(&saved)
				if back, _ := schema.EncodeLine(re); !ok || string(back) != string(line) {
					t.Errorf("turn %s rebuilds as %s (ok %v), want %s", c.ID, back, ok, line)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return lines, lazy
	}
	eager, n := generate(1 << 30)
	lazy, m := generate(1)
	if n != 0 || m != 4 { // 长 and 订票, 2 instances each; 短 (one turn) is made at once
		t.Errorf("%d and %d lazy scripts, want 0 and 4", n, m)
	}
	if strings.Join(eager, "") != strings.Join(lazy, "") {
		t.Errorf("lazy turns differ:\n%s\n---\n%s", strings.Join(eager, ""), strings.Join(lazy, ""))
	}
}
