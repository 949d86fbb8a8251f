#!/usr/bin/env bash
# Regenerates the checked-in bpf/vmlinux/<arch>/vmlinux.h from a kernel's BTF.
#
# The header is checked in so that a build never depends on the build host's kernel:
# CO-RE relocates every field access against the *running* kernel's BTF at load time,
# so the header only has to describe a kernel new enough to name every type we read.
# It was generated from a 6.18 kernel; regenerate it only when the BPF code needs a
# type or field that 6.18 does not have.
#
#   bpf/vmlinux/gen-vmlinux.sh [BTF_FILE] [ARCH]
set -euo pipefail
btf=${1:-/sys/kernel/btf/vmlinux}
arch=${2:-x86}
out="$(dirname "$0")/$arch/vmlinux.h"
command -v bpftool >/dev/null || { echo "gen-vmlinux: bpftool not found (apt-get install bpftool)" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
bpftool btf dump file "$btf" format c > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out from $btf ($(uname -r))"
