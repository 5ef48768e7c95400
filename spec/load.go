package spec

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/nlutest/nlutest/redact"
	"github.com/nlutest/nlutest/schema"
	"github.com/nlutest/nlutest/spec/attr"
	"github.com/nlutest/nlutest/spec/imeslip"
	"github.com/nlutest/nlutest/spec/turnstream"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// FileSuffix is the suffix of suite files in a suite directory.
const FileSuffix = ".nlutest.hcl"

// Options are the outside inputs of a load.
type Options struct {
	// Vars are --var NAME=VALUE settings, in order.
	Vars []string
	// VarFiles are --var-file paths, in order.
	VarFiles []string
	// Env looks up environment variables (NLUTEST_VAR_NAME and env()).
	// Nil means no environment.
	Env func(string) (string, bool)
	// TargetKinds are the kinds a target block may have, in the order
	// messages list them (runner/targets.Kinds()). Nil loads every target
	// with its kind block undecoded: enough for commands that never call
	// the target.
	TargetKinds []TargetKind
	// SourceKinds are the case source kinds a suite may declare, in the
	// order messages list them. Every kind lives outside spec, in a
	// package of its own (sources/template, sources/dataset …), so nil
	// means none: a template or any other source block is then an
	// "Unsupported block type", as an unknown block is. A program passes
	// extensions.Default().LoadOptions for every kind nlutest ships.
	SourceKinds []SourceKind
	// Families are the metric families' shapes, in the order of the
	// metrics tree (the first four the node families: cases, dimension,
	// label, latency): what metrics.* names thresholds may read. Nil:
	// schema.BuiltinFamilies. The suite's Tree is built from them and the
	// source kinds.
	Families []*schema.Family
	// Settings are the metric families' settings blocks (SettingsBlock),
	// each decoded by its family; Suite.Settings gives their values.
	Settings []SettingsBlock
	// AllowOutside lets the files a suite names (materials, dataset,
	// ranking, ratings and replay sources, TREC and TLS files, file())
	// be outside the suite directory (--allow-outside); see FileAccess.
	AllowOutside bool
}

// fileSchemaBase lists the top-level blocks other than case sources.
var fileSchemaBase = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "suite", LabelNames: []string{"name"}},
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "target", LabelNames: []string{"name"}},
		{Type: "schema", LabelNames: []string{"name"}},
		{Type: "materials", LabelNames: []string{"name"}},
		{Type: "split", LabelNames: []string{"name"}},
		{Type: "threshold", LabelNames: []string{"name"}},
		{Type: "assert"},
		{Type: fragmentBlock, LabelNames: []string{"name"}},
		{Type: "tool", LabelNames: []string{"name"}},
	},
}

// fileSchema is the schema of a suite file: fileSchemaBase and a labelled
// block per case source kind.
func (s *Suite) fileSchema() *hcl.BodySchema {
	fs := &hcl.BodySchema{Blocks: settingsSchema(slices.Clone(fileSchemaBase.Blocks), s.settingBlocks)}
	for _, k := range s.SourceKindNames() {
		fs.Blocks = append(fs.Blocks, hcl.BlockHeaderSchema{Type: k, LabelNames: []string{"name"}})
	}
	return fs
}

