package spec

import (
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// This file is the part of Decoder's public API the source kinds outside
// spec (sources/…) read their blocks with: file paths, values known at
// load time and expressions checked for the names they use.

// FilePath reads the path attribute name as String does and resolves it
// against the directory of the suite file that names it (an absolute
// path stays as written); "" when the attribute is absent or empty. It
// does not check the file: CheckFile does, and Suite().Access opens it
// under the same rules.
func (d *Decoder) FilePath(attrs hcl.Attributes, name string) string {
	a, ok := attrs[name]
	if !ok {
		return ""
	}
	p := d.l.str(attrs, name, "")
	if p != "" && !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(a.Range.Filename), p)
	}
	return p
}

// CheckFile checks path (resolved; "" passes) under the suite's file
// rules (FileAccess) when the suite loads, so validate refuses what the
// read would: a path outside the suite directory (without
// --allow-outside), not a regular file or over limit bytes, and one that
// does not exist when mustExist (a file written later is left for the
// read). A problem is the error "Cannot read WHAT" at rng.
func (d *Decoder) CheckFile(rng hcl.Range, what, path string, limit int64, mustExist bool) bool {
	return d.l.checkPath(rng, what, path, limit, mustExist)
}

// Value evaluates attribute a when the suite loads: it may use only
// var.* and functions, never a sensitive variable or one without a
// value; it is converted to ty (cty.DynamicPseudoType: as written). what
// names the attribute in messages ("\"distance\" attribute"). ok is false
// after a reported problem; a null value is returned as it is.
func (d *Decoder) Value(a *hcl.Attribute, ty cty.Type, what string) (v cty.Value, ok bool) {
	return d.l.static(a, ty, what)
}

// CheckExpr checks every name expr uses: its root must be one of roots
// (var, case, slot, response, http, latency_ms …), and var.*, case.*,
// slot.* and response.* traversals must name something that exists;
// slots lists the slot names the block's expressions may use (nil: any
// materials name). what names the expression in messages ("ranking
// score"). It reports each problem and returns false after one.
func (d *Decoder) CheckExpr(expr hcl.Expression, what string, roots, slots []string) bool {
	return d.l.checkExpr(expr, what, roots, slots)
}
