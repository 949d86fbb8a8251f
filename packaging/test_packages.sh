#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the .deb and .rpm of a static build tree with CPack and checks what a
# distribution would: the control fields, the file list, that no shared library is
# required, that the .deb installs, runs from /usr/bin and removes cleanly, and that
# `cmake --install` to a prefix lays out the same files.
#
#   packaging/test_packages.sh BUILD_DIR [EMULATOR...]   (as root: it installs the .deb)
#
# A cross build (build-arm64/, packaging/build.sh --arch arm64) makes packages of its own
# architecture: their binary runs through EMULATOR (qemu-aarch64-static; CMake passes its
# CMAKE_CROSSCOMPILING_EMULATOR), and the .deb is inspected and unpacked but not
# installed: with arm64 a foreign architecture of dpkg (multiarch) it would install, and
# put a binary this machine cannot run natively in /usr/bin.
# The packages are built in a scratch directory, so BUILD_DIR is not changed beyond
# building the binary and the man page when they are out of date.
set -euo pipefail
build=${1:?usage: test_packages.sh STATIC_BUILD_DIR [EMULATOR...]}
build=$(cd "$build" && pwd)
shift
emulator=("$@")

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

[[ -f "$build/CPackConfig.cmake" ]] ||
  fail "$build has no CPackConfig.cmake: configure it with -DURINGSCOPE_STATIC=ON"
[[ $(id -u) -eq 0 ]] || fail "installing the .deb needs root"
for tool in cpack dpkg dpkg-deb rpm rpmbuild rpm2cpio cpio ldd man; do
  command -v "$tool" >/dev/null || fail "$tool is missing (packaging/install-deps.sh installs it)"
done

