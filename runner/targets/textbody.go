package targets

import (
	"net/http"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/internal/nfc"
	"github.com/zclconf/go-cty/cty"
)

// textBodyKey reports whether body is exactly jsonencode({ KEY = case.text })
// (KEY a name or a literal string) and returns KEY: the body most http
// targets send. Such a body is built without HCL (textBodyOf), the same
// bytes its evaluation gives (TestTextBodyFastPath); evaluating it through
// HCL cost a run about 11 µs of CPU per case, building the case object and
// the function call.
func textBodyKey(body hcl.Expression) (string, bool) {
	call, ok := body.(*hclsyntax.FunctionCallExpr)
	if !ok || call.Name != "jsonencode" || len(call.Args) != 1 || call.ExpandFinal {
		return "", false
	}
	obj, ok := call.Args[0].(*hclsyntax.ObjectConsExpr)
	if !ok || len(obj.Items) != 1 {
		return "", false
	}
	k, diags := obj.Items[0].KeyExpr.Value(nil)
	if diags.HasErrors() || !k.IsKnown() || k.IsNull() || k.Type() != cty.String {
		return "", false
	}
	v, ok := obj.Items[0].ValueExpr.(*hclsyntax.ScopeTraversalExpr)
	if !ok || len(v.Traversal) != 2 || v.Traversal.RootName() != "case" {
		return "", false
	}
	if a, ok := v.Traversal[1].(hcl.TraverseAttr); !ok || a.Name != "text" {
		return "", false
	}
	return k.AsString(), true
}

// textBodyOf is the body jsonencode({ key = case.text }) evaluates to:
// the text in Unicode NFC (as every HCL string is) in a one-member JSON
// object, encoded as encoding/json encodes a string.
func textBodyOf(key, text string) []byte {
	return jsonBody(key, nfc.String(text))
}

// withJSONType returns hdr with Content-Type application/json when it has
// none (what request sets for a JSON body), a copy when it adds it.
func withJSONType(hdr http.Header) http.Header {
	if hdr.Get("Content-Type") != "" {
		return hdr
	}
	hdr = hdr.Clone()
	if hdr == nil {
		hdr = http.Header{}
	}
	hdr.Set("Content-Type", "application/json")
	return hdr
}
