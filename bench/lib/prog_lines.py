#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Where a BPF program's time goes, by source line: perf's samples inside the program's
JIT image, mapped back through the line info the kernel keeps for it (jited_line_info,
one JIT address per line record, and bpftool's xlated dump for the source text).
bpftool prog profile needs hardware counters, which a VM like this one does not have;
cpu-clock samples from perf work anywhere.

usage: prog_lines.py PROG_ID SAMPLES_FILE [TOP]
  SAMPLES_FILE: one sampled instruction address (hex) per line, from
  `perf script -F ip,sym` lines whose symbol is this program.
Prints: samples, share of the program's samples, file:line and its source text.
"""
import bisect
import collections
import ctypes
import os
import re
import struct
import subprocess
import sys

BPF_PROG_GET_FD_BY_ID = 13
BPF_OBJ_GET_INFO_BY_FD = 15
SYS_BPF = {"x86_64": 321, "aarch64": 280}[os.uname().machine]
# struct bpf_prog_info offsets (include/uapi/linux/bpf.h, unchanged since 5.0).
NR_LINE_INFO, LINE_INFO = 148, 152
JITED_LINE_INFO, NR_JITED_LINE_INFO = 160, 168
LINE_INFO_REC_SIZE, JITED_LINE_INFO_REC_SIZE = 172, 176
INFO_SIZE = 256

libc = ctypes.CDLL(None, use_errno=True)


def prog_fd(prog_id):
    buf = ctypes.create_string_buffer(struct.pack("III", prog_id, 0, 0), 128)
    fd = libc.syscall(SYS_BPF, BPF_PROG_GET_FD_BY_ID, buf, 128)
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"program {prog_id}: {os.strerror(err)}")
    return fd


def prog_info(fd, info):
    attr = ctypes.create_string_buffer(struct.pack("IIQ", fd, INFO_SIZE, ctypes.addressof(info)), 128)
    if libc.syscall(SYS_BPF, BPF_OBJ_GET_INFO_BY_FD, attr, 128) < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def line_records(prog_id):
    """[(insn_off, jit_address)] in the kernel's order."""
    fd = prog_fd(prog_id)
    probe = ctypes.create_string_buffer(INFO_SIZE)
    prog_info(fd, probe)
    n_lines, = struct.unpack_from("I", probe.raw, NR_LINE_INFO)
    n_jited, = struct.unpack_from("I", probe.raw, NR_JITED_LINE_INFO)
    line_size, = struct.unpack_from("I", probe.raw, LINE_INFO_REC_SIZE)
    jited_size, = struct.unpack_from("I", probe.raw, JITED_LINE_INFO_REC_SIZE)
    lines = ctypes.create_string_buffer(max(1, n_lines * line_size))
    jited = ctypes.create_string_buffer(max(1, n_jited * jited_size))
    want = bytearray(INFO_SIZE)
    struct.pack_into("<IQ", want, NR_LINE_INFO, n_lines, ctypes.addressof(lines))
    struct.pack_into("<QI", want, JITED_LINE_INFO, ctypes.addressof(jited), n_jited)
    struct.pack_into("<II", want, LINE_INFO_REC_SIZE, line_size, jited_size)
    info = ctypes.create_string_buffer(bytes(want), INFO_SIZE)
    prog_info(fd, info)
    os.close(fd)
    offs = [struct.unpack_from("I", lines.raw, i * line_size)[0] for i in range(n_lines)]
    addrs = [struct.unpack_from("Q", jited.raw, i * jited_size)[0] for i in range(n_jited)]
    return list(zip(offs, addrs))


def source_by_insn(prog_id):
    """insn index -> 'file:line  text', from bpftool's annotated xlated dump."""
    dump = subprocess.run(["bpftool", "prog", "dump", "xlated", "id", str(prog_id), "linum"],
                          capture_output=True, text=True, check=True).stdout
    out, pending = {}, None
    for line in dump.splitlines():
        if line.startswith(";"):
            where = re.search(r"\[file:(\S+) line_num:(\d+)", line)
            text = line[1:].split("[file:")[0].strip()
            pending = (f"{os.path.basename(where.group(1))}:{where.group(2)}" if where else "?",
                       text[:72])
            continue
        insn = re.match(r"\s*(\d+):", line)
        if insn and pending:
            out[int(insn.group(1))] = pending
            pending = None
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    prog_id, samples_file = int(sys.argv[1]), sys.argv[2]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    records = sorted(line_records(prog_id), key=lambda r: r[1])
    starts = [addr for _, addr in records]
    source = source_by_insn(prog_id)
    counts, total = collections.Counter(), 0
    with open(samples_file) as f:
        for line in f:
            at = bisect.bisect_right(starts, int(line.split()[0], 16)) - 1
            if at < 0:
                continue
            total += 1
            counts[source.get(records[at][0], ("?", f"insn {records[at][0]}"))] += 1
    for (where, text), n in counts.most_common(top):
        print(f"{n}\t{100 * n / total:.1f}\t{where}\t{text}")


if __name__ == "__main__":
    main()
