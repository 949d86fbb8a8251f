#!/usr/bin/env bash
# Boots one kernel of the test matrix (test/kernels.txt) under qemu and runs the
# kernel-dependent tests inside it: the `uringscope --version` variants against the
# matrix, the kernel tier of the test suite, and the fault scenarios; on a kernel below
# the floor (tier unsupported), the refusal. As root.
#
#   test/vmtest/run.sh [OPTIONS] KERNEL [-- COMMAND [ARGS]]
#
#   KERNEL                a [section] of the matrix with `boot vmtest`: 5.10, 6.1, 6.12,
#                         7.2, 7.3-rc, 6.12-arm64 (test/kernels.txt; docs/kernels.md)
#   --build DIR           build tree to test (default: build/ of this checkout, or
#                         build-arm64/ for an arm64 row); it must have uringscope,
#                         test/kernel_tests and test/faults/inject, built for the row's
#                         architecture (an arm64 row: packaging/build.sh --arch arm64)
#   --results DIR         where logs and reports go (default: a new /tmp/uringscope-vmtest-*)
#   --steps LIST          a subset of the row's `steps` (default: all of them):
#                         version,load,kernel,faults on a supported kernel (kernel-third:
#                         a third of the kernel tier, chosen by the commit), version,refuse
#                         on an unsupported one; a step the row does not have is an error
#   --matrix FILE         the matrix to read KERNEL from (default test/kernels.txt; the
#                         canary passes a row of its own)
#   --timeout SECONDS     kill the guest after this long (default 2400; 7200 for arm64,
#                         whose suites then get 5400 s each instead of guest.sh's 1200)
#   --accel auto|tcg|kvm  default auto: KVM only if cpuinfo has vmx/svm and a trial boot
#                         under KVM works, else TCG (single-threaded, -cpu max:
#                         docs/kernels.md says why; VMTEST_TCG_THREAD=multi to override)
#   --prepare             only install and cache what a run needs (downloads), then exit
#   -- COMMAND            run COMMAND in the guest instead of the tests (bash, as root, in
#                         the host root; the results dir is $VMTEST_RESULTS there)
#
# The row's `package NAME VERSION SUITE` is fetched with `apt-get download` through an
# apt configuration of the harness's own per suite (test/vmtest/kernel.sh): the host's
# apt lists, cache and installed packages never change, whatever the suite. From 7.x
# Debian splits a kernel into linux-image (a metapackage), linux-binary, linux-modules
# and linux-base: all are fetched. The initramfs modules are resolved by kmod from the
# package's own tree (test/vmtest/initramfs.sh).
#
# A row's `arch` (default amd64) picks the emulator: qemu-system-x86_64, or for arm64
# qemu-system-aarch64 -M virt -cpu max under TCG with the package's Image booted as is.
#
# In the guest, test/vmtest/guest.sh runs as root in a chroot of this machine's root
# (shared read-only over 9p; for an arm64 row, a root of Debian's arm64 packages built
# by test/vmtest/rootfs.sh, with the checkout and the build tree bound into it), with an
# ext4 /tmp on a fresh virtual disk; tests and
# scenarios whose kernel needs (test/vmtest/requirements.txt) are not met are skipped and
# listed. Its output comes back live over virtio serial ports.
#
# Environment: URINGSCOPE_VMTEST_CACHE (default /var/cache/uringscope-vmtest) holds the
# private apt state, the unpacked kernel packages, the extracted vmlinux and the
# initramfs, so that only the first run downloads anything. VMTEST_MEM (MiB, default
# 2048), VMTEST_SMP (default: all host CPUs), VMTEST_TMP_MB (size of the guest's /tmp,
# default 1024), VMTEST_APPEND (extra kernel parameters, e.g. loglevel=7 to see the boot
# on the console log), VMTEST_MONITOR (a path: the QEMU monitor listens there as a unix
# socket, so that a hung guest's registers can be read with `info registers`; add
# nokaslr to VMTEST_APPEND to map RIP through the package's System.map),
# VMTEST_DEBIAN_MIRROR and VMTEST_DEBIAN_SECURITY_MIRROR (default deb.debian.org).
#
# Exit status: 0 when everything in the guest passed, 1 when something failed (the
# summary says what), 2 for a usage or setup error, 3 when the guest did not finish
# (timeout, kernel panic): the tail of its console is shown.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
matrix=$root/test/kernels.txt
cache=${URINGSCOPE_VMTEST_CACHE:-/var/cache/uringscope-vmtest}
build=
results=
steps=
timeout_s=
accel=auto
prepare_only=0
kernel=
command=()
mem=${VMTEST_MEM:-2048}
smp=${VMTEST_SMP:-$(nproc)}

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }
die() { echo "vmtest: $*" >&2; exit 2; }
log() { printf 'vmtest: %s\n' "$*"; }

