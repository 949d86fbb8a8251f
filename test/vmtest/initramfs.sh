# shellcheck shell=bash
# Sourced by run.sh (bash, set -euo pipefail; the caller defines die and log): the
# guest's initramfs, i.e. a static busybox, test/vmtest/init and the modules the guest
# needs, for any unpacked Debian kernel.
#
# Module names come and go between releases (crc32c_generic is gone on 7.2; virtio_pci
# is a module on 5.10 and 6.1, built in on 6.12), so nothing here names a module's
# dependencies: depmod indexes the unpacked tree once (Debian's packages ship no
# modules.dep), and `modprobe --show-depends` resolves each wanted name the way the
# kernel's own modprobe would: by name or alias, through depends= and softdeps, and
# knowing what is built in.

# What the guest needs: virtio for PCI, the serial ports, 9p (the host root and the
# results dir) and the disk, and ext4 for /tmp. A kernel without one of them cannot run
# a guest: fatal.
initramfs_required=(virtio_pci virtio_console 9pnet_virtio 9p virtio_blk ext4)
# What only some kernels need, loaded where the kernel has it and skipped (with a log
# line) where it does not: up to 6.14, ext4 asks the crypto API for "crc32c" at mount,
# by name (its softdep says so on Debian's 6.x, but a missing softdep must not hang
# the mount); from 6.15 ext4 calls the crc32c library directly.
initramfs_optional=(crypto-crc32c)

# depmod wants BASE/lib/modules/VER; from 7.x the tree is under usr/lib/modules.
modules_index() {  # root kver
  [[ -e $1/lib/modules/$2/modules.dep ]] && return
  [[ -e $1/lib ]] || ln -s usr/lib "$1/lib"
  depmod -b "$1" "$2" 2>"$1/../depmod.log" || { cat "$1/../depmod.log" >&2; die "depmod failed on $2"; }
}

# The module files to insmod for NAME, dependencies first; nothing for a built-in one.
# Fails when neither a module nor a built-in matches.
modules_for() {  # root kver name
  local out
  # -C: an empty config dir, so that the host's /etc/modprobe.d plays no part.
  mkdir -p "$1/../modprobe.d"
  out=$(modprobe -C "$1/../modprobe.d" -d "$1" -S "$2" --show-depends "$3" 2>&1) || return 1
  [[ -n $out ]] || return 1
  grep -q '^\(insmod\|builtin\) ' <<<"$out" || return 1
  awk '$1 == "insmod" { print $2 }' <<<"$out"
}

decompress_module() {
  case $1 in
    *.ko.xz) xz -dc "$1" ;;
    *.ko.zst) zstd -dc "$1" ;;
    *.ko.gz) gzip -dc "$1" ;;
    *) cat "$1" ;;
  esac
}

# Sets `initramfs` to the cached cpio for this kernel, building it when the init script,
# busybox, the wanted names or the kernel changed.
initramfs_build() {  # kdir root kver busybox init
  local kdir=$1 root=$2 kver=$3 busybox=$4 init=$5 key name f files=() names=() skipped=()
  key=$( {
    cat "$init" "$busybox" "${BASH_SOURCE[0]}"
    echo "${initramfs_required[*]} / ${initramfs_optional[*]} $kver"
  } | sha256sum | cut -c1-16)
  initramfs=$kdir/initramfs-$key.cpio
  [[ -e $initramfs ]] && return
  modules_index "$root" "$kver"
  declare -A seen=()
  for name in "${initramfs_required[@]}" "${initramfs_optional[@]}"; do
    local list
    if ! list=$(modules_for "$root" "$kver" "$name"); then
      [[ " ${initramfs_optional[*]} " == *" $name "* ]] ||
        die "module $name is neither a module of $kver nor built in"
      skipped+=("$name")
      continue
    fi
    while IFS= read -r f; do
      [[ -n $f && -z ${seen[$f]:-} ]] || continue
      seen[$f]=1
      files+=("$f")
    done <<<"$list"
  done
  local staging
  staging=$(mktemp -d)
  mkdir -p "$staging"/{bin,modules,proc,sys,dev,host,scratch,keep}
  cp "$busybox" "$staging/bin/busybox"
  install -m 755 "$init" "$staging/init"
  : >"$staging/modules/order"
  for f in "${files[@]}"; do
    name=${f##*/}; name=${name%%.ko*}
    decompress_module "$f" >"$staging/modules/$name.ko"
    echo "$name.ko" >>"$staging/modules/order"
    names+=("$name")
  done
  (cd "$staging" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$initramfs.tmp"
  mv "$initramfs.tmp" "$initramfs"
  rm -rf "$staging"
  find "$kdir" -maxdepth 1 -name 'initramfs-*.cpio' ! -name "${initramfs##*/}" -delete
  log "initramfs: busybox, /init and ${names[*]:-no modules}${skipped[*]:+ (not in $kver, skipped: ${skipped[*]})}"
}
