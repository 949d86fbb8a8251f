# SPDX-License-Identifier: MIT
# Sourced by bench/scaling.sh: what starting and stopping uringscope costs as the box
# grows. Attach time: from starting it to its "attached" line, with K processes each
# holding R idle rings already on the box (the fd-table walk at attach visits every
# task's files). Report time: from SIGINT to the report written (the output's last
# growth) and to the exit, at N rings that each did requests in the window, for the
# text report (the 10 busiest rings drawn in full, the rest summed up), the text report
# with --rings all, and --json=FILE (the text report is made as well).
# Needs: procs.sh, quiet.sh, tracers.sh; $uringscope, $loadgen, $logdir, $out_prefix,
# $attach_trials, $report_trials.

# The (processes, rings each) added to the box: processes at one ring each, then
# rings in one process.
attach_points=(1:1 10:1 100:1 1000:1 1:16 1:128 1:1000)
report_rings=(1 10 100 1000)

# attach_ms ARGS...: milliseconds from starting `uringscope ARGS` to its attached line
# (each line is stamped as it arrives; the run itself is kept short by -d).
attach_ms() {
  local t0=$EPOCHREALTIME line ms=""
  while IFS= read -r line; do
    [[ $line == *"uringscope: attached"* ]] &&
      ms=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", (b - a) * 1000 }')
  done < <("$uringscope" "$@" -d 0.1 2>&1 >/dev/null)
  echo "${ms:-nan}"
}

# attach_point PROCS RINGS: the holders, then trials of -a (every process) and -p (the
# first holder).
attach_point() {
  local procs=$1 rings=$2 hp tag="hold-$1-$2" box_procs box_rings i mode ms
  "$loadgen" -P "$procs" -r "$rings" -q 4 hold >"$logdir/$tag.out" 2>"$logdir/$tag.err" &
  hp=$!
  bg_pids+=("$hp")
  wait_for "$logdir/$tag.err" '^READY' 600 "$hp" || die "holders did not start ($tag)"
  # Processes come and go while find walks /proc: its complaints are not failures here.
  box_procs=$({ find /proc -maxdepth 1 -name '[0-9]*' 2>/dev/null || true; } | wc -l)
  box_rings=$({ find /proc/[0-9]*/fd -lname 'anon_inode:\[io_uring\]' 2>/dev/null || true; } | wc -l)
  for mode in all pid; do
    for ((i = 0; i < attach_trials; i++)); do
      wait_quiet >/dev/null
      if [[ $mode == all ]]; then ms=$(attach_ms -a); else ms=$(attach_ms -p "$hp"); fi
      printf '%s,%s,%s,%s,%s,%s,%s\n' "$mode" "$procs" "$rings" "$box_procs" "$box_rings" \
        "$i" "$ms" >>"$out_prefix-attach.csv"
    done
  done
  stop "$hp" TERM 120 || true
  note "attach: $procs processes x $rings rings ($box_rings rings on the box): done"
}

attach_curve() {
  local p
  printf 'mode,processes,rings_each,box_processes,box_rings,trial,attach_ms\n' >"$out_prefix-attach.csv"
  for p in "${attach_points[@]}"; do attach_point "${p%%:*}" "${p##*:}"; done
}

# report_one RINGS FORMAT TRIAL TARGET: uringscope -p TARGET for a 1 s window of
# requests on RINGS rings, then SIGINT; the output file is watched until it exits.
report_one() {
  local rings=$1 format=$2 trial=$3 target=$4 tag="report-$1-$2-$3" us out args
  out=$logdir/$tag.out
  args=(-p "$target")
  case $format in
    json) args+=(--json="$out") ;;
    text-all) args+=(--rings all) ;;
  esac
  "$uringscope" "${args[@]}" >"$logdir/$tag.stdout" 2>"$logdir/$tag.err" &
  us=$!
  bg_pids+=("$us")
  [[ $format == json ]] || out=$logdir/$tag.stdout
  wait_for "$logdir/$tag.err" 'uringscope: attached' 60 "$us" || die "uringscope did not attach ($tag)"
  sleep 1
  local t0 size=0 last size_now
  t0=$EPOCHREALTIME
  last=$t0
  kill -INT "$us"
  while kill -0 "$us" 2>/dev/null; do
    size_now=$(stat -c %s "$out" 2>/dev/null || echo 0)
    if ((size_now != size)); then size=$size_now last=$EPOCHREALTIME; fi
    sleep 0.002
  done
  local t_exit=$EPOCHREALTIME
  stop "$us" "" 10 || die "uringscope failed ($tag): $(tail -1 "$logdir/$tag.err")"
  size_now=$(stat -c %s "$out" 2>/dev/null || echo 0)
  ((size_now == size)) || last=$t_exit
  awk -v r="$rings" -v f="$format" -v i="$trial" -v a="$t0" -v b="$last" -v c="$t_exit" -v s="$size_now" \
    'BEGIN { printf "%s,%s,%s,%.1f,%.1f,%d\n", r, f, i, (b - a) * 1000, (c - a) * 1000, s }' \
    >>"$out_prefix-report.csv"
}

report_curve() {
  local rings lg format i
  printf 'rings,format,trial,report_ms,exit_ms,report_bytes\n' >"$out_prefix-report.csv"
  for rings in "${report_rings[@]}"; do
    "$loadgen" -r "$rings" -q 4 -b 4 -t 100000 nop >/dev/null 2>"$logdir/report-$rings.loadgen.err" &
    lg=$!
    bg_pids+=("$lg")
    for ((i = 0; i < report_trials; i++)); do
      for format in text text-all json; do
        wait_quiet >/dev/null
        report_one "$rings" "$format" "$i" "$lg"
      done
    done
    stop "$lg" INT 30 || true
    note "report: $rings rings: done"
  done
}
