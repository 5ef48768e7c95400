package transport

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/internal/mutate"
	"github.com/nlutest/nlutest/jsondoc"
)

// validSamples are documents, valid and not, that the random mutations
// below start from: Chinese text, escapes, numbers at every edge of the
// grammar, nesting, whitespace, invalid UTF-8 and control characters.
var validSamples = []string{
	`{"text":"订一张去北京的机票","intent":{"name":"订机票","confidence":0.97},"entities":[{"entity":"城市","value":"北京","start":4,"end":6}]}`,
	` { "a" : [ 1 , -2.5e+3 , 0.0 , 1E9 , -0 , true , false , null , "\u4e2d\n\"\\\/\b\f\r\t" ] } `,
	`[]`, `{}`, `[[[[[]]]]]`, `[{},{"":{}}]`, `"x"`, `0`, `-0.1e-07`, `true`, "\t\r\n null \n",
	`{"a":1,}`, `[1,]`, `[01]`, `[1.]`, `[.5]`, `[1e]`, `[-]`, `[+1]`, `"\x"`, `"\u12G4"`, `"\u123"`,
	"\"tab\there\"", "\"bad\xff\xfeutf8 中\"", `{"a" 1}`, `{1:2}`, `[1 2]`, `nul`, `truex`, `{"a":1}}`,
	`[` + strings.Repeat(`[`, 70) + strings.Repeat(`]`, 71), strings.Repeat(`{"k":`, 80) + `1` + strings.Repeat(`}`, 80),
	"", " ", `{"a":"b"`, `["\u2028"]`, `"` + "\x7f" + `"`,
}

// TestQuickValidNeverAcceptsWhatValidRejects: jsondoc.ProvedValid may only say
// "valid" when json.Valid does, and validJSON always answers as json.Valid;
// checked on the samples and on 200,000 random mutations of them (bytes
// replaced, inserted, deleted, cut), which cover both answers.
func TestQuickValidNeverAcceptsWhatValidRejects(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 3))
	var accepted, rejected, quick int
	check := func(doc []byte) {
		want := json.Valid(doc)
		if got := validJSON(doc); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid %v", doc, got, want)
		}
		if q := jsondoc.ProvedValid(doc); q && !want {
			t.Fatalf("jsondoc.ProvedValid(%q) = true, json.Valid false", doc)
		} else if q {
			quick++
		}
		if want {
			accepted++
		} else {
			rejected++
		}
	}
	for _, s := range validSamples {
		check([]byte(s))
	}
	for range 200_000 {
		doc := []byte(validSamples[rng.IntN(len(validSamples))])
		doc = mutate.Edit(rng, doc, mutate.JSON)
		check(doc)
	}
	if accepted < 1000 || rejected < 1000 || quick < accepted/2 {
		t.Fatalf("the mutations gave %d valid (%d shown by jsondoc.ProvedValid) and %d invalid documents: too few of one", accepted, quick, rejected)
	}
	// Every valid sample not nested past jsondoc.ProvedDepth is shown valid by
	// the quick path itself.
	for _, s := range validSamples {
		if json.Valid([]byte(s)) && !strings.Contains(s, strings.Repeat("[", 65)) && !strings.Contains(s, strings.Repeat(`{"k":`, 65)) && !jsondoc.ProvedValid([]byte(s)) {
			t.Errorf("jsondoc.ProvedValid(%q) = false for a valid document", s)
		}
	}
}

// BenchmarkValidJSON: a Rasa answer checked by validJSON and by json.Valid.
//
//	go test -run '^$' -bench BenchmarkValidJSON ./runner/transport
func BenchmarkValidJSON(b *testing.B) {
	doc := []byte(validSamples[0])
	for _, bc := range []struct {
		name  string
		valid func([]byte) bool
	}{{"validJSON", validJSON}, {"json.Valid", json.Valid}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if !bc.valid(doc) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
