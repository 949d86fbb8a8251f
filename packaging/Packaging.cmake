# SPDX-License-Identifier: MIT
# .deb and .rpm packages (CPack) of the static build: one self-contained binary, its man
# page and its licences, with no dependency declared, so the same two files install on
# any Debian- or RPM-based distribution of their architecture (x86-64, or arm64 when
# cross-built with packaging/aarch64-linux-gnu.cmake) with a BTF kernel.
#
#   cmake -S . -B build-static -DCMAKE_BUILD_TYPE=Release -DURINGSCOPE_STATIC=ON
#   cmake --build build-static --target package      # build-static/uringscope_*.deb, *.rpm
#
# Included from CMakeLists.txt only for the static build; packaging/test_packages.sh
# builds both packages, installs the .deb and inspects the .rpm.

if(NOT URINGSCOPE_STATIC)
  # A dynamic binary would need Depends/Requires on libbpf, libelf and zlib, which
  # these packages deliberately do not declare.
  message(FATAL_ERROR "Packaging.cmake: packages are built from the static build only "
                      "(configure with -DURINGSCOPE_STATIC=ON)")
endif()

include(GNUInstallDirs)

set(URINGSCOPE_PACKAGE_MAINTAINER "uringscope maintainers <maintainers@uringscope.invalid>"
    CACHE STRING "Maintainer field of the packages: Name <email>")
set(URINGSCOPE_PACKAGE_HOMEPAGE "" CACHE STRING "Homepage/URL field of the packages (optional)")
set(URINGSCOPE_PACKAGE_RELEASE "1" CACHE STRING
    "Packaging revision: the Debian revision and the RPM Release")

# --- the Debian copyright file ------------------------------------------------------------
# Debian wants the licence terms in /usr/share/doc/PACKAGE/copyright, in the
# machine-readable format (DEP-5). It is generated from LICENSE so that the two never
# drift apart: the MIT and BSD texts are copied out of it (they name their copyright
# holder, so Debian has no common copy), the GPL-2 refers to the copy every Debian
# system has (lintian objects to a full GPL in copyright files).
set(_us_license_file ${PROJECT_SOURCE_DIR}/LICENSE)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_us_license_file})
file(READ ${_us_license_file} _us_license)

# The body of the LICENSE section titled TITLE: the text between its "=====" header and
# the next "=====" line (or the end of the file), as a DEP-5 license text (every line
# indented by one space, empty lines written as " .").
function(_us_license_section TITLE OUT)
  string(FIND "${_us_license}" "\n${TITLE}\n=" start)
  if(start EQUAL -1)
    message(FATAL_ERROR "Packaging.cmake: LICENSE has no section titled '${TITLE}'")
  endif()
  string(SUBSTRING "${_us_license}" ${start} -1 rest)
  string(LENGTH "\n${TITLE}\n" skip)
  string(SUBSTRING "${rest}" ${skip} -1 rest)
  string(FIND "${rest}" "\n" eol)  # the end of the header's closing "=====" line
  math(EXPR eol "${eol} + 1")
  string(SUBSTRING "${rest}" ${eol} -1 rest)
  string(FIND "${rest}" "\n=====" end)
  if(NOT end EQUAL -1)
    string(SUBSTRING "${rest}" 0 ${end} rest)
  endif()
  string(STRIP "${rest}" rest)
  string(REPLACE "\n" "\n " rest " ${rest}")
  string(REGEX REPLACE "\n [ \t]*\n" "\n .\n" rest "${rest}")
  string(REGEX REPLACE "\n [ \t]*\n" "\n .\n" rest "${rest}")  # a second pass for runs
  set(${OUT} "${rest}" PARENT_SCOPE)
endfunction()

_us_license_section("MIT License" _us_mit_text)
_us_license_section("BSD 3-Clause License" _us_bsd_text)
if(NOT _us_license MATCHES "Copyright \\(c\\) ([^\n]+)")
  message(FATAL_ERROR "Packaging.cmake: LICENSE has no 'Copyright (c) ...' line")
endif()
set(_us_copyright_holder "${CMAKE_MATCH_1}")
set(_us_source_line "")
if(URINGSCOPE_PACKAGE_HOMEPAGE)
  set(_us_source_line "Source: ${URINGSCOPE_PACKAGE_HOMEPAGE}\n")
