#!/usr/bin/env bash
# Runs suites/smp2019-nlpjs: the SMP2019 ECDT task 1 training file (licence
# unknown), read in place from ../shared/data beside the repository (SMP_DIR
# overrides), never copied into it — not even a converted copy.
#   1. converts train.json into JSONL in the run directory (smp-to-jsonl.js);
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
data="${SMP_DIR:-$(cd "$repo/.." && pwd)/shared/data/smp2019_ecdt_task1}"
if [ ! -f "$data/train.json" ]; then
  echo "$name: the SMP2019 ECDT task 1 file is not at $data/train.json: put shared/data/smp2019_ecdt_task1 (train.json) beside the repository, or set SMP_DIR" >&2
  exit 2
fi
out="${OUT:-$(mktemp -d)/$name}"
mkdir -p "$out"
source "$repo/suites/nlpjs-travel/engine/run-suite.sh"
nlutest_binary

node "$here/smp-to-jsonl.js" "$data" "$out/smp.jsonl"
export SMP_JSONL="$out/smp.jsonl" # outside the suite directory: --allow-outside below
run_with_engine "$name" "$here" "$out" 60 --allow-outside -- "$@"
