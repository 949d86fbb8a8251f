#!/usr/bin/env bash
# The I/O flame graph against ground truth and in a real browser. For each weight
# (count, bytes, time) it runs the fault injector's `files` scenario (named files, a
# registered file, a socketpair, a pipe) under `uringscope --folded --flamegraph`, with
# a NOP storm in another process beside it, then:
#   - check_flame.py holds the folded stacks to the injector's GROUND-TRUTH lines
#     (per-file requests and bytes, per-op totals; time to the JSON's latency sums);
#   - headless Chromium opens the SVG through harness.html, which lets the SVG's own
#     script lay it out, clicks the READ frame, resets the zoom and searches; the
#     checker scores every frame's width, label and tooltip, the zoom and the search.
# A missing browser is a failure, not a skip: the SVG is only proven where it renders.
#
#   test/flame/run.sh [--uringscope PATH] [--inject PATH]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
uringscope=$root/build/uringscope
inject=$root/build/test/faults/inject
while (($#)); do
  case $1 in
    --uringscope) uringscope=$2; shift 2 ;;
    --inject) inject=$2; shift 2 ;;
    *) echo "flame/run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ $(id -u) -eq 0 ]] || { echo "flame/run.sh: loads BPF programs; run it as root" >&2; exit 2; }
browser=$(command -v chromium-headless-shell || command -v chromium || true)
[[ -n $browser ]] || { echo "FAIL flame/run.sh: no headless Chromium (packaging/install-deps.sh installs it)"; exit 1; }

work=$(mktemp -d /var/tmp/usc-flame.XXXXXX)
noise=
cleanup() {
  [[ -n $noise ]] && kill "$noise" 2>/dev/null && wait "$noise" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
"$inject" --linger 0 clean 100000000 >/dev/null 2>&1 &
noise=$!

failed=0
for weight in count bytes time; do
  out=$work/$weight
  "$uringscope" --json "$out.json" --folded "$out.folded" --flamegraph "$out.svg" \
    --flame-weight "$weight" -- "$inject" files 20 >"$out.log" 2>&1
  rc=$?
  if ((rc != 0)); then
    echo "FAIL $weight: uringscope exited $rc"; tail -5 "$out.log"; failed=1; continue
  fi
  # --virtual-time-budget: the DOM is dumped once the page, its iframe and their
  # scripts have settled, not at the first paint.
  "$browser" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
    --virtual-time-budget=10000 --dump-dom \
    "file://$here/harness.html?svg=file://$out.svg&zoom=READ&search=%5EREAD%24" \
    >"$out.dom" 2>"$out.browser.log"
  python3 "$here/check_flame.py" "$weight" "$out.log" "$out.json" "$out.folded" "$out.dom" \
    || failed=1
done
if ((failed)); then echo "flame/run.sh: FAILED"; exit 1; fi
echo "flame/run.sh: all passed"
