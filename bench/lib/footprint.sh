# SPDX-License-Identifier: MIT
# Sourced by bench/scaling.sh: uringscope's memory against its table sizes. For each
# URINGSCOPE_TABLE_SIZES setting, uringscope watches a NOP storm for 3 seconds; its RSS
# once attached, its peak RSS (GNU time: the report's copy of the tables included), and
# the kernel memory of the BPF maps it holds (the kernel's own figure, fdinfo's
# memlock, map by map from bpftool).
# Needs: procs.sh, tracers.sh; $uringscope, $loadgen, $logdir, $out_prefix.

# The settings: each table at a quarter, one, four and sixteen times its default size
# (src/cli/table_sizes.cpp names them; bpf/uringscope.h has the defaults).
footprint_settings=(
  rings=256 rings=1024 rings=4096 rings=16384
  opstats=1024 opstats=4096 opstats=16384 opstats=65536
  inflight=8192 inflight=32768 inflight=131072 inflight=524288
  udata=16384 udata=65536 udata=262144 udata=1048576
  threads=2048 threads=8192 threads=32768 threads=131072
  files=1024 files=4096 files=16384 files=65536
  names=1024 names=4096 names=16384 names=65536
)

# map_rows PID SETTING: one CSV row per BPF map PID holds open.
map_rows() {
  local pid=$1 setting=$2 fd id ids=()
  for fd in /proc/"$pid"/fd/*; do
    [[ $(readlink "$fd" 2>/dev/null) == anon_inode:bpf-map ]] || continue
    id=$(sed -nE 's/^map_id:\s+([0-9]+)/\1/p' "/proc/$pid/fdinfo/${fd##*/}" 2>/dev/null || true)
    [[ -n $id ]] && ids+=("$id")
  done
  ((${#ids[@]})) || die "no BPF maps open in uringscope (pid $pid): did it exit early?"
  bpftool map show -j | jq -r --arg s "$setting" --argjson ids "[$(IFS=,; echo "${ids[*]}")]" \
    '.[] | select(.id as $i | $ids | index($i)) |
     [($s | split("=")[0]), ($s | split("=")[1]), .id, .name, .type, .max_entries,
      .bytes_value, .bytes_memlock] | @csv' | tr -d '"'
}

# footprint_one SETTING TARGET_PID: one row of -memory.csv, the maps in -maps.csv.
footprint_one() {
  local setting=$1 target=$2 tag="mem-${1/=/-}" tp us rss hwm maps
  env URINGSCOPE_TABLE_SIZES="$setting" /usr/bin/time -v -o "$logdir/$tag.time" \
    "$uringscope" -p "$target" -d 3 >"$logdir/$tag.report" 2>"$logdir/$tag.err" &
  tp=$!
  bg_pids+=("$tp")
  wait_for "$logdir/$tag.err" 'uringscope: attached' 60 "$tp" || die "uringscope did not attach ($setting)"
  us=$(pgrep -P "$tp" -x uringscope) || die "no uringscope under GNU time ($setting)"
  # RSS split by kind: the tables userspace keeps mapped are kernel memory it shares
  # (RssShmem/RssFile), counted in RSS but not allocated by it.
  rss=$(awk '/^(VmRSS|RssAnon|RssFile|RssShmem):/ {printf "%s%s", n++ ? "," : "", $2}' "/proc/$us/status")
  maps=$(map_rows "$us" "$setting")
  stop "$tp" "" 30 || die "uringscope failed ($setting): $(tail -1 "$logdir/$tag.err")"
  hwm=$(sed -nE 's/.*Maximum resident set size \(kbytes\): ([0-9]+)/\1/p' "$logdir/$tag.time")
  echo "$maps" >>"$out_prefix-maps.csv"
  awk -F, -v s="$setting" -v rss="$rss" -v hwm="$hwm" '
    { n++; b += $8 }
    END { split(s, kv, "="); printf "%s,%s,%s,%d,%d,%d\n", kv[1], kv[2], rss, hwm, n, b }' \
    <<<"$maps" >>"$out_prefix-memory.csv"
}

footprint_curve() {
  local lg setting
  [[ -x /usr/bin/time ]] || die "the memory curve needs GNU time (/usr/bin/time: apt install time)"
  printf 'table,rows,rss_attached_kib,rss_anon_kib,rss_file_kib,rss_shmem_kib,peak_rss_kib,maps,map_bytes\n' \
    >"$out_prefix-memory.csv"
  printf 'table,rows,map_id,map,type,max_entries,value_bytes,memlock_bytes\n' >"$out_prefix-maps.csv"
  "$loadgen" -t 100000 nop >/dev/null 2>&1 &
  lg=$!
  bg_pids+=("$lg")
  for setting in "${footprint_settings[@]}"; do
    footprint_one "$setting" "$lg"
    note "memory: $(tail -1 "$out_prefix-memory.csv")"
  done
  stop "$lg" INT 10 || true
}
