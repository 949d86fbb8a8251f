#!/usr/bin/env bash
# uringscope's own footprint against the number of rings a run sees: a ring churner
# (loadgen churn: set up, -b NOPs, torn down, one ring after another) traced with -p
# until it exits, for each count of rings given. One row per count: the rings, the
# tracer's peak RSS (getrusage of the child, as time(1) reports it), the JSON report's
# size and the NOPs it counted against those loadgen ran. With --scrape PORT the run
# also serves --metrics on 127.0.0.1:PORT, scraped every half second: the largest scrape
# is one more column, the exporter's footprint beside the report's.
#
#   bench/churn.sh [--build-dir DIR] [--uringscope BIN] [--nops N] [--scrape PORT]
#                  COUNT... [-- OPTION...]
#
# OPTIONs after -- go to uringscope (e.g. --keep-rings all). Needs root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_dir=$here/../build
uringscope=""
nops=4
scrape=""
extra=()
counts=()
while (($#)); do
  case $1 in
    --build-dir) build_dir=$2; shift ;;
    --uringscope) uringscope=$2; shift ;;
    --nops) nops=$2; shift ;;
    --scrape) scrape=$2; shift ;;
    --) shift; extra=("$@"); break ;;
    -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
    *) counts+=("$1") ;;
  esac
  shift
done
((${#counts[@]})) || { echo "churn.sh: give at least one count of rings" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "churn.sh: uringscope loads BPF programs: run as root" >&2; exit 1; }
uringscope=${uringscope:-$build_dir/uringscope}
loadgen=$build_dir/bench/loadgen
for bin in "$uringscope" "$loadgen"; do
  [[ -x $bin ]] || { echo "churn.sh: $bin is missing" >&2; exit 1; }
done
work=$(mktemp -d /tmp/uringscope-churn.XXXXXX)
trap 'rm -rf "$work"' EXIT

[[ -n $scrape ]] && extra+=(--metrics "127.0.0.1:$scrape")

# Scrapes until the endpoint closes; prints the largest exposition's size.
scrape_loop() {
  local largest=0 size
  while sleep 0.5; do
    size=$(curl -sf "http://127.0.0.1:$scrape/metrics" | wc -c) || break
    ((size == 0)) && break
    ((size > largest)) && largest=$size
  done
  echo "$largest"
}

printf 'rings\tpeak_rss_kib\tjson_bytes\tnops_counted\tnops_run%s\n' "${scrape:+$'\t'max_scrape_bytes}"
for count in "${counts[@]}"; do
  "$loadgen" -b "$nops" -q 8 -n "$count" -w churn >"$work/loadgen.out" 2>"$work/loadgen.err" &
  lg=$!
  until grep -q '^READY' "$work/loadgen.err" 2>/dev/null; do sleep 0.05; done
  /usr/bin/time -f '%M' -o "$work/rss" "$uringscope" -p "$lg" --json="$work/report.json" \
    "${extra[@]}" >"$work/report.txt" 2>"$work/uringscope.err" &
  us=$!
  until grep -q "uringscope: attached" "$work/uringscope.err" 2>/dev/null; do
    kill -0 "$us" 2>/dev/null || { cat "$work/uringscope.err" >&2; exit 1; }
    sleep 0.05
  done
  [[ -n $scrape ]] && { scrape_loop >"$work/scrape" & }
  kill -USR1 "$lg"
  wait "$lg"
  wait "$us" || { cat "$work/uringscope.err" >&2; exit 1; }
  counted=$(jq '[.ops[] | select(.op == "NOP") | .submitted] | add // 0' "$work/report.json")
  largest=""
  [[ -n $scrape ]] && { wait; largest=$'\t'$(cat "$work/scrape"); }
  printf '%s\t%s\t%s\t%s\t%s%s\n' "$count" "$(tail -1 "$work/rss")" \
    "$(stat -c %s "$work/report.json")" "$counted" "$((count * nops))" "$largest"
done
