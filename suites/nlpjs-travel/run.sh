#!/usr/bin/env bash
# Runs suites/nlpjs-travel against a real nlp.js engine:
#   1. installs the engine's pinned packages (npm ci, from package-lock.json);
#   2. exports the suite's `train` split (nlutest generate --split train);
#   3. starts engine/server.js, trained on it, on a free 127.0.0.1 port and
#      waits (bounded) until it answers;
#   4. runs the held-out `test` split with every report into the run directory;
#   5. stops the engine by its PID (also on failure) and exits with nlutest's code.
# Environment: NLUTEST (the nlutest binary; default: go run ./cmd/nlutest),
# OUT (the run directory; default: a new temporary directory).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
name="$(basename "$here")"
out="${OUT:-$(mktemp -d)/$name}"
mkdir -p "$out"
if [ -n "${NLUTEST:-}" ]; then
  nlutest=("$NLUTEST")
else
  bin="$(mktemp -d)/nlutest"
  (cd "$repo" && go build -o "$bin" ./cmd/nlutest)
  nlutest=("$bin")
fi

(cd "$here/engine" && npm ci --no-audit --no-fund --silent)

"${nlutest[@]}" generate --split train -o "$out/train.jsonl" "$here"

port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
node "$here/engine/server.js" "$out/train.jsonl" "$port" >"$out/engine.log" 2>&1 &
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
NLPJS_URL="$url" "${nlutest[@]}" run "$here" --split test --out "$out/run" \
  --report-junit "$out/junit.xml" --report-markdown "$out/report.md" --report-html "$out/report.html" \
  --quiet "$@"
code=$?
set -e
echo "$name: nlutest exit $code; reports in $out"
exit "$code"
