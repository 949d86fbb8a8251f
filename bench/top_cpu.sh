#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What `uringscope top` costs uringscope itself: its process's CPU time (utime + stime
# from /proc/PID/stat) over the middle of a busy run, as a share of one core, for three
# runs over the same load: no view (the tracer's own periodic work), -i 1 (live lines),
# and top -i 1 (in a tmux pane of 80x24, on the rings tab, whose rows and flame are
# rebuilt every second). The load is fio on io_uring with several jobs (threads, so one
# process), each on many files: many rings, ops and files for every reading to copy and
# every view to build. docs/top.md has the figures of a run.
#
#   bench/top_cpu.sh [--uringscope PATH] [--seconds N] [--jobs N] [--files N] [--tab N]
#
# Run as root (uringscope loads BPF programs). Needs fio and tmux.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
uringscope=$root/build/uringscope
seconds=20
jobs=4
files=32
tab=1
while (($#)); do
  case $1 in
    --uringscope) uringscope=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --files) files=$2; shift 2 ;;
    --tab) tab=$2; shift 2 ;;
    *) echo "top_cpu.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ $(id -u) -eq 0 ]] || { echo "top_cpu.sh: run as root" >&2; exit 2; }
for tool in fio tmux; do
  command -v "$tool" >/dev/null || { echo "top_cpu.sh: needs $tool" >&2; exit 2; }
done

work=$(mktemp -d /var/tmp/usc-topcpu.XXXXXX)
sock=usc-topcpu-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
fio_cmd="fio --name=busy --thread --ioengine=io_uring --directory=$work --rw=randrw --bs=4k \
--size=32m --nrfiles=$files --numjobs=$jobs --iodepth=16 --time_based --runtime=$((seconds + 8)) \
--output=/dev/null"
# Lay the files out once, so that every run reads the same warm page cache.
fio --name=layout --thread --ioengine=psync --directory="$work" --rw=write --bs=1m --size=32m \
  --nrfiles="$files" --numjobs="$jobs" --output=/dev/null

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# One run: uringscope (with the view's words) as `sh -c 'echo $$; exec ...'`, so its pid is
# known; CPU is sampled from 3 s after the start (attach and load done) for `seconds - 6`.
measure() {
  local name=$1 view=$2 pidfile=$work/pid.$1
  local cmd="sh -c 'echo \$\$ > $pidfile; exec $uringscope $view --files --json=$work/$name.json \
-d $seconds -- $fio_cmd' 2>$work/$name.err"
  rm -f "$pidfile"
  if [[ $view == top* ]]; then
    tmux -L "$sock" -f /dev/null new-session -d -s "$name" -x 80 -y 24 "$cmd; sleep 2"
    sleep 1
    tmux -L "$sock" send-keys -t "$name" "$tab"
  else
    eval "$cmd >/dev/null &"
  fi
  sleep 3
  local pid
  pid=$(cat "$pidfile")
  local t0 c0 t1 c1
  t0=$(date +%s.%N); c0=$(ticks "$pid")
  sleep $((seconds - 6))
  t1=$(date +%s.%N); c1=$(ticks "$pid")
  while kill -0 "$pid" 2>/dev/null; do sleep 0.5; done
  local hz cqes
  hz=$(getconf CLK_TCK)
  cqes=$(python3 -c "import json,sys; r=json.load(open('$work/$name.json')); \
print(sum(o['completed'] for g in r['rings'] for o in g['ops']))")
  python3 -c "
cpu = ($c1 - $c0) / $hz; wall = $t1 - $t0
print(f'{\"$name\":<8} {100 * cpu / wall:6.2f}% of one core   ({cpu:.2f} s CPU in {wall:.1f} s; \
the load: {$cqes / $seconds:,.0f} CQEs/s)')"
}

echo "fio: $jobs jobs x $files files of 32 MiB/$files, randrw 4k, iodepth 16; --files on; ${seconds}s each"
measure plain ""
measure live "-i 1"
measure top "top -i 1"
