package dataset

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/jsondoc"
	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
)

// rowExpr is one expression of a dataset block over `row`. The common
// form, a plain row.NAME, reads the field straight from the row (the JSON
// tape or the CSV record) without building a cty value; anything else is
// evaluated by HCL against the row as an object.
type rowExpr struct {
	expr hcl.Expression
	what string
	// field is NAME of a plain row.NAME (fast), col its CSV column.
	field string
	col   int
	fast  bool
	// tuple holds the elements of [row.A, row.B…], each fast.
	tuple []*rowExpr
	// constant: the expression does not read row (evaluated at load).
	constant  bool
	constVal  cty.Value
	constStr  string
	constList []string
}

// rasaFields are the fields of a Rasa example row.
var rasaFields = []string{"text", "intent", "entities"}

// compile checks and prepares an expression over row.
func (ds *datasetSource) compile(d *spec.Decoder, expr hcl.Expression, what string) (*rowExpr, bool) {
	e := &rowExpr{expr: expr, what: what, col: -1}
	if !d.CheckExpr(expr, "dataset "+what, []string{"row", "var"}, nil) || !d.NoSensitive(expr) {
		return nil, false
	}
	usesRow := false
	for _, tr := range expr.Variables() {
		if tr.RootName() != "row" {
			continue
		}
		usesRow = true
		if !ds.checkRowRef(d, tr) {
			return nil, false
		}
	}
	if d.UsesUnset(expr) {
		return nil, false // the variable's own error is reported
	}
	if !usesRow {
		v, diags := expr.Value(d.StaticContext())
		d.Report(diags...)
		if diags.HasErrors() {
			return nil, false
		}
		e.constant, e.constVal = true, v
		e.constStr, _ = spec.CtyString(v)
		e.constList, _ = spec.CtyStrings(v)
		return e, true
	}
	ds.fastPath(e, expr)
	return e, true
}

// fastPath marks a plain row.NAME, or a tuple of them, as read straight
// from the row.
func (ds *datasetSource) fastPath(e *rowExpr, expr hcl.Expression) {
	if ds.format == "rasa" {
		return
	}
	if tc, ok := expr.(*hclsyntax.TupleConsExpr); ok {
		elems := make([]*rowExpr, len(tc.Exprs))
		for i, x := range tc.Exprs {
			elems[i] = &rowExpr{expr: x, what: e.what, col: -1}
			if ds.fastPath(elems[i], x); !elems[i].fast {
				return
			}
		}
		e.tuple = elems
		return
	}
	if tr, diags := hcl.AbsTraversalForExpr(expr); !diags.HasErrors() && len(tr) == 2 && tr.RootName() == "row" {
		if name, ok := spec.StepName(tr[1]); ok {
			e.field, e.fast = name, true
			e.col = slices.Index(ds.header, name)
		}
	}
}

// checkRowRef checks that row.NAME names a column of a CSV dataset or a
// field of a Rasa example (JSONL rows are checked row by row).
func (ds *datasetSource) checkRowRef(d *spec.Decoder, tr hcl.Traversal) bool {
	if len(tr) < 2 {
		return true
	}
	name, ok := spec.StepName(tr[1])
	if !ok {
		return true
	}
	var known []string
	switch ds.format {
	case "csv":
		known = ds.header
	case "rasa":
		known = rasaFields
	default:
		return true
	}
	if slices.Contains(known, name) {
		return true
	}
	what := "column of " + ds.path
	if ds.format == "rasa" {
		what = "field of a Rasa example"
	}
	d.Errorf(tr.SourceRange().Ptr(), "Unknown dataset column", "row.%s is no %s (it has: %s).%s", name, what, spec.JoinQuoted(known), spec.DidYouMean(name, known))
	return false
}

// rowEval evaluates a source's expressions on one row.
type rowEval struct {
	r     *dsRow
	val   cty.Value
	built bool
	ctx   *hcl.EvalContext
}

func (ev *rowEval) reset(r *dsRow) { ev.r, ev.built = r, false }