// loader carries the state of one load.
type loader struct {
	// pendingHistory are the thresholds' history blocks, checked after
	// the references (checkThresholdHistory).
	pendingHistory []pendingHistory
	opts           Options
	suite          *Suite
	parser         *hclparse.Parser
	diags          hcl.Diagnostics
	blocks         []*hcl.Block
	varDecl        map[string]*Variable
	// defaultRanges are the ranges of variable defaults, where env() is allowed.
	defaultRanges []hcl.Range
	envCalls      []hcl.Range
	schemas       []*Schema
	// hidden are values set for sensitive or undeclared variables, hidden
	// from this load's diagnostics besides the suite's secrets.
	hidden []string
	// unset are the variables that have no value (an error already):
	// expressions using them are not evaluated at load.
	unset map[string]bool
	// refusedSecrets are the uses of sensitive variables the load refused
	// (checkSecretPlaces).
	refusedSecrets []hcl.Range
	// judgeResponse is set while the expressions of a judge target are
	// checked: their response is the judge's, so the suite's response
	// schema does not apply.
	judgeResponse bool
	// fragments are the usable fragment blocks' contents by name (in
	// declaration order in fragOrder); brokenFragments those whose
	// diagnostics are already reported.
	fragments       map[string]*hcl.BodyContent
	fragOrder       []string
	brokenFragments []string
	// brokenSources are the case-source blocks whose errors left no
	// source, by kind: references to their names (metrics.template.NAME)
	// are not reported again as unknown.
	brokenSources map[string][]string
	// slotsUnknown is set while the checks of a template whose text could
	// not be read are decoded: their placeholders are not checked against
	// it.
	slotsUnknown bool
	// looseAsserts are the assert blocks of templates left unusable by
	// their errors: the names their conditions use are still checked.
	looseAsserts []*Assert
	// broken are the blocks, by type, whose mistakes left them unread or
	// unusable (recover.go): references to their names are not reported
	// again.
	broken map[string][]string
	// streams are the turn blocks of conversation blocks read in batches
	// (package turnstream), by the block's place.
	streams map[streamKey]*turnstream.Stream
	// funcs is the function table of static expressions (staticCtx),
	// made once: a conversation evaluates one per turn.
	funcs map[string]function.Function
}

// misspells reports whether diags hold HCL's "Unsupported argument" for a
// misspelling of name (its did-you-mean names it).
func misspells(diags hcl.Diagnostics, name string) bool {
	for _, d := range diags {
		if m := didYouMeanRE.FindStringSubmatch(d.Detail); d.Summary == "Unsupported argument" && m != nil && m[1] == name {
			return true
		}
	}
	return false
}

// didYouMeanRE and requiredRE read the names out of HCL's "Unsupported
// argument" and "Missing required argument" details.
var (
	didYouMeanRE = regexp.MustCompile(`Did you mean "([^"]+)"\?`)
	requiredRE   = regexp.MustCompile(`^The argument "([^"]+)" is required`)
)

// content decodes body against schema, reporting its diagnostics. Unlike a
// plain Content, an argument or block the schema does not know (a typo
// such as stratgy) does not stop the block's decoding: ok is true unless
// another error (a missing required argument) leaves the content unusable,
// so the rest of the block is still checked and every mistake is reported
// in one pass. The suite does not load either way.
//
// A misspelt required argument (conditon for condition) is one mistake: it
// is reported once, as the unsupported argument with its did-you-mean, not
// also as the required argument missing.
func (l *loader) content(body hcl.Body, schema *hcl.BodySchema) (*hcl.BodyContent, bool) {
	c, diags := body.Content(schema)
	meant := map[string]bool{}
	for _, d := range diags {
		if m := didYouMeanRE.FindStringSubmatch(d.Detail); d.Summary == "Unsupported argument" && m != nil {
			meant[m[1]] = true
		}
	}
	for _, d := range diags {
		if m := requiredRE.FindStringSubmatch(d.Detail); d.Summary == "Missing required argument" && m != nil && meant[m[1]] {
			continue
		}
		l.diags = append(l.diags, d)
	}
	for _, d := range diags {
		if d.Severity == hcl.DiagError && d.Summary != "Unsupported argument" && d.Summary != "Unsupported block type" {
			return c, false
		}
	}
	return c, true
}

