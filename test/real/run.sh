#!/usr/bin/env bash
# Runs real io_uring programs that nobody here wrote under uringscope, with other
# io_uring traffic beside them, and checks what uringscope counted against each
# program's own, independent count:
#   qemu-img bench -i io_uring   its request count (-c) and strace's sum of the SQEs
#                                each io_uring_enter() consumed (its return values)
#   plocate                      strace's sum of consumed SQEs, and its match count
#   fio (ioengine=io_uring)      fio's own JSON total_ios; with --folded, each job's
#                                io_bytes and total_ios on its own file's stack; with
#                                --trace, one complete request slice per read
#   node (UV_USE_IO_URING=1)     the reads the script made (docs/guides/fs-bench.js), and
#                                its read ring's SQ tail from /proc/self/fdinfo
# Per program: its read requests submitted and completed equal the truth, no
# completion is untracked, and no finding at WARN or above appears that the truth
# does not explain (BATCH only where strace saw one SQE per submitting call). Under
# --check (qemu-img, fio with registered buffers): no hazard, and one range checked per
# request.
# Prints "N passed, M failed[, K skipped]"; a program that is not installed is skipped
# and said so, never passed.
#
#   test/real/run.sh [--uringscope PATH] [--inject PATH]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
uringscope=$root/build/uringscope
inject=$root/build/test/faults/inject
while (($#)); do
  case $1 in
    --uringscope) uringscope=$2; shift 2 ;;
    --inject) inject=$2; shift 2 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ $(id -u) -eq 0 ]] || { echo "real/run.sh: loads BPF programs; run it as root" >&2; exit 2; }
for tool in jq strace; do
  command -v $tool >/dev/null || { echo "real/run.sh: needs $tool" >&2; exit 2; }
