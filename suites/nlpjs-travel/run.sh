#!/usr/bin/env bash
# Runs suites/nlpjs-travel against a real nlp.js engine:
#   1. installs the engine's pinned packages (npm ci, from package-lock.json);
#   2. exports the suite's `train` split (nlutest generate --split train);
#   3. starts engine/server.js, trained on it, on a free 127.0.0.1 port and
#      waits (bounded) until it answers;
#   4. runs the held-out `test` split with every report into the run directory;
#   5. stops the engine by its PID (also on failure) and exits with nlutest's code.
# Steps 1 and 3–5 are engine/run-suite.sh, which every nlp.js suite shares.
# Environment: NLUTEST (the nlutest binary; default: built from this checkout),
# OUT (the run directory; default: a new temporary directory).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
name="$(basename "$here")"
out="${OUT:-$(mktemp -d)/$name}"
mkdir -p "$out"
source "$repo/suites/nlpjs-travel/engine/run-suite.sh"
nlutest_binary
run_with_engine "$name" "$here" "$out" 60 -- "$@"
