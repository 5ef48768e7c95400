package spec

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/nlutest/nlutest/redact"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// The rules for sensitive variables (docs/security.md):
//
//   - Their values are secrets: every text form of them (strings as they
//     are, numbers in their shortest decimal form) is redacted from
//     everything recorded or printed, in every encoding package redact
//     knows.
//   - A sensitive value is redacted by its text, so a text shorter than
//     MinSecretLen characters (and a bool, whose text is "true" or "false")
//     cannot be hidden without wrecking every report: the load refuses it.
//     The empty string is allowed (nothing to hide: an unset env()).
//   - A value short or simple enough to guess (Guessable) is accepted with
//     a warning: run.json keeps a salted, stretched print of it, which
//     whoever reads run.json can test guesses against.
//   - In the contexts of checks (assert conditions, thresholds, split
//     where) sensitive values carry the Sensitive mark, so a function that
//     fails on one says so without printing it; every message built from a
//     diagnostic goes through the suite's redactor as well.

// MinSecretLen is the fewest characters a sensitive value may have.
const MinSecretLen = 3

// GuessableLog10 bounds the values a sensitive value is warned about: one
// whose length and kinds of characters allow fewer than 10^GuessableLog10
// values (Guessable). A guess at run.json's print of a value costs about
// 33–42 ms of one core (pipeline's BenchmarkVarPrintSensitive, 2026-12),
// so 10^12 guesses are about 1,000 core-years: beyond a CPU, and a margin
// for hardware that guesses faster (a GPU; not measured).
const GuessableLog10 = 12

// Guessable reports whether a search of every text of s's length drawn
// from the kinds of characters s uses — digits (10), lower-case (26) and
// upper-case (26) ASCII letters, other ASCII (33), anything else (counted
// as 3,000: common Chinese characters, accented letters) — has fewer than
// 10^GuessableLog10 candidates. It knows nothing of words: a long
// password from a dictionary passes it and is guessable all the same.
func Guessable(s string) bool {
	var digit, lower, upper, ascii, wide bool
	n := 0
	for _, r := range s {
		n++
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r < utf8.RuneSelf:
			ascii = true
		default:
			wide = true
		}
	}
	alphabet := 0
	for _, k := range []struct {
		used bool
		size int
	}{{digit, 10}, {lower, 26}, {upper, 26}, {ascii, 33}, {wide, 3000}} {
		if k.used {
			alphabet += k.size
		}
	}
	return n > 0 && float64(n)*math.Log10(float64(alphabet)) < GuessableLog10
}

// sensitiveMark is the cty mark of values derived from a sensitive
// variable.
type sensitiveMark struct{}

// Sensitive marks cty values derived from a sensitive variable.
var Sensitive = sensitiveMark{}

// Unmark returns v without marks, for Go code that reads a value a check
// computed (cty panics on reading a marked value).
func Unmark(v cty.Value) cty.Value {
	v, _ = v.UnmarkDeep()
	return v
}

// Redactor returns the redactor of the suite's secrets (built once).
func (s *Suite) Redactor() *redact.Redactor {
	s.redOnce.Do(func() { s.red = redact.New(s.Secrets) })
	return s.red
}

// RedactDiags returns diags with their summaries and details redacted.
func RedactDiags(diags hcl.Diagnostics, r *redact.Redactor) hcl.Diagnostics {
	if r.Empty() {
		return diags
	}
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		c := *d
		c.Summary, c.Detail = r.String(d.Summary), r.String(d.Detail)
		out[i] = &c
	}
	return out
}

// secretTexts returns the text forms of v's leaves, and whether any leaf
// is too short to redact (or a bool).
func secretTexts(v cty.Value) (texts []string, tooShort bool) {
	var walk func(v cty.Value)
	walk = func(v cty.Value) {
		if v.IsNull() || !v.IsKnown() {
			return
		}
		ty := v.Type()
		switch {
		case ty == cty.String || ty == cty.Number:
			text := v.AsString
			if ty == cty.Number {
				text = func() string { return v.AsBigFloat().Text('f', -1) }
			}
			s := text()
			if n := utf8.RuneCountInString(s); n > 0 && n < MinSecretLen {
				tooShort = true
			} else if n > 0 {
				texts = append(texts, s)
			}
		case ty == cty.Bool:
			tooShort = true
		case ty.IsListType() || ty.IsTupleType() || ty.IsSetType() || ty.IsMapType() || ty.IsObjectType():
			for it := v.ElementIterator(); it.Next(); {
				_, e := it.Element()
				walk(e)
			}
		}
	}
	walk(v)
	return texts, tooShort
}

