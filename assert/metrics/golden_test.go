package metrics

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/nlutest/nlutest/schema"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden files")

// TestGoldenJSON pins the JSON the accumulators produce for a small suite
// (the shape reporters and `nlutest eval` read). The figures themselves are
// checked against published references in the other tests; refresh with
// `go test ./assert/metrics -run Golden -update` after a deliberate change.
func TestGoldenJSON(t *testing.T) {
	intent := NewLabelAcc(2)
	intent.Add("订机票", []string{"订机票", "查天气"})
	intent.Add("订机票", []string{"查天气", "订机票"})
	intent.Add("查天气", []string{"查天气"})
	intent.Add("播放音乐", nil)

	ontology := NewDimAcc(schema.KindLeaf)
	ontology.AddCase([]Unit{ont("Person")}, []Unit{ont("Person")})
	ontology.AddCase([]Unit{ont("Place")}, []Unit{ont("Person")})
	ontology.AddCase([]Unit{ont("Person")}, nil)

	var iao CaseDimAcc
	iao.Add(true)
	iao.Add(false)

	var lat LatencyAcc
	lat.Add("订一张明天去北京的机票", 120)
	lat.Add("明天北京天气怎么样", 80)
	lat.Add(repeatWords(30), 250)

	node := schema.Node{
		Dimension: map[string]*schema.Dimension{"ontology": ontology.Result(), "intent": iao.Result()},
		Label:     map[string]*schema.Label{"intent": intent.Result()},
		Latency:   lat.Result(),
	}
	// Without HTML escaping, the bucket "<=20" is written as is, not as
	// "\u003c=20".
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(node); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	path := filepath.Join("testdata", "node.golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("JSON differs from %s:\n%s", path, got)
	}
}
