#!/usr/bin/env bash
# `uringscope top` in a real terminal: test/top/top_test.py drives it inside tmux
# (send-keys, capture-pane) on the fault injector's scenarios and checks the screen
# against their GROUND-TRUTH counts: the tabs, sort, a filter pushed and popped, search,
# help, a resize, and the terminal given back after q, Ctrl-C, SIGTERM and the target
# exiting; then that top without a terminal is one line and exit 1. Root: it loads BPF.
# A missing tmux is a failure, not a skip.
#
#   test/top/run.sh [--uringscope PATH] [--inject PATH]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
uringscope=$root/build/uringscope
inject=$root/build/test/faults/inject
while (($#)); do
  case $1 in
    --uringscope) uringscope=$2; shift 2 ;;
    --inject) inject=$2; shift 2 ;;
    *) echo "top/run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ $(id -u) -eq 0 ]] || { echo "top/run.sh: loads BPF programs; run it as root" >&2; exit 2; }
command -v tmux >/dev/null || { echo "FAIL top/run.sh: no tmux (packaging/install-deps.sh installs it)"; exit 1; }
exec python3 "$here/top_test.py" --uringscope "$uringscope" --inject "$inject"
