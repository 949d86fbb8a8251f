# shellcheck shell=bash disable=SC2034,SC2154  # run.sh reads rootfs_suite; it and kernel.sh set cache, kernel_arch
# Sourced by run.sh (bash, set -euo pipefail; the caller defines die and log, and has
# sourced kernel.sh with $kernel_arch set): the root a guest of another architecture
# chroots into.
#
# An amd64 guest chroots into the host's own root, shared read-only over 9p. An arm64
# guest cannot run the host's programs, so it gets a root of Debian's arm64 packages
# instead: what test/vmtest/guest.sh and test/faults/run.sh run (bash, coreutils, awk,
# sed, grep, jq, python3 with python3-jsonschema for the report's schema check, dmesg
# from util-linux), liburing2, which the cross-built injector links (its --liburing
# scenarios put uprobes on the shared liburing, as on the host), libstdc++6, which the
# dynamically linked kernel_tests needs, and busybox-static, whose arm64 busybox becomes
# the initramfs's. The checkout and the build tree are bound
# into it from the host root in the guest (test/vmtest/init), so uringscope, the
# injector and the scripts are the ones under test.
#
# The packages come from the suite's private apt configuration (kernel.sh: the host's
# lists, cache and installed packages never change). `apt-get install --download-only`
# against its empty dpkg status resolves their dependencies; each .deb is then unpacked
# with dpkg-deb -x. No maintainer script runs (they are arm64 programs), so the few
# things they would create are made here: /bin/sh, awk, /etc/passwd and /etc/group.
# The root is cached per package list and per this script; the first build downloads
# about 36 MB.

# Debian 12, the release the host runs and the project builds on.
rootfs_suite=bookworm
rootfs_packages=(
  base-files base-passwd bash dash coreutils diffutils findutils grep sed mawk
  util-linux jq python3 python3-jsonschema liburing2 libstdc++6 busybox-static
)

# Sets guest_root to the unpacked root (DIR/root), building it on first use.
rootfs_build() {  # suite
  local suite=$1 key dir deb
  key=$( {
    echo "$kernel_arch $suite ${rootfs_packages[*]}"
    cat "${BASH_SOURCE[0]}"
  } | sha256sum | cut -c1-16)
  dir=$cache/rootfs-$kernel_arch-$suite-$key
  guest_root=$dir/root
  [[ -e $dir/done ]] && return
  rm -rf "$dir"
  mkdir -p "$dir/debs/partial"
  local listed
  listed=$(find "$(apt_dir_for "$suite")/lists" -maxdepth 1 -name '*_Packages*' 2>/dev/null | grep -c . || true)
  ((listed > 0)) || apt_suite_update "$suite"
  log "guest root: downloading ${#rootfs_packages[@]} $kernel_arch packages of $suite and their dependencies"
  rootfs_get() {
    apt_suite "$suite" apt-get install --download-only -y -q --no-install-recommends \
      -o Dir::Cache::archives="$dir/debs" "${rootfs_packages[@]}" >>"$dir/download.log" 2>&1
  }
  # Lists older than the mirror name files it no longer has: refresh them once.
  rootfs_get || { apt_suite_update "$suite"; rootfs_get; } ||
    { tail -5 "$dir/download.log" >&2 || true; die "cannot download the guest root's packages ($dir/download.log)"; }
  for deb in "$dir"/debs/*.deb; do
    dpkg-deb -x "$deb" "$guest_root" || die "cannot unpack ${deb##*/}"
  done
  rm -rf "$dir/debs"
  local r=$guest_root
  # What dash's, mawk's and base-passwd's maintainer scripts would have made.
  [[ -e $r/bin/sh ]] || ln -s dash "$r/bin/sh"
  [[ -e $r/usr/bin/awk ]] || ln -s mawk "$r/usr/bin/awk"
  [[ -e $r/etc/passwd ]] || cp "$r/usr/share/base-passwd/passwd.master" "$r/etc/passwd"
  [[ -e $r/etc/group ]] || cp "$r/usr/share/base-passwd/group.master" "$r/etc/group"
  printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$r/etc/hosts"
  mkdir -p "$r"/{proc,sys,dev,tmp,run}
  touch "$dir/done"
  # Roots of an older package list or script are not used again.
  find "$cache" -maxdepth 1 -name "rootfs-$kernel_arch-$suite-*" ! -name "${dir##*/}" -exec rm -rf {} +
  log "guest root: $(du -sh "$r" | cut -f1) in $r"
}

# The guest binds host directories (the checkout, the build tree) onto the same paths of
# its root, which it sees read-only: their mount points are made here. Paths under /tmp
# and /run are made in the guest, on its own /tmp and /run.
rootfs_mount_points() {  # paths...
  local p
  for p in "$@"; do
    case $p/ in /tmp/*|/run/*) continue ;; esac
    mkdir -p "$guest_root$p"
  done
}
