# Sourced by the run.sh of every suite that tests the nlp.js engine of this
# directory (nlpjs-travel, snips-nlpjs, smp2019-nlpjs, clinc150-nlpjs):
#
#   source "$repo/suites/nlpjs-travel/engine/run-suite.sh"
#   nlutest_binary            # sets $nlutest: $NLUTEST, or built from the checkout
#   run_with_engine NAME SUITE_DIR OUT WAIT_SECONDS [nlutest flags…] -- [run.sh arguments…]
#
# run_with_engine installs the engine's pinned packages (npm ci), exports the
# suite's `train` split (nlutest generate --split train), starts server.js
# trained on it on a free 127.0.0.1 port, waits up to WAIT_SECONDS until it
# answers, runs the held-out `test` split with every report into OUT, stops
# the engine by its PID (also on failure, by an EXIT trap) and exits with
# nlutest's exit code. The nlutest flags (e.g. --allow-outside) go to both
# generate and run; the arguments after -- go to run only.

nlutest_binary() {
  if [ -n "${NLUTEST:-}" ]; then
    nlutest="$NLUTEST"
  else
    nlutest="$(mktemp -d)/nlutest"
    (cd "$repo" && go build -o "$nlutest" ./cmd/nlutest)
  fi
}

run_with_engine() {
  local name=$1 suite=$2 out=$3 wait=$4
  shift 4
  local flags=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do flags+=("$1"); shift; done
  [ $# -gt 0 ] && shift # the --
  local engine_dir
  engine_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  (cd "$engine_dir" && npm ci --no-audit --no-fund --silent)
  "$nlutest" generate "${flags[@]}" --split train -o "$out/train.jsonl" "$suite"

  local port url code
  port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  node "$engine_dir/server.js" "$out/train.jsonl" "$port" >"$out/engine.log" 2>&1 &
  engine=$!
  trap 'kill "$engine" 2>/dev/null || true; wait "$engine" 2>/dev/null || true' EXIT

  url="http://127.0.0.1:$port"
  for _ in $(seq 1 $((wait * 2))); do
    if curl -fsS "$url/health" >/dev/null 2>&1; then break; fi
    if ! kill -0 "$engine" 2>/dev/null; then
      echo "$name: the engine exited during start-up:" >&2; cat "$out/engine.log" >&2; exit 1
    fi
    sleep 0.5
  done
  curl -fsS "$url/health" >/dev/null || { echo "$name: the engine did not answer on $url within $wait s" >&2; exit 1; }

  set +e
  NLPJS_URL="$url" "$nlutest" run "${flags[@]}" "$suite" --split test --out "$out/run" \
    --report-junit "$out/junit.xml" --report-markdown "$out/report.md" --report-html "$out/report.html" \
    --quiet "$@"
  code=$?
  set -e
  echo "$name: nlutest exit $code; reports in $out"
  exit "$code"
}
