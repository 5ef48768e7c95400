package reporters

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

// sliceListing lists cases the way assert's listing does: some as a
// report it keeps (odd i), the others written into the caller's scratch.
// A renderer that keeps a case past the next one without copying it, or
// that changes one, shows up as a difference.
type sliceListing struct{ cases []schema.CaseReport }

func (l sliceListing) Len() int { return len(l.cases) }

func (l sliceListing) Case(i int, dst *schema.CaseReport) *schema.CaseReport {
	if i%2 == 1 {
		return &l.cases[i]
	}
	*dst = l.cases[i]
	return dst
}

// throughListing returns a copy of r whose cases are listed by a
// sliceListing (and Cases nil), as a report a run builds; an empty list
// stays an empty Cases, as assert.BuildReport leaves it.
func throughListing(r *schema.Report) *schema.Report {
	if r == nil || len(r.Cases) == 0 {
		return r
	}
	c := *r
	c.SetListed(sliceListing{r.Cases})
	return &c
}

// TestGoldenThroughListing: every golden rendering (console, JUnit with
// and without a testcase per case, Markdown, HTML, JSON; baselines too) is
// byte for byte the same when the reports list their cases through a
// listing rather than Cases.
func TestGoldenThroughListing(t *testing.T) {
	direct, listed := renderCases(), renderCasesOf(throughListing)
	for i, rc := range direct {
		var want, got bytes.Buffer
		if err := rc.render(&want); err != nil {
			t.Fatal(err)
		}
		if err := listed[i].render(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s through a listing differs:\n%s\nwant\n%s", rc.golden, got.Bytes(), want.Bytes())
		}
	}
}

// manyCases is n listed cases for the batched writer: lean ones (Chinese,
// HTML characters, cut UTF-8) with failing, erroring and conversation ones
// mixed in.
func manyCases(n int) []schema.CaseReport {
	rng := rand.New(rand.NewPCG(27, 12))
	out := make([]schema.CaseReport, n)
	for i := range out {
		cr := randomLeanCase(rng)
		switch rng.IntN(20) {
		case 0:
			cr.Failures = []schema.Failure{{Path: "$.intent.name", Message: "期望 订机票 <b>"}}
		case 1:
			cr.Error = &schema.CallError{Type: schema.ErrHTTP, Message: "HTTP 500 <错误>"}
		case 2:
			cr.Turn, cr.Script, cr.Reply = 2, "对话", "好的，北京"
		}
		out[i] = cr
	}
	return out
}

// TestJSONBatchesSameAsEncodingJSON: long lists, written batch by batch,
// give the bytes encoding/json gives for the whole report, through a
// listing or Cases, at lengths around a batch's edges, on 1 to 4 cores.
func TestJSONBatchesSameAsEncodingJSON(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, n := range []int{caseBatch - 1, caseBatch, 2*caseBatch + 1, 40000} {
		r := quickstart()
		r.Cases = manyCases(n)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		for _, procs := range []int{1, 2, 3, 4} {
			runtime.GOMAXPROCS(procs)
			for _, rep := range []*schema.Report{r, throughListing(r)} {
				var got bytes.Buffer
				if err := JSON(&got, rep); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					i := 0
					for i < min(got.Len(), want.Len()) && got.Bytes()[i] == want.Bytes()[i] {
						i++
					}
					t.Fatalf("%d cases, %d cores: JSON differs from encoding/json at byte %d: %q, want %q", n, procs, i,
						got.Bytes()[max(0, i-80):min(got.Len(), i+80)], want.Bytes()[max(0, i-80):min(want.Len(), i+80)])
				}
			}
		}
	}
}

// TestJSONBatchesStopAtNaN: a case JSON cannot hold, deep in a long list,
// fails the report.
func TestJSONBatchesStopAtNaN(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, at := range []int{0, 5000, 39999} {
		r := quickstart()
		r.Cases = manyCases(40000)
		r.Cases[at].LatencyMS = math.NaN()
		r.Cases[at].Failures = []schema.Failure{{Path: "$.x"}} // through encoding/json
		for _, procs := range []int{1, 2, 4} {
			runtime.GOMAXPROCS(procs)
			var b bytes.Buffer
			err := JSON(&b, throughListing(r))
			if err == nil || !strings.Contains(err.Error(), "NaN") {
				t.Errorf("NaN at case %d, %d cores: error %v, want one about NaN", at, procs, err)
			}
		}
	}
}
