package spec

import (
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/nlutest/nlutest/spec/tools"
)

// CompileCheckKey compiles any expectation key a case may carry,
// including the recorded forms of args and final_state entries.
func CompileCheckKey(p string) (tools.CheckKey, error) {
	t := strings.TrimLeft(p, " \t\n\v\f\r")
	switch {
	case strings.HasPrefix(t, tools.Prefix):
		rest := t[len(tools.Prefix):]
		name, path, ok := strings.Cut(rest, ":")
		if !ok || name == "" {
			return tools.CheckKey{}, &jsonpath.Error{Path: p, To: len(p), Reason: "a tool: key is tool:NAME:$.path: the tool's name, a colon and a JSONPath of its arguments"}
		}
		x, norm, err := jsonpath.Compile(path)
		return tools.CheckKey{X: x, Norm: tools.Prefix + name + ":" + norm, Tool: name}, err
	case strings.HasPrefix(t, tools.FinalPrefix):
		x, norm, err := jsonpath.Compile(t[len(tools.FinalPrefix):])
		return tools.CheckKey{X: x, Norm: tools.FinalPrefix + norm, Final: true}, err
	}
	x, norm, state, err := jsonpath.CompileExpect(p)
	return tools.CheckKey{X: x, Norm: norm, State: state}, err
}

// OnResponse reports whether the expectation reads the response (not the
// dialogue state, a tool call or the final state): only those belong to
// schema dimensions.
func (x *ExpectSpec) OnResponse() bool { return !x.State && x.Tool == "" && !x.Final }

// toolsBlocks decodes the one tools block among blocks (nil without
// one). script: the block is a conversation's or scenario's, over every
// turn's calls, where args is not allowed. It returns the checks and the
// args expectations (keys "tool:NAME:$.path") to append to the case's.
func (l *loader) toolsBlocks(blocks hcl.Blocks, slots []string, script bool) (*tools.Checks, []*ExpectSpec) {
	var out *tools.Checks
	var args []*ExpectSpec
	for _, b := range blocks {
		if b.Type != "tools" {
			continue
		}
		if out != nil {
			l.errorf(b.DefRange.Ptr(), "Duplicate tools block", "A case has one tools block, first at %s; put every check in it.", rangeString(out.DeclRange))
			continue
		}
		out, args = l.toolsBlock(b, slots, script)
	}
	return out, args
}

func (l *loader) toolsBlock(b *hcl.Block, slots []string, script bool) (*tools.Checks, []*ExpectSpec) {
	c, ok := l.content(b.Body, tools.ChecksSchema)
	if !ok {
		return &tools.Checks{DeclRange: b.DefRange}, nil
	}
	var out []*ExpectSpec
	tc, diags := tools.DecodeChecks(b, c, script, l.toolsEnv(), func(name string, a *hcl.Attribute) hcl.Diagnostics {
		return l.collect(func() {
			for _, es := range l.decodeExpect(a, slots) {
				if es.State {
					l.errorf(es.Range.Ptr(), "State path in args", "args paths read the call's arguments; a state: path reads the dialogue state, which belongs in the turn's expect.")
					continue
				}
				es.Path, es.Tool = tools.Prefix+name+":"+es.Path, name
				out = append(out, es)
			}
		})
	})
	l.diags = append(l.diags, diags...)
	return tc, out
}

// decodeTools decodes the tool blocks into s.Tools, in order.
func (l *loader) decodeTools(blocks []*hcl.Block) {
	byName, order, diags := tools.DecodeMocks(blocks, l.toolsEnv())
	l.diags = append(l.diags, diags...)
	l.suite.Tools, l.suite.ToolOrder = byName, order
}

// checkToolName is tools.CheckName, reported.
func (l *loader) checkToolName(e hcl.Expression, name string) bool {
	ok, diags := tools.CheckName(e, name, l.toolsEnv())
	l.diags = append(l.diags, diags...)
	return ok
}

// toolsEnv is what the tools leaf's decoders need from the loader.
func (l *loader) toolsEnv() tools.Env {
	return tools.Env{
		Content: func(body hcl.Body, schema *hcl.BodySchema) (c *hcl.BodyContent, ok bool, diags hcl.Diagnostics) {
			diags = l.collect(func() { c, ok = l.content(body, schema) })
			return c, ok, diags
		},
		Static: l.staticDiags,
		MockExpr: func(e hcl.Expression, what string) (ok bool, diags hcl.Diagnostics) {
			diags = l.collect(func() { ok = l.onlyRoots(e, what, tools.MockRoots...) && l.noSensitive(e) })
			return ok, diags
		},
		Expect: func(a *hcl.Attribute) (out []tools.Expectation, diags hcl.Diagnostics) {
			diags = l.collect(func() {
				for _, es := range l.decodeExpect(a, nil) {
					out = append(out, tools.Expectation{Path: es.Path, X: es.Expr, State: es.State, Value: es.Value, Placeholders: es.HasPlaceholders, Range: es.Range})
				}
			})
			return out, diags
		},
		Suggest: suggest,
		Tools:   l.suite.ToolOrder,
	}
}

// collect runs f and returns the diagnostics it reports, instead of
// reporting them: for a leaf's decoder, which returns its own.
func (l *loader) collect(f func()) hcl.Diagnostics {
	mark := len(l.diags)
	f()
	diags := slices.Clone(l.diags[mark:])
	l.diags = l.diags[:mark]
	return diags
}

// ConstTools is SourceInfo.Tools for a source whose every case has the
// tools block tc (nil when tc is nil).
func ConstTools(tc *tools.Checks) func(*schema.Case) *tools.Checks {
	if tc == nil {
		return nil
	}
	return func(*schema.Case) *tools.Checks { return tc }
}
