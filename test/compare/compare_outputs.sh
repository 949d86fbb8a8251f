#!/usr/bin/env bash
# Checks that a change of code (a refactor) changed no output: runs the fault scenarios
# under an OLD and a NEW uringscope binary and compares their text reports, -c reports,
# JSON, OpenMetrics exposition and --trace files. Timings differ from run to run, so the
# OLD binary runs each scenario three times: a number that differs between those runs is
# noise and is masked (a --trace file is compared as a multiset of events with numbers
# masked, since record order varies too); every other byte of NEW's output must equal OLD's
# (test/compare/diff_outputs.py). Run as root (it loads BPF).
#
#   [KEEP=DIR] test/compare/compare_outputs.sh OLD_BIN NEW_BIN [INJECT] [SCENARIO...]
# KEEP keeps every output in DIR (old1..3/ and new/, one folder per scenario).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
old=$1 new=$2
inject=${3:-$root/build/test/faults/inject}
shift $(( $# >= 3 ? 3 : $# ))
scenarios=("$@")
((${#scenarios[@]})) || scenarios=(clean clean-read punt nobatch overflow errors badop
  multishot link cqe-skip short-write clean-socket pollretry-socket leak)
[[ $(id -u) -eq 0 ]] || { echo "compare_outputs: loads BPF programs; run it as root" >&2; exit 2; }
if [[ -n ${KEEP:-} ]]; then
  work=$KEEP
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
port=$((20000 + RANDOM % 20000))

run_one() {  # bin dir scenario
  local bin=$1 dir=$2 name=$3 count
  mkdir -p "$dir"
  case $name in leak) count=4 ;; overflow) count=64 ;; *) count=100 ;; esac
  "$bin" --json="$dir/report.json" --trace "$dir/trace.json" -- \
    "$inject" --linger 1 "$name" "$count" >"$dir/text.txt" 2>"$dir/stderr.txt" || true
  "$bin" -c -- "$inject" "$name" "$count" >"$dir/compact.txt" 2>/dev/null || true
  # The exposition: scraped while the injector lingers, after its work is done.
  "$bin" --metrics "127.0.0.1:$port" -- "$inject" --linger 3 "$name" "$count" \
    >/dev/null 2>&1 &
  local scope=$! tries=0
  sleep 2.2
  until curl -sf "http://127.0.0.1:$port/metrics" -o "$dir/metrics.txt" || ((tries++ > 20)); do
    sleep 0.1
  done
  wait "$scope" || true
  port=$((port + 1))
}

status=0
for name in "${scenarios[@]}"; do
  for i in 1 2 3; do run_one "$old" "$work/old$i/$name" "$name"; done
  run_one "$new" "$work/new/$name" "$name"
  if python3 "$here/diff_outputs.py" "$work/new/$name" "$work"/old{1,2,3}/"$name"; then
    echo "same $name"
  else
    echo "DIFF $name"
    status=1
  fi
done
exit $status
