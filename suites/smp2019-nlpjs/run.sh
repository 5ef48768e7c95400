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
# Environment: NLUTEST (the nlutest binary; default: built from this checkout),
# OUT (the run directory; default: a new temporary directory).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
name="$(basename "$here")"
engine_dir="$repo/suites/nlpjs-travel/engine"
data="${SMP_DIR:-$(cd "$repo/.." && pwd)/shared/data/smp2019_ecdt_task1}"
if [ ! -f "$data/train.json" ]; then
  echo "$name: the SMP2019 ECDT task 1 file is not at $data/train.json: put shared/data/smp2019_ecdt_task1 (train.json) beside the repository, or set SMP_DIR" >&2
  exit 2
fi
out="${OUT:-$(mktemp -d)/$name}"
mkdir -p "$out"
if [ -n "${NLUTEST:-}" ]; then
  nlutest="$NLUTEST"
else
  nlutest="$(mktemp -d)/nlutest"
  (cd "$repo" && go build -o "$nlutest" ./cmd/nlutest)
fi

node "$here/smp-to-jsonl.js" "$data" "$out/smp.jsonl"
export SMP_JSONL="$out/smp.jsonl" # outside the suite directory: --allow-outside below
(cd "$engine_dir" && npm ci --no-audit --no-fund --silent)
"$nlutest" generate --allow-outside --split train -o "$out/train.jsonl" "$here"

port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
node "$engine_dir/server.js" "$out/train.jsonl" "$port" >"$out/engine.log" 2>&1 &
engine=$!
trap 'kill "$engine" 2>/dev/null || true; wait "$engine" 2>/dev/null || true' EXIT

url="http://127.0.0.1:$port"
for _ in $(seq 1 120); do # up to 60 s for training and start-up
  if curl -fsS "$url/health" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$engine" 2>/dev/null; then
    echo "$name: the engine exited during start-up:" >&2; cat "$out/engine.log" >&2; exit 1
  fi
  sleep 0.5
done
curl -fsS "$url/health" >/dev/null || { echo "$name: the engine did not answer on $url within 60 s" >&2; exit 1; }

set +e
NLPJS_URL="$url" "$nlutest" run --allow-outside "$here" --split test --out "$out/run" \
  --report-junit "$out/junit.xml" --report-markdown "$out/report.md" --report-html "$out/report.html" \
  --quiet "$@"
code=$?
set -e
echo "$name: nlutest exit $code; reports in $out"
exit "$code"