endif()
# Debian's short names: Expat is the licence SPDX calls MIT, GPL-2 is GPL-2.0-only.
file(WRITE ${PROJECT_BINARY_DIR}/copyright
"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: uringscope
${_us_source_line}Upstream-Contact: ${URINGSCOPE_PACKAGE_MAINTAINER}

Files: *
Copyright: ${_us_copyright_holder}
License: Expat
Comment: Userspace (SPDX: MIT).

Files: bpf/*
Copyright: ${_us_copyright_holder}
License: GPL-2 or BSD-3-clause
Comment: The BPF programs, which the binary embeds and loads into the kernel
 (SPDX: GPL-2.0-only OR BSD-3-Clause).

License: Expat
${_us_mit_text}

License: BSD-3-clause
${_us_bsd_text}

License: GPL-2
 On Debian systems, the complete text of the GNU General Public License version 2
 is in /usr/share/common-licenses/GPL-2. It is also in
 /usr/share/doc/uringscope/LICENSE, with the other licences of uringscope.
")
install(FILES ${PROJECT_BINARY_DIR}/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})

# --- CPack ----------------------------------------------------------------------------------
set(CPACK_GENERATOR DEB RPM)
set(CPACK_PACKAGE_NAME uringscope)
# project(VERSION) allows only dot-separated numbers, so the version is valid for both
# formats as it is (an RPM Version must not contain a hyphen).
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The uringscope authors")
set(CPACK_PACKAGE_CONTACT "${URINGSCOPE_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "io_uring tracer that explains what a program's requests do and what to fix")
# Pre-wrapped: CPack copies the lines as they are into the deb control file and the spec.
set(CPACK_PACKAGE_DESCRIPTION
"uringscope attaches to any process that uses io_uring, whatever its language
or runtime, and follows every request from submission to completion through
the kernel's io_uring tracepoints, with CO-RE eBPF programs that count and
aggregate inside the kernel. Its report gives per-ring and per-opcode latency,
punts to io-wq and their reasons, batching, CQ overflows, errors and stuck
requests, and ends with findings: a named problem, the numbers behind it, and
a fix. It can also write a JSON report, serve OpenMetrics and record a
per-request timeline for Perfetto.

This package holds one statically linked binary. It needs Linux 5.15 or later
with BTF (CONFIG_DEBUG_INFO_BTF), and root or CAP_BPF and CAP_PERFMON.")
# The packaged binary is stripped, as distributions ship them; the build tree keeps the
# unstripped one.
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CHECKSUM SHA256)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)

# The packages' architecture is the binary's, not the build host's (which CPack would ask
# dpkg and uname for): a cross build for arm64 makes _arm64.deb and .aarch64.rpm.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
  set(CPACK_RPM_PACKAGE_ARCHITECTURE aarch64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
  set(CPACK_RPM_PACKAGE_ARCHITECTURE x86_64)
else()
  message(FATAL_ERROR "Packaging.cmake: no package architecture for ${CMAKE_SYSTEM_PROCESSOR}")
endif()

# Debian
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # uringscope_0.1.0-1_amd64.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE ${URINGSCOPE_PACKAGE_RELEASE})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${URINGSCOPE_PACKAGE_MAINTAINER}")
# Man section 8 and root to run it: a system administration tool.
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Static: dpkg-shlibdeps would find nothing, and no Depends is the point.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "")
if(URINGSCOPE_PACKAGE_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${URINGSCOPE_PACKAGE_HOMEPAGE}")
endif()

# RPM
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)  # uringscope-0.1.0-1.x86_64.rpm
set(CPACK_RPM_PACKAGE_RELEASE ${URINGSCOPE_PACKAGE_RELEASE})
# An SPDX expression, as Fedora and openSUSE now want in License: (the operators are
# upper case in SPDX).
set(CPACK_RPM_PACKAGE_LICENSE "MIT AND (GPL-2.0-only OR BSD-3-Clause)")
set(CPACK_RPM_PACKAGE_GROUP "Development/Debuggers")
set(CPACK_RPM_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
# Not relocatable: man(1) finds the page only under the standard prefix.
set(CPACK_PACKAGE_RELOCATABLE OFF)
if(URINGSCOPE_PACKAGE_HOMEPAGE)
  set(CPACK_RPM_PACKAGE_URL "${URINGSCOPE_PACKAGE_HOMEPAGE}")
endif()
# rpmbuild's dependency generator stays on: on a static binary it finds no library,
# which the packaging test checks with rpm -qpR.
# The man directories belong to the distribution's filesystem package, not to us.
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
    /usr/share/man /usr/share/man/man8)
# LICENSE is marked %license (rpm -qL lists it); the Debian copyright file has no place
# in an RPM.
set(CPACK_RPM_USER_FILELIST
    "%license ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_DOCDIR}/LICENSE"
    "%exclude ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_DOCDIR}/copyright")
# No /usr/lib/.build-id links: rpm adds them where its macros say so (Fedora's do), and
# they only serve to find debug info, which a stripped binary does not ship; without
# this the file list would depend on the build host's rpm configuration.
set(CPACK_RPM_SPEC_MORE_DEFINE "%define _build_id_links none")

include(CPack)
