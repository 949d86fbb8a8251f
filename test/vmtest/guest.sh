#!/usr/bin/env bash
# The test run inside a test/vmtest guest (run.sh starts it; it runs as root in a chroot of
# the host's root, read-only, with a fresh ext4 /tmp). Also usable on any machine as root:
#
#   test/vmtest/guest.sh --kernel NAME --build DIR --results DIR [--steps LIST]
#
#   --kernel NAME  the [NAME] section of test/kernels.txt to hold `--version` to
#   --build DIR    the build tree (uringscope, test/kernel_tests, test/faults/inject)
#   --results DIR  writable dir for logs, version-NAME.txt, effectiveness-NAME.md and
#                  summary.txt
#   --steps LIST   comma-separated subset of version,load,kernel,faults (default: all)
#                  Env: VMTEST_KERNEL_TESTS_TIMEOUT, VMTEST_FAULTS_TIMEOUT (s, default 1200)
#   --no-summary   write the summary to RESULTS/summary.txt only (run.sh prints it)
#   --plan FILE    only print which tests and scenarios would be skipped on a kernel whose
#                  `uringscope --version` output is FILE (its `kernel` line stands for
#                  uname -r), and exit; needs --build for the test list, not --results
#
# Steps: (version) uname -r and every tier/feature line of `uringscope --version` must be
# what test/kernels.txt says; (load) `uringscope -v -- true` must load and attach, else
# the verifier's reason per rejected program is shown; (kernel) build/test/kernel_tests,
# minus the tests whose needs (test/vmtest/requirements.txt) the kernel does not meet;
# (faults) test/faults/run.sh, minus the scenarios whose needs are not met. Skipped tests are listed, never counted as
# passed. Prints a summary (also to RESULTS/summary.txt); exits 1 if anything failed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kernel=
build=$root/build
results=
steps=version,load,kernel,faults
print_summary=1
plan=
kernel_timeout=${VMTEST_KERNEL_TESTS_TIMEOUT:-1200}
faults_timeout=${VMTEST_FAULTS_TIMEOUT:-1200}
while (($#)); do
  case $1 in
    --kernel) kernel=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --no-summary) print_summary=0; shift ;;
    --plan) plan=$2; shift 2 ;;
    *) echo "guest.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [[ -z $plan ]]; then
  [[ -n $kernel && -n $results ]] || { echo "guest.sh: --kernel and --results are required" >&2; exit 2; }
  mkdir -p "$results" || exit 2
fi
matrix=$root/test/kernels.txt
reqfile=$here/requirements.txt
uringscope=$build/uringscope
kernel_tests=$build/test/kernel_tests
inject=$build/test/faults/inject
summary=()   # lines of the final summary
failures=0

note() { summary+=("$*"); }
fail() { summary+=("FAIL $*"); failures=$((failures + 1)); }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
has_step() { [[ ,$steps, == *,$1,* ]]; }
banner() { printf '\n=== %s ===\n' "$*"; }

# --- what the kernel is ----------------------------------------------------------------

# Lines of the [kernel] section of kernels.txt, without the key for `feature`.
section() {
  awk -v want="[$kernel]" '
    /^[[:space:]]*#/ || /^[[:space:]]*$/ { next }
    /^\[/ { on = ($1 == want); next }
    on' "$matrix"
}

declare -A feat_state=() feat_detail=()
tier=
release=$(uname -r)

parse_version() {  # version output file -> tier, feat_state, feat_detail
  local line name state detail
  tier=$(awk '$1 == "tier" { print $2; exit }' "$1")
  local in_features=0
  while IFS= read -r line; do
    if [[ $line == features* ]]; then in_features=1; continue; fi
    ((in_features)) || continue
    [[ $line =~ ^[[:space:]]+([a-z_]+)[[:space:]]+(on|off)[[:space:]]+(.*)$ ]] || continue
    name=${BASH_REMATCH[1]} state=${BASH_REMATCH[2]} detail=${BASH_REMATCH[3]}
    feat_state[$name]=$state
    feat_detail[$name]=$detail
  done <"$1"
}

version_ge() {  # A >= B, version strings
  [[ $(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1) == "$2" ]]
}

# The needs in `$@` that this kernel does not meet, space-separated (empty: all met).
unmet() {
  local need missing=() feature text
  for need in "$@"; do
    case $need in
      tier=*)
        [[ $tier == "${need#tier=}" ]] || missing+=("$need (tier is ${tier:-unknown})") ;;
      kernel\>=*)
        version_ge "${release%%-*}" "${need#kernel>=}" || missing+=("$need (uname -r is $release)") ;;
      *~*)
        feature=${need%%~*} text=${need#*~}
        if [[ ${feat_state[$feature]:-} != on ]]; then
          missing+=("$feature (off: ${feat_detail[$feature]:-not reported})")
        elif [[ ${feat_detail[$feature]} != *"$text"* ]]; then
          missing+=("$feature~$text (shape in use: ${feat_detail[$feature]})")
        fi ;;
      *)
        [[ ${feat_state[$need]:-} == on ]] ||
          missing+=("$need (off: ${feat_detail[$need]:-not reported})") ;;
    esac
  done
  local joined=
  for need in "${missing[@]}"; do joined+=${joined:+; }$need; done
  echo "$joined"
}

