package turnstream

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// lexical is a suite written to trip a skim of the text: braces, quotes
// and markers inside strings, interpolations holding strings with braces,
// heredocs, comments between and inside turns, Chinese text, a closing
// brace at column 1 and an item between turns.
const lexical = `suite "流式" {}
conversation "订票" {
  level = "S1"
  # a comment with } and "quotes
  turn {
    user   = "我想去{城市}，${var.who} 说 \"}}\" 和 ${ "{{" }"
    assert {
      condition = strcontains(reply, "}") || reply != "/* not a comment */"
      message   = "回复 ${ lookup({ a = "}" }, "a", "x") } 不对"
    }
  } // after the block
  /* a block comment
     between turns, with turn { user = "x" } inside */
  turn {
    user = "$${{not}} %%{{ also not }} 第二轮"
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
}
conversation "短" {
  turn { user = "一" }
}
template "单" {
  text = "你好"
}
`

// longConversation is a conversation of n turns, an attribute after
// turn 50.
func longConversation(n int, user string) string {
	var b strings.Builder
	b.WriteString("suite \"s\" {}\nconversation \"长\" {\n")
	for i := range n {
		if i == 50 {
			b.WriteString("  scene = [\"出行\"]\n")
		}
		fmt.Fprintf(&b, "  turn {\n    user = \"第%d轮 %s\"\n  }\n", i, user)
	}
	b.WriteString("}\n")
	return b.String()
}

// wholeTurns parses src whole and describes the turn blocks of its
// conversations: each block's range and every attribute's range and
// source text.
func wholeTurns(t *testing.T, src []byte) []string {
	t.Helper()
	f, diags := hclsyntax.ParseConfig(src, "s.nlutest.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var out []string
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type != "conversation" {
			continue
		}
		for _, tb := range b.Body.Blocks {
			if tb.Type == "turn" {
				out = append(out, describe(src, tb)...)
			}
		}
	}
	return out
}

func describe(src []byte, b *hclsyntax.Block) []string {
	out := []string{fmt.Sprintf("turn %v", b.DefRange())}
	for _, a := range b.Body.Attributes {
		r := a.SrcRange
		out = append(out, fmt.Sprintf("  %s %v %q", a.Name, r, src[r.Start.Byte:r.End.Byte]))
	}
	return out
}

// streamedTurns is wholeTurns read through Skim and Parse; it also checks
// that the masked text keeps every newline and byte count and parses
// with no turn block left in a streamed conversation.
func streamedTurns(t *testing.T, src []byte, want int) []string {
	t.Helper()
	streams, masked := Skim(src, "s.nlutest.hcl")
	if len(streams) != want {
		t.Fatalf("%d conversations streamed, want %d", len(streams), want)
	}
	if len(masked) != len(src) {
		t.Fatalf("masked text is %d bytes, the file %d", len(masked), len(src))
	}
	for i := range src {
		if (src[i] == '\n') != (masked[i] == '\n') {
			t.Fatalf("byte %d: a newline moved", i)
		}
	}
	f, diags := hclsyntax.ParseConfig(masked, "s.nlutest.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("masked text does not parse: %v\n%s", diags, masked)
	}
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		for _, tb := range b.Body.Blocks {
			if tb.Type == "turn" {
				t.Errorf("turn block at %v left in the masked text", tb.DefRange())
			}
		}
	}
	var out []string
	for _, ts := range streams {
		if ts.File() != "s.nlutest.hcl" || !bytes.HasPrefix(src[ts.At():], []byte("conversation")) {
			t.Errorf("stream at %s:%d is not a conversation block", ts.File(), ts.At())
		}
		for i := range ts.Batches() {
			blocks, body, diags := ts.Parse(i)
			if diags.HasErrors() || len(blocks) != len(body.Blocks) {
				t.Fatalf("batch %d: %v", i, diags)
			}
			for _, b := range body.Blocks {
				out = append(out, describe(src, b)...)
			}
		}
	}
	return out
}

