#!/usr/bin/env bash
# The newest-kernel canary: asks apt (the harness's private configuration per suite,
# test/vmtest/kernel.sh) for the newest kernel image in Debian unstable and experimental,
# and runs the matrix steps on it under qemu, whether or not test/kernels.txt has a row
# for it. A kernel without a row is held to the newest row's `--version` lines: every
# difference is a finding of the canary (a re-prototyped tracepoint, a new feature
# state), to be turned into a row of its own and, where a shape changed, a probe variant.
#
#   test/vmtest/canary.sh [--suite sid|experimental|both] [--list] [OPTIONS...]
#
#   --suite S   where to look (default both: the newer of the two suites' newest)
#   --list      only say which kernel that is and which row covers it; boot nothing
#   --matrix F  the matrix to look rows up in (default test/kernels.txt)
#   OPTIONS     passed to test/vmtest/run.sh (--build DIR, --steps LIST, --results DIR,
#               --timeout, --accel)
#
# Exit status: 0 when every step passed and `--version` is what the compared row says;
# 4 when every step passed but `--version` differs from the newest row (the findings are
# listed, with the section to add to test/kernels.txt); 1 when a step failed; 2 for a
# usage or setup error; 3 when the guest did not finish.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
matrix=$root/test/kernels.txt
cache=${URINGSCOPE_VMTEST_CACHE:-/var/cache/uringscope-vmtest}
suites=(sid experimental)
list_only=0
results=
pass=()

die() { echo "canary: $*" >&2; exit 2; }
log() { printf 'canary: %s\n' "$*"; }

while (($#)); do
  case $1 in
    --suite)
      case $2 in both) suites=(sid experimental) ;; sid|experimental) suites=("$2") ;; *) die "--suite sid, experimental or both" ;; esac
      shift 2 ;;
    --list) list_only=1; shift ;;
    --matrix) matrix=$(realpath "$2") || die "no matrix $2"; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --build|--steps|--timeout|--accel) pass+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2 ;;
    *) die "unknown argument $1" ;;
  esac
done
[[ $(id -u) -eq 0 ]] || die "needs root (apt-get, and the guest loads BPF as root)"
# shellcheck source=SCRIPTDIR/kernel.sh
source "$here/kernel.sh"
mkdir -p "$cache"

# The newest amd64 kernel image of a suite, as "PACKAGE VERSION" (the generic flavour:
# cloud-amd64 has no 9p, rt is another scheduler).
newest_in() {  # suite
  local name ver best='' best_ver=''
  while read -r name; do
    while read -r ver; do
      if [[ -z $best_ver ]] || dpkg --compare-versions "$ver" gt "$best_ver"; then
        best=$name best_ver=$ver
      fi
    done < <(apt_suite "$1" apt-cache madison "$name" 2>/dev/null | awk -F' [|] ' '{ print $2 }' | tr -d ' ')
  done < <(apt_suite "$1" apt-cache search --names-only '^linux-image-[0-9].*-amd64$' 2>/dev/null |
    awk '{ print $1 }' | grep -vE -- '-(cloud|rt)-amd64$')
  [[ -n $best ]] && echo "$best $best_ver"
}

t0=$(date +%s)
pkg='' ver='' suite=''
for s in "${suites[@]}"; do
  apt_suite_update "$s"
  read -r p v <<<"$(newest_in "$s")" || true
  [[ -n ${p:-} ]] || { log "$s offers no linux-image-*-amd64"; continue; }
  log "newest in $s: $p $v"
  if [[ -z $ver ]] || dpkg --compare-versions "$v" gt "$ver"; then pkg=$p ver=$v suite=$s; fi
done
[[ -n $pkg ]] || die "apt offers no kernel image in ${suites[*]}"

sections() { grep -o '^\[[^]]*\]' "$matrix" | tr -d '[]'; }
field_of() {  # section key
  awk -v want="[$1]" -v key="$2" '/^\[/ { on = ($1 == want); next } on && $1 == key { $1 = ""; sub(/^ +/, ""); print; exit }' "$matrix"
}
# The row whose package is exactly this one, if any; else the newest booted row.
row=
with_features=()
for s in $(sections); do
  if [[ $(field_of "$s" package) == "$pkg $ver "* ]]; then row=$s; fi
  # Booted amd64 rows only: the host's row carries what its sandbox refuses (fentry), an
  # arm64 row another architecture's syscall entry (the canary's kernel is amd64).
  if [[ -n $(field_of "$s" feature) && $(field_of "$s" boot) == vmtest &&
        $(field_of "$s" arch) == ?(amd64) ]]; then with_features+=("$s"); fi
done
newest_row=$(printf '%s\n' "${with_features[@]}" | sort -V | tail -1)
if [[ -n $row ]]; then log "$pkg $ver ($suite) has its row: [$row]"
else log "$pkg $ver ($suite) has no row in test/kernels.txt: held to the newest row, [$newest_row]"; fi
((list_only)) && exit 0

results=${results:-$(mktemp -d /tmp/uringscope-canary.XXXXXX)}
mkdir -p "$results"
kernel=$row
canary_matrix=$matrix
if [[ -z $row ]]; then
  kernel=canary
  canary_matrix=$results/matrix-canary.txt
  {
    cat "$matrix"
    printf '\n[canary]\nboot     vmtest\npackage  %s %s %s\n' "$pkg" "$ver" "$suite"
    echo "note     written by test/vmtest/canary.sh: the features of [$newest_row]"
    awk -v want="[$newest_row]" '/^\[/ { on = ($1 == want); next } on && ($1 == "tier" || $1 == "feature")' "$matrix"
  } >"$canary_matrix"
fi
status=0
"$here/run.sh" --matrix "$canary_matrix" --results "$results" "${pass[@]}" "$kernel" || status=$?

echo
echo "canary: $pkg $ver ($suite), compared with [${row:-$newest_row}], $(($(date +%s) - t0)) s"
summary=$results/summary.txt
findings=$(grep -c '^  FAIL version:' "$summary" 2>/dev/null || true)
others=$(grep '^  FAIL ' "$summary" 2>/dev/null | grep -vc '^  FAIL version:' || true)
if ((status == 1 && findings > 0 && others == 0)); then
  echo "  findings: its --version differs from [${row:-$newest_row}] (above); as a row of its own:"
  echo
  # 7.3~rc7-1~exp1 -> [7.3-rc], 7.2.13-1 -> [7.2]
  echo "[$(sed -E 's/^([0-9]+\.[0-9]+)[^~]*~rc.*/\1-rc/; t; s/^([0-9]+\.[0-9]+).*/\1/' <<<"$ver")]"
  printf 'boot     vmtest\npackage  %s %s %s\n' "$pkg" "$ver" "$suite"
  awk '$1 == "kernel" { print "release  " $2 } $1 == "tier" { print "tier     " $2 }
       /^features/ { on = 1; next } /^[a-z]/ { on = 0 }
       on && NF >= 2 { name = $1; state = $2; $1 = ""; $2 = ""; sub(/^ +/, ""); printf "feature  %-12s %-4s %s\n", name, state, $0 }' \
    "$results/version-$kernel.txt"
  exit 4
fi
exit "$status"
