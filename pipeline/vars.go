package pipeline

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/nlutest/nlutest/spec"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// This file fingerprints the variable values a run is made with, so that
// --resume and merge refuse to mix results made with different values
// (another URL, another model, another key) while run.json still holds no
// value. Each run draws a random salt (Meta.VarSalt); each variable's
// print (Meta.VarPrints) is HMAC-SHA256 of its name and value keyed with
// the salt, and for a sensitive variable the value is first stretched
// with PBKDF2-HMAC-SHA256 (varIterations rounds), so every guess at a
// secret costs as much as the stretching. The salt makes the prints of
// two runs unrelated: nobody can tell from run.json files whether they
// used the same value, nor precompute a table of likely values. A check
// recomputes the prints of the values it is given with the run's own
// salt: --resume with the resumed run's, merge with each shard's (merge
// loads the suite with the --var, --var-file and NLUTEST_VAR_ values it
// is given, as the shard runs did).

// varIterations is PBKDF2's rounds for a sensitive value: a print costs
// 33–42 ms of one core of the 2-vCPU build machine (2026-12,
// BenchmarkVarPrintSensitive), and so does each guess at the value by
// whoever reads run.json (docs/security.md).
const varIterations = 200_000

// Prefixes of a print: how it was made, so a later nlutest can change
// the scheme and still read earlier runs.
const (
	printHMAC   = "hmac-sha256:"
	printPBKDF2 = "pbkdf2-sha256:"
)

// newVarSalt draws a run's salt: 16 random bytes, in hex.
func newVarSalt() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// varPrints fingerprints every variable of s with salt (hex).
func varPrints(s *spec.Suite, salt string) (map[string]string, error) {
	key, err := hex.DecodeString(salt)
	if err != nil || len(key) == 0 {
		return nil, fmt.Errorf("the variable salt %q is not hex", salt)
	}
	prints := make(map[string]string, len(s.Variables))
	for _, v := range s.Variables {
		prints[v.Name] = varPrint(key, v.Name, s.Vars[v.Name], v.Sensitive)
	}
	return prints, nil
}

// varPrint is one variable's print: HMAC-SHA256(salt, name NUL value),
// the value stretched first when it is sensitive, cut to 128 bits.
func varPrint(salt []byte, name string, v cty.Value, sensitive bool) string {
	val := varText(v)
	prefix := printHMAC
	if sensitive {
		dk, err := pbkdf2.Key(sha256.New, string(val), append(slices.Clip(salt), name...), varIterations, 32)
		if err != nil {
			panic(err) // only for a key length out of range
		}
		val, prefix = dk, printPBKDF2
	}
	mac := hmac.New(sha256.New, salt)
	mac.Write([]byte(name))
	mac.Write([]byte{0})
	mac.Write(val)
	return prefix + hex.EncodeToString(mac.Sum(nil)[:16])
}

// varText is a variable's value as the bytes its print hashes. A
// primitive is its text, so --var n=5 and `n = 5` in a variable file give
// the same print; a list, map or object is its JSON.
func varText(v cty.Value) []byte {
	v, _ = v.UnmarkDeep()
	switch {
	case v.IsNull():
		return []byte("n:")
	case !v.IsWhollyKnown():
		return []byte("u:")
	case v.Type().IsPrimitiveType():
		if sv, err := convert.Convert(v, cty.String); err == nil {
			return []byte("s:" + sv.AsString())
		}
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return []byte("?:" + v.GoString())
	}
	return append([]byte("j:"), b...)
}

// changedVars names the variables that s (loaded with today's values)
// and the run recorded in m both declare and whose values differ, sorted;
// recorded is false for a run.json without prints (an earlier nlutest).
// The prints of s with m's salt come back too.
func changedVars(s *spec.Suite, m Meta) (changed []string, prints map[string]string, recorded bool, err error) {
	if m.VarSalt == "" {
		return nil, nil, false, nil
	}
	if prints, err = varPrints(s, m.VarSalt); err != nil {
		return nil, nil, true, err
	}
	for name, p := range prints {
		if was, ok := m.VarPrints[name]; ok && was != p {
			changed = append(changed, name)
		}
	}
	slices.Sort(changed)
	return changed, prints, true, nil
}

// varNames is "var.a and var.b" for a message.
func varNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "var." + n
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// differ is "differs" or "differ" for names.
func differ(names []string) string {
	if len(names) == 1 {
		return "differs"
	}
	return "differ"
}