// value is the row as a cty object, built on first need.
func (ev *rowEval) value(ds *datasetSource) cty.Value {
	if ev.built {
		return ev.val
	}
	r := ev.r
	switch {
	case r.doc != nil:
		ev.val = docToCty(r.doc, r.doc.Root())
	case r.cols != nil:
		m := make(map[string]cty.Value, len(ds.header))
		for i, h := range ds.header {
			m[h] = cty.StringVal(r.cols[i])
		}
		ev.val = cty.ObjectVal(m)
	case r.ex != nil:
		ev.val = r.ex.value()
	}
	ev.built = true
	return ev.val
}

// eval evaluates a general expression on the row.
func (ev *rowEval) eval(ds *datasetSource, e *rowExpr) (cty.Value, error) {
	if e.constant {
		return e.constVal, nil
	}
	if ev.ctx == nil {
		ev.ctx = &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(ds.s.Vars)}, Functions: spec.Functions(ds.s.Access)}
	}
	ev.ctx.Variables["row"] = ev.value(ds)
	v, diags := e.expr.Value(ev.ctx)
	if diags.HasErrors() {
		return cty.NilVal, fmt.Errorf("%s", diags[0].Detail)
	}
	return v, nil
}

// fastRef is the JSON value of a plain row.NAME on a JSONL row.
func (ev *rowEval) fastRef(e *rowExpr) (jsondoc.Ref, error) {
	d := ev.r.doc
	ref, ok := d.Get(d.Root(), e.field)
	if !ok {
		return 0, fmt.Errorf("the row has no member %q", e.field)
	}
	return ref, nil
}

// str evaluates e to a string; a null is "" unless required.
func (ds *datasetSource) str(ev *rowEval, e *rowExpr, required bool) (string, error) {
	s, null, err := ds.strOf(ev, e)
	if err == nil && null && required {
		err = fmt.Errorf("it is null")
	}
	if err != nil {
		return "", ds.rowError(ev.r, e, err)
	}
	return s, nil
}

func (ds *datasetSource) strOf(ev *rowEval, e *rowExpr) (string, bool, error) {
	if e.constant {
		return e.constStr, e.constVal.IsNull(), nil
	}
	if e.fast && ev.r.cols != nil {
		return ev.r.cols[e.col], false, nil
	}
	if e.fast {
		ref, err := ev.fastRef(e)
		if err != nil {
			return "", false, err
		}
		d := ev.r.doc
		switch d.Kind(ref) {
		case jsondoc.String:
			return d.Str(ref), false, nil
		case jsondoc.Number, jsondoc.True, jsondoc.False:
			return string(d.Raw(ref)), false, nil
		case jsondoc.Null:
			return "", true, nil
		}
		return "", false, fmt.Errorf("want a string, got %s", kindName(d.Kind(ref)))
	}
	v, err := ev.eval(ds, e)
	if err != nil {
		return "", false, err
	}
	if v.IsNull() {
		return "", true, nil
	}
	s, err := spec.CtyString(v)
	return s, false, err
}

// strs evaluates e to a list of strings (a single string is a list of one;
// null and an absent attribute are none).
func (ds *datasetSource) strs(ev *rowEval, e *rowExpr) ([]string, error) {
	if e == nil {
		return nil, nil
	}
	out, err := ds.strsOf(ev, e)
	if err != nil {
		return nil, ds.rowError(ev.r, e, err)
	}
	return out, nil
}

func (ds *datasetSource) strsOf(ev *rowEval, e *rowExpr) ([]string, error) {
	if e.constant {
		return e.constList, nil
	}
	if e.tuple != nil {
		out := make([]string, 0, len(e.tuple))
		for _, x := range e.tuple {
			s, null, err := ds.strOf(ev, x)
			if err != nil {
				return nil, err
			}
			if !null {
				out = append(out, s)
			}
		}
		return out, nil
	}
	if e.fast && ev.r.cols != nil {
		if v := ev.r.cols[e.col]; v != "" {
			return []string{v}, nil
		}
		return nil, nil
	}
	if e.fast {
		ref, err := ev.fastRef(e)
		if err != nil {
			return nil, err
		}
		return docStrings(ev.r.doc, ref)
	}
	v, err := ev.eval(ds, e)
	if err != nil {
		return nil, err
	}
	return spec.CtyStrings(v)
}