done
work=$(mktemp -d /var/tmp/usc-real.XXXXXX)  # not tmpfs: O_DIRECT and real page cache
noise=
cleanup() {
  [[ -n $noise ]] && kill "$noise" 2>/dev/null && wait "$noise" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
passed=0 failed=0 skipped=0

# Other io_uring traffic on the machine, as on a user's box: a NOP storm in another
# process that must never show up in the target's report.
"$inject" --linger 0 clean 100000000 >/dev/null 2>&1 &
noise=$!

# Sum of the SQEs every io_uring_enter() of a strace -f log consumed.
sqes_consumed() {
  awk '/io_uring_enter\(/ && match($0, /= [0-9]+$/) { s += substr($0, RSTART + 2) } END { printf "%.0f\n", s }' "$1"
}
submitting_enters() {
  awk '/io_uring_enter\(/ && match($0, /= [0-9]+$/) && substr($0, RSTART + 2) + 0 > 0 { n++ } END { print n + 0 }' "$1"
}

# traced NAME COMMAND...: COMMAND under uringscope -f (programs fork their workers) and
# under strace, which logs every io_uring_enter() and its result to $work/NAME.strace;
# the report is $work/NAME.json, the program's output $work/NAME.out.
# TRACED_ARGS: more uringscope options (--check).
traced() {
  local name=$1
  shift
  # shellcheck disable=SC2086
  "$uringscope" -f ${TRACED_ARGS:-} --json="$work/$name.json" -- strace -f -qq \
    -e trace=io_uring_enter -o "$work/$name.strace" "$@" >"$work/$name.out" 2>&1
}

# check_no_hazard NAME REPORT RANGES: --check on a program that uses its buffers
# correctly: no hazard, nothing lost, and exactly RANGES memory ranges checked (one per
# request and iovec: silence that checked nothing would prove nothing).
check_no_hazard() {
  local name=$1 report=$2 ranges=$3
  if jq -e --argjson ranges "$ranges" '.hazards.available and
            .hazards.overlap + .hazards.bufreg + .hazards.unmap == 0 and
            .hazards.ranges_checked == $ranges and .tool_stats.check_drops == 0' \
    "$report" >/dev/null 2>&1; then
    passed=$((passed + 1))
    printf 'ok   %-10s --check: no hazard in %s ranges checked, no record lost\n' "$name" "$ranges"
  else
    failed=$((failed + 1))
    printf 'FAIL %-10s --check (want %s ranges): %s\n' "$name" "$ranges" \
      "$(jq -c '[.hazards | del(.records), .tool_stats.check_drops]' "$report")"
  fi
}

# The program's own count disagreed with itself: the test cannot judge uringscope.
misbehaved() {
  failed=$((failed + 1))
  printf 'FAIL %-10s the program misbehaved: %s\n' "$1" "$2"
}

# check NAME REPORT TRUTH [ALLOWED_WARN_TAGS]: the read ops of the report against TRUTH.
check() {
  local name=$1 report=$2 truth=$3 allowed=${4:-} problems=()
  if ! jq -e . "$report" >/dev/null 2>&1; then
    problems+=("no report")
  else
    local reads
    reads=$(jq '[.ops[] | select(.op | test("^READ")) ] | {s: (map(.submitted) | add // 0), c: (map(.completed) | add // 0)}' "$report")
    [[ $(jq .s <<<"$reads") == "$truth" ]] || problems+=("reads submitted $(jq .s <<<"$reads"), truth $truth")
    [[ $(jq .c <<<"$reads") == "$truth" ]] || problems+=("reads completed $(jq .c <<<"$reads"), truth $truth")
    local untracked
    untracked=$(jq .counters.untracked_completions "$report")
    [[ $untracked == 0 ]] || problems+=("$untracked untracked completions")
    local unexpected
    unexpected=$(jq -r --arg allowed "$allowed" '[.findings[] | select(.severity != "INFO") | .tag |
      select(. as $t | $allowed | split(",") | any(. == $t) | not)] | unique | join(",")' "$report")
    [[ -z $unexpected ]] || problems+=("unexplained findings: $unexpected")
    jq -e '[.rings[] | select(.comm == "inject")] | length == 0' "$report" >/dev/null ||
      problems+=("the neighbour's ring is in the report")
  fi
  if ((${#problems[@]})); then
    failed=$((failed + 1))
    printf 'FAIL %-10s %s\n' "$name" "$(IFS=';'; echo "${problems[*]}")"
  else
    passed=$((passed + 1))
    printf 'ok   %-10s %s read requests, as the program itself counted\n' "$name" "$truth"
  fi
}

skip() {
  skipped=$((skipped + 1))
  printf 'skip %-10s %s\n' "$1" "$2"
}

# BATCH is explained when strace saw the submitting io_uring_enter() calls carry under
# 1.5 SQEs each on average (the rule's own bound, src/rules/thresholds.cpp).
batch_explained() {  # strace-log
  local calls sqes
  calls=$(submitting_enters "$1")
  sqes=$(sqes_consumed "$1")
  ((calls > 0 && sqes * 2 < calls * 3)) && echo BATCH
}

# REAP-LAG is explained when fio itself saw its completions that late. fio's clat runs
# from the io_uring_enter() that submitted a request to fio reaping its CQE, and a
# page-cache read spends microseconds in the kernel, so clat is the reap lag plus a
# little. A loaded machine (the NOP storm beside it, strace stopping fio at every
# syscall) can really leave CQEs unreaped for tens of milliseconds; then REAP-LAG is the
# right answer. Both time every CQE; uringscope judges the lower bounds of its lags, so
# the bar is generous to it: fio's p99.9 at the rule's threshold (20 ms; the rule's WARN
# wants 1 % of the CQEs past it), or fio's slowest at ten times that (one CQE that late
# is a WARN on its own).
reap_lag_explained() {  # fio-result
  jq -e '[.jobs[].read.clat_ns.percentile["99.900000"] // 0] | max >= 20000000' "$1" \
    >/dev/null && echo REAP-LAG && return
  jq -e '[.jobs[].read.clat_ns.max // 0] | max >= 200000000' "$1" >/dev/null && echo REAP-LAG
}

# What each side saw of the reap lag, for a failure message: uringscope's p99 against
# fio's clat p99 and p99.9.
reap_lag_sides() {  # report fio-result
  printf 'uringscope reap p99 %s ms over %s CQEs; fio clat p99 %s ms, p99.9 %s ms' \
    "$(jq '[.end_to_end.rings[]?.reap_lag.p99_ns // 0] | max / 1e6 | . * 10 | round / 10' "$1")" \
    "$(jq '[.end_to_end.rings[]?.reap_lag.watched // 0] | add' "$1")" \
    "$(jq '[.jobs[].read.clat_ns.percentile["99.000000"] // 0] | max / 1e6 | . * 10 | round / 10' "$2")" \
    "$(jq '[.jobs[].read.clat_ns.percentile["99.900000"] // 0] | max / 1e6 | . * 10 | round / 10' "$2")"
}

# --- qemu-img bench ------------------------------------------------------------------
if command -v qemu-img >/dev/null; then
  count=20000
  qemu-img create -q -f raw "$work/disk.img" 64M
  traced qemu qemu-img bench -i io_uring -c $count -d 16 -s 4096 -f raw "$work/disk.img"
  sent=$(sed -n 's/^Sending \([0-9]*\) read requests.*/\1/p' "$work/qemu.out")
  if [[ $sent != "$count" || $(sqes_consumed "$work/qemu.strace") != "$count" ]]; then
    misbehaved qemu-img "sent=$sent, strace counted $(sqes_consumed "$work/qemu.strace") SQEs"
  else
    check qemu-img "$work/qemu.json" "$count" "$(batch_explained "$work/qemu.strace")"
  fi
  # --check over its READVs (one iovec each, a buffer per request slot).
  TRACED_ARGS=--check traced qemu-check qemu-img bench -i io_uring -c 5000 -d 16 -s 4096 \
    -f raw "$work/disk.img"
  if [[ $(sqes_consumed "$work/qemu-check.strace") != 5000 ]]; then
    misbehaved qemu-check "strace counted $(sqes_consumed "$work/qemu-check.strace") SQEs, not 5000"
  else
    check_no_hazard qemu-check "$work/qemu-check.json" 5000
  fi
else
  skip qemu-img "qemu-img is not installed (Debian package qemu-utils)"
fi

# --- plocate -------------------------------------------------------------------------
if command -v plocate >/dev/null && command -v updatedb >/dev/null; then
  for i in $(seq 1 300); do
    mkdir -p "$work/tree/d$i"
    for j in $(seq 1 20); do : >"$work/tree/d$i/file_${i}_$j.txt"; done
  done
  updatedb -l 0 -o "$work/plocate.db" -U "$work/tree"
  traced plocate plocate -d "$work/plocate.db" file_17_
  matches=$(grep -c "/file_17_" "$work/plocate.out")
  truth=$(sqes_consumed "$work/plocate.strace")
  if [[ $matches != 20 || $truth -lt 1 ]]; then
    misbehaved plocate "$matches matches (want 20), $truth SQEs"
  else
    check plocate "$work/plocate.json" "$truth" "$(batch_explained "$work/plocate.strace")"
  fi
else
  skip plocate "plocate is not installed (Debian package plocate)"
fi

# --folded on three fio jobs, each its own process, file and shape of I/O: every job's
# stack (fio;ring;op;file) must carry exactly the bytes fio says it moved, and its file
# row exactly fio's request count; nothing else is in the stacks (not the neighbour).
check_fio_flame() {
  local out=$work/fio-flame
  "$uringscope" -f --json="$out.json" --folded "$out.folded" --flame-weight bytes -- \
    fio --ioengine=io_uring --directory="$work" --size=16M --runtime=2 --time_based \
    --name=hot --rw=randread --bs=4k --iodepth=16 --filename=hot.dat \
    --name=log --rw=write --bs=64k --iodepth=4 --filename=log.dat \
    --name=cold --rw=read --bs=128k --direct=1 --iodepth=4 --filename=cold.dat \
    --output-format=json --output="$out.result" >"$out.out" 2>&1
  local problems=() job file op bytes ios stacked rows
  while read -r job file op bytes ios; do
    stacked=$(awk -v f="$work/$file" -v op="$op" -F';' \
      '$1 == "fio" && $3 == op { n = split($4, t, " "); if (t[1] == f) s += t[2] } END { printf "%.0f\n", s }' \
      "$out.folded")
    [[ $stacked == "$bytes" ]] || problems+=("$job: $stacked bytes stacked, fio moved $bytes")
    rows=$(jq --arg f "$work/$file" --arg op "$op" \
      '[.rings[].files[] | select(.name == $f and .op == $op) | .cqes] | add // 0' "$out.json")
    [[ $rows == "$ios" ]] || problems+=("$job: $rows CQEs on its file, fio did $ios")
  done < <(jq -r '.jobs[] | [.jobname, (.jobname + ".dat"),
      (if .write.io_bytes > 0 then "WRITE" else "READ" end),
      (.read.io_bytes + .write.io_bytes), (.read.total_ios + .write.total_ios)] | @tsv' \
      "$out.result" 2>/dev/null)
  [[ -s $out.result ]] || problems+=("fio wrote no result")
  awk -F';' '$1 != "fio" { bad = 1 } END { exit bad }' "$out.folded" ||
    problems+=("a stack that is not fio's: $(grep -v '^fio;' "$out.folded" | head -1)")
  if ((${#problems[@]})); then
    failed=$((failed + 1))
    printf 'FAIL %-10s %s\n' fio-flame "$(IFS=';'; echo "${problems[*]}")"
  else
    passed=$((passed + 1))
    printf 'ok   %-10s three jobs: every file stack holds the bytes and CQEs fio counted\n' fio-flame
  fi
}

# --trace on two fio jobs, one of them sending every read to io-wq (force_async=1), so
# the submitter's and the workers' CPUs stage records apart: the file holds one request
# slice per read fio made, each begun and ended, none late, orphaned, lost or left open,
# and nothing of the neighbour's NOP storm.
check_fio_trace() {
  local out=$work/fio-trace problems=()
  "$uringscope" -f --trace "$out.trace.json" --json="$out.json" -- \
    fio --name=inline --filename="$work/fio.dat" --size=32M --rw=randread --bs=4k \
    --ioengine=io_uring --iodepth=16 --number_ios=5000 \
    --name=punted --filename="$work/fio.dat" --size=32M --rw=randread --bs=4k \
    --ioengine=io_uring --iodepth=16 --number_ios=5000 --force_async=1 \
    --output-format=json --output="$out.result" >"$out.out" 2>&1
  local truth
  truth=$(jq '[.jobs[].read.total_ios] | add' "$out.result" 2>/dev/null)
  if [[ -z $truth || $truth == null || $truth -lt 1 ]]; then
    misbehaved fio-trace "it wrote no result"
    return
  fi
  if ! jq -e . "$out.trace.json" >/dev/null 2>&1; then
    problems+=("the trace is not valid JSON")
  else
    local got
    got=$(jq -c '[.otherData | .requests, .unmatched, .late, .still_open, .superseded, .dropped_records]' "$out.trace.json")
    [[ $got == "[$truth,0,0,0,0,0]" ]] ||
      problems+=("[requests,unmatched,late,still_open,superseded,dropped] $got, want [$truth,0,0,0,0,0]")
    local slices
    slices=$(jq '[.traceEvents[] | select(.ph == "b" and (.name | test("^READ")))] | length' "$out.trace.json")
    [[ $slices == "$truth" ]] || problems+=("$slices READ slices, fio did $truth reads")
    jq -e --argjson pid "$noise" '[.traceEvents[] | select(.pid == $pid)] | length == 0' \
      "$out.trace.json" >/dev/null || problems+=("the neighbour is in the trace")
  fi
  if ((${#problems[@]})); then
    failed=$((failed + 1))
    printf 'FAIL %-10s %s\n' fio-trace "$(IFS=';'; echo "${problems[*]}")"
  else
    passed=$((passed + 1))
    printf 'ok   %-10s --trace: %s read slices, as fio counted, none late or lost\n' fio-trace "$truth"
  fi
}

# fio run from a copy whose name carries an OSC title sequence and BEL, on a file whose
# name carries ESC sequences, a backslash and a byte that is not UTF-8: the text report
# and stderr hold no raw control byte and name both escaped, the JSON is valid with the
# replacement said, and the read count is still fio's own.
check_fio_hostile() {
  local out=$work/fio-hostile problems=()
  local bin=$work/$'fio\e]0;pw\a\xff' data=$work/$'data\e[2J\e[31m\\\xff.dat'
  cp "$(command -v fio)" "$bin"
  "$uringscope" -f --files --json="$out.json" -- "$bin" --name=hostile --filename="$data" \
    --size=8M --rw=randread --bs=4k --ioengine=io_uring --iodepth=8 --number_ios=2000 \
    --output-format=json --output="$out.result" >"$out.txt" 2>"$out.err"
  rm -f "$bin" "$data"
  # fio's own JSON echoes the file name with its control bytes raw (invalid JSON): they
  # are dropped before jq reads fio's count.
  local truth
  truth=$(tr -d '\000-\037' <"$out.result" | jq '[.jobs[].read.total_ios] | add' 2>/dev/null)
  if [[ -z $truth || $truth == null || $truth -lt 1 ]]; then
    misbehaved fio-hostile "it wrote no result: $(head -c 200 "$out.err")"
    return
  fi
  local f
  for f in "$out.txt" "$out.err"; do
    LC_ALL=C grep -qaP '[\x00-\x09\x0b-\x1f\x7f\xff]' "$f" && problems+=("a raw control byte in $(basename "$f")")
  done
  grep -qF 'fio\x1b]0;pw\x07\xff' "$out.txt" || problems+=("the comm is not shown escaped")
  grep -qF 'data\x1b[2J\x1b[31m\\\xff.dat' "$out.txt" || problems+=("the file is not shown escaped")
  jq -e '.invalid_utf8_replaced >= 2' "$out.json" >/dev/null || problems+=("the JSON does not say what it replaced")
  local reads
  reads=$(jq '[.ops[] | select(.op | test("^READ")) | .completed] | add' "$out.json" 2>/dev/null)
  [[ $reads == "$truth" ]] || problems+=("reads completed $reads, fio did $truth")
  if ((${#problems[@]})); then
    failed=$((failed + 1))
    printf 'FAIL %-10s %s\n' fio-hostile "$(IFS=';'; echo "${problems[*]}")"
  else
    passed=$((passed + 1))
    printf 'ok   %-10s %s reads as fio counted; its escape-laden names shown escaped, JSON valid\n' fio-hostile "$truth"
  fi
}

# --- fio -----------------------------------------------------------------------------
if command -v fio >/dev/null; then
  traced fio fio --name=real --filename="$work/fio.dat" --size=32M --rw=randread --bs=4k \
    --ioengine=io_uring --iodepth=32 --iodepth_batch_submit=8 --number_ios=20000 \
    --output-format=json --output="$work/fio.result"
  truth=$(jq '[.jobs[].read.total_ios] | add' "$work/fio.result" 2>/dev/null)
  if [[ -z $truth || $truth == null || $truth -lt 1 ]]; then
    misbehaved fio "it wrote no result"
  else
    # fio lays the file out with plain writes first; only its reads go through io_uring.
    check fio "$work/fio.json" "$truth" \
      "$(batch_explained "$work/fio.strace"),$(reap_lag_explained "$work/fio.result")"
    echo "     fio        $(reap_lag_sides "$work/fio.json" "$work/fio.result")"
  fi
  # Two jobs (processes) with registered buffers and files, each its own buffers.
  TRACED_ARGS=--check traced fio-check fio --name=check --filename="$work/fio.dat" --size=32M \
    --rw=randread --bs=4k --ioengine=io_uring --fixedbufs --registerfiles --numjobs=2 \
    --iodepth=16 --number_ios=10000 --output-format=json --output="$work/fio-check.result"
  truth=$(jq '[.jobs[].read.total_ios] | add' "$work/fio-check.result" 2>/dev/null)
  if [[ -z $truth || $truth == null || $truth -lt 1 ]]; then
    misbehaved fio-check "it wrote no result"
  else
    check fio-check "$work/fio-check.json" "$truth" \
      "$(batch_explained "$work/fio-check.strace"),$(reap_lag_explained "$work/fio-check.result")"
    check_no_hazard fio-check "$work/fio-check.json" "$truth"
  fi
  check_fio_flame
  check_fio_trace
  check_fio_hostile
else
  skip fio "fio is not installed (Debian package fio)"
fi

# --- node ----------------------------------------------------------------------------
# 16 reads in flight, not 32: libuv 1.46 sends a read to its thread pool when its
# 64-entry SQPOLL ring looks full, and its check counts the SQEs the poller has taken but
# not yet released, so with 32 in flight and a loaded machine up to 5% of the reads
# bypassed io_uring (uringscope's count matched the ring's own SQ tail every time). 16
# keeps that count under 63. FS_BENCH_RINGS=1 makes the script print each ring's SQ tail
# from /proc/self/fdinfo, the kernel's own count of what the program wrote to it, so a
# read that went to the thread pool is named as the program's choice, not as a miss.
if command -v node >/dev/null; then
  reads=20000
  node "$root/docs/guides/fs-bench.js" prepare "$work/node" 1 16 >/dev/null
  UV_USE_IO_URING=1 FS_BENCH_RINGS=1 "$uringscope" --json="$work/node.json" -- node \
    "$root/docs/guides/fs-bench.js" randread "$work/node" $reads 16 >"$work/node.out" 2>&1
  # The ring the reads went to holds the most SQEs: open, stat, the reads, close.
  read_ring=$(grep -o 'fd=[0-9]* sq_tail=[0-9]*' "$work/node.out" | sort -t= -k3 -n | tail -1)
  ring_fd=$(sed 's/fd=\([0-9]*\).*/\1/' <<<"$read_ring")
  ring_tail=$(sed 's/.*sq_tail=//' <<<"$read_ring")
  if ! grep -q "^randread.*: $reads requests" "$work/node.out"; then
    failed=$((failed + 1))
    echo "FAIL node       the script did not report $reads reads: $(head -c 200 "$work/node.out")"
  elif jq -e '[.ops[] | select(.op | test("^READ"))] | length == 0' "$work/node.json" >/dev/null; then
    skip node "this node's libuv sends no file reads to io_uring ($(node -p process.versions.uv))"
  elif [[ -z $ring_tail ]]; then
    misbehaved node "no 'rings:' line with SQ tails: $(tail -c 200 "$work/node.out")"
  elif ((ring_tail < reads + 3)); then
    misbehaved node "libuv wrote $ring_tail SQEs to ring fd $ring_fd for $reads reads (+ open, stat, close): the rest went to its thread pool"
  elif ! jq -e --argjson fd "$ring_fd" --argjson tail "$ring_tail" \
    '[.rings[] | select(.fd == $fd) | .counters.submissions] == [$tail]' "$work/node.json" >/dev/null; then
    failed=$((failed + 1))
    echo "FAIL node       ring fd $ring_fd: SQ tail $ring_tail, uringscope $(jq -c --argjson fd "$ring_fd" '[.rings[] | select(.fd == $fd) | .counters.submissions]' "$work/node.json") submissions"
  else
    check node "$work/node.json" "$reads"
  fi
else
  skip node "node is not installed"
fi

if ((skipped)); then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
((failed == 0))
