#!/bin/sh
# Scale-out with numbers (issue 27, target 5; docs/performance.md): N
# generated cases (default 1,000,000) against the embedded demo NLU on
# 127.0.0.1, once unsharded and once as 4 `--shard K/4` processes at the
# same time, then `nlutest merge`; prints the wall time and peak RSS of each
# step and checks that the merged run's metrics equal the unsharded run's
# (latency aside, which is timing). Long (minutes): not part of .ci/run.
#
#   sh docs/scale-out-bench.sh [N] [WORKDIR]
#
# Needs go, /usr/bin/time (GNU, for -f) and a free port 18977.
set -eu
N=${1:-1000000}
W=${2:-/tmp/nlutest-scaleout}
PORT=18977
rm -rf "$W"
mkdir -p "$W/suite"
go build -o "$W/nlutest" ./cmd/nlutest
cat > "$W/suite/scale.nlutest.hcl" <<HCL
suite "scale-out" {}

target "demo" {
  http {
    url  = "http://127.0.0.1:$PORT/model/parse"
    body = jsonencode({ text = case.text })
  }
  concurrency = 8
  timeout     = "30s"
}

materials "次" { values = [for i in range(100) : "\${i}"] }
materials "日" { values = [for i in range(100) : "\${i}"] }
materials "城" { values = [for i in range(100) : "\${i}"] }

template "订机票" {
  strategy = "product"
  limit    = $N
  text     = "第{次}次帮我订{日}号去城市{城}的机票"
  expect   = { "\$.intent.name" = "book_flight" }
}
HCL
"$W/nlutest" serve demo --addr "127.0.0.1:$PORT" > "$W/serve.log" 2>&1 &
SERVE=$!
trap 'kill $SERVE 2>/dev/null' EXIT
sleep 1

timed() { # LABEL CMD...: runs CMD, prints wall time and peak RSS
	label=$1; shift
	/usr/bin/time -f "$label: wall %e s, CPU %U+%S s, peak RSS %M KB" "$@" > "$W/$label.out" 2> "$W/$label.time" || true
	tail -1 "$W/$label.time"
}

echo "load: $(uptime)"
timed generate "$W/nlutest" generate "$W/suite" -o "$W/cases.jsonl"
timed unsharded "$W/nlutest" run "$W/suite" --out "$W/full" --quiet
start=$(date +%s.%N)
pids=""
for k in 1 2 3 4; do
	timed "shard-$k" "$W/nlutest" run "$W/suite" --shard "$k/4" --out "$W/shard-$k" --quiet &
	pids="$pids $!"
done
for p in $pids; do wait "$p"; done
echo "4 shards together: wall $(echo "$(date +%s.%N) - $start" | awk '{printf "%.2f", $1 - $3}') s"
timed merge "$W/nlutest" merge --out "$W/merged" --quiet "$W/shard-1" "$W/shard-2" "$W/shard-3" "$W/shard-4"
echo "load: $(uptime)"
for d in full merged; do
	"$W/nlutest" eval "$W/$d" --list-metrics | grep -v latency > "$W/$d.metrics"
done
if cmp -s "$W/full.metrics" "$W/merged.metrics"; then
	echo "merged metrics equal the unsharded run's ($(wc -l < "$W/full.metrics") metrics, latency aside)"
else
	echo "merged metrics DIFFER from the unsharded run's:"
	diff "$W/full.metrics" "$W/merged.metrics" | head -20
	exit 1
fi
