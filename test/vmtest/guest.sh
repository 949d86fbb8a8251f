#!/usr/bin/env bash
# The test run inside a test/vmtest guest (run.sh starts it; it runs as root in a chroot of
# the host's root, read-only, with a fresh ext4 /tmp). Also usable on any machine as root:
#
#   test/vmtest/guest.sh --kernel NAME --build DIR --results DIR [--steps LIST]
#
#   --kernel NAME  the [NAME] section of the matrix to hold `--version` to
#   --matrix FILE  the matrix (default test/kernels.txt; run.sh passes its copy)
#   --build DIR    the build tree (uringscope, test/kernel_tests, test/faults/inject)
#   --results DIR  writable dir for logs, version-NAME.txt, effectiveness-NAME.md and
#                  summary.txt
#   --steps LIST   comma-separated subset of version,load,kernel,kernel-third,faults,refuse
#                  (default: the row's `steps`, else version,load,kernel,faults)
#                  Env: VMTEST_KERNEL_TESTS_TIMEOUT, VMTEST_FAULTS_TIMEOUT (s, default 1200)
#   --no-summary   write the summary to RESULTS/summary.txt only (run.sh prints it)
#   --plan FILE    only print which tests and scenarios would be skipped on a kernel whose
#                  `uringscope --version` output is FILE (its `kernel` line stands for
#                  uname -r), and exit; needs --build for the test list, not --results
#
# Steps: (version) uname -r and every tier/feature line of `uringscope --version` must be
# what the matrix says; (load) `uringscope -v -- true` must load and attach, else the
# verifier's reason per rejected program is shown; (kernel) build/test/kernel_tests,
# minus the tests whose needs (test/vmtest/requirements.txt) the kernel does not meet;
# (kernel-third) a third of that, the third chosen by the commit, for CI's newest row;
# (faults) test/faults/run.sh, minus the scenarios whose needs are not met; (refuse, on
# a row of tier unsupported only) a command, -p and -a must each be refused with the
# row's one `refusal` line, exit 1, the command never started and no BPF attach made.
# Load, kernel and faults cannot run on an unsupported row: asking for them fails.
# Skipped tests are listed, never counted as passed. Prints a summary (also to
# RESULTS/summary.txt); exits 1 if anything failed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kernel=
build=$root/build
results=
steps=
matrix=$root/test/kernels.txt
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
    --matrix) matrix=$2; shift 2 ;;
    --no-summary) print_summary=0; shift ;;
    --plan) plan=$2; shift 2 ;;
    *) echo "guest.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [[ -z $plan ]]; then
  [[ -n $kernel && -n $results ]] || { echo "guest.sh: --kernel and --results are required" >&2; exit 2; }
  mkdir -p "$results" || exit 2
fi
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
# The default mode's programs, then --trace's and --check's with them (their own stage
# flush program, ring buffers and batch sizes meet this kernel's verifier here too).
step_load() {
  banner "load: uringscope -v -- true, and with --trace --check"
  local t0 out=$results/load.log
  t0=$(now)
  if "$uringscope" -v -- true >/dev/null 2>"$out" &&
    "$uringscope" -v --trace /tmp/load-trace.json --check -- true >/dev/null 2>>"$out"; then
    note "ok   load: every selected program loaded and attached, with and without --trace --check ($(secs "$t0" "$(now)") s)"
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

# shellcheck source=SCRIPTDIR/guest-steps.sh
source "$here/guest-steps.sh"

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

row_tier=$(section | awk '$1 == "tier" { print $2; exit }')
row_steps=$(section | awk '$1 == "steps" { print $2; exit }')
row_steps=${row_steps:-version,load,kernel,faults}
steps=${steps:-$row_steps}
needed=("$uringscope")
{ has_step kernel || has_step kernel-third; } && needed+=("$kernel_tests")
has_step faults && needed+=("$inject")
for tool in "${needed[@]}"; do
  [[ -x $tool ]] || { fail "missing $tool (build it first)"; }
done
if [[ $row_tier == unsupported ]]; then
  # uringscope refuses to run here, so these steps cannot run: said, never skipped quietly.
  for step in load kernel kernel-third faults; do
    has_step $step && fail "$step: cannot run on [$kernel], tier unsupported (uringscope refuses to run; the refuse step checks that)"
  done
  note "     not run on tier unsupported: load, kernel, faults (uringscope refuses to run there)"
fi
if ((failures == 0)); then
  # A step that dies half-way (a shell error) must not read as a pass.
  for step in version load kernel kernel-third faults refuse; do
    if ! has_step $step; then
      [[ ,$row_steps, == *,$step,* ]] && note "     not run: $step (not in --steps $steps)"
      continue
    fi
    fn=step_${step//-/_}
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
