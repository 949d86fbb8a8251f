#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/plot_scaling.py on the newest scaling run kept in bench/results/: every figure of
# docs/overhead.md ("How the cost grows") is drawn again from its raw CSV, and the
# Markdown summary has the paired table. Cheap (a few seconds, no root, no kernel):
# scaling.sh itself never runs in CI. Needs python3-matplotlib.
set -euo pipefail
root=${1:?usage: check_plot_scaling.sh SOURCE_DIR}
machine=$(ls "$root"/bench/results/*-scaling-machine.tsv 2>/dev/null | sort | tail -1)
[[ -n $machine ]] || { echo "no bench/results/*-scaling-machine.tsv"; exit 1; }
prefix=${machine%-machine.tsv}
# Debian's python3 (python3-matplotlib), not whatever python3 comes first in PATH.
py=/usr/bin/python3
[[ -x $py ]] || py=python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# As docs/overhead.md draws them (bench/README.md says why the spread limit is 50%).
"$py" "$root/bench/plot_scaling.py" "$prefix" --images "$out" --markdown "$out/summary.md" --max-base-spread 50
for png in scaling-depth scaling-rings scaling-kinds scaling-threads memory-tables attach-time report-time; do
  [[ $(head -c 8 "$out/$png.png" 2>/dev/null | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
    { echo "FAIL: $png.png was not drawn from $prefix"; exit 1; }
done
grep -q '^| curve | x | untraced ns/req' "$out/summary.md" || { echo "FAIL: no paired table"; exit 1; }
echo "plot_scaling.py: 7 figures from $(basename "$prefix")"
