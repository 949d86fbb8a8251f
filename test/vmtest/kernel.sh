# shellcheck shell=bash disable=SC2154  # the caller sets cache (and defines die, log)
# Sourced by run.sh and canary.sh (bash, set -euo pipefail; the caller defines die, log
# and $cache): Debian kernel packages, fetched and unpacked without touching the host's
# apt state or installing anything.
#
# Every suite (bookworm-security, sid, experimental, bullseye, ...) gets an apt
# configuration of its own under $cache/apt/SUITE, passed as APT_CONFIG: its own source
# list, lists, cache and an empty dpkg status. Dir::Etc::parts points at an empty
# directory too, because the host's apt.conf.d carries hooks (packagekit, appstream) that
# an `apt-get update` would run against the host; only the host's proxy and date-check
# settings are carried over, so that downloads work wherever the host's apt does.
#
# $kernel_arch (the caller's, default amd64) is the Debian architecture of the kernels:
# arm64 gets configurations of its own (SUITE-arm64) whose only architecture, native
# included, is arm64, so that plain package names mean the arm64 packages.

# Where a suite lives; mirrors can be overridden for machines with a local one.
suite_uri() {
  case $1 in
    *-security) echo "${VMTEST_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}" ;;
    *) echo "${VMTEST_DEBIAN_MIRROR:-http://deb.debian.org/debian}" ;;
  esac
}

kernel_arch=${kernel_arch:-amd64}
apt_dir_for() {  # suite -> its private apt directory (amd64 keeps the plain suite name)
  if [[ $kernel_arch == amd64 ]]; then echo "$cache/apt/$1"; else echo "$cache/apt/$1-$kernel_arch"; fi
}

apt_conf_for() {  # suite -> path of its private apt.conf (created on first use)
  local suite=$1 dir
  dir=$(apt_dir_for "$1")
  if [[ ! -e $dir/apt.conf ]]; then
    mkdir -p "$dir"/{apt.conf.d,lists/partial,cache/archives/partial,state}
    : >"$dir/state/status"
    echo "deb [arch=$kernel_arch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(suite_uri "$suite") $suite main" \
      >"$dir/sources.list"
    {
      printf 'Dir::Etc::main "%s";\n' "$dir/none.conf"
      printf 'Dir::Etc::parts "%s";\n' "$dir/apt.conf.d"
      printf 'Dir::Etc::sourcelist "%s";\n' "$dir/sources.list"
      printf 'Dir::Etc::sourceparts "-";\n'
      printf 'Dir::Etc::preferences "%s";\n' "$dir/preferences"
      printf 'Dir::Etc::preferencesparts "-";\n'
      printf 'Dir::State "%s";\n' "$dir/state"
      printf 'Dir::State::Lists "%s";\n' "$dir/lists"
      printf 'Dir::State::status "%s";\n' "$dir/state/status"
      printf 'Dir::Cache "%s";\n' "$dir/cache"
      printf 'APT::Architecture "%s";\n' "$kernel_arch"
      printf 'APT::Architectures { "%s"; };\n' "$kernel_arch"
      printf 'Acquire::Languages "none";\n'
      printf 'Acquire::GzipIndexes "true";\n'
      env -u APT_CONFIG apt-config dump 2>/dev/null |
        grep -E '^Acquire::(https?::Proxy|Check-Valid-Until|Check-Date)[ :]' || true
    } >"$dir/apt.conf.tmp"
    mv "$dir/apt.conf.tmp" "$dir/apt.conf"
  fi
  echo "$dir/apt.conf"
}

apt_suite() {  # suite, apt-get/apt-cache args...: run apt against that suite only
  local conf
  conf=$(apt_conf_for "$1")
  shift
  APT_CONFIG=$conf "$@"
}

apt_suite_update() {  # suite
  local log
  log=$(apt_dir_for "$1")/update.log
  apt_conf_for "$1" >/dev/null
  log "apt-get update (private, suite $1)"
  apt_suite "$1" apt-get -q update >>"$log" 2>&1 ||
    { tail -5 "$log" >&2 || true; die "apt-get update of suite $1 failed (log: $log)"; }
}

# The packages that make up one kernel build: PKG itself and, from 7.x on (where
# linux-image-VER is a metapackage), its linux-binary-, linux-modules- and linux-base-
# dependencies, which Debian pins to the same version.
kernel_parts() {  # .deb of PKG, version
  dpkg-deb -f "$1" Depends | tr ',' '\n' | awk -v want="$2" '
    /\|/ { next }
    $1 ~ /^linux-/ && $2 == "(=" { v = $3; sub(/\)$/, "", v); if (v == want) print $1 }'
}

