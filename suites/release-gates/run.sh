#!/usr/bin/env bash
# Runs suites/release-gates against the embedded demo NLU (no network, no
# npm) the ways a release pipeline would, and checks each step's exit code
# and key lines itself (README.md says what each shows):
#   1. intervals: a run whose report shows 95 % intervals, gated on ci_low;
#   2. flaky cases: the flaky/ suite under --repeat 5 — 3 flaky cases listed
#      apart from 2 consistent failures, gated on metrics.repeat.flaky;
#   3. comparisons: demo against candidate (10 % of inputs lost: a
#      significant drop) and against patch (1 %: not significant), as a
#      multi-target run and with nlutest diff;
#   4. history: 12 runs recorded with --history and --label v1 … v12, the
#      first 11 at the normal level (3 % of inputs lost, another seed each
#      run), the 12th with a planted drop (--var degrade=0.15); the drift
#      gate has no data for runs 1–3, passes runs 4–11 and fails run 12
#      naming it (its HTML report draws the trend); nlutest history show
#      is printed.
# Exits 0 when everything is as expected, 1 naming the first difference.
# Environment: NLUTEST (the nlutest binary; default: built from this
# checkout), OUT (the run directory; default: a new temporary directory;
# what this script writes there is replaced).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
name="$(basename "$here")"
out="${OUT:-$(mktemp -d)/$name}"
mkdir -p "$out"
if [ -n "${NLUTEST:-}" ]; then
  nlutest="$NLUTEST"
else
  nlutest="$(mktemp -d)/nlutest"
  (cd "$repo" && go build -o "$nlutest" ./cmd/nlutest)
fi
started=$SECONDS

fail() { echo "$name: $*" >&2; exit 1; }

# run_step LOG WANT-EXIT nlutest-arguments…: runs nlutest with stdout and
# stderr into $out/LOG.txt and checks its exit code.
run_step() {
  local log="$out/$1.txt" want=$2 got
  shift 2
  set +e
  "$nlutest" "$@" >"$log" 2>&1
  got=$?
  set -e
  if [ "$got" != "$want" ]; then
    cat "$log" >&2
    fail "nlutest $*: exit $got, want $want (output above, in $log)"
  fi
}

# want LOG TEXT…: each TEXT must be in $out/LOG.txt, as a fixed string.
want() {
  local log="$out/$1.txt" text
  shift
  for text in "$@"; do
    grep -qF -- "$text" "$log" || fail "$log has no line with: $text"
  done
}

# want_re LOG REGEX…: each extended REGEX must match a line of $out/LOG.txt
# (for table rows, whose padding follows the widths of the texts).
want_re() {
  local log="$out/$1.txt" re
  shift
  for re in "$@"; do
    grep -qE -- "$re" "$log" || fail "$log has no line matching: $re"
  done
}

# show LOG PATTERN: print the lines of $out/LOG.txt matching PATTERN
# (each line once: the verdict line opens and closes the console report).
show() { grep -E -- "$2" "$out/$1.txt" | awk '!seen[$0]++' | sed 's/^/    /' || true; }

