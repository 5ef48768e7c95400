// Package targets owns the kinds of target a suite can call: http, rasa,
// exec, replay and demo, one file each. A kind gives its block's schema and
// decoding (spec.TargetKind: spec keeps a target's shared settings and raw
// kind block, and never calls anything) and its caller (runner.Caller).
// registry.go lists the kinds; NewCaller builds the caller of a loaded
// target.
//
// To add a kind: a file here with a type implementing Kind (Name, Decode,
// NewCaller) and one entry in the kinds list of registry.go. A kind defined
// elsewhere (a test's) registers itself with Register from an init func.
package targets