needs_of() {  # kind name -> its needs plus the default
  awk -v kind="$1" -v name="$2" '
    /^[[:space:]]*#/ { next }
    $1 == kind && $2 == name { for (i = 3; i <= NF; i++) printf "%s ", $i }' "$reqfile"
  echo "submit complete"
}

# --- step 1: the variants chosen --------------------------------------------------------

step_version() {
  banner "uringscope --version on $release (expected: [$kernel] of test/kernels.txt)"
  local out=$results/version-$kernel.txt t0
  t0=$(now)
  if ! "$uringscope" --version >"$out" 2>"$results/version-$kernel.err"; then
    cat "$out" "$results/version-$kernel.err"
    fail "version: uringscope --version exited non-zero: $(head -c 300 "$results/version-$kernel.err")"
    return
  fi
  cat "$out"
  parse_version "$out"
  local expected_release expected_tier mismatches=0 key name state detail
  expected_release=$(section | awk '$1 == "release" { print $2; exit }')
  expected_tier=$(section | awk '$1 == "tier" { print $2; exit }')
  if [[ -z $expected_tier ]]; then
    fail "version: no [$kernel] section with a tier in test/kernels.txt"
    return
  fi
  if [[ -n $expected_release && $release != "$expected_release" ]]; then
    fail "version: uname -r is $release, test/kernels.txt says $expected_release"
  fi
  if [[ $tier != "$expected_tier" ]]; then
    fail "version: tier is '$tier', expected '$expected_tier'"
    mismatches=$((mismatches + 1))
  fi
  declare -A seen
  while read -r key name state detail; do
    [[ $key == feature ]] || continue
    seen[$name]=1
    if [[ -z ${feat_state[$name]:-} ]]; then
      fail "version: feature $name missing from --version (expected $state: $detail)"
    elif [[ ${feat_state[$name]} != "$state" || ${feat_detail[$name]} != "$detail" ]]; then
      fail "version: $name is '${feat_state[$name]}  ${feat_detail[$name]}', expected '$state  $detail'"
    else
      continue
    fi
    mismatches=$((mismatches + 1))
  done < <(section)
  for name in "${!feat_state[@]}"; do
    if [[ -z ${seen[$name]:-} ]]; then
      fail "version: --version reports feature $name, which test/kernels.txt [$kernel] does not list"
      mismatches=$((mismatches + 1))
    fi
  done
  local on=() off=()
  for name in "${!feat_state[@]}"; do
    if [[ ${feat_state[$name]} == on ]]; then on+=("$name"); else off+=("$name"); fi
  done
  ((mismatches == 0)) &&
    note "ok   version: tier $tier, ${#seen[@]} features exactly as test/kernels.txt [$kernel] ($(secs "$t0" "$(now)") s)"
  note "     on:  $(printf '%s\n' "${on[@]}" | sort | tr '\n' ' ')"
  ((${#off[@]})) && note "     off: $(printf '%s\n' "${off[@]}" | sort | tr '\n' ' ')"
  return 0
}

# --- step 2: one run, to see the programs load -----------------------------------------

# Every test below starts uringscope; if the verifier refuses the object, they all fail
# for that one reason. Say it once, with the verifier's complaint per program.
step_load() {
  banner "load: uringscope -v -- true"
  local t0 out=$results/load.log
  t0=$(now)
  if "$uringscope" -v -- true >/dev/null 2>"$out"; then
    note "ok   load: every selected program loaded and attached ($(secs "$t0" "$(now)") s)"
    return
  fi
  cat "$out"
  fail "load: $(grep '^uringscope:' "$out" | tail -1)"
  # libbpf: "prog 'NAME': BPF program load failed", then the log; its last line before
  # "processed N insns" is the verifier's reason.
  while IFS= read -r l; do note "$l"; done < <(awk '
    /prog .*: BPF program load failed/ { match($0, /prog '\''[^'\'']*'\''/); prog = substr($0, RSTART + 6, RLENGTH - 7) }
    /^processed [0-9]+ insns/ && prog != "" { print "       " prog " rejected: " last; prog = "" }
    NF { last = $0 }' "$out")
  return 0
}

# Without a --version (step skipped or failed) nothing can be decided: everything runs.
ensure_features() {
  ((${#feat_state[@]})) && return
  local out=$results/version-$kernel.txt
  [[ -s $out ]] || "$uringscope" --version >"$out" 2>/dev/null
  parse_version "$out"
}

# --- step 3: the kernel tier of the test suite ------------------------------------------

step_kernel_tests() {
  banner "kernel tier: build/test/kernel_tests"
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
    fail "kernel tests: timed out after ${kernel_timeout}s ($passed passed before that)"
  elif ((status != 0 || nfailed > 0)); then
    fail "kernel tests: $passed passed, $nfailed failed, ${#skipped[@]} skipped (exit $status, $took s)"
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
    note "ok   kernel tests: $passed passed, 0 failed, ${#skipped[@]} skipped ($took s)"
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

# --- run --------------------------------------------------------------------------------

if [[ -n $plan ]]; then
  parse_version "$plan"
  release=$(awk '$1 == "kernel" { print $2; exit }' "$plan")
  echo "kernel $release, tier ${tier:-?}: would skip"
  mapfile -t tests < <("$kernel_tests" --gtest_list_tests | awk '/^[^ ]/ { s = $1; next } { print s $1 }')
  for t in "${tests[@]}"; do
    # shellcheck disable=SC2046
    why=$(unmet $(needs_of test "$t"))
    [[ -n $why ]] && echo "  test  $t: needs $why"
  done
  for f in $(sed -n 's/^score \([A-Za-z0-9_-]*\) .*/\1/p' "$root/test/faults/run.sh"); do
    # shellcheck disable=SC2046
    why=$(unmet $(needs_of fault "$f"))
    [[ -n $why ]] && echo "  fault $f: needs $why"
  done
  exit 0
fi

for tool in "$uringscope" "$kernel_tests" "$inject"; do
  [[ -x $tool ]] || { fail "missing $tool (build it first)"; }
done
if ((failures == 0)); then
  # A step that dies half-way (a shell error) must not read as a pass.
  for step in version load kernel faults; do
    has_step $step || continue
    fn=step_$step
    [[ $step == kernel ]] && fn=step_kernel_tests
    $fn || fail "$step: the step itself failed (status $?): see the log above"
  done
fi
dmesg >"$results/dmesg.txt" 2>/dev/null
oops='BUG: |WARNING: CPU: |Oops: |general protection fault|Kernel panic|kernel BUG at'
if grep -qE "$oops" "$results/dmesg.txt"; then
  fail "kernel log has a BUG/WARNING/Oops (see dmesg.txt):"
  while IFS= read -r l; do note "$l"; done < <(
    grep -m5 -E "$oops" "$results/dmesg.txt" | sed 's/^/       /')
fi

{
  echo "guest summary, kernel $release ([$kernel]):"
  printf '  %s\n' "${summary[@]}"
  if ((failures)); then echo "  => $failures check(s) failed"; else echo "  => all checks passed"; fi
} >"$results/summary.txt"
((print_summary)) && cat "$results/summary.txt"
((failures == 0))
