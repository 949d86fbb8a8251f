#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The man page must describe every option that --help lists, each in an entry of its
# own (a .TP tag), must not describe options the binary no longer has, and must carry
# the binary's version in its .TH line. A cross-built binary runs through EMULATOR
# (CMake's CMAKE_CROSSCOMPILING_EMULATOR, e.g. qemu-aarch64-static).
set -euo pipefail
bin=${1:?usage: manpage_options.sh PATH_TO_URINGSCOPE PATH_TO_uringscope.8 [EMULATOR...]}
page=${2:?usage: manpage_options.sh PATH_TO_URINGSCOPE PATH_TO_uringscope.8 [EMULATOR...]}
shift 2
emulator=("$@")
[[ -r "$page" ]] || { echo "FAIL: cannot read $page" >&2; exit 1; }

help=$("${emulator[@]}" "$bin" --help) || { echo "FAIL: $bin --help exited $?" >&2; exit 1; }
# Only the option table: the examples below it use options too, but name none of their own.
table=$(sed -n '/^Options:/,/^Examples:/p' <<<"$help")
[[ -n "$table" ]] || { echo "FAIL: --help printed no 'Options:' table" >&2; exit 1; }
mapfile -t long_opts < <(grep -oE -- '--[a-z][a-z0-9-]*' <<<"$table" | sort -u)
mapfile -t short_opts < <(grep -oE -- '^ +-[a-zA-Z]\b' <<<"$table" | tr -d ' ' | sort -u)
((${#long_opts[@]} >= 10)) || { echo "FAIL: found only ${#long_opts[@]} long options in --help" >&2; exit 1; }

# The tag lines of the page: the line after each .TP, in roff source, where a hyphen of
# an option is written \- .
tags=$(awk 'prev == ".TP" { print } { prev = $0 }' "$page")

# roff spelling of an option: every "-" becomes "\-".
roff() { printf '%s' "${1//-/\\-}"; }
# ERE matching that spelling with no option characters around it.
pattern() { printf '(^|[^-a-z\\\\])%s([^-a-zA-Z0-9\\\\]|$)' "$(roff "$1" | sed 's/\\/\\\\/g')"; }

missing=()
for opt in "${long_opts[@]}" "${short_opts[@]}"; do
  grep -qE -- "$(pattern "$opt")" <<<"$tags" || missing+=("$opt")
done
if ((${#missing[@]})); then
  echo "FAIL: $page has no .TP entry for ${missing[*]} (listed by --help)" >&2
  exit 1
fi

# And the other way round: a long option with an entry in OPTIONS that --help lacks is
# a stale description.
options_tags=$(awk '/^\.SH / { in_opts = ($0 ~ /^\.SH OPTIONS/) }
                    in_opts && prev == ".TP" { print }
                    { prev = $0 }' "$page")
mapfile -t page_opts < <(grep -oE -- '\\-\\-[a-z](\\-|[a-z0-9])*' <<<"$options_tags" | sed 's/\\-/-/g' | sort -u)
stale=()
for opt in "${page_opts[@]}"; do
  printf '%s\n' "${long_opts[@]}" | grep -qxF -- "$opt" || stale+=("$opt")
done
if ((${#stale[@]})); then
  echo "FAIL: $page describes ${stale[*]}, which --help does not list" >&2
  exit 1
fi

# .TH's fourth field is "uringscope VERSION"; --version's first line is the same words.
version=$("${emulator[@]}" "$bin" --version | head -n 1)
th_source=$(grep -m1 '^\.TH ' "$page" | grep -oE '"uringscope [^"]+"' | tr -d '"' || true)
if [[ "$th_source" != "$version" ]]; then
  echo "FAIL: $page's .TH says '${th_source:-nothing}', the binary says '$version'" >&2
  exit 1
fi
echo "ok: $page describes all ${#long_opts[@]} long and ${#short_opts[@]} short options of --help; version $version"
