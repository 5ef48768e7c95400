package spec

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// EnvVarPrefix prefixes environment variables that set suite variables.
const EnvVarPrefix = "NLUTEST_VAR_"

// resolveVars gives every variable its value. Later sources win: the
// default, then NLUTEST_VAR_NAME, then --var-file files in order, then --var
// settings in order (Terraform's precedence).
func (l *loader) resolveVars() {
	s := l.suite
	vals := map[string]cty.Value{}
	set := map[string]string{}
	for _, v := range s.Variables {
		vals[v.Name] = v.Default
	}
	assign := func(name string, val cty.Value, from string, rng *hcl.Range) {
		v, ok := l.varDecl[name]
		if !ok || v.Sensitive || l.isBroken("variable", name) {
			// A value set under a misspelt name may be a secret too: it
			// is hidden from this load's diagnostics.
			texts, _ := secretTexts(val)
			l.hidden = append(l.hidden, texts...)
		}
		if !ok {
			names := make([]string, 0, len(l.varDecl))
			for n := range l.varDecl {
				names = append(names, n)
			}
			l.errorf(rng, "Undeclared variable", "%s sets %q, but the suite declares no such variable.%s", from, name, didYouMean(name, names))
			return
		}
		if !v.Default.IsNull() && v.Default.Type() != cty.DynamicPseudoType && val.Type() == cty.String {
			if cv, err := convert.Convert(val, v.Default.Type()); err == nil {
				val = cv
			} else {
				l.errorf(rng, "Invalid variable value", "%s sets %q to %s, but its default is %s.", from, name, shownValue(v, val), typeName(v.Default.Type()))
				return
			}
		}
		vals[name] = val
		set[name] = from
	}
	if l.opts.Env != nil {
		for _, v := range s.Variables {
			if x, ok := l.opts.Env(EnvVarPrefix + v.Name); ok {
				assign(v.Name, cty.StringVal(x), "environment variable "+EnvVarPrefix+v.Name, nil)
			}
		}
	}
	for _, f := range l.opts.VarFiles {
		l.readVarFile(f, assign)
	}
	for _, kv := range l.opts.Vars {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(name) == "" {
			l.errorf(nil, "Invalid --var", "--var takes NAME=VALUE; %q has no '='.", kv)
			continue
		}
		assign(strings.TrimSpace(name), cty.StringVal(val), "--var", nil)
	}
	for _, v := range s.Variables {
		val := vals[v.Name]
		if val.IsNull() && v.badDefault {
			l.unset[v.Name] = true // its default's error is the one diagnostic
			val = cty.StringVal("")
		} else if val.IsNull() {
			l.unset[v.Name] = true
			l.errorf(v.DeclRange.Ptr(), "Variable without value", "The variable %q has no default and was not set. Set it with --var %s=VALUE, --var-file, or the environment variable %s%s.", v.Name, v.Name, EnvVarPrefix, v.Name)
			val = cty.StringVal("")
		}
		s.Vars[v.Name] = val
		if v.Sensitive {
			l.collectSecret(v, val)
		}
	}
}

// readVarFile reads NAME = VALUE attributes from an HCL (or .json) file.
func (l *loader) readVarFile(path string, assign func(string, cty.Value, string, *hcl.Range)) {
	// The user's own path: no confinement to the suite directory, but a
	// regular file (a FIFO would block validate) under a size cap.
	src, _, err := OwnFiles.Read("", path, MaxFileBytes)
	if err != nil {
		l.errorf(nil, "Cannot read variable file", "--var-file: %s.", FileError(err))
		return
	}
	// Excerpts of a variable file never show values (maskVarSource).
	l.suite.Sources[path] = maskVarSource(src)
	if d := CheckSource(path, src); d.HasErrors() {
		l.diags = append(l.diags, d...)
		return
	}
	p := hclparse.NewParser()
	var f *hcl.File
	var diags hcl.Diagnostics
	if strings.HasSuffix(path, ".json") {
		f, diags = p.ParseJSON(src, path)
	} else {
		f, diags = p.ParseHCL(src, path)
	}
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return
	}
	attrs, diags := f.Body.JustAttributes()
	l.diags = append(l.diags, diags...)
	for _, a := range sortedAttrs(attrs) {
		v, diags := a.Expr.Value(nil)
		l.diags = append(l.diags, diags...)
		if !diags.HasErrors() {
			assign(a.Name, v, fmt.Sprintf("the variable file %s", path), a.NameRange.Ptr())
		}
	}
}

func sortedAttrs(attrs hcl.Attributes) []*hcl.Attribute {
	out := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, a)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Range.Start.Byte < out[j-1].Range.Start.Byte; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
