# Third-party dependencies. The tool links only libbpf (and through it libelf and zlib);
# fmt is used header-only, CLI11 and nlohmann_json are header-only.

find_package(PkgConfig REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_path(FMT_INCLUDE_DIR fmt/format.h REQUIRED)

add_library(us::libbpf INTERFACE IMPORTED)
if(URINGSCOPE_STATIC)
  # A static binary needs the archives, and libelf's own dependency (zlib) after it.
  find_library(LIBBPF_A NAMES libbpf.a REQUIRED)
  find_library(LIBELF_A NAMES libelf.a REQUIRED)
  find_library(LIBZ_A NAMES libz.a REQUIRED)
  target_link_libraries(us::libbpf INTERFACE ${LIBBPF_A} ${LIBELF_A} ${LIBZ_A})
else()
  pkg_check_modules(LIBBPF REQUIRED IMPORTED_TARGET libbpf>=1.0)
  target_link_libraries(us::libbpf INTERFACE PkgConfig::LIBBPF)
endif()
target_include_directories(us::libbpf INTERFACE ${FMT_INCLUDE_DIR})
