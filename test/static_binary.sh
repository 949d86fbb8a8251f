#!/usr/bin/env bash
# The static build is one self-contained file: ldd must find nothing to load, and a
# copy alone in an empty directory must run. A cross-built binary (EMULATOR given, e.g.
# qemu-aarch64-static) runs through the emulator, and file(1) says whether it is static:
# ldd knows only this machine's loaders.
set -euo pipefail
bin=${1:?usage: static_binary.sh PATH_TO_URINGSCOPE [EMULATOR...]}
shift
emulator=("$@")
if ((${#emulator[@]})); then
  out=$(file -b "$bin")
  [[ "$out" == *"statically linked"* ]] || { echo "FAIL: file says: $out" >&2; exit 1; }
else
  out=$(ldd "$bin" 2>&1 || true)
  if [[ "$out" != *"not a dynamic executable"* ]]; then
    echo "FAIL: ldd says: $out" >&2
    exit 1
  fi
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$bin" "$dir/uringscope"
(cd "$dir" && env -i PATH=/nonexistent "${emulator[@]}" ./uringscope --version) >"$dir/version.txt"
grep -q '^uringscope ' "$dir/version.txt" || { echo "FAIL: --version printed:"; cat "$dir/version.txt"; exit 1; } >&2
grep -q '^tier ' "$dir/version.txt" || { echo "FAIL: no tier line"; exit 1; } >&2
echo "ok: static ($(stat -c %s "$bin") bytes), runs alone from $dir"