// Streamed turn blocks parse with the very ranges and text of the whole
// parse, in the same order.
func TestStreamedTurnsMatchWholeParse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		src     string
		streams int
		batches []int
	}{
		{"lexical", lexical, 2, []int{2, 1}}, // turns 1–2 (a comment between) and 3–4 (after tags); the short one
		{"crlf", "suite \"s\" {}\r\nconversation \"c\" {\r\n  turn {\r\n    user = \"一\"\r\n  }\r\n  turn {\r\n    user = \"二\"\r\n  }\r\n}\r\n", 1, []int{1}},
		{"long", longConversation(3*MaxBatchTurns+7, "{城市}"), 1, []int{4}}, // turns 0–49 (scene after them), 50–305, 306–561, 562–774
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.src)
			whole := wholeTurns(t, src)
			got := streamedTurns(t, src, tc.streams)
			if strings.Join(got, "\n") != strings.Join(whole, "\n") {
				t.Fatalf("streamed:\n%s\nwhole:\n%s", strings.Join(got, "\n"), strings.Join(whole, "\n"))
			}
			streams, _ := Skim(src, "s.nlutest.hcl")
			for i, ts := range streams {
				if ts.Batches() != tc.batches[i] {
					t.Errorf("conversation %d: %d batches, want %d", i, ts.Batches(), tc.batches[i])
				}
			}
		})
	}
}

// A batch holds at most MaxBatchTurns blocks and, when it holds more than
// one, spans at most MaxBatchBytes; a turn bigger than that is a batch of
// its own.
func TestBatchBounds(t *testing.T) {
	big := strings.Repeat("长", MaxBatchBytes/3/3+10) // a turn of over a third of the byte bound: two a batch
	for _, tc := range []struct {
		name, src string
		batches   int
	}{
		{"by turns", longConversation(2*MaxBatchTurns, ""), 3}, // turns 0–49, 50–305, 306–511
		{"by bytes", longConversation(9, big), 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.src)
			streams, _ := Skim(src, "s.nlutest.hcl")
			if len(streams) != 1 {
				t.Fatalf("%d streams", len(streams))
			}
			ts := streams[0]
			if ts.Batches() != tc.batches {
				t.Errorf("%d batches, want %d", ts.Batches(), tc.batches)
			}
			for i, b := range ts.batches {
				if b.n > MaxBatchTurns || b.n > 1 && b.to-b.from > MaxBatchBytes {
					t.Errorf("batch %d: %d turns, %d bytes", i, b.n, b.to-b.from)
				}
			}
		})
	}
}

// Text the skim cannot follow streams nothing (the loader parses the
// file whole), and a conversation whose turn block does not stand alone
// on its lines is not streamed.
func TestSkimDeclines(t *testing.T) {
	for name, src := range map[string]string{
		"no conversation":     "suite \"s\" {}\ntemplate \"t\" { text = \"你好\" }\n",
		"stray brace":         "suite \"s\" {}\n}\nconversation \"c\" {\n  turn { user = \"一\" }\n}\n",
		"open string":         "conversation \"c\" {\n  turn { user = \"一 }\n}\n",
		"unclosed body":       "conversation \"c\" {\n  turn { user = \"一\" }\n",
		"turn after text":     "conversation \"c\" {\n  tags = [] turn { user = \"一\" }\n}\n",
		"text after turn":     "conversation \"c\" {\n  turn { user = \"一\" } tags = []\n}\n",
		"unclosed heredoc":    "conversation \"c\" {\n  turn {\n    user = <<EOT\n一\n  }\n}\n",
		"nested conversation": "group {\n  conversation \"c\" {\n    turn { user = \"一\" }\n  }\n}\n",
	} {
		t.Run(name, func(t *testing.T) {
			if streams, masked := Skim([]byte(src), "s.nlutest.hcl"); len(streams) != 0 || masked != nil {
				t.Errorf("%d streams for\n%s", len(streams), src)
			}
		})
	}
}