rm -rf "$out/intervals" "$out/flaky" "$out/compare" "$out/history" "$out"/*.txt "$out"/*.md
mkdir -p "$out/history"

echo "== 1. intervals: a run gated on ci_low (exit 0)"
run_step intervals 0 run "$here" --out "$out/intervals" --report-markdown "$out/intervals.md"
want intervals "PASS  release-gates: 2/2 thresholds met · 260 passed, 18 failed, 0 errored of 278 cases" \
  "✓  准确率     metrics.accuracy.ci_low >= 0.7        0.900" \
  "all         278     260      18        0  0.935 (260/278) [0.900, 0.959]" \
  "[low, high]: 95 % confidence interval — Wilson for proportions" \
  "drift: no data: no history file"
grep -qF "| all | 278 | 260 | 18 | 0 | 0.935 (260/278) \\[0.900, 0.959\\] |" "$out/intervals.md" || fail "the Markdown report has no interval"
show intervals "^PASS|准确率|核心|   all  "

echo "== 2. flaky cases: --repeat 5 (exit 0)"
run_step flaky 0 run "$here/flaky" --repeat 5 --out "$out/flaky"
want flaky "PASS  release-gates-flaky: 2/2 thresholds met" \
  "✓  flaky      metrics.repeat.flaky <= 3" \
  "Flaky (3 of 9)" "Consistent failures (2 of 9)" \
  "pass_at_1            0.644 (29/45)"
# the case, passed, failed, errored, of, flips, the repetitions in order
want_re flaky " 帮我订去北京的票 +3 +2 +0 +5 +4 +PFPFP " " 帮我订去上海的票 +3 +2 +0 +5 +4 +PFPFP " \
  " book a ticket to Paris +3 +2 +0 +5 +4 +PFPFP " \
  " 我要退订北京的机票 +0 +5 +0 +5 +0 +FFFFF " " 我要退订上海的机票 +0 +5 +0 +5 +0 +FFFFF " \
  "^ +5 +9 +0\.778 \(7/9\) +0\.444 \(4/9\) *$"
show flaky "^PASS|^Flaky|^Consistent|PFPFP|FFFFF|pass_at_1 "

echo "== 3. comparisons: candidate (10 % lost) is significantly worse, patch (1 %) is not (exit 0; diff --fail-on-worse: 1, 0)"
run_step compare-candidate 0 run "$here" --target demo --target candidate --out "$out/compare/candidate"
want compare-candidate "PASS  release-gates: 2/2 targets pass · 17 of 278 cases differ between demo, candidate" \
  "candidate is worse than demo on 14 metrics (accuracy −6.1 points, p < 0.0001"
# metric, demo, candidate, Δ, CI of Δ, p, Holm p, verdict: McNemar exact, 17 discordant pairs, all one way
want_re compare-candidate "metrics\.accuracy \(⚑\) +0\.9353 +0\.8741 +-0\.06115 +\[-0\.0899, -0\.0324\] +<0\.0001 +<0\.0001 +worse"
show compare-candidate "^PASS|is worse than|metrics\.accuracy \(|metrics\.core\.accuracy \("
run_step compare-patch 0 run "$here" --target demo --target patch --out "$out/compare/patch"
want compare-patch "PASS  release-gates: 2/2 targets pass · 3 of 278 cases differ between demo, patch" \
  "patch is not worse than demo on any metric, no detectable difference on 16"
# 3 discordant pairs: p = 2 · 0.5³ = 0.25
want_re compare-patch "metrics\.accuracy \(⚑\) +0\.9353 +0\.9245 +-0\.01079 +\[-0\.0252, 0\] +0\.25 +0\.5 +no detectable difference"
show compare-patch "^PASS|is not worse than|metrics\.accuracy \(|metrics\.core\.accuracy \("
run_step diff-candidate 1 diff "$out/compare/candidate/demo" "$out/compare/candidate/candidate" --fail-on-worse
want diff-candidate "cases: 17 cases got worse (pass → fail/error) · 0 got better" \
  "nlutest: B is significantly worse than A (α = 0.05) on 2 gated metrics:" \
  "metrics.accuracy 0.9353 → 0.8741 (Δ -0.06115, p < 0.0001, Holm-adjusted <0.0001)"
show diff-candidate "^nlutest|cases: |metrics\.accuracy 0"
run_step diff-patch 0 diff "$out/compare/patch/demo" "$out/compare/patch/patch" --fail-on-worse
want diff-patch "nlutest diff: B is not worse than A on any metric, no detectable difference on 16" \
  "cases: 3 cases got worse (pass → fail/error) · 0 got better"
show diff-patch "^nlutest|cases: "

echo "== 4. history: 12 runs, a drop planted in run 12 (exit 0 × 11, then 1)"
for i in $(seq 1 12); do
  degrade=0.03 want_exit=0
  if [ "$i" = 12 ]; then degrade=0.15 want_exit=1; fi
  run_step "history-$i" "$want_exit" run "$here" --var degrade="$degrade" --var seed="v$i" \
    --history "$out/history/history.db" --label "v$i" --out "$out/history/$i" --report-html "$out/history/$i.html"
  want "history-$i" "history: recorded run $i (v$i) of suite \"release-gates\", target \"demo\""
  if [ "$i" -le 3 ]; then
    want "history-$i" "drift: no data: the history holds $((i - 1)) earlier run"
  elif [ "$i" -le 11 ]; then
    want "history-$i" "drift: no drift: accuracy"
  fi
  show "history-$i" "^(PASS|FAIL) |drift: "
done
want history-12 "FAIL  release-gates: 1/2 thresholds met · 221 passed, 57 failed" \
  "✓  核心       metrics.core.accuracy.ci_low >= 0.75" \
  "threshold \"准确率\": drift: accuracy fell from 0.908 (runs 2–11) to 0.795 at run 12 (label v12), the run where it changed: more than max_drop 0.02 beyond the runs' noise"
grep -qF 'class="trend"' "$out/history/12.html" || fail "run 12's HTML report has no trend chart"
run_step history-show 0 history show --history "$out/history/history.db" --metric metrics.accuracy
want history-show "release-gates · demo metrics.accuracy" \
  "12  " "v12            0.795  [0.744, 0.838]    ◆" \
  "change of level at run 12 (v12"
sed 's/^/    /' "$out/history-show.txt"

echo "$name: every step as expected in $((SECONDS - started)) s; outputs in $out"
