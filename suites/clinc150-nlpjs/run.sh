#!/usr/bin/env bash
# Runs suites/clinc150-nlpjs: CLINC150's evaluation file (CC BY 3.0), read in
# place from ../shared/data beside the repository (CLINC_DIR overrides),
# never copied into it.
#   1. converts it into two JSONL files in the run directory (clinc-to-jsonl.js);
#   2. installs the nlp.js engine of suites/nlpjs-travel (npm ci);
#   3. exports the 80 % `train` split and starts the engine trained on its
#      in-scope lines (out-of-scope ones carry no intent) on a
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
data="${CLINC_DIR:-$(cd "$repo/.." && pwd)/shared/data/clinc150_test}"
if [ ! -f "$data/data_full.test_and_oos_test.json" ]; then
  echo "$name: the CLINC150 file is not at $data/data_full.test_and_oos_test.json: put shared/data/clinc150_test beside the repository, or set CLINC_DIR" >&2
  exit 2
fi
out="${OUT:-$(mktemp -d)/$name}"
mkdir -p "$out"
source "$repo/suites/nlpjs-travel/engine/run-suite.sh"
nlutest_binary

node "$here/clinc-to-jsonl.js" "$data" "$out"
export CLINC_JSONL_DIR="$out" # outside the suite directory: --allow-outside below
run_with_engine "$name" "$here" "$out" 120 --allow-outside -- "$@"
