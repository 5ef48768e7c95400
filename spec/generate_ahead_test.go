package spec

import (
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/nlutest/nlutest/schema"
)

// countingSource counts the scripts its source has made.
type countingSource struct {
	Source
	made *atomic.Int64
}

func (c countingSource) Generate(g *Gen, yield func(*schema.Script) error) error {
	return c.Source.Generate(g, func(sc *schema.Script) error {
		c.made.Add(1)
		return yield(sc)
	})
}

// While the caller holds on to a script, generation stops at most
// genAhead scripts ahead: the scripts made ahead are memory a run holds.
func TestGenerationMakesAtMostGenAheadScriptsAhead(t *testing.T) {
	s, diags, _ := loadText(t, `
materials "次" { values = [for i in range(30) : "${i}"] }
materials "城" { values = [for i in range(30) : "${i}"] }
template "订机票" {
  strategy = "product"
  text     = "第{次}次帮我订去城市{城}的机票"
  expect   = { "$.intent.name" = "book_flight" }
}
`)
	if s == nil || diags != "" {
		t.Fatalf("the suite does not load: %s", diags)
	}
	var made atomic.Int64
	s.CaseSources[0] = countingSource{s.CaseSources[0], &made}
	synctest.Test(t, func(t *testing.T) {
		hold, got := make(chan struct{}), 0
		finished := make(chan error)
		go func() {
			finished <- s.GenerateScripts(GenOptions{}, func(*schema.Script) error {
				if got++; got == 1 {
					<-hold
				}
				return nil
			})
		}()
		synctest.Wait() // the caller holds the first script; generation has stopped
		if n := made.Load(); n > genAhead || n < genBatch {
			t.Errorf("generation made %d scripts while the caller held the first, want %d to %d", n, genBatch, genAhead)
		}
		close(hold)
		if err := <-finished; err != nil {
			t.Fatal(err)
		}
		if got != 900 {
			t.Errorf("yield got %d scripts, want 900", got)
		}
	})
}
