# shellcheck shell=bash disable=SC2154  # guest.sh sets results, build tools, the parsed --version
# Sourced by test/vmtest/guest.sh: the two suites (the kernel tier of the test suite and
# the fault scenarios) and the refusal check of an unsupported kernel. They use
# guest.sh's state (results, build tools, the parsed --version) and its note/fail.

# --- step 3: the kernel tier of the test suite ------------------------------------------

# kernel-third: one third of the same tier, the third chosen by the commit (the count of
# commits modulo 3), through googletest's sharding: every test runs there once in any
# three commits in a row, for a third of the tier's time. Left out when the whole tier
# runs in the same guest.
step_kernel_third() {
  if has_step kernel; then
    note "     not run: kernel-third (the whole kernel tier runs here)"
    return 0
  fi
  local commits
  if ! commits=$(git -C "$root" rev-list --count HEAD 2>/dev/null); then
    commits=0
    note "     kernel-third: no git history in the guest, so the first third"
  fi
  local third=$((commits % 3))
  banner "kernel tier, third $((third + 1)) of 3 (commit $commits)"
  echo "The other thirds: GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=0..2 $kernel_tests"
  GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$third step_kernel_tests "third $((third + 1)) of 3"
}

step_kernel_tests() {
  local part=${1:+ ($1)}
  banner "kernel tier: build/test/kernel_tests$part"
  ensure_features
  local list tests=() test why skipped=() t0 log=$results/kernel_tests.log
  if ! list=$("$kernel_tests" --gtest_list_tests 2>&1); then
    fail "kernel tests: cannot list tests: $(head -c 300 <<<"$list")"
    return
  fi
  local suite=
  while IFS= read -r line; do
    if [[ $line =~ ^([A-Za-z0-9_/]+)\.$ ]]; then suite=${BASH_REMATCH[1]}
    elif [[ $line =~ ^[[:space:]]+([A-Za-z0-9_/]+) ]]; then tests+=("$suite.${BASH_REMATCH[1]}")
    fi
  done <<<"$list"
  for name in $(awk '$1 == "test" { print $2 }' "$reqfile"); do
    [[ " ${tests[*]} " == *" $name "* ]] ||
      note "     stale: requirements.txt names test $name, which kernel_tests does not have"
  done
  local filter=
  for test in "${tests[@]}"; do
    # shellcheck disable=SC2046
    why=$(unmet $(needs_of test "$test"))
    if [[ -n $why ]]; then
      skipped+=("$test: needs $why")
      filter+=":$test"
    fi
  done
  local args=()
  if [[ -n $filter ]]; then
    args+=("--gtest_filter=-${filter#:}")
    echo "skipped (kernel requirement not met), excluded with ${args[0]}:"
    printf '  %s\n' "${skipped[@]}"
  fi
  t0=$(now)
  timeout -k 10 "$kernel_timeout" "$kernel_tests" "${args[@]}" \
    --gtest_output="xml:$results/kernel_tests.xml" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  local took passed failed_names
  took=$(secs "$t0" "$(now)")
  passed=$(grep -c '^\[       OK \]' "$log")
  failed_names=$(sed -n 's/^\[  FAILED  \] \([A-Za-z0-9_/]*\.[A-Za-z0-9_/]*\) (.*/\1/p' "$log" | sort -u)
  local nfailed
  nfailed=$(grep -c . <<<"$failed_names")
  if ((status == 124 || status == 137)); then
    fail "kernel tests$part: timed out after ${kernel_timeout}s ($passed passed before that)"
  elif ((status != 0 || nfailed > 0)); then
    fail "kernel tests$part: $passed passed, $nfailed failed, ${#skipped[@]} skipped (exit $status, $took s)"
    local name shown=0
    for name in $failed_names; do
      note "       FAILED $name"
      shown=$((shown + 1))
      ((shown > 5)) && continue
      # The failure messages: what gtest printed between RUN and FAILED for that test.
      while IFS= read -r l; do note "$l"; done < <(
        awk -v t="$name" '
          index($0, "[ RUN      ] " t) == 1 && length($0) == length(t) + 13 { on = 1; next }
          on && index($0, "[  FAILED  ] " t " (") == 1 { exit }
          on && NF' "$log" | grep -v '^\[' | head -8 | sed 's/^/         | /')
    done
    ((shown > 5)) && note "       (messages of the failures after the first 5: kernel_tests.log)"
  else
    note "ok   kernel tests$part: $passed passed, 0 failed, ${#skipped[@]} skipped ($took s)"
  fi
  local s
  for s in "${skipped[@]}"; do note "     skipped $s"; done
  return 0
}

# --- step 4: the fault scenarios ---------------------------------------------------------

step_faults() {
  banner "fault scenarios: test/faults/run.sh"
  ensure_features
  local runsh=$root/test/faults/run.sh scenarios=() run=() skipped=() name why t0
  local out=$results/effectiveness-$kernel.md log=$results/faults.log
  mapfile -t scenarios < <(sed -n 's/^score \([A-Za-z0-9_-]*\) .*/\1/p' "$runsh")
  if ((${#scenarios[@]} == 0)); then
    fail "faults: found no 'score NAME' lines in test/faults/run.sh"
    return
  fi
  for name in $(awk '$1 == "fault" { print $2 }' "$reqfile"); do
    [[ " ${scenarios[*]} " == *" $name "* ]] ||
      note "     stale: requirements.txt names scenario $name, which test/faults/run.sh does not have"
  done
  for name in "${scenarios[@]}"; do
    # shellcheck disable=SC2046
    why=$(unmet $(needs_of fault "$name"))
    if [[ -n $why ]]; then skipped+=("$name: needs $why"); else run+=("$name"); fi
  done
  if ((${#skipped[@]})); then
    echo "skipped (kernel requirement not met):"
    printf '  %s\n' "${skipped[@]}"
  fi
  if ((${#run[@]} == 0)); then
    note "ok   faults: nothing to run, ${#skipped[@]} skipped"
  else
    # All runnable: no names, so a scenario added to run.sh later runs too.
    local names=()
    ((${#skipped[@]})) && names=("${run[@]}")
    t0=$(now)
    timeout -k 10 "$faults_timeout" "$runsh" --uringscope "$uringscope" --inject "$inject" \
      --out "$out" "${names[@]}" 2>&1 | tee "$log"
    local status=${PIPESTATUS[0]} took
    took=$(secs "$t0" "$(now)")
    local tally passed failed
    tally=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
    passed=$(awk '{ print $1 }' <<<"$tally")
    failed=$(awk '{ print $3 }' <<<"$tally")
    if ((status == 124 || status == 137)); then
      fail "faults: timed out after ${faults_timeout}s"
    elif ((status != 0)) || [[ -z $tally || $failed != 0 ]]; then
      fail "faults: ${passed:-?} passed, ${failed:-?} failed, ${#skipped[@]} skipped (exit $status, $took s)"
      while IFS= read -r l; do note "$l"; done < <(grep '^FAIL ' "$log" | sed 's/^/       /')
    else
      note "ok   faults: $passed passed, 0 failed, ${#skipped[@]} skipped ($took s)"
    fi
    ((passed + failed == ${#run[@]})) 2>/dev/null ||
      fail "faults: run.sh scored $((passed + failed)) scenarios, ${#run[@]} were asked for"
  fi
  if ((${#skipped[@]})) && [[ -e $out ]]; then
    {
      echo
      echo "Skipped on \`$release\` (the kernel does not meet the scenario's needs, from"
      echo "\`test/vmtest/requirements.txt\`; not counted as passed):"
      echo
      printf -- '- %s\n' "${skipped[@]}"
    } >>"$out"
  fi
  local s
  for s in "${skipped[@]}"; do note "     skipped $s"; done
  return 0
}

# --- step 5: an unsupported kernel is refused ---------------------------------------------

# One way in (a command, -p, -a): uringscope must exit 1 with exactly the row's `refusal`
# line on stderr, and make no BPF attach (nor map: nothing of its object is loaded; the
# probe's fentry trial load is allowed), as strace sees it.
try_refusal() {  # label, uringscope args...
  local label=$1 status=0 err trace lines calls
  shift
  err=$results/refuse-$label.err trace=$results/refuse-$label.strace
  strace -f -qq -e trace=bpf,perf_event_open -o "$trace" \
    timeout -k 5 60 "$uringscope" "$@" >/dev/null 2>"$err" || status=$?
  lines=$(grep -c '' "$err" || true)
  calls=$(grep -cE 'perf_event_open|BPF_(LINK_CREATE|RAW_TRACEPOINT_OPEN|PROG_ATTACH|MAP_CREATE)' "$trace" || true)
  local bad=0
  if ((status != 1)); then fail "refuse ($label): uringscope $* exited $status, expected 1"; bad=1; fi
  if ((lines != 1)); then fail "refuse ($label): $lines lines on stderr, expected 1: $(head -c 300 "$err" | tr '\n' '|')"; bad=1
  elif [[ $(cat "$err") != "$refusal" ]]; then
    fail "refuse ($label): stderr is '$(cat "$err")'"
    note "       expected '$refusal'"
    bad=1
  fi
  if ((calls != 0)); then
    fail "refuse ($label): $calls BPF attach or map calls (strace: refuse-$label.strace)"; bad=1
  fi
  ((bad)) || note "ok   refuse ($label): uringscope $* exited 1, one line, nothing attached"
}

step_refuse() {
  banner "refuse: uringscope must decline $release in one line and attach nothing"
  if [[ $row_tier != unsupported ]]; then
    fail "refuse: [$kernel] is tier '${row_tier:-?}', not unsupported: there is nothing to refuse"
    return
  fi
  refusal=$(section | awk '$1 == "refusal" { $1 = ""; sub(/^[[:space:]]+/, ""); print; exit }')
  [[ -n $refusal ]] || { fail "refuse: [$kernel] has no 'refusal' line (what uringscope must print)"; return; }
  command -v strace >/dev/null || { fail "refuse: strace is missing (run.sh installs it)"; return; }
  local mark=$results/refuse-command-ran target t0
  t0=$(now)
  rm -f "$mark"
  sleep 120 &
  target=$!
  try_refusal command -- touch "$mark"
  try_refusal pid -p "$target" -d 1
  try_refusal all -a -d 1
  kill "$target" 2>/dev/null || true
  wait "$target" 2>/dev/null || true
  # uringscope starts the command only once its programs are attached.
  [[ -e $mark ]] && fail "refuse: the command ran although uringscope refused the kernel"
  note "     refuse: 3 ways in checked ($(secs "$t0" "$(now)") s): $refusal"
  return 0
}