// Load reads the suite at path: a directory (every *.nlutest.hcl in it) or one
// file. It returns every diagnostic found in one pass; the suite is usable
// only when the diagnostics hold no error.
func Load(path string, opts Options) (*Suite, hcl.Diagnostics) {
	l := &loader{opts: opts, parser: hclparse.NewParser(), varDecl: map[string]*Variable{}, unset: map[string]bool{}}
	s := &Suite{Sources: map[string][]byte{}, Materials: map[string]*Materials{}, Vars: map[string]cty.Value{}}
	l.suite = s
	kinds, families := opts.SourceKinds, opts.Families
	if families == nil {
		families = schema.BuiltinFamilies()
	}
	tree, byBlock, err := buildTree(families, kinds)
	if err == nil {
		err = uniqueTargetKinds(opts.TargetKinds)
	}
	if err == nil {
		err = CheckSettingsBlocks(opts.Settings, kinds)
	}
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid extensions",
			Detail: "The program's source kinds or metric families do not fit together: " + err.Error() + "."}}
	}
	s.Tree, s.kinds, s.settingBlocks = tree, byBlock, opts.Settings
	fileSchema := s.fileSchema()
	files, dir, err := suiteFiles(path)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read suite",
			Detail: FileError(err) + "; give a suite directory (every *.nlutest.hcl in it) or one suite file."}}
	}
	s.Dir, s.Files = dir, files
	s.Access = FileAccess{Dir: dir, AllowOutside: opts.AllowOutside}
	for _, f := range files {
		src, _, err := OwnFiles.Read("", f, MaxSuiteFileBytes)
		if err != nil {
			l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read suite file", Detail: FileError(err) + "."})
			continue
		}
		src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
		// CRLF line ends read as LF, so heredocs keep no \r (columns and
		// line numbers do not change).
		src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
		s.Sources[f] = src
		if d := CheckSource(f, src); d.HasErrors() {
			l.diags = append(l.diags, d...)
			l.markUnreadable(src, blockTypes(fileSchema))
			continue
		}
		l.readFile(f, src, fileSchema)
	}
	if l.diags.HasErrors() && len(l.blocks) == 0 {
		return s, l.diags
	}
	l.decode()
	l.envCallDiags()
	if l.diags.HasErrors() {
		// The suite will not generate, which is where dataset rows are
		// read: their problems are found now, in the same pass.
		l.diags = append(l.diags, s.CheckData()...)
	}
	l.diags = uniqueDiags(l.diags)
	return s, RedactDiags(l.diags, redact.New(append(l.hidden, s.Secrets...)))
}

// readFile parses one suite file and keeps its top-level blocks. The turn
// blocks of its conversations are streamed when the file has no syntax
// error (parseStreamed). A file with syntax errors is parsed again block
// by block (parseBlocks): the blocks without a syntax error are kept and
// checked in the same pass.
func (l *loader) readFile(name string, src []byte, fileSchema *hcl.BodySchema) {
	if body, diags, turnDiags, ok := l.parseStreamed(src, name); ok {
		l.diags = append(l.diags, diags...)
		content, diags := body.Content(fileSchema)
		l.diags = append(l.diags, diags...)
		l.blocks = append(l.blocks, content.Blocks...)
		l.checkNames(body, turnDiags)
		return
	}
	file, diags := l.parser.ParseHCL(src, name)
	var bodies []*hclsyntax.Body
	switch {
	case file != nil && !diags.HasErrors():
		if body, ok := file.Body.(*hclsyntax.Body); ok {
			bodies = append(bodies, body)
		}
	default:
		if b, d, ok := l.parseBlocks(name, src, blockTypes(fileSchema)); ok {
			bodies, diags = b, d
		}
	}
	l.diags = append(l.diags, capDiags(imeslip.Explain(diags, src), name)...)
	for _, body := range bodies {
		content, diags := body.Content(fileSchema)
		l.diags = append(l.diags, diags...)
		l.blocks = append(l.blocks, content.Blocks...)
		l.checkNames(body, nil)
	}
}

// blockTypes are the block types of a schema.
func blockTypes(s *hcl.BodySchema) []string {
	out := make([]string, len(s.Blocks))
	for i, b := range s.Blocks {
		out[i] = b.Type
	}
	return out
}

// dirName is the name of directory dir, also when dir is "." or "..".
func dirName(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return filepath.Base(dir)
}

func suiteFiles(path string) ([]string, string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", err
	}
	if !st.IsDir() {
		if !st.Mode().IsRegular() {
			return nil, "", fmt.Errorf("%s is not a regular file", path)
		}
		return []string{filepath.Clean(path)}, filepath.Dir(filepath.Clean(path)), nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, "", err
	}
	var files []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), FileSuffix) {
			continue
		}
		// Regular files, directly or through a symlink: a FIFO or a device
		// named like a suite file would block or never end.
		p := filepath.Join(path, e.Name())
		if st, err := os.Stat(p); err == nil && !st.Mode().IsRegular() {
			return nil, "", fmt.Errorf("%s is not a regular file", p)
		}
		files = append(files, p)
	}
	if len(files) == 0 {
		return nil, "", fmt.Errorf("no %s files in %s", FileSuffix, path)
	}
	sort.Strings(files)
	return files, filepath.Clean(path), nil
}

