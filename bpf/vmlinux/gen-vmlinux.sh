#!/usr/bin/env bash
# Regenerates the checked-in bpf/vmlinux/<arch>/vmlinux.h from a kernel's BTF.
#
# The header is checked in so that a build never depends on the build host's kernel:
# CO-RE relocates every field access against the *running* kernel's BTF at load time,
# so the header only has to describe a kernel new enough to name every type we read.
# x86 was generated from a 6.18 kernel (the host's /sys/kernel/btf/vmlinux), arm64 from
# Debian 12's linux-image-6.12.117+deb12-arm64; regenerate one only when the BPF code
# needs a type or field that kernel does not have.
#
#   bpf/vmlinux/gen-vmlinux.sh [BTF_SOURCE] [ARCH]
#
# BTF_SOURCE (default /sys/kernel/btf/vmlinux) is raw BTF, an ELF vmlinux (its .BTF
# section), or a kernel image (arm64's Image as Debian ships it in /boot/vmlinuz-*,
# also gzip- or zstd-compressed): an image is no ELF file, so the BTF blob the build
# linked into it is cut out by its header (magic 0xeB9F, version 1, 24-byte header,
# whose type and string lengths give its size). Another architecture's kernel works as
# well as the host's: BTF is read as data. For arm64 from Debian's kernel package:
#
#   sudo test/vmtest/run.sh --prepare 6.12-arm64      # fetches it into the vmtest cache
#   bpf/vmlinux/gen-vmlinux.sh /var/cache/uringscope-vmtest/linux-image-6.12.117+deb12-arm64_6.12.117-1~deb12u1/root/boot/vmlinuz-6.12.117+deb12-arm64 arm64
set -euo pipefail
src=${1:-/sys/kernel/btf/vmlinux}
arch=${2:-x86}
out="$(dirname "$0")/$arch/vmlinux.h"
die() { echo "gen-vmlinux: $*" >&2; exit 1; }
command -v bpftool >/dev/null || die "bpftool not found (apt-get install bpftool)"
[[ -r $src ]] || die "cannot read $src"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

le32() { od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }  # file offset -> little-endian u32

# The kernel's BTF blob in FILE (an uncompressed image), written to OUT.
btf_from_image() {  # file out
  local off hdr type_off type_len str_off str_len size
  off=$(LC_ALL=C grep -m1 -obUaP '\x9f\xeb\x01\x00\x18\x00\x00\x00' "$1" | cut -d: -f1)
  [[ -n $off ]] || return 1
  hdr=$(le32 "$1" $((off + 4)))
  type_off=$(le32 "$1" $((off + 8))) type_len=$(le32 "$1" $((off + 12)))
  str_off=$(le32 "$1" $((off + 16))) str_len=$(le32 "$1" $((off + 20)))
  size=$((hdr + (type_off + type_len > str_off + str_len ? type_off + type_len : str_off + str_len)))
  dd if="$1" of="$2" bs=1M iflag=skip_bytes,count_bytes skip="$off" count="$size" status=none
}

magic=$(head -c 4 "$src" | od -An -tx1 | tr -d ' \n')
case $magic in
  9feb01*|7f454c46) btf=$src ;;  # raw BTF, or an ELF vmlinux: bpftool reads both
  *)
    image=$src
    case $magic in
      1f8b*) gzip -dc "$src" >"$work/image" || die "cannot gunzip $src"; image=$work/image ;;
      28b52ffd) zstd -qdc "$src" >"$work/image" || die "cannot unzstd $src"; image=$work/image ;;
    esac
    btf=$work/btf
    btf_from_image "$image" "$btf" || die "no BTF in $src (built without CONFIG_DEBUG_INFO_BTF?)"
    ;;
esac
mkdir -p "$(dirname "$out")"
bpftool btf dump file "$btf" format c >"$out.tmp" || { rm -f "$out.tmp"; die "bpftool cannot read the BTF of $src"; }
mv "$out.tmp" "$out"
echo "wrote $out from $src"
