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
# Environment: NLUTEST (the nlutest binary; default: built from this checkout),
# OUT (the run directory; default: a new temporary directory).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
name="$(basename "$here")"
engine_dir="$repo/suites/nlpjs-travel/engine"
data="${CLINC_DIR:-$(cd "$repo/.." && pwd)/shared/data/clinc150_test}"
if [ ! -f "$data/data_full.test_and_oos_test.json" ]; then
  echo "$name: the CLINC150 file is not at $data/data_full.test_and_oos_test.json: put shared/data/clinc150_test beside the repository, or set CLINC_DIR" >&2
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

node "$here/clinc-to-jsonl.js" "$data" "$out"
export CLINC_JSONL_DIR="$out" # outside the suite directory: --allow-outside below
(cd "$engine_dir" && npm ci --no-audit --no-fund --silent)
"$nlutest" generate --allow-outside --split train -o "$out/train.jsonl" "$here"

port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
node "$engine_dir/server.js" "$out/train.jsonl" "$port" >"$out/engine.log" 2>&1 &
engine=$!
trap 'kill "$engine" 2>/dev/null || true; wait "$engine" 2>/dev/null || true' EXIT

url="http://127.0.0.1:$port"
for _ in $(seq 1 240); do # up to 120 s for training (150 intents) and start-up
  if curl -fsS "$url/health" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$engine" 2>/dev/null; then
    echo "$name: the engine exited during start-up:" >&2; cat "$out/engine.log" >&2; exit 1
  fi
  sleep 0.5
done
curl -fsS "$url/health" >/dev/null || { echo "$name: the engine did not answer on $url within 120 s" >&2; exit 1; }

set +e
NLPJS_URL="$url" "$nlutest" run --allow-outside "$here" --split test --out "$out/run" \
  --report-junit "$out/junit.xml" --report-markdown "$out/report.md" --report-html "$out/report.html" \
  --quiet "$@"
code=$?
set -e
echo "$name: nlutest exit $code; reports in $out"
exit "$code"