func (l *loader) errorf(rng *hcl.Range, summary, detail string, args ...any) {
	l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: rng})
}

func (l *loader) warnf(rng *hcl.Range, summary, detail string, args ...any) {
	l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: rng})
}

// decode walks the blocks in dependency order: variables first (other static
// attributes use them), then schemas and materials, then everything else.
func (l *loader) decode() {
	s := l.suite
	byType, sourceBlocks := l.blocksByType()
	for _, b := range byType["variable"] {
		l.decodeVariable(b)
	}
	l.declareBrokenVariables()
	l.resolveVars()
	l.checkSecretPlaces()
	if sb := byType["suite"]; len(sb) > 0 {
		l.decodeSuite(sb[0])
		for _, extra := range sb[1:] {
			l.errorf(extra.DefRange.Ptr(), "Duplicate suite block", "A suite has one suite block; the first is at %s. Remove this one or move it to its own suite directory.", rangeString(sb[0].DefRange))
		}
	} else {
		s.Name = dirName(s.Dir)
	}
	for _, b := range byType["schema"] {
		l.decodeSchema(b)
	}
	l.resolveSchema()
	for _, b := range byType["materials"] {
		l.decodeMaterials(b)
	}
	l.declareBrokenMaterials()
	l.resolveCompose()
	l.decodeTools(byType["tool"])
	for _, b := range byType["target"] {
		l.decodeTarget(b)
	}
	l.checkRunTargets()
	for _, b := range byType["split"] {
		l.decodeSplit(b)
	}
	l.layoutSplits()
	l.collectFragments(byType[fragmentBlock])
	l.declareBrokenSources()
	d := &Decoder{l: l}
	for _, b := range sourceBlocks {
		if src := l.suite.kinds[b.Type].Decode(d, b); src != nil {
			s.CaseSources = append(s.CaseSources, src)
		} else {
			if l.brokenSources == nil {
				l.brokenSources = map[string][]string{}
			}
			l.brokenSources[b.Type] = append(l.brokenSources[b.Type], label(b))
		}
	}
	for _, b := range byType["assert"] {
		if a := l.decodeAssert(b); a != nil {
			s.Asserts = append(s.Asserts, a)
		}
	}
	for _, b := range byType["threshold"] {
		l.decodeThreshold(b)
	}
	l.decodeSettings(byType)
	l.checkReferences()
	l.checkThresholdHistory()
	l.rewriteIntervalRefs()
	l.checkThresholdTypes()
	l.checkLooseAsserts()
	l.checkBotFirst()
}

// blocksByType groups the blocks by type, reporting and dropping a block
// whose label repeats an earlier one of its type; sourceBlocks are the
// case source blocks (of every registered kind) in declaration order.
func (l *loader) blocksByType() (byType map[string][]*hcl.Block, sourceBlocks []*hcl.Block) {
	seen := map[string]map[string]*hcl.Block{}
	dup := func(b *hcl.Block) bool {
		if len(b.Labels) == 0 {
			return false
		}
		m := seen[b.Type]
		if m == nil {
			m = map[string]*hcl.Block{}
			seen[b.Type] = m
		}
		if prev, ok := m[b.Labels[0]]; ok {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  fmt.Sprintf("Duplicate %s block", b.Type),
				Detail: fmt.Sprintf("A %s named %q was already declared at %s. Each %s needs a unique name; rename or remove one of them.",
					b.Type, b.Labels[0], rangeString(prev.LabelRanges[0]), b.Type),
				Subject: b.LabelRanges[0].Ptr(),
				Context: prev.LabelRanges[0].Ptr(),
			})
			return true
		}
		m[b.Labels[0]] = b
		return false
	}
	byType = map[string][]*hcl.Block{}
	for _, b := range l.blocks {
		if dup(b) {
			continue
		}
		byType[b.Type] = append(byType[b.Type], b)
		if _, ok := l.suite.kinds[b.Type]; ok {
			sourceBlocks = append(sourceBlocks, b)
		}
	}
	return byType, sourceBlocks
}

// staticCtx is the evaluation context of attributes evaluated at load time.
func (l *loader) staticCtx() *hcl.EvalContext {
	if l.funcs == nil {
		l.funcs = Functions(l.suite.Access)
	}
	return &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(l.suite.Vars)},
		Functions: l.funcs,
	}
}

