#!/usr/bin/env bash
# Runs test/vmtest/run.sh on every `boot vmtest` row of test/kernels.txt, one after the
# other (in parallel they gain nothing on 2 cores under TCG), and prints one line per
# row: its steps, verdict and wall time. As root.
#
#   test/vmtest/matrix.sh [--ci] [--build DIR] [--build-arm64 DIR] [--results DIR] [--only K1,K2]
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

die() { echo "matrix: $*" >&2; exit 2; }
while (($#)); do
  case $1 in
    --ci) key=ci; shift ;;
    --build) build=$2; shift 2 ;;
    --build-arm64) build_arm64=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2 ;;
    *) die "unknown argument $1" ;;
  esac
done
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

lines=()
failed=0
skipped=0
t_all=$(date +%s)
while read -r name steps arch; do
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
  t0=$(date +%s)
  status=0
  echo "=== matrix: $name ($steps) ==="
  "$here/run.sh" --build "$row_build" --results "$results/$name" --steps "$steps" \
    ${timeout_s:+--timeout "$timeout_s"} "$name" || status=$?
  took=$(($(date +%s) - t0))
  case $status in
    0) verdict=passed ;;
    1) verdict=FAILED ;;
    3) verdict="FAILED (the guest did not finish)" ;;
    *) verdict="FAILED (setup error, exit $status)" ;;
  esac
  ((status == 0)) || failed=$((failed + 1))
  lines+=("$(printf '%-11s %-28s %5d s  %s' "$name" "$steps" "$took" "$verdict")")
done < <(rows)

echo
echo "matrix summary ($key), results in $results:"
printf '  %s\n' "${lines[@]}"
echo "  total $(($(date +%s) - t_all)) s; $((${#lines[@]} - failed - skipped)) rows passed, $failed failed$( ((skipped)) && echo ", $skipped skipped")"
((${#lines[@]} > skipped)) || die "no row ran (--only $only?)"
((failed == 0))