func docStrings(d *jsondoc.Doc, ref jsondoc.Ref) ([]string, error) {
	switch d.Kind(ref) {
	case jsondoc.Null:
		return nil, nil
	case jsondoc.String:
		return []string{d.Str(ref)}, nil
	case jsondoc.Array:
		out := make([]string, 0, d.Len(ref))
		var err error
		d.Elems(ref, func(i int, v jsondoc.Ref) bool {
			if d.Kind(v) != jsondoc.String {
				err = fmt.Errorf("element %d: want a string, got %s", i, kindName(d.Kind(v)))
				return false
			}
			out = append(out, d.Str(v))
			return true
		})
		return out, err
	}
	return nil, fmt.Errorf("want a string or a list of strings, got %s", kindName(d.Kind(ref)))
}

// generic evaluates an expected value into ojg's generic form.
func (ds *datasetSource) generic(ev *rowEval, e *rowExpr) (any, error) {
	if e.constant {
		return spec.GenericValue(e.constVal), nil
	}
	if e.fast && ev.r.cols != nil {
		return ev.r.cols[e.col], nil
	}
	if e.fast {
		ref, err := ev.fastRef(e)
		if err != nil {
			return nil, err
		}
		return ev.r.doc.Value(ref), nil
	}
	v, err := ev.eval(ds, e)
	if err != nil {
		return nil, err
	}
	return spec.GenericValue(v), nil
}

// rowError is a bad value of e on row r: a diagnostic at the row's line.
func (ds *datasetSource) rowError(r *dsRow, e *rowExpr, err error) error {
	if _, ok := err.(*spec.DiagnosticError); ok {
		return err
	}
	rng := e.expr.Range()
	return dataError(ds.path, r.line, "Bad dataset row", "dataset %q, %s = %s (%s:%d): %s. Fix the row, or the expression.",
		ds.name, e.what, exprText(ds.s, rng), rng.Filename, rng.Start.Line, strings.TrimSuffix(err.Error(), "."))
}

// exprText is the source text of an expression, for messages.
func exprText(s *spec.Suite, rng hcl.Range) string {
	if src, ok := s.Sources[rng.Filename]; ok && rng.End.Byte <= len(src) {
		return string(src[rng.Start.Byte:rng.End.Byte])
	}
	return "…"
}

func kindName(k jsondoc.Kind) string {
	switch k {
	case jsondoc.Null:
		return "null"
	case jsondoc.True, jsondoc.False:
		return "a bool"
	case jsondoc.Number:
		return "a number"
	case jsondoc.String:
		return "a string"
	case jsondoc.Array:
		return "an array"
	}
	return "an object"
}

// docToCty converts a JSON value of a tape into cty.
func docToCty(d *jsondoc.Doc, r jsondoc.Ref) cty.Value {
	switch d.Kind(r) {
	case jsondoc.Null:
		return cty.NullVal(cty.DynamicPseudoType)
	case jsondoc.True:
		return cty.True
	case jsondoc.False:
		return cty.False
	case jsondoc.Number:
		f, _, err := big.ParseFloat(string(d.Raw(r)), 10, 512, big.ToNearestEven)
		if err != nil {
			return cty.NullVal(cty.Number)
		}
		return cty.NumberVal(f)
	case jsondoc.String:
		return cty.StringVal(d.Str(r))
	case jsondoc.Array:
		var vs []cty.Value
		d.Elems(r, func(_ int, v jsondoc.Ref) bool { vs = append(vs, docToCty(d, v)); return true })
		if len(vs) == 0 {
			return cty.EmptyTupleVal
		}
		return cty.TupleVal(vs)
	}
	m := map[string]cty.Value{}
	d.Each(r, func(k, v jsondoc.Ref) bool { m[d.Str(k)] = docToCty(d, v); return true })
	return cty.ObjectVal(m)
}
