# SPDX-License-Identifier: MIT
# CMake toolchain file: builds uringscope for arm64 (aarch64) on a Debian x86-64 host,
# with Debian's own cross toolchain and the arm64 libraries installed through multiarch
# (packaging/install-deps.sh --arch arm64 installs both).
#
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=packaging/aarch64-linux-gnu.cmake \
#         -DURINGSCOPE_STATIC=ON -DCMAKE_BUILD_TYPE=Release
#   (packaging/build.sh --arch arm64 does this and builds the packages)
#
# Multiarch keeps the arm64 libraries beside the host's, under /usr/lib/aarch64-linux-gnu,
# with the headers shared in /usr/include: the root is the host's own (no sysroot), and
# CMAKE_LIBRARY_ARCHITECTURE is what makes find_library, find_package and the
# compilers look in the arm64 directories instead of the x86-64 ones.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# pkg-config would otherwise answer with the host's .pc files (libbpf, liburing): only
# arm64's and the architecture-independent ones.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# The build runs arm64 programs: gtest_discover_tests lists each test binary's tests
# after linking it, and ctest runs the unit tests. Debian's qemu-user-static runs them
# on the host (the dynamic ones find arm64's loader and libraries through multiarch).
find_program(URINGSCOPE_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(URINGSCOPE_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${URINGSCOPE_QEMU_AARCH64})
endif()
