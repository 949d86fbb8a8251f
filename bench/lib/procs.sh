# SPDX-License-Identifier: MIT
# Sourced by the bench drivers (run.sh, scaling.sh): starting, waiting for and stopping
# the processes a driver starts, and what they cost. Only what the driver started is
# ever signalled: every background pid goes into bg_pids, and kill_started ends those.
# Needs: note() (a one-line message on stderr, prefixed with the driver's name).

bg_pids=()

# Ends whatever this driver started and still runs (for its EXIT trap).
kill_started() {
  local pid
  for pid in "${bg_pids[@]}"; do
    kill -0 "$pid" 2>/dev/null && kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${bg_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}

forget_pid() {
  local keep=() pid
  for pid in "${bg_pids[@]}"; do [[ $pid == "$1" ]] || keep+=("$pid"); done
  bg_pids=("${keep[@]}")
}

now_ms() { local t=$EPOCHREALTIME; echo $((10#${t/[.,]/} / 1000)); }

# wait_for FILE REGEX TIMEOUT_S PID: until FILE has a line matching REGEX; fails when PID
# exits first or the time runs out.
wait_for() {
  local file=$1 regex=$2 deadline=$(($(now_ms) + $3 * 1000)) pid=$4
  until grep -Eq "$regex" "$file" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      grep -Eq "$regex" "$file" 2>/dev/null && return 0
      note "process $pid exited before '$regex' appeared in $file:"; tail -5 "$file" >&2
      return 1
    fi
    (($(now_ms) < deadline)) || { note "timed out waiting for '$regex' in $file"; return 1; }
    sleep 0.005
  done
}

# stop PID SIGNAL TIMEOUT_S: signal (unless empty), wait for the exit, KILL past the timeout.
stop() {
  local pid=$1 sig=$2 deadline=$(($(now_ms) + $3 * 1000))
  [[ -n $sig ]] && kill "-$sig" "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null && (($(now_ms) < deadline)); do sleep 0.02; done
  if kill -0 "$pid" 2>/dev/null; then
    note "pid $pid did not exit; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  local rc=0
  wait "$pid" 2>/dev/null || rc=$?
  forget_pid "$pid"
  return "$rc"
}

# Busy CPU time of the whole machine in ns (user+nice+system+irq+softirq; steal is the
# hypervisor's). 10 ms resolution: used only as a cross-check of loadgen's own CPU time.
sys_busy_ns() {
  local _cpu user nice system _idle _iowait irq softirq _rest
  read -r _cpu user nice system _idle _iowait irq softirq _rest </proc/stat
  echo $(((user + nice + system + irq + softirq) * 1000000000 / $(getconf CLK_TCK)))
}

# CPU time of a process (all its threads) in ns, 0 when it is gone.
proc_cpu_ns() {
  local f
  [[ -r /proc/$1/stat ]] || { echo 0; return; }
  f=$(sed -E 's/^.*\) //' "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  read -r -a f <<<"$f"
  # utime and stime are fields 14 and 15 of stat, 12 and 13 after "pid (comm) "
  echo $(((f[11] + f[12]) * 1000000000 / $(getconf CLK_TCK)))
}