while (($#)); do
  case $1 in
    --build) build=$(cd "$2" && pwd) || die "no build dir $2"; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --matrix) matrix=$(realpath "$2") || die "no matrix $2"; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --accel) accel=$2; shift 2 ;;
    --prepare) prepare_only=1; shift ;;
    -h|--help) usage ;;
    --) shift; command=("$@"); break ;;
    -*) die "unknown option $1" ;;
    *) [[ -z $kernel ]] || die "one KERNEL at a time"; kernel=$1; shift ;;
  esac
done
[[ -n $kernel ]] || usage
[[ $accel == auto || $accel == tcg || $accel == kvm ]] || die "--accel auto, tcg or kvm"
[[ $(id -u) -eq 0 ]] || die "needs root (apt-get, and the guest loads BPF as root)"
# shellcheck source=SCRIPTDIR/kernel.sh
source "$here/kernel.sh"
# shellcheck source=SCRIPTDIR/initramfs.sh
source "$here/initramfs.sh"
# shellcheck source=SCRIPTDIR/rootfs.sh
source "$here/rootfs.sh"

t_start=$(date +%s.%N)
phase_start=$t_start
phases=()
phase() {  # name: close the current phase
  local now
  now=$(date +%s.%N)
  phases+=("$(printf '%-22s %6.1f s' "$1" "$(awk -v a="$phase_start" -v b="$now" 'BEGIN { print b - a }')")")
  phase_start=$now
}

# --- the matrix row ---------------------------------------------------------------------

field() {  # key -> value(s) of the [kernel] section's first such line
  awk -v want="[$kernel]" -v key="$1" '
    /^[[:space:]]*#/ || /^[[:space:]]*$/ { next }
    /^\[/ { on = ($1 == want); next }
    on && $1 == key { $1 = ""; sub(/^[[:space:]]+/, ""); print; exit }' "$matrix"
}
boot=$(field boot)
[[ -n $boot ]] || die "no [$kernel] section in ${matrix#"$root"/} (known: $(grep -o '^\[[^]]*\]' "$matrix" | tr -d '[]' | tr '\n' ' '))"
[[ $boot == vmtest ]] || die "[$kernel] is '$boot' in ${matrix#"$root"/}, not a kernel this script boots"
read -r pkg pkg_version pkg_suite _ <<<"$(field package)"
[[ -n $pkg && -n $pkg_version && -n $pkg_suite ]] ||
  die "[$kernel] in ${matrix#"$root"/} has no 'package NAME VERSION SUITE'"
release=$(field release)
row_arch=$(field arch)
row_arch=${row_arch:-amd64}
case $row_arch in
  amd64) qemu_pkg=qemu-system-x86 elf_machine='X86-64' ;;
  arm64) qemu_pkg=qemu-system-arm elf_machine='AArch64' ;;
  *) die "[$kernel] has arch '$row_arch': amd64 or arm64" ;;
