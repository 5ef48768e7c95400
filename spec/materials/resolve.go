package materials

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Block is a materials block as Resolve sees it.
type Block struct {
	Name  string
	Level string
	// Values are the block's values; Resolve appends the composed ones.
	Values []Value
	// Composition is the block's parsed compose attribute; nil when it
	// has none.
	Composition *Composition
	// Broken: the block has errors (reported), so its values are not all
	// there. Resolve sets it for a block it cannot compose.
	Broken bool
}

// Composition is a materials block's `compose` attribute, parsed: its
// patterns (those without errors) and the attribute's range.
type Composition struct {
	Patterns []Pattern
	At       hcl.Range
}

// Resolve builds the values of every composing block of blocks (Compose),
// the blocks it composes from first, visiting order (the blocks'
// declaration order) so that diagnostics come in file order. It reports a
// cycle of blocks composing each other at the compose attribute of the
// cycle's first block, and a product over ComposeLimit; unknown makes the
// diagnostic of a placeholder that names no block (the caller knows the
// source to point into and the names to suggest). A block that cannot be
// composed, or composes from one that is broken or in a cycle, is marked
// Broken; the blocks of a cycle are not (the cycle's diagnostic is their
// error).
func Resolve(order []string, blocks map[string]*Block, unknown func(ref Ref, at hcl.Range) *hcl.Diagnostic) hcl.Diagnostics {
	r := &resolver{blocks: blocks, unknown: unknown, state: map[string]int{}}
	for _, name := range order {
		if b := blocks[name]; b != nil && b.Composition != nil {
			r.visit(name)
		}
	}
	return r.diags
}

// The states of a block in resolver; 0 is not yet visited.
const (
	visiting = iota + 1
	done
	failed
)

// resolver is the state of Resolve's depth-first walk.
type resolver struct {
	blocks  map[string]*Block
	unknown func(Ref, hcl.Range) *hcl.Diagnostic
	state   map[string]int
	stack   []string
	diags   hcl.Diagnostics
}

// visit composes the block name after the blocks it names; false when it
// cannot.
func (r *resolver) visit(name string) bool {
	switch r.state[name] {
	case done:
		return true
	case failed:
		return false
	case visiting:
		r.cycle(name)
		return false
	}
	b := r.blocks[name]
	if b.Broken && b.Composition == nil {
		r.state[name] = failed // its own error is reported
		return false
	}
	c := b.Composition
	if c == nil {
		r.state[name] = done
		return true
	}
	r.state[name] = visiting
	r.stack = append(r.stack, name)
	ok := r.visitParts(c)
	r.stack = r.stack[:len(r.stack)-1]
	if r.state[name] == failed { // part of a cycle found below
		return false
	}
	if ok {
		var diags hcl.Diagnostics
		b.Values, ok, diags = Compose(b.Name, b.Level, b.Values, c.Patterns, r.values, c.At)
		r.diags = append(r.diags, diags...)
	}
	if ok {
		r.state[name] = done
	} else {
		r.state[name] = failed
		b.Broken = true
	}
	return ok
}

// visitParts visits the blocks c's placeholders name; false when one is
// unknown or cannot be composed.
func (r *resolver) visitParts(c *Composition) bool {
	ok := true
	for _, p := range c.Patterns {
		for _, ref := range p.Refs {
			if _, known := r.blocks[ref.Material]; !known {
				r.diags = append(r.diags, r.unknown(ref, c.At))
				ok = false
				continue
			}
			if !r.visit(ref.Material) {
				ok = false
			}
		}
	}
	return ok
}

// cycle reports the cycle that closes at name and fails its blocks.
func (r *resolver) cycle(name string) {
	i := slices.Index(r.stack, name)
	cycle := append(slices.Clone(r.stack[i:]), name)
	first := r.blocks[cycle[0]].Composition
	r.diags = append(r.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Compose cycle",
		Detail:  fmt.Sprintf("The materials compose each other in a cycle: %s. A composed value must end in plain values; remove one of these placeholders.", strings.Join(cycle, " → ")),
		Subject: first.At.Ptr()})
	for _, n := range cycle[:len(cycle)-1] {
		r.state[n] = failed
	}
}

func (r *resolver) values(name string) []Value { return r.blocks[name].Values }
