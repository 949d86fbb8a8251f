# SPDX-License-Identifier: MIT
# Sourced by the bench drivers: is the machine quiet enough to measure on? Other
# sessions' tracing BPF programs and busy CPUs make every request slower, so a run waits
# for them to go (up to $quiet_wait seconds) and counts the foreign programs it saw.
# Needs: procs.sh; $logdir (our-prog-ids is kept there), $quiet_wait; optionally
# $quiet_busy_pct and $foreign_wait.

# Tracing BPF programs loaded right now, by id. This machine is shared: other sessions'
# tests attach their own tracers to the same tracepoints (every io_uring request of ours
# then pays for their programs too: that alone makes NOPs 3x slower) and run fio.
tracing_prog_ids() {
  bpftool prog show 2>/dev/null | sed -nE 's/^([0-9]+): (tracing|tracepoint|raw_tracepoint|perf_event) .*/\1/p' || true
}

# Tracing programs loaded now that none of this script's tracers loaded. Ours linger
# for a while after their tracer exits (tracing programs are freed after an RCU tasks
# trace grace period), detached and costing nothing, hence the list of every id ours
# ever had.
our_ids=$logdir/our-prog-ids
: >"$our_ids"
foreign_prog_count() {
  local ids
  ids=$(tracing_prog_ids)
  [[ -n $ids ]] || { echo 0; return; }
  grep -vxFf <(sort -u "$our_ids"; echo x) <<<"$ids" | grep -c . || true
}

# Waits (up to $quiet_wait seconds) until no foreign tracing program is loaded and the
# machine is idle (under $quiet_busy_pct, default 10, percent of one CPU busy over
# 0.3 s); while foreign programs are loaded it waits up to $foreign_wait seconds
# (default: $quiet_wait), since a run beside them is dropped anyway. Prints the seconds
# waited.
wait_quiet() {
  local start b0 b1 busy elapsed
  start=$(now_ms)
  while :; do
    elapsed=$(($(now_ms) - start))
    if (($(foreign_prog_count) == 0)); then
      ((elapsed < quiet_wait * 1000)) || break
      b0=$(sys_busy_ns)
      sleep 0.3
      b1=$(sys_busy_ns)
      busy=$(((b1 - b0) / 3000000))  # percent of one CPU
      ((busy < ${quiet_busy_pct:-10})) && break
    else
      ((elapsed < ${foreign_wait:-$quiet_wait} * 1000)) || break
      sleep 0.5
    fi
  done
  echo $((($(now_ms) - start) / 1000))
}