// changedVarsWarning is the report's warning for a run whose results were
// made with different values of the variables names.
func changedVarsWarning(names []string) string {
	return fmt.Sprintf("results made with different values of %s are mixed in this run (--allow-changed-vars): its figures are not those of one configuration", varNames(names))
}

// union is a and b merged, sorted, each name once.
func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// stampVars gives a run about to record its first results a fresh salt
// and the prints of s's values.
func stampVars(m *Meta, s *spec.Suite) error {
	m.VarSalt = newVarSalt()
	var err error
	m.VarPrints, err = varPrints(s, m.VarSalt)
	return err
}

// checkResumeVars compares today's variable values with those the run
// being resumed (old) recorded. A difference is refused unless allow;
// allowed, the run keeps the new prints and names the variables in
// ChangedVars and in a warning. A run.json without prints is accepted
// with a notice, and stamped from now on.
func (r *Run) checkResumeVars(old Meta) error {
	changed, prints, recorded, err := changedVars(r.Suite, old)
	if err != nil {
		return invalidf("--resume: %s/%s: %v", r.Dir, MetaFile, err)
	}
	if !recorded {
		r.notice("%s/%s records no fingerprint of the variable values (an earlier nlutest made it): they are not checked; resume with the same --var, --var-file and %s values as the run", r.Dir, MetaFile, spec.EnvVarPrefix)
		err = stampVars(&r.Meta, r.Suite)
	} else {
		r.Meta.VarSalt, r.Meta.VarPrints = old.VarSalt, prints
	}
	if len(changed) > 0 && !r.opts.AllowChangedVars {
		return invalidf("--resume: %s %s from the value%s %s was recorded with; resume with the same --var, --var-file and %s values as the run, or pass --allow-changed-vars to mix results made with both (the report then says so)",
			varNames(changed), differ(changed), plural(len(changed)), r.Dir, spec.EnvVarPrefix)
	}
	if len(changed) > 0 {
		r.notice("%s %s from the value%s %s was recorded with; going on (--allow-changed-vars)", varNames(changed), differ(changed), plural(len(changed)), r.Dir)
	}
	r.Meta.ChangedVars = union(old.ChangedVars, changed)
	if len(r.Meta.ChangedVars) > 0 {
		r.Warnings = append(r.Warnings, changedVarsWarning(r.Meta.ChangedVars))
	}
	return err
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// MergeOptions say how Merge checks the shards' variable values.
type MergeOptions struct {
	// AllowChangedVars merges shards recorded with other variable values
	// than the suite was loaded with; the merged run names them.
	AllowChangedVars bool
	// Notice, when set, receives what a person may want to know (a shard
	// that records no variable prints).
	Notice func(string)
}

// checkShardVars compares the variable values s was loaded with (the
// merge command's) with each shard's prints, recomputed with that
// shard's salt. It returns the variables that differ anywhere (with
// allow), or refuses the first shard that differs.
func checkShardVars(s *spec.Suite, dirs []string, metas []Meta, o MergeOptions) ([]string, error) {
	var all []string
	for i, m := range metas {
		changed, _, recorded, err := changedVars(s, m)
		if err != nil {
			return nil, invalidf("%s/%s: %v", dirs[i], MetaFile, err)
		}
		if !recorded && o.Notice != nil {
			o.Notice(fmt.Sprintf("%s/%s records no fingerprint of the variable values (an earlier nlutest made it): they are not checked", dirs[i], MetaFile))
		}
		if len(changed) > 0 && o.AllowChangedVars && o.Notice != nil {
			o.Notice(fmt.Sprintf("%s %s from the value%s %s (shard %s) was recorded with; merging all the same (--allow-changed-vars)", varNames(changed), differ(changed), plural(len(changed)), dirs[i], shownShard(m.Shard)))
		}
		if len(changed) > 0 && !o.AllowChangedVars {
			return nil, invalidf("%s %s from the value%s %s (shard %s) was recorded with: give merge the same --var, --var-file and %s values as the shard runs, or pass --allow-changed-vars to merge results made with both (the report then says so)",
				varNames(changed), differ(changed), plural(len(changed)), dirs[i], shownShard(m.Shard), spec.EnvVarPrefix)
		}
		all = union(all, union(changed, m.ChangedVars))
	}
	return all, nil
}

// shownShard is a shard in a message ("whole run" for none).
func shownShard(sh string) string {
	if sh == "" {
		return "a whole run"
	}
	return sh
}