version=$(sed -nE 's/^set\(CPACK_PACKAGE_VERSION "([^"]+)"\)$/\1/p' "$build/CPackConfig.cmake")
release=$(sed -nE 's/^set\(CPACK_DEBIAN_PACKAGE_RELEASE "([^"]+)"\)$/\1/p' "$build/CPackConfig.cmake")
[[ "$version" =~ ^[0-9]+(\.[0-9]+)*$ ]] || fail "package version '$version' is not dot-separated numbers"
[[ -n "$release" ]] || fail "no package release in $build/CPackConfig.cmake"
# The packages' architectures are the build's (packaging/Packaging.cmake).
deb_arch=$(sed -nE 's/^set\(CPACK_DEBIAN_PACKAGE_ARCHITECTURE "([^"]+)"\)$/\1/p' "$build/CPackConfig.cmake")
rpm_arch=$(sed -nE 's/^set\(CPACK_RPM_PACKAGE_ARCHITECTURE "([^"]+)"\)$/\1/p' "$build/CPackConfig.cmake")
deb_arch=${deb_arch:-$(dpkg --print-architecture)}
rpm_arch=${rpm_arch:-$(uname -m)}
native=0
[[ $deb_arch == "$(dpkg --print-architecture)" ]] && native=1
((native)) || ((${#emulator[@]})) ||
  fail "$deb_arch packages on a $(dpkg --print-architecture) host: give the emulator (qemu-aarch64-static)"
run() { if ((native)); then "$@"; else "${emulator[@]}" "$@"; fi; }  # a packaged binary

work=$(mktemp -d)
installed_by_us=0
cleanup() {
  if ((installed_by_us)); then dpkg -P uringscope >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

cmake --build "$build" --target uringscope uringscope_manpage >"$work/build.log" 2>&1 ||
  fail "building uringscope in $build: $(tail -n 5 "$work/build.log")"

# --- build both packages --------------------------------------------------------------
for gen in DEB RPM; do
  cpack --config "$build/CPackConfig.cmake" -G "$gen" -B "$work/out" >"$work/cpack-$gen.log" 2>&1 ||
    fail "cpack -G $gen: $(grep -m3 -iE 'error|warning' "$work/cpack-$gen.log" | tr '\n' ' ')"
done
deb="$work/out/uringscope_${version}-${release}_${deb_arch}.deb"
rpm_file="$work/out/uringscope-${version}-${release}.${rpm_arch}.rpm"
[[ -f "$deb" ]] || fail "cpack made no $(basename "$deb"): $(ls "$work/out")"
[[ -f "$rpm_file" ]] || fail "cpack made no $(basename "$rpm_file"): $(ls "$work/out")"
ok "built $(basename "$deb") ($(stat -c %s "$deb") bytes), $(basename "$rpm_file") ($(stat -c %s "$rpm_file") bytes)"

# The files both packages must hold, and nothing else (directories aside).
expected_files="/usr/bin/uringscope
/usr/share/doc/uringscope/LICENSE
/usr/share/man/man8/uringscope.8.gz"
expected_deb_files="$expected_files
/usr/share/doc/uringscope/copyright"

# --- .deb: control fields -------------------------------------------------------------
info=$(dpkg-deb -I "$deb")
echo "$info" | sed 's/^/  | /'
field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == uringscope ]] || fail "deb Package is '$(field Package)'"
[[ $(field Version) == "$version-$release" ]] || fail "deb Version is '$(field Version)', want $version-$release"
[[ $(field Architecture) == "$deb_arch" ]] || fail "deb Architecture is '$(field Architecture)', want $deb_arch"
[[ $(field Section) =~ ^(admin|utils)$ ]] || fail "deb Section is '$(field Section)'"
[[ $(field Priority) == optional ]] || fail "deb Priority is '$(field Priority)'"
[[ $(field Maintainer) =~ ^[^\<]+\ \<[^@\>]+@[^\>]+\>$ ]] || fail "deb Maintainer '$(field Maintainer)' is not 'Name <email>'"
description=$(field Description)
summary=$(head -n 1 <<<"$description")
[[ -n "$summary" && ${#summary} -le 80 ]] || fail "deb Description summary '$summary' is empty or over 80 characters"
(($(wc -l <<<"$description") >= 3)) || fail "deb Description has no long description"
# Continuation lines start with a space; an empty line must be written " .".
if grep -n -vE '^ ' <<<"$(tail -n +2 <<<"$description")" | grep -q .; then
  fail "deb Description has a line not starting with a space"
fi
for dep in Depends Pre-Depends Recommends; do
  [[ -z $(field "$dep") ]] || fail "deb declares $dep: $(field "$dep") (the binary is static)"
done
ok "deb fields: $(field Package) $(field Version) $(field Architecture) section $(field Section), no Depends"

# --- .deb: contents -------------------------------------------------------------------
listing=$(dpkg-deb -c "$deb")
deb_files=$(awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' <<<"$listing" | sort)
[[ "$deb_files" == "$(sort <<<"$expected_deb_files")" ]] ||
  fail "deb holds $(tr '\n' ' ' <<<"$deb_files"), want $(sort <<<"$expected_deb_files" | tr '\n' ' ')"
grep -qE '^-rwxr-xr-x root/root .* \./usr/bin/uringscope$' <<<"$listing" ||
  fail "deb: /usr/bin/uringscope is not -rwxr-xr-x root/root: $(grep usr/bin/uringscope <<<"$listing")"
if awk '$1 !~ /^d/ && $1 != "-rwxr-xr-x" && $1 != "-rw-r--r--"' <<<"$listing" | grep -q .; then
  fail "deb: unexpected file modes: $(awk '$1 !~ /^d/' <<<"$listing" | tr '\n' ' ')"
fi
if awk '$2 != "root/root"' <<<"$listing" | grep -q .; then
  fail "deb: files not owned by root/root"
fi
dpkg-deb -x "$deb" "$work/deb-root"
zcat "$work/deb-root/usr/share/doc/uringscope/copyright" >/dev/null 2>&1 &&
  fail "deb: copyright must be plain text"
grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
  "$work/deb-root/usr/share/doc/uringscope/copyright" || fail "deb: copyright is not in the DEP-5 format"
for text in 'Permission is hereby granted, free of charge' 'Neither the name of the copyright holder' \
            '/usr/share/common-licenses/GPL-2'; do
  grep -qF "$text" "$work/deb-root/usr/share/doc/uringscope/copyright" ||
    fail "deb: copyright lacks '$text'"
done
cmp -s "$work/deb-root/usr/share/doc/uringscope/LICENSE" "$(dirname "$0")/../LICENSE" ||
  fail "deb: LICENSE differs from the source tree's"
gzip -t "$work/deb-root/usr/share/man/man8/uringscope.8.gz" || fail "deb: the man page is not valid gzip"
ok "deb contents: $(tr '\n' ' ' <<<"$deb_files")"

# --- .deb: install on this machine, run, remove ------------------------------------------
if ((!native)); then
  out=$(run "$work/deb-root/usr/bin/uringscope" --version) || fail "the deb's uringscope --version (through ${emulator[0]}) exited $?"
  [[ $(head -n 1 <<<"$out") == "uringscope $version" ]] || fail "the deb's uringscope --version says '$(head -n 1 <<<"$out")'"
  file_out=$(file -b "$work/deb-root/usr/bin/uringscope")
  [[ $file_out == *"statically linked"* && $file_out == *", stripped"* ]] ||
    fail "the deb's binary is not static and stripped: $file_out"
  ok "dpkg -i not run ($deb_arch package, $(dpkg --print-architecture) host): the deb's binary is static, stripped, and runs --version through ${emulator[0]}"
fi
if ((native)); then
  # A uringscope installed by other means would be overwritten and then deleted by dpkg -P.
  if dpkg-query -W -f='${Status}' uringscope 2>/dev/null | grep -q 'ok installed'; then
    fail "the uringscope package is already installed here; remove it (dpkg -r uringscope) first"
  fi
  [[ ! -e /usr/bin/uringscope ]] || fail "/usr/bin/uringscope exists and belongs to no package; move it away first"
  installed_by_us=1
  dpkg -i "$deb" >"$work/dpkg-i.log" 2>&1 || fail "dpkg -i: $(tail -n 3 "$work/dpkg-i.log" | tr '\n' ' ')"
  status=$(dpkg -s uringscope)
  echo "$status" | sed 's/^/  | /'
  grep -qx 'Status: install ok installed' <<<"$status" || fail "dpkg -s: not 'install ok installed'"
  grep -qx "Version: $version-$release" <<<"$status" || fail "dpkg -s: Version is not $version-$release"
  grep -qx "Architecture: $deb_arch" <<<"$status" || fail "dpkg -s: Architecture is not $deb_arch"
  grep -qE '^Section: (admin|utils)$' <<<"$status" || fail "dpkg -s: no admin/utils Section"
  grep -qE '^Maintainer: .+' <<<"$status" || fail "dpkg -s: no Maintainer"
  grep -qE '^(Pre-)?Depends:' <<<"$status" && fail "dpkg -s: declares dependencies"
  out=$(/usr/bin/uringscope --version) || fail "/usr/bin/uringscope --version exited $?"
  [[ $(head -n 1 <<<"$out") == "uringscope $version" ]] || fail "/usr/bin/uringscope --version says '$(head -n 1 <<<"$out")'"
  [[ $(ldd /usr/bin/uringscope 2>&1 || true) == *"not a dynamic executable"* ]] ||
    fail "the installed binary is dynamic: $(ldd /usr/bin/uringscope 2>&1 | head -n 3 | tr '\n' ' ')"
  file_out=$(file -b /usr/bin/uringscope 2>/dev/null || true)
  [[ -z "$file_out" || "$file_out" == *"stripped"* && "$file_out" != *"not stripped"* ]] ||
    fail "the installed binary is not stripped: $file_out"
  [[ $(man -w 8 uringscope 2>/dev/null) == /usr/share/man/man8/uringscope.8.gz ]] ||
    fail "man -w 8 uringscope does not find the installed page: '$(man -w 8 uringscope 2>&1)'"
  while read -r path; do
    [[ -z "$path" || -e "$path" ]] || fail "dpkg -L lists $path, which is not on disk"
  done <<<"$(dpkg -L uringscope)"
  ok "dpkg -i: /usr/bin/uringscope --version says 'uringscope $version', static, man page found"

  dpkg -r uringscope >"$work/dpkg-r.log" 2>&1 || fail "dpkg -r: $(tail -n 3 "$work/dpkg-r.log" | tr '\n' ' ')"
  dpkg -P uringscope >"$work/dpkg-p.log" 2>&1 || fail "dpkg -P: $(tail -n 3 "$work/dpkg-p.log" | tr '\n' ' ')"
  installed_by_us=0
  for path in $expected_deb_files /usr/share/doc/uringscope; do
    [[ ! -e "$path" ]] || fail "$path is still there after dpkg -P"
  done
  if dpkg-query -W -f='${Status}' uringscope 2>/dev/null | grep -q 'installed'; then
    fail "dpkg still knows uringscope after dpkg -P: $(dpkg-query -W -f='${Status}' uringscope)"
  fi
  ok "dpkg -r, dpkg -P: nothing left"
fi

# --- .rpm -------------------------------------------------------------------------------
rpm_info=$(rpm -qpi "$rpm_file" 2>/dev/null)
echo "$rpm_info" | sed 's/^/  | /'
tag() { rpm -qp --queryformat "%{$1}" "$rpm_file" 2>/dev/null; }
[[ $(tag NAME) == uringscope ]] || fail "rpm Name is '$(tag NAME)'"
[[ $(tag VERSION) == "$version" ]] || fail "rpm Version is '$(tag VERSION)', want $version"
[[ $(tag VERSION) != *-* ]] || fail "rpm Version '$(tag VERSION)' contains a hyphen"
[[ $(tag RELEASE) == "$release" ]] || fail "rpm Release is '$(tag RELEASE)', want $release"
[[ $(tag ARCH) == "$rpm_arch" ]] || fail "rpm Arch is '$(tag ARCH)', want $rpm_arch"
[[ $(tag LICENSE) == "MIT AND (GPL-2.0-only OR BSD-3-Clause)" ]] || fail "rpm License is '$(tag LICENSE)'"
[[ -n $(tag SUMMARY) && $(tag SUMMARY) != *"no package"* ]] || fail "rpm has no Summary"
(($(tag DESCRIPTION | wc -l) >= 3)) || fail "rpm has no long Description"
[[ $(tag PREFIXES) == "(none)" ]] || fail "rpm is relocatable (prefix $(tag PREFIXES)): man would miss the page"
rpm_files=$(rpm -qpl "$rpm_file" 2>/dev/null)
[[ "$(grep -vx /usr/share/doc/uringscope <<<"$rpm_files" | sort)" == "$(sort <<<"$expected_files")" ]] ||
  fail "rpm holds $(tr '\n' ' ' <<<"$rpm_files"), want $(tr '\n' ' ' <<<"$expected_files") and its doc directory"
[[ $(rpm -qpL "$rpm_file" 2>/dev/null) == /usr/share/doc/uringscope/LICENSE ]] ||
  fail "rpm does not mark LICENSE as %license: $(rpm -qpL "$rpm_file" 2>&1)"
requires=$(rpm -qpR "$rpm_file" 2>/dev/null)
if grep -vE '^rpmlib\(' <<<"$requires" | grep -q .; then
  fail "rpm requires more than rpmlib features (a static binary needs nothing): $(tr '\n' ' ' <<<"$requires")"
fi
rpm_dirs=$(rpm -qp --queryformat '[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILENAMES}\n]' "$rpm_file" 2>/dev/null)
grep -qx -- '-rwxr-xr-x root:root /usr/bin/uringscope' <<<"$rpm_dirs" ||
  fail "rpm: /usr/bin/uringscope is not -rwxr-xr-x root:root: $(grep usr/bin <<<"$rpm_dirs")"
mkdir -p "$work/rpm-root"
(cd "$work/rpm-root" && rpm2cpio "$rpm_file" | cpio -idm --quiet) || fail "rpm2cpio | cpio could not unpack the rpm"
[[ $(run "$work/rpm-root/usr/bin/uringscope" --version | head -n 1) == "uringscope $version" ]] ||
  fail "the rpm's binary does not run --version"
ok "rpm fields: $(tag NAME) $(tag VERSION)-$(tag RELEASE) $(tag ARCH) '$(tag LICENSE)'; requires only: $(tr '\n' ' ' <<<"$requires")"

# --- cmake --install to a prefix ------------------------------------------------------------
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
  fail "cmake --install: $(tail -n 3 "$work/install.log" | tr '\n' ' ')"
for path in bin/uringscope share/man/man8/uringscope.8.gz share/doc/uringscope/LICENSE; do
  [[ -f "$prefix/$path" ]] || fail "cmake --install put no $path under the prefix"
done
[[ -x "$prefix/bin/uringscope" ]] || fail "cmake --install: bin/uringscope is not executable"
[[ $(run "$prefix/bin/uringscope" --version | head -n 1) == "uringscope $version" ]] ||
  fail "the binary cmake --install put in the prefix does not run --version"
MANPATH="$prefix/share/man" man -w 8 uringscope >/dev/null 2>&1 ||
  fail "man cannot find the page under $prefix/share/man"
ok "cmake --install --prefix: bin/uringscope, share/man/man8/uringscope.8.gz, share/doc/uringscope/LICENSE"
echo "packages: all checks passed"