// collectSecret adds the text forms of sensitive variable v's value to the
// suite's secrets, refusing values too short to redact.
func (l *loader) collectSecret(v *Variable, val cty.Value) {
	texts, short := secretTexts(val)
	l.suite.Secrets = append(l.suite.Secrets, texts...)
	if short {
		l.errorf(v.DeclRange.Ptr(), "Sensitive value too short to hide",
			"The sensitive variable %q has a value (or part of one) shorter than %d characters, or a bool. nlutest hides a secret by replacing its text wherever it would be written, and text this short appears everywhere (in numbers, ids, words), so it cannot be hidden. Use a longer secret, or remove sensitive = true if the value is not secret.",
			v.Name, MinSecretLen)
	}
	for _, s := range texts {
		if Guessable(s) {
			l.warnf(v.DeclRange.Ptr(), "Sensitive value easy to guess",
				"The sensitive variable %q has a value (or part of one) short or simple enough to guess: its length and kinds of characters allow fewer than 10^%d values. A run keeps a salted, stretched print of each variable's value in run.json (so that --resume and merge can refuse another value); whoever can read run.json can test guesses against it, at about 24–30 a second on one core — a 4-digit PIN in minutes, 6 digits in hours (docs/security.md). Keep run directories private, or use a longer random value.",
				v.Name, GuessableLog10)
			return
		}
	}
}

// maskVarSource returns a variable file's text for diagnostics' source
// excerpts: every line keeps what comes before its first '=' or ':' (the
// name, so a caret under a misspelt name still shows it) and loses the rest,
// since a value set there may be a secret — even one set under a misspelt
// name, whose sensitivity nobody knows.
func maskVarSource(src []byte) []byte {
	lines := bytes.SplitAfter(src, []byte("\n"))
	var out bytes.Buffer
	for _, line := range lines {
		body := bytes.TrimRight(line, "\r\n")
		end := line[len(body):]
		i := bytes.IndexAny(body, "=:")
		switch {
		case i >= 0:
			out.Write(body[:i+1])
			if len(bytes.TrimSpace(body[i+1:])) > 0 {
				out.WriteString(" …")
			}
		case len(bytes.Trim(body, " \t{}[](),")) == 0:
			out.Write(body)
		default:
			out.WriteString("…")
		}
		out.Write(end)
	}
	return out.Bytes()
}

// hasSensitive reports whether any variable is sensitive.
func (s *Suite) hasSensitive() bool {
	for _, v := range s.Variables {
		if v.Sensitive {
			return true
		}
	}
	return false
}

// markedVars returns the var object of check contexts: sensitive
// variables' values carry the Sensitive mark.
func (s *Suite) markedVars() cty.Value {
	vals := make(map[string]cty.Value, len(s.Vars))
	for k, v := range s.Vars {
		vals[k] = v
	}
	for _, v := range s.Variables {
		if val, ok := vals[v.Name]; ok && v.Sensitive {
			vals[v.Name] = val.Mark(Sensitive)
		}
	}
	return cty.ObjectVal(vals)
}

// errSensitiveHidden replaces the error of a function called on a
// sensitive value.
const errSensitiveHidden = "the call failed on a value derived from a sensitive variable; the error is not shown, since it could quote the value"

// hideSensitiveErrors wraps every function of the table (try and can,
// which take expressions, excepted) so an error of a call whose arguments
// hold a sensitive value does not quote them. The wrapped function behaves
// as the original otherwise.
func hideSensitiveErrors(funcs map[string]function.Function) map[string]function.Function {
	out := make(map[string]function.Function, len(funcs))
	for name, f := range funcs {
		if name == "try" || name == "can" {
			out[name] = f
			continue
		}
		out[name] = hideErrors(f)
	}
	return out
}

func hideErrors(f function.Function) function.Function {
	params := f.Params()
	for i := range params {
		params[i].AllowMarked = true
	}
	vp := f.VarParam()
	if vp != nil {
		vp.AllowMarked = true
	}
	hide := func(args []cty.Value, err error) error {
		if err == nil {
			return nil
		}
		for _, a := range args {
			if a.ContainsMarked() {
				var ae function.ArgError
				if errors.As(err, &ae) {
					return function.NewArgErrorf(ae.Index, "%s", errSensitiveHidden)
				}
				return errors.New(errSensitiveHidden)
			}
		}
		return err
	}
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      params,
		VarParam:    vp,
		Type: func(args []cty.Value) (cty.Type, error) {
			ty, err := f.ReturnTypeForValues(args)
			return ty, hide(args, err)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, err := f.Call(args)
			return v, hide(args, err)
		},
	})
}

// shownValue is how var-file, --var and environment diagnostics name the
// value set: quoted, except a sensitive variable's.
func shownValue(v *Variable, val cty.Value) string {
	if v.Sensitive {
		return "a value (not shown: the variable is sensitive)"
	}
	if val.Type() != cty.String || val.IsNull() {
		return "a " + typeName(val.Type())
	}
	return fmt.Sprintf("%q", strings.ToValidUTF8(val.AsString(), "\uFFFD"))
}
