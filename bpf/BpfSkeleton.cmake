# bpf_skeleton(<target> NAME <skel-name> SOURCES <a.bpf.c> ...)
#
# Compiles each BPF C file with clang (-target bpf, CO-RE, BTF), links them into one BPF
# object with `bpftool gen object` (so each concern keeps its own file while userspace
# sees one skeleton), strips DWARF (BTF stays: CO-RE needs it) and generates
# `<skel-name>.skel.h`. <target> is an INTERFACE library whose include directory holds
# the skeleton header.

find_program(CLANG_BPF NAMES clang REQUIRED)
find_program(BPFTOOL NAMES bpftool PATHS /usr/sbin /usr/local/sbin REQUIRED)
find_program(LLVM_STRIP NAMES llvm-strip llvm-strip-14 llvm-strip-15 llvm-strip-16 REQUIRED)

# The BPF object is built for the architecture the binary runs on (CMAKE_SYSTEM_PROCESSOR
# is the target's when cross-compiling): its vmlinux.h, the __TARGET_ARCH_* macros of
# libbpf's bpf_tracing.h (pt_regs of the uprobes) and the fentry on the syscall entry
# (bpf/rings.bpf.c) all differ per architecture.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(BPF_TARGET_ARCH x86)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  set(BPF_TARGET_ARCH arm64)
else()
  message(FATAL_ERROR "uringscope: no checked-in vmlinux.h for ${CMAKE_SYSTEM_PROCESSOR} "
                      "(generate one with bpf/vmlinux/gen-vmlinux.sh)")
endif()

execute_process(COMMAND ${CLANG_BPF} --version OUTPUT_VARIABLE _clang_version_text)
string(REGEX MATCH "version ([0-9]+)" _ "${_clang_version_text}")
if(CMAKE_MATCH_1 AND CMAKE_MATCH_1 LESS 11)
  message(FATAL_ERROR "uringscope: clang ${CMAKE_MATCH_1} is too old for CO-RE BPF (need 11+)")
endif()

function(bpf_skeleton target)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;DEPENDS" ${ARGN})
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/bpf)
  file(MAKE_DIRECTORY ${out_dir})
  set(objects "")
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(stem ${src} NAME_WE)
    set(obj ${out_dir}/${stem}.bpf.o)
    add_custom_command(
      OUTPUT ${obj}
      COMMAND ${CLANG_BPF} -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_${BPF_TARGET_ARCH}
              -Wall -Werror -Wno-unused-function
              -I${PROJECT_SOURCE_DIR}/bpf
              -I${PROJECT_SOURCE_DIR}/bpf/vmlinux/${BPF_TARGET_ARCH}
              -MD -MF ${obj}.d
              -c ${src} -o ${obj}
      DEPFILE ${obj}.d
      DEPENDS ${src} ${ARG_DEPENDS}
      COMMENT "BPF ${stem}.bpf.c"
      VERBATIM)
    list(APPEND objects ${obj})
  endforeach()

  set(linked ${out_dir}/${ARG_NAME}.bpf.o)
  set(skel ${out_dir}/${ARG_NAME}.skel.h)
  add_custom_command(
    OUTPUT ${linked} ${skel}
    COMMAND ${BPFTOOL} gen object ${linked}.tmp ${objects}
    COMMAND ${LLVM_STRIP} -g ${linked}.tmp -o ${linked}
    COMMAND sh -c "\"$0\" gen skeleton \"$1\" name \"$2\" > \"$3\"" ${BPFTOOL} ${linked} ${ARG_NAME} ${skel}.tmp
    COMMAND ${CMAKE_COMMAND} -E rename ${skel}.tmp ${skel}
    DEPENDS ${objects}
    COMMENT "BPF link + skeleton ${ARG_NAME}"
    VERBATIM)
  add_custom_target(${target}_gen DEPENDS ${skel})
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_gen)
  target_include_directories(${target} INTERFACE ${out_dir})
endfunction()