# Downloads PKG=VERSION from SUITE, and its same-version parts, into DIR/dl, unpacks them
# all into DIR/root. An update of the suite's private lists only when apt does not know
# the version yet.
kernel_fetch() {  # pkg version suite dir
  local pkg=$1 ver=$2 suite=$3 dir=$4 part parts=() listed
  rm -rf "$dir"
  mkdir -p "$dir/dl"
  listed=$(find "$(apt_dir_for "$suite")/lists" -maxdepth 1 -name '*_Packages*' 2>/dev/null | grep -c . || true)
  ((listed > 0)) || apt_suite_update "$suite"
  get() { (cd "$dir/dl" && apt_suite "$suite" apt-get download -q "$@") >>"$dir/download.log" 2>&1; }
  log "downloading $pkg=$ver ($suite)"
  if ! get "$pkg=$ver"; then
    apt_suite_update "$suite"
    get "$pkg=$ver" || {
      tail -5 "$dir/download.log" >&2 || true
      echo "vmtest: kernels apt offers in $suite now:" >&2
      apt_suite "$suite" apt-cache search --names-only "^linux-image-[0-9].*-$kernel_arch\$" 2>/dev/null |
        awk '{ print "  " $1 }' | sort -V | tail -5 >&2
      die "cannot download $pkg=$ver from $suite: update its row in test/kernels.txt"
    }
  fi
  mapfile -t parts < <(kernel_parts "$dir"/dl/"${pkg}"_*.deb "$ver")
  for part in "${parts[@]}"; do
    log "downloading $part=$ver (part of $pkg)"
    get "$part=$ver" || { tail -5 "$dir/download.log" >&2 || true; die "cannot download $part=$ver from $suite"; }
  done
  local deb
  for deb in "$dir"/dl/*.deb; do dpkg-deb -x "$deb" "$dir/root"; done
  rm -rf "$dir/dl"
  touch "$dir/unpacked"
}

# kver, vmlinuz and moddir of an unpacked kernel: /boot/vmlinuz-VER up to 6.x,
# /usr/lib/modules/VER/vmlinuz from 7.x on.
kernel_locate() {  # root
  local f
  vmlinuz=
  for f in "$1"/boot/vmlinuz-* "$1"/usr/lib/modules/*/vmlinuz "$1"/lib/modules/*/vmlinuz; do
    [[ -f $f ]] && { vmlinuz=$f; break; }
  done
  [[ -f $vmlinuz ]] || die "no kernel image (boot/vmlinuz-* or usr/lib/modules/*/vmlinuz) in $pkg"
  case $vmlinuz in
    */boot/vmlinuz-*) kver=${vmlinuz##*/vmlinuz-} ;;
    *) kver=${vmlinuz%/vmlinuz}; kver=${kver##*/} ;;
  esac
  moddir=$1/lib/modules/$kver
  [[ -d $moddir ]] || moddir=$1/usr/lib/modules/$kver
  [[ -d $moddir/kernel ]] || die "no modules for $kver in $pkg (from 7.x on they are in linux-modules-$kver)"
}

# PVH boot: qemu starts an ELF vmlinux that carries a XEN_ELFNOTE_PHYS32_ENTRY note
# directly, skipping the bzImage's own decompression (~3.5 s under TCG). Leaves
# DIR/vmlinux when that works.
has_pvh_note() { readelf -n "$1" 2>/dev/null | grep -qE 'Xen.*(0x00000012|PHYS32_ENTRY)'; }
kernel_extract_vmlinux() {  # dir vmlinuz
  local dir=$1 fmt tool off
  [[ -e $dir/vmlinux.done ]] && return
  rm -f "$dir/vmlinux"
  for fmt in 'xz:\xfd7zXZ\x00' 'zstd:\x28\xb5\x2f\xfd'; do
    tool=${fmt%%:*}
    for off in $(LC_ALL=C grep -obUaP "${fmt#*:}" "$2" | cut -d: -f1); do
      tail -c +$((off + 1)) "$2" | "$tool" -dc >"$dir/vmlinux.tmp" 2>/dev/null || true
      if [[ $(head -c 4 "$dir/vmlinux.tmp" | od -An -tx1 | tr -d ' \n') == 7f454c46 ]]; then
        mv "$dir/vmlinux.tmp" "$dir/vmlinux"
        break 2
      fi
    done
  done
  rm -f "$dir/vmlinux.tmp"
  if [[ -e $dir/vmlinux ]] && ! has_pvh_note "$dir/vmlinux"; then
    log "the extracted vmlinux has no PVH entry note: booting the bzImage"
    rm -f "$dir/vmlinux"
  fi
  touch "$dir/vmlinux.done"
}
