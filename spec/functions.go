package spec

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sync"

	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/nlutest/nlutest/spec/jsonpath"
	"github.com/ohler55/ojg/jp"
	"github.com/ohler55/ojg/oj"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Functions returns the function table of suite expressions; file() reads
// relative to the suite directory, under fa's rules.
func Functions(fa FileAccess) map[string]function.Function {
	return map[string]function.Function{
		"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc,
		"max": stdlib.MaxFunc, "min": stdlib.MinFunc, "pow": stdlib.PowFunc, "signum": stdlib.SignumFunc,
		"log": stdlib.LogFunc, "parseint": stdlib.ParseIntFunc,
		"chomp": stdlib.ChompFunc, "format": stdlib.FormatFunc, "formatlist": stdlib.FormatListFunc,
		"indent": stdlib.IndentFunc, "join": stdlib.JoinFunc, "lower": stdlib.LowerFunc, "upper": stdlib.UpperFunc,
		"regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc, "regex_replace": stdlib.RegexReplaceFunc,
		"replace": stdlib.ReplaceFunc, "split": stdlib.SplitFunc, "strlen": stdlib.StrlenFunc,
		"strrev": stdlib.ReverseFunc, "substr": stdlib.SubstrFunc, "title": stdlib.TitleFunc,
		"trim": stdlib.TrimFunc, "trimprefix": stdlib.TrimPrefixFunc, "trimsuffix": stdlib.TrimSuffixFunc,
		"trimspace":  stdlib.TrimSpaceFunc,
		"startswith": startsWithFunc, "endswith": endsWithFunc, "strcontains": strContainsFunc,
		"chunklist": stdlib.ChunklistFunc, "coalesce": stdlib.CoalesceFunc, "coalescelist": stdlib.CoalesceListFunc,
		"compact": stdlib.CompactFunc, "concat": stdlib.ConcatFunc, "contains": stdlib.ContainsFunc,
		"distinct": stdlib.DistinctFunc, "element": stdlib.ElementFunc, "flatten": stdlib.FlattenFunc,
		"index": stdlib.IndexFunc, "keys": stdlib.KeysFunc, "length": stdlib.LengthFunc,
		"lookup": stdlib.LookupFunc, "merge": stdlib.MergeFunc, "range": stdlib.RangeFunc,
		"reverse": stdlib.ReverseListFunc, "setintersection": stdlib.SetIntersectionFunc,
		"setunion": stdlib.SetUnionFunc, "slice": stdlib.SliceFunc, "sort": stdlib.SortFunc,
		"values": stdlib.ValuesFunc, "zipmap": stdlib.ZipmapFunc,
		"jsonencode": stdlib.JSONEncodeFunc, "jsondecode": stdlib.JSONDecodeFunc, "csvdecode": stdlib.CSVDecodeFunc,
		"urlencode": URLEncodeFunc, "tostring": stdlib.MakeToFunc(cty.String), "tonumber": stdlib.MakeToFunc(cty.Number),
		"tobool": stdlib.MakeToFunc(cty.Bool), "tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap": stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"try":   tryfunc.TryFunc, "can": tryfunc.CanFunc,
		"file":     makeFileFunc(fa),
		"jsonpath": JSONPathFunc,
	}
}

var startsWithFunc = strPredicate("prefix", func(s, x string) bool { return len(s) >= len(x) && s[:len(x)] == x })
var endsWithFunc = strPredicate("suffix", func(s, x string) bool { return len(s) >= len(x) && s[len(s)-len(x):] == x })
var strContainsFunc = strPredicate("substr", func(s, x string) bool { return containsStr(s, x) })

func containsStr(s, x string) bool {
	for i := 0; i+len(x) <= len(s); i++ {
		if s[i:i+len(x)] == x {
			return true
		}
	}
	return false
}

func strPredicate(arg string, fn func(s, x string) bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "str", Type: cty.String}, {Name: arg, Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.BoolVal(fn(args[0].AsString(), args[1].AsString())), nil
		},
	})
}

func makeFileFunc(fa FileAccess) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, _, err := fa.Read(fa.Dir, args[0].AsString(), MaxFileBytes)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "cannot read %s: %s", args[0].AsString(), err)
			}
			return cty.StringVal(string(b)), nil
		},
	})
}

func envFunc(lookup func(string) (string, bool)) function.Function {
	return function.New(&function.Spec{
		Params:   []function.Parameter{{Name: "name", Type: cty.String}},
		VarParam: &function.Parameter{Name: "default", Type: cty.String},
		Type:     function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if lookup != nil {
				if v, ok := lookup(args[0].AsString()); ok {
					return cty.StringVal(v), nil
				}
			}
			if len(args) > 1 {
				return args[1], nil
			}
			return cty.StringVal(""), nil
		},
	})
}

// URLEncodeFunc is urlencode(str): str encoded for a URL's query component,
// as Terraform's urlencode and Go's url.QueryEscape do it (a space becomes
// "+", every byte but letters, digits and -._~ becomes %XX), so a secret
// with "+", "/" or "&" in it reaches the service as it is:
// url = "…?key=${urlencode(var.token)}".
var URLEncodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.StringVal(url.QueryEscape(args[0].AsString())), nil
	},
})

var pathCache sync.Map // string → jp.Expr

// JSONPathFunc is jsonpath(value, path): the list of every node path
// selects in value, in document order (empty when it selects nothing). An
// object's members come in key order, the order of the value's JSON (a cty
// object's attributes are sorted): `$.o.*` gives the same list every call.
var JSONPathFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "value", Type: cty.DynamicPseudoType, AllowNull: true},
		{Name: "path", Type: cty.String},
	},
	Type: function.StaticReturnType(cty.DynamicPseudoType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		p := args[1].AsString()
		var x jp.Expr
		if c, ok := pathCache.Load(p); ok {
			x = c.(jp.Expr)
		} else {
			var err error
			x, _, err = jsonpath.Compile(p)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(1, "invalid JSONPath %q: %s", p, err)
			}
			pathCache.Store(p, x)
		}
		if args[0].IsNull() {
			return cty.EmptyTupleVal, nil
		}
		raw, err := ctyjson.Marshal(args[0], args[0].Type())
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(0, "cannot read value as JSON: %s", err)
		}
		data, err := oj.Parse(raw)
		if err != nil {
			return cty.NilVal, err
		}
		return ToCty(x.Get(jsonpath.Ordered(data)))
	},
})

// ToCty converts a generic JSON value (ojg or encoding/json form) to cty by
// way of its JSON text, keeping number precision.
func ToCty(v any) (cty.Value, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return cty.NilVal, fmt.Errorf("cannot convert to JSON: %w", err)
	}
	return JSONToCty(b)
}

// JSONToCty converts JSON text to a cty value (objects, tuples, numbers…).
func JSONToCty(b []byte) (cty.Value, error) {
	ty, err := ctyjson.ImpliedType(b)
	if err != nil {
		return cty.NilVal, err
	}
	return ctyjson.Unmarshal(b, ty)
}
