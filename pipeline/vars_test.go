package pipeline

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/cputime"
	"github.com/zclconf/go-cty/cty"
)

// A variable's print depends on its name, its value (as text: --var n=5
// and `n = 5` in a variable file agree) and the run's salt, and never
// shows the value; a sensitive value is stretched first.
func TestVarPrint(t *testing.T) {
	salt1, _ := hex.DecodeString(newVarSalt())
	salt2, _ := hex.DecodeString(newVarSalt())
	p := func(salt []byte, name string, v cty.Value) string { return varPrint(salt, name, v, false) }
	city := cty.StringVal("北京")
	same := []struct {
		what string
		a, b string
	}{
		{"the same value", p(salt1, "city", city), p(salt1, "city", cty.StringVal("北京"))},
		{"a number as text or as a number", p(salt1, "n", cty.StringVal("5")), p(salt1, "n", cty.NumberIntVal(5))},
		{"a bool as text or as a bool", p(salt1, "b", cty.StringVal("true")), p(salt1, "b", cty.True)},
	}
	for _, c := range same {
		if c.a != c.b {
			t.Errorf("%s: %s ≠ %s", c.what, c.a, c.b)
		}
	}
	differ := []struct {
		what string
		a, b string
	}{
		{"another value", p(salt1, "city", city), p(salt1, "city", cty.StringVal("上海"))},
		{"another salt", p(salt1, "city", city), p(salt2, "city", city)},
		{"another name", p(salt1, "city", city), p(salt1, "town", city)},
		{"null and empty", p(salt1, "x", cty.NullVal(cty.String)), p(salt1, "x", cty.StringVal(""))},
		{"a list and its JSON text", p(salt1, "l", cty.ListVal([]cty.Value{city})), p(salt1, "l", cty.StringVal(`["北京"]`))},
		{"sensitive or not", varPrint(salt1, "key", city, true), p(salt1, "key", city)},
	}
	for _, c := range differ {
		if c.a == c.b {
			t.Errorf("%s: both print %s", c.what, c.a)
		}
	}
	if s := varPrint(salt1, "key", cty.StringVal("sk-0123456789"), true); !strings.HasPrefix(s, printPBKDF2) || strings.Contains(s, "0123456789") || len(s) != len(printPBKDF2)+32 {
		t.Errorf("sensitive print %s", s)
	}
	if s := p(salt1, "city", city); !strings.HasPrefix(s, printHMAC) || len(s) != len(printHMAC)+32 {
		t.Errorf("print %s", s)
	}
}

func TestVarNames(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"path"}, "var.path"},
		{[]string{"a", "b"}, "var.a and var.b"},
		{[]string{"a", "b", "城市"}, "var.a, var.b and var.城市"},
	} {
		if got := varNames(c.in); got != c.want {
			t.Errorf("varNames(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// BenchmarkVarPrintSensitive measures what one guess at a sensitive value
// costs whoever holds a run.json: one print, the 200,000 PBKDF2 rounds and
// the HMAC, as crack.go of the 2026-12-05 security audit computes it for
// each candidate. docs/security.md's figures come from it:
//
//	go test -run '^$' -bench BenchmarkVarPrintSensitive -benchtime 50x -count 5 -cpu 1 ./pipeline
//
// cpu-ms/guess is the process's CPU time per print (steadier than ns/op on
// a busy machine); guesses/s/core is its inverse.
func BenchmarkVarPrintSensitive(b *testing.B) {
	salt, _ := hex.DecodeString(newVarSalt())
	pin := cty.StringVal("417")
	cpu0, cpuOK := cputime.Process()
	for b.Loop() {
		varPrint(salt, "pin", pin, true)
	}
	if cpu1, ok := cputime.Process(); ok && cpuOK {
		ms := float64((cpu1 - cpu0).Microseconds()) / 1000 / float64(b.N)
		b.ReportMetric(ms, "cpu-ms/guess")
		b.ReportMetric(1000/ms, "guesses/s/core")
	}
}