// static evaluates an attribute that may only use var and functions.
func (l *loader) static(attr *hcl.Attribute, ty cty.Type, what string) (cty.Value, bool) {
	if !l.onlyRoots(attr.Expr, what, "var") || !l.noSensitive(attr.Expr) || l.usesUnset(attr.Expr) {
		return cty.NilVal, false
	}
	v, diags := attr.Expr.Value(l.staticCtx())
	return l.staticValue(attr, v, diags, ty, what)
}

// staticSecret is static for an attribute whose value may come from a
// sensitive variable because nlutest hands it on and never writes it (an
// exec target's env): sensitive values carry the Sensitive mark while it
// is evaluated, so a function that fails on one does not quote it.
func (l *loader) staticSecret(attr *hcl.Attribute, ty cty.Type, what string) (cty.Value, bool) {
	if !l.onlyRoots(attr.Expr, what, "var") || l.usesUnset(attr.Expr) {
		return cty.NilVal, false
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": l.suite.markedVars()},
		Functions: hideSensitiveErrors(Functions(l.suite.Access)),
	}
	v, diags := attr.Expr.Value(ctx)
	return l.staticValue(attr, Unmark(v), diags, ty, what)
}

// staticValue checks and converts the value v of attr, evaluated with
// diags, to ty.
func (l *loader) staticValue(attr *hcl.Attribute, v cty.Value, diags hcl.Diagnostics, ty cty.Type, what string) (cty.Value, bool) {
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return cty.NilVal, false
	}
	if v.IsNull() {
		return v, true
	}
	if ty != cty.DynamicPseudoType {
		cv, err := convertValue(v, ty)
		if err != nil {
			l.errorf(attr.Expr.Range().Ptr(), "Incorrect attribute value type",
				"The %s must be %s; this is %s. %s", what, typeName(ty), typeName(v.Type()), convertHint(ty))
			return cty.NilVal, false
		}
		v = cv
	}
	if !v.IsWhollyKnown() {
		l.errorf(attr.Expr.Range().Ptr(), "Value not known at load time", "The %s must be known when the suite loads.", what)
		return cty.NilVal, false
	}
	return v, true
}

// convertValue converts v to ty. A tuple (an inline list, a for
// expression) becomes a list element by element: go-cty's own conversion
// unifies the element types pairwise, which takes quadratic time (100,000
// inline values took two minutes).
func convertValue(v cty.Value, ty cty.Type) (cty.Value, error) {
	ety := ty
	if ty.IsListType() {
		ety = ty.ElementType()
	}
	if !ty.IsListType() || ety == cty.DynamicPseudoType || !v.Type().IsTupleType() || !v.IsKnown() {
		return convert.Convert(v, ty)
	}
	n := v.LengthInt()
	if n == 0 {
		return cty.ListValEmpty(ety), nil
	}
	elems := make([]cty.Value, 0, n)
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		ce, err := convert.Convert(e, ety)
		if err != nil {
			return cty.NilVal, err
		}
		elems = append(elems, ce)
	}
	return cty.ListVal(elems), nil
}

func convertHint(ty cty.Type) string {
	switch {
	case ty == cty.String:
		return `Write it in double quotes, e.g. "S1".`
	case ty == cty.Number:
		return "Write a number without quotes, e.g. 4."
	case ty == cty.Bool:
		return "Write true or false without quotes."
	case ty.IsListType():
		return `Write a list in brackets, e.g. ["a", "b"].`
	case ty.IsMapType():
		return `Write a map in braces, e.g. { key = "value" }.`
	}
	return ""
}

func typeName(ty cty.Type) string {
	switch {
	case ty == cty.String:
		return "a string"
	case ty == cty.Number:
		return "a number"
	case ty == cty.Bool:
		return "a bool"
	case ty.IsListType() || ty.IsTupleType() || ty.IsSetType():
		if ty.IsListType() && ty.ElementType() == cty.String {
			return "a list of strings"
		}
		return "a list"
	case ty.IsMapType() || ty.IsObjectType():
		if ty.IsMapType() && ty.ElementType() == cty.String {
			return "a map of strings"
		}
		return "an object"
	}
	return ty.FriendlyName()
}