esac
# kernel.sh's private apt configurations and rootfs.sh's root are per architecture.
kernel_arch=$row_arch
if [[ -z $build ]]; then
  if [[ $row_arch == amd64 ]]; then build=$root/build; else build=$root/build-$row_arch; fi
fi
# An arm64 guest is emulated instruction by instruction (TCG), several times slower
# than an x86-64 one: longer limits (docs/kernels.md, "arm64").
if [[ $row_arch == amd64 ]]; then
  timeout_s=${timeout_s:-2400}
else
  timeout_s=${timeout_s:-7200}
  export VMTEST_FAULTS_TIMEOUT=${VMTEST_FAULTS_TIMEOUT:-5400}
  export VMTEST_KERNEL_TESTS_TIMEOUT=${VMTEST_KERNEL_TESTS_TIMEOUT:-5400}
fi
row_tier=$(field tier)
row_steps=$(field steps)
row_steps=${row_steps:-version,load,kernel,faults}
steps=${steps:-$row_steps}
# A step the row does not list cannot run there (the kernel, fault and load steps on an
# unsupported kernel, where uringscope refuses to run): refused here, never skipped.
for step in ${steps//,/ }; do
  case $step in version|load|kernel|kernel-third|faults|refuse) ;; *) die "unknown step '$step' (version, load, kernel, kernel-third, faults, refuse)" ;; esac
  [[ ,$row_steps, == *,$step,* ]] ||
    die "step '$step' is not one of [$kernel]'s steps ($row_steps; tier ${row_tier:-?}): see its row in ${matrix#"$root"/}"
done

# --- host packages ----------------------------------------------------------------------

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9   # one setup at a time: apt and the cache are shared between runs

apt_install() {  # packages missing from the host, from the host's own suites
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  log "apt-get install ${missing[*]}"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >"$cache/apt.log" 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >>"$cache/apt.log" 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >>"$cache/apt.log" 2>&1 || { tail -20 "$cache/apt.log" >&2; die "apt-get install failed"; }
  fi
}
# qemu for the row's architecture, a static busybox for the initramfs (an arm64 row takes
# the arm64 one from its guest root), the decompressors for the kernel image and its
# modules, cpio to pack the initramfs, kmod (depmod, modprobe) to resolve the modules,
# the archive keyring for the private apt sources; jq and strace are what the faults and
# refuse steps need in an amd64 guest (which runs the host's own userland).
apt_install "$qemu_pkg" busybox-static xz-utils zstd cpio kmod debian-archive-keyring \
  jq strace binutils e2fsprogs
phase "host packages"

# --- the kernel ---------------------------------------------------------------------------

kdir=$cache/${pkg}_$pkg_version
kroot=$kdir/root
[[ -e $kdir/unpacked ]] || kernel_fetch "$pkg" "$pkg_version" "$pkg_suite" "$kdir"
kernel_locate "$kroot"
[[ -z $release || $release == "$kver" ]] ||
  die "$pkg holds kernel $kver but test/kernels.txt [$kernel] says release $release"
if [[ $row_arch == amd64 ]]; then
  kernel_extract_vmlinux "$kdir" "$vmlinuz"
  if [[ -e $kdir/vmlinux ]]; then boot_image=$kdir/vmlinux boot_kind="vmlinux (PVH)"
  else boot_image=$vmlinuz boot_kind="bzImage"; fi
else
  # arm64's vmlinuz is the kernel's Image, which qemu -M virt boots directly.
  boot_image=$vmlinuz boot_kind="Image"
fi
phase "kernel package"

busybox=/bin/busybox
guest_root=
if [[ $row_arch != amd64 ]]; then
  rootfs_build "$rootfs_suite"
  busybox=$guest_root/bin/busybox
  phase "guest root"
fi
[[ $(readelf -l "$busybox" 2>/dev/null) == *INTERP* ]] && die "$busybox is not static (busybox-static)"
initramfs_build "$kdir" "$kroot" "$kver" "$busybox" "$here/init"
phase "initramfs"

