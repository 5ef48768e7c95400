#!/usr/bin/env bash
# Runs suites/snips-nlpjs: the SNIPS 2017 validate files (CC0), read in place
# from ../shared/data beside the repository (SNIPS_DIR overrides), never copied
# into it.
#   1. converts the per-intent JSON into JSONL in the run directory (snips-to-jsonl.js);
#   2. installs the nlp.js engine of suites/nlpjs-travel (npm ci);
#   3. exports the 80 % `train` split and starts the engine trained on it on a
#      free 127.0.0.1 port, waiting (bounded) until it answers;
#   4. runs the held-out `test` split with every report into the run directory;
#   5. stops the engine by its PID (also on failure) and exits with nlutest's code.
# Steps 2–5 are suites/nlpjs-travel/engine/run-suite.sh, shared by the nlp.js suites.
# Environment: NLUTEST (the nlutest binary; default: built from this checkout),
# OUT (the run directory; default: a new temporary directory).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
name="$(basename "$here")"
data="${SNIPS_DIR:-$(cd "$repo/.." && pwd)/shared/data/snips_2017_validate}"
if [ ! -d "$data" ]; then
  echo "$name: the SNIPS 2017 validate files are not at $data: put shared/data/snips_2017_validate beside the repository, or set SNIPS_DIR" >&2
  exit 2
fi
out="${OUT:-$(mktemp -d)/$name}"
mkdir -p "$out"
source "$repo/suites/nlpjs-travel/engine/run-suite.sh"
nlutest_binary

node "$here/snips-to-jsonl.js" "$data" "$out/snips.jsonl"
export SNIPS_JSONL="$out/snips.jsonl" # outside the suite directory: --allow-outside below
run_with_engine "$name" "$here" "$out" 60 --allow-outside -- "$@"