// attrs reads plain attributes through the loader's static evaluation
// (spec/attr, which spec/reply and spec/tools read theirs with too).
func (l *loader) attrs() attr.Reader { return attr.Reader{Static: l.static, Errorf: l.errorf} }

func (l *loader) str(attrs hcl.Attributes, name, def string) string {
	return l.attrs().String(attrs, name, def)
}

func (l *loader) boolean(attrs hcl.Attributes, name string, def bool) bool {
	return l.attrs().Bool(attrs, name, def)
}

func (l *loader) strList(attrs hcl.Attributes, name string) []string {
	return l.attrs().StringList(attrs, name)
}

func (l *loader) number(attrs hcl.Attributes, name string, def float64, min, max float64) float64 {
	a, ok := attrs[name]
	if !ok {
		return def
	}
	v, ok := l.static(a, cty.Number, fmt.Sprintf("%q attribute", name))
	if !ok || v.IsNull() {
		return def
	}
	f, _ := v.AsBigFloat().Float64()
	if f < min || f > max || math.IsNaN(f) || math.IsInf(f, 0) {
		if max >= math.MaxFloat64 {
			l.errorf(a.Expr.Range().Ptr(), "Value out of range", "The %q attribute must be at least %g; it is %g.", name, min, f)
		} else {
			l.errorf(a.Expr.Range().Ptr(), "Value out of range", "The %q attribute must be between %g and %g; it is %g.", name, min, max, f)
		}
		return def
	}
	return f
}

func (l *loader) integer(attrs hcl.Attributes, name string, def int, min int) int {
	f := l.number(attrs, name, float64(def), float64(min), math.MaxFloat64)
	if f != math.Trunc(f) {
		l.errorf(attrs[name].Expr.Range().Ptr(), "Whole number required", "The %q attribute must be a whole number; it is %g.", name, f)
		return def
	}
	return int(f)
}

func (l *loader) strMap(attrs hcl.Attributes, name string) map[string]string {
	return l.strMapWith(attrs, name, l.static)
}

// strMapWith reads a map of strings with eval (static or staticSecret).
func (l *loader) strMapWith(attrs hcl.Attributes, name string, eval func(*hcl.Attribute, cty.Type, string) (cty.Value, bool)) map[string]string {
	a, ok := attrs[name]
	if !ok {
		return nil
	}
	v, ok := eval(a, cty.Map(cty.String), fmt.Sprintf("%q attribute", name))
	if !ok || v.IsNull() {
		return nil
	}
	out := map[string]string{}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if !e.IsNull() {
			out[k.AsString()] = e.AsString()
		}
	}
	return out
}

func (l *loader) duration(attrs hcl.Attributes, name string, def time.Duration) time.Duration {
	a, ok := attrs[name]
	if !ok {
		return def
	}
	s := l.str(attrs, name, "")
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		l.errorf(a.Expr.Range().Ptr(), "Invalid duration", "The %q attribute must be a positive duration such as \"10s\", \"1500ms\" or \"2m\"; %q is not.", name, s)
		return def
	}
	return d
}

func rangeString(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

func label(b *hcl.Block) string {
	if len(b.Labels) > 0 {
		return b.Labels[0]
	}
	return ""
}

func (l *loader) checkLabel(b *hcl.Block) bool {
	if len(b.Labels) > 0 && strings.TrimSpace(b.Labels[0]) == "" {
		l.errorf(b.LabelRanges[0].Ptr(), "Empty name", "A %s block needs a non-empty name.", b.Type)
		return false
	}
	return true
}

// checkRunTargets checks the suite block's targets list: every name is a
// target block, named once.
func (l *loader) checkRunTargets() {
	s := l.suite
	var names []string
	for _, t := range s.Targets {
		names = append(names, t.Name)
	}
	seen := map[string]bool{}
	for _, n := range s.RunTargets {
		switch {
		case seen[n]:
			l.errorf(s.RunTargetsRange.Ptr(), "Duplicate target in targets", "The suite's targets list names %q twice; list each target once.", n)
		case (s.Target(n) == nil || n == "") && !l.isBroken("target", n):
			l.errorf(s.RunTargetsRange.Ptr(), "Unknown target", "The suite's targets list names %q, which is no target block.%s Declare target %q { … } or fix the name (targets: %s).", n, didYouMean(n, names), n, quoteList(names))
		}
		seen[n] = true
	}
}