if ((prepare_only)); then
  log "cached under $kdir: $boot_kind and ${initramfs##*/}"
  printf '  %s\n' "${phases[@]}"
  exit 0
fi

# --- the guest ----------------------------------------------------------------------------

needed=(uringscope)
[[ ,$steps, == *,kernel,* ]] && needed+=(test/kernel_tests)
[[ ,$steps, == *,faults,* ]] && needed+=(test/faults/inject)
for tool in "${needed[@]}"; do
  [[ -x $build/$tool || ${#command[@]} -gt 0 ]] || die "$build/$tool is not built (packaging/build.sh, or --build DIR)"
  # An x86-64 uringscope cannot run in an arm64 guest, nor the reverse: said here, not
  # as a guest's 'Exec format error' on every test.
  [[ ! -x $build/$tool ]] || readelf -h "$build/$tool" 2>/dev/null | grep -q "Machine:.*$elf_machine" ||
    die "$build/$tool is not built for $row_arch ([$kernel]): $([[ $row_arch == amd64 ]] && echo 'packaging/build.sh' || echo "packaging/build.sh --arch $row_arch"), or --build DIR"
done
if [[ -n $results && $(realpath -m "$results")/ == "$root"/* ]]; then
  die "--results must be outside the checkout (the guest sees the checkout read-only)"
fi
if [[ -z $results ]]; then
  results=$(mktemp -d "/tmp/uringscope-vmtest-$kernel.XXXXXX")
else
  mkdir -p "$results"
  results=$(cd "$results" && pwd)
  rm -f "$results"/{status,guest.out,guest.err,console.log,summary.txt}
fi
chmod 755 "$results"
# The guest reads the row from the results dir: the matrix given may live where the guest
# cannot see it (a canary's under /tmp), and the results keep what was compared.
cp "$matrix" "$results/matrix.txt"
guest_scratch=/tmp/vmtest-results
# The guest gets fresh /tmp and /run: a build tree there, and the source tree it was
# built from (the tests read files of it, e.g. docs/json.schema.json), are bound back in.
keep=()
source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
for path in "$root" $source_dir "$build"; do
  # The host root has them all but what /tmp and /run hide; a guest root has none.
  if [[ -z $guest_root ]]; then
    case $path/ in /tmp/*|/run/*) ;; *) continue ;; esac
  fi
  covered=0
  for k in "${keep[@]}"; do [[ $path/ == "$k"/* ]] && covered=1; done
  ((covered)) || keep+=("$path")
done
{
  echo "GUEST_SCRATCH=$guest_scratch"
  echo "KEEP_PATHS='${keep[*]}'"
} >"$results/guest.env"
if [[ -n $guest_root ]]; then
  rootfs_mount_points "${keep[@]}"
  echo "GUEST_ROOT=1" >>"$results/guest.env"
fi
{
  echo "export VMTEST_RESULTS=$guest_scratch"
  # The guest starts with an empty environment (init runs cmd.sh under env -i): the
  # suites' timeouts (guest.sh) are passed on when set here.
  for v in VMTEST_KERNEL_TESTS_TIMEOUT VMTEST_FAULTS_TIMEOUT; do
    if [[ -n ${!v:-} ]]; then echo "export $v=$(printf '%q' "${!v}")"; fi
  done
  echo "cd $(printf '%q' "$root")"
  if ((${#command[@]})); then
    printf 'exec'; printf ' %q' "${command[@]}"; echo
  else
    printf 'exec %q --kernel %q --matrix %q --build %q --results %q --steps %q --no-summary\n' \
      "$here/guest.sh" "$kernel" "$guest_scratch/matrix.txt" "$build" "$guest_scratch" "$steps"
  fi
} >"$results/cmd.sh"

# The guest's /tmp: a fresh ext4 disk, not tmpfs, because the tests run on a /tmp like
# the host's. tmpfs has no nonblocking buffered reads, so every io_uring read of a
# cached file there is punted to io-wq, and the clean-read scenarios would rightly warn.
make_tmp_disk() {  # dir
  rm -f "$1/tmp.img"
  truncate -s "${VMTEST_TMP_MB:-1024}M" "$1/tmp.img"
  mkfs.ext4 -q -F -m 0 -O ^metadata_csum -E lazy_itable_init=0,lazy_journal_init=0 \
    "$1/tmp.img" || die "mkfs.ext4 failed"
}

qemu=()
# shellcheck disable=SC2054  # commas inside qemu options, not array separators
qemu_args() {  # accel (kvm|tcg), results dir -> the qemu command line in ${qemu[@]}
  local a=$1 dir=$2 console
  if [[ $row_arch == arm64 ]]; then
    # The generic virt board (PCI, so the same virtio-*-pci devices as on x86) and its
    # PL011 console. pauth-impdef: max's pointer authentication with QEMU's cheap hash
    # instead of the architected QARMA, which costs TCG much of its speed.
    qemu=(qemu-system-aarch64 -nodefaults -no-user-config -nographic -no-reboot -machine virt
      -accel "tcg,thread=${VMTEST_TCG_THREAD:-single}" -cpu max,pauth-impdef=on)
    console="console=ttyAMA0"
  else
    qemu=(qemu-system-x86_64 -nodefaults -no-user-config -nographic -no-reboot -machine pc)
    if [[ $a == kvm ]]; then qemu+=(-accel kvm -cpu host)
    else qemu+=(-accel "tcg,thread=${VMTEST_TCG_THREAD:-single}" -cpu max); fi
    # no_timer_check: an x86 boot parameter (a loaded TCG host fails 6.1's IO-APIC check).
    console="console=ttyS0 no_timer_check"
  fi
  qemu+=(-smp "$smp" -m "$mem" -kernel "$boot_image" -initrd "$initramfs"
    -append "$console quiet loglevel=4 panic=-1 oops=panic rdinit=/init${VMTEST_APPEND:+ $VMTEST_APPEND}"
    -serial "file:$dir/console.log"
    -fsdev "local,id=hostroot,path=/,readonly=on,security_model=none,multidevs=remap"
    -device "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot"
    -fsdev "local,id=scratch,path=$dir,security_model=none,multidevs=remap"
    -device "virtio-9p-pci,fsdev=scratch,mount_tag=scratch"
    -drive "file=$dir/tmp.img,if=none,id=tmpdisk,format=raw,cache=unsafe,discard=unmap"
    -device virtio-blk-pci,drive=tmpdisk
    -device virtio-serial-pci,id=vs
    -chardev "file,id=gout,path=$dir/guest.out,append=on"
    -device virtserialport,bus=vs.0,chardev=gout,name=out
    -chardev "file,id=gerr,path=$dir/guest.err,append=on"
    -device virtserialport,bus=vs.0,chardev=gerr,name=err)
  if [[ -n $guest_root ]]; then
    qemu+=(-fsdev "local,id=guestroot,path=$guest_root,readonly=on,security_model=none,multidevs=remap"
      -device "virtio-9p-pci,fsdev=guestroot,mount_tag=guestroot")
  fi
  if [[ -n ${VMTEST_MONITOR:-} ]]; then qemu+=(-monitor "unix:$VMTEST_MONITOR,server,nowait")
  else qemu+=(-monitor none); fi
}

# KVM only where the CPU advertises it and a stock kernel really boots under it (some
# /dev/kvm modules run only specially built guests and hang a stock one).
pick_accel() {
  if [[ $row_arch != amd64 ]]; then
    [[ $accel != kvm ]] || die "--accel kvm: an $row_arch guest on this host runs only under TCG"
    echo "tcg (an $row_arch guest on an $(uname -m) host)"
    return
  fi
  if [[ $accel != auto ]]; then echo "$accel (forced with --accel)"; return; fi
  if ! grep -qwE 'vmx|svm' /proc/cpuinfo; then echo "tcg (cpuinfo has no vmx/svm)"; return; fi
  if [[ ! -w /dev/kvm ]]; then echo "tcg (no usable /dev/kvm)"; return; fi
  local verdict
  verdict=$cache/kvm-trial-$kver-$(uname -r)
  if [[ ! -e $verdict ]]; then
    local trial
    trial=$(mktemp -d)
    echo "GUEST_SCRATCH=/tmp/vmtest-results" >"$trial/guest.env"
    echo "KEEP_PATHS=''" >>"$trial/guest.env"
    echo "exit 0" >"$trial/cmd.sh"
    make_tmp_disk "$trial"
    qemu_args kvm "$trial"
    timeout -k 5 60 "${qemu[@]}" >/dev/null 2>&1 || true
    if [[ $(cat "$trial/status" 2>/dev/null) == 0 ]]; then echo ok >"$verdict"; else echo hang >"$verdict"; fi
    rm -rf "$trial"
  fi
  if [[ $(cat "$verdict") == ok ]]; then echo "kvm (trial boot under KVM worked)"
  else echo "tcg (/dev/kvm is there but a trial boot under KVM did not finish in 60 s)"; fi
}
accel_line=$(pick_accel)
phase "accelerator"
flock -u 9

log "kernel $kver ($pkg $pkg_version, $pkg_suite), steps $steps, boot $boot_kind, accel ${accel_line}, ${smp} CPUs, ${mem} MiB"
log "build $build, results $results"
: >"$results/guest.out"
: >"$results/guest.err"
tail -n +1 -f "$results/guest.out" &
tail_out=$!
tail -n +1 -f "$results/guest.err" >&2 &
tail_err=$!
guest_status=0
make_tmp_disk "$results"
qemu_args "${accel_line%% *}" "$results"
timeout -k 10 "$timeout_s" "${qemu[@]}" >"$results/qemu.log" 2>&1 || guest_status=$?
sleep 0.3
rm -f "$results/tmp.img"
kill "$tail_out" "$tail_err" 2>/dev/null || true
wait "$tail_out" "$tail_err" 2>/dev/null || true
phase "guest (boot + tests)"

# --- the verdict ----------------------------------------------------------------------------

status=$(cat "$results/status" 2>/dev/null || true)
t_end=$(date +%s.%N)
echo
echo "vmtest summary: kernel $kernel ($kver), accel ${accel_line%% *}, results in $results"
if [[ -f $results/summary.txt && ${#command[@]} -eq 0 ]]; then
  sed 's/^/  /' "$results/summary.txt"
fi
printf '  timings:\n'
printf '    %s\n' "${phases[@]}"
printf '    %-22s %6.1f s\n' "total" "$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { print b - a }')"
if [[ -z $status ]]; then
  if ((guest_status == 124 || guest_status == 137)); then
    echo "  FAIL the guest did not finish within ${timeout_s}s and was killed"
  else
    echo "  FAIL the guest ended without an exit status (qemu exit $guest_status: a kernel panic or a crash in init)"
  fi
  echo "  --- last lines of the guest console ($results/console.log) ---"
  tail -n 40 "$results/console.log" 2>/dev/null | sed 's/^/  | /'
  [[ -s $results/qemu.log ]] && { echo "  --- qemu ---"; sed 's/^/  | /' "$results/qemu.log"; }
  exit 3
fi
if [[ $status == 125 ]]; then
  echo "  FAIL the guest's init failed (see the console below)"
  tail -n 20 "$results/console.log" | sed 's/^/  | /'
  exit 3
fi
if [[ $status != 0 ]]; then
  echo "  => FAILED (guest exit status $status)"
  exit 1
fi
echo "  => PASSED"
