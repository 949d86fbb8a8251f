#!/usr/bin/env bash
# Runs test/vmtest/run.sh on every `boot vmtest` row of test/kernels.txt and prints one
# line per row: its steps, verdict and wall time. As root.
#
#   test/vmtest/matrix.sh [--ci] [--jobs N] [--build DIR] [--build-arm64 DIR] [--results DIR] [--only K1,K2]
#
#   --ci           each row's `ci` steps instead of all its `steps`: the split that keeps
#                  .ci/run inside its time budget (docs/kernels.md, "CI")
#   --build DIR    the build tree to test on the amd64 rows (default: build/ of this
#                  checkout)
#   --build-arm64 DIR  the cross build for the arm64 rows (default: build-arm64/ of this
#                  checkout, packaging/build.sh --arch arm64); when it has no uringscope,
#                  the arm64 rows are skipped with a line saying so (not a pass)
#   --results DIR  one subdirectory per row (default: a new /tmp/uringscope-matrix.*)
#   --only LIST    only these rows
#   --jobs N       boot up to N guests at a time (default 1). A TCG guest runs all its
#                  vCPUs on one host thread, so on 2 cores two guests take about half the
#                  wall time of one after the other. The heaviest rows (fault scenarios,
#                  kernel tests, arm64) start first; each row's output goes to
#                  RESULTS/ROW.log, and a row that fails prints its last lines.
#   --timeout S    passed to run.sh (a guest killed after S seconds; default run.sh's:
#                  2400, 7200 on arm64)
#
# Exit status: 0 when every row passed, 1 when a row failed or its guest did not finish
# (the table says which, and where its logs are), 2 for a usage error.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
matrix=$root/test/kernels.txt
key=steps
build=$root/build
build_arm64=$root/build-arm64
results=
only=
timeout_s=
jobs=1

die() { echo "matrix: $*" >&2; exit 2; }
while (($#)); do
  case $1 in
    --ci) key=ci; shift ;;
    --build) build=$2; shift 2 ;;
    --build-arm64) build_arm64=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2 ;;
    *) die "unknown argument $1" ;;
  esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs takes a positive number, not '$jobs'"
results=${results:-$(mktemp -d /tmp/uringscope-matrix.XXXXXX)}
mkdir -p "$results"

# "NAME STEPS ARCH" for each vmtest row, in file order; a row without a `ci` line runs
# all its steps in CI too.
rows() {
  awk -v key="$key" '
    function flush() { if (name != "" && boot == "vmtest") print name, (pick != "" ? pick : (all != "" ? all : "version,load,kernel,faults")), (arch != "" ? arch : "amd64") }
    /^[[:space:]]*#/ { next }
    /^\[/ { flush(); name = substr($1, 2, length($1) - 2); boot = pick = all = arch = ""; next }
    $1 == "boot" { boot = $2 }
    $1 == "arch" { arch = $2 }
    $1 == "steps" { all = $2 }
    $1 == key && key != "steps" { pick = $2 }
    END { flush() }' "$matrix"
}

# A rough cost per row, so that with --jobs the longest rows start first and the short
# ones fill the gaps: under TCG the fault scenarios and the kernel tests take most of
# a row, and an arm64 guest boots and runs several times slower than an amd64 one.
row_cost() {  # steps arch -> a relative cost
  local cost=1
  [[ ,$1, == *,faults,* ]] && cost=$((cost + 20))
  [[ ,$1, == *,kernel,* ]] && cost=$((cost + 15))
  [[ ,$1, == *,kernel-third,* ]] && cost=$((cost + 5))
  [[ $2 == arm64 ]] && cost=$((cost * 4))
  echo "$cost"
}

lines=()
failed=0
skipped=0
declare -A row_pid=() row_start=() row_steps=()
t_all=$(date +%s)

finish_row() {  # name status: the row's summary line, and its log's tail on failure
  local name=$1 status=$2 verdict took=$(($(date +%s) - ${row_start[$1]}))
  case $status in
    0) verdict=passed ;;
    1) verdict=FAILED ;;
    3) verdict="FAILED (the guest did not finish)" ;;
    *) verdict="FAILED (setup error, exit $status)" ;;
  esac
  ((status == 0)) || failed=$((failed + 1))
  lines+=("$(printf '%-11s %-28s %5d s  %s' "$name" "${row_steps[$name]}" "$took" "$verdict")")
  if ((jobs > 1)); then
    echo "=== matrix: $name finished: $verdict ($took s)"
    ((status == 0)) || tail -n 60 "$results/$name.log" | sed "s/^/  $name| /"
  fi
}

wait_for_a_row() {  # reap one finished row (jobs > 1)
  local done_pid status=0 name
  wait -n -p done_pid "${row_pid[@]}" || status=$?
  for name in "${!row_pid[@]}"; do
    if [[ ${row_pid[$name]} == "$done_pid" ]]; then
      unset "row_pid[$name]"
      finish_row "$name" "$status"
      return
    fi
  done
}

while read -r _ name steps arch; do
  [[ -z $only || ,$only, == *,$name,* ]] || continue
  row_build=$build
  if [[ $arch == arm64 ]]; then
    row_build=$build_arm64
    if [[ ! -x $row_build/uringscope ]]; then
      lines+=("$(printf '%-11s %-28s %5s    %s' "$name" "$steps" - "skipped: no $row_build/uringscope (packaging/build.sh --arch arm64)")")
      skipped=$((skipped + 1))
      continue
    fi
  fi
  row_steps[$name]=$steps
  run=("$here/run.sh" --build "$row_build" --results "$results/$name" --steps "$steps"
       ${timeout_s:+--timeout "$timeout_s"} "$name")
  # stdin is the list of rows this loop reads: a guest must not consume it.
  if ((jobs == 1)); then
    row_start[$name]=$(date +%s)
    echo "=== matrix: $name ($steps) ==="
    status=0
    "${run[@]}" </dev/null || status=$?
    finish_row "$name" "$status"
    continue
  fi
  while ((${#row_pid[@]} >= jobs)); do wait_for_a_row; done
  # From here, not before the wait for a free slot: a row's time is its own.
  row_start[$name]=$(date +%s)
  echo "=== matrix: $name ($steps) started, output in $results/$name.log"
  "${run[@]}" </dev/null >"$results/$name.log" 2>&1 &
  row_pid[$name]=$!
done < <(rows | while read -r name steps arch; do
           # With --jobs the costliest first; one at a time, in file order.
           if ((jobs > 1)); then echo "$(row_cost "$steps" "$arch") $name $steps $arch"
           else echo "0 $name $steps $arch"; fi
         done | sort -s -k1,1nr)
while ((${#row_pid[@]})); do wait_for_a_row; done

echo
echo "matrix summary ($key), results in $results:"
printf '  %s\n' "${lines[@]}"
echo "  total $(($(date +%s) - t_all)) s; $((${#lines[@]} - failed - skipped)) rows passed, $failed failed$( ((skipped)) && echo ", $skipped skipped")"
((${#lines[@]} > skipped)) || die "no row ran (--only $only?)"
((failed == 0))
