// SPDX-License-Identifier: MIT
// --list-ops against synthetic BTF built here with libbpf, never the host's vmlinux.
// The enumerator names and the "since" releases are copied from the UAPI header and
// docs/kernel-facts.md §3, not from the code under test.
#include "report/list_ops.h"
#include "probe/kernel_opcodes.h"

#include <bpf/btf.h>
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace uringscope::list_ops_test {
namespace {

struct BtfFree {
  void operator()(btf* b) const { btf__free(b); }
};
using BtfPtr = std::unique_ptr<btf, BtfFree>;

// enum io_uring_op as 5.6 had it: NOP (0) .. WRITE's predecessor READ (22).
const std::vector<std::string> kUpToRead = {
    "IORING_OP_NOP",          "IORING_OP_READV",         "IORING_OP_WRITEV",
    "IORING_OP_FSYNC",        "IORING_OP_READ_FIXED",    "IORING_OP_WRITE_FIXED",
    "IORING_OP_POLL_ADD",     "IORING_OP_POLL_REMOVE",   "IORING_OP_SYNC_FILE_RANGE",
    "IORING_OP_SENDMSG",      "IORING_OP_RECVMSG",       "IORING_OP_TIMEOUT",
    "IORING_OP_TIMEOUT_REMOVE", "IORING_OP_ACCEPT",      "IORING_OP_ASYNC_CANCEL",
    "IORING_OP_LINK_TIMEOUT", "IORING_OP_CONNECT",       "IORING_OP_FALLOCATE",
    "IORING_OP_OPENAT",       "IORING_OP_CLOSE",         "IORING_OP_FILES_UPDATE",
    "IORING_OP_STATX",        "IORING_OP_READ",
};

// A BTF with an int and `enum <enum_name>` holding `values`, in the order given.
BtfPtr make_btf(const std::string& enum_name,
                const std::vector<std::pair<std::string, long long>>& values,
                bool enum64 = false) {
  BtfPtr b(btf__new_empty());
  EXPECT_NE(b, nullptr);
  EXPECT_GT(btf__add_int(b.get(), "int", 4, BTF_INT_SIGNED), 0);
  if (enum64) {
    EXPECT_GT(btf__add_enum64(b.get(), enum_name.c_str(), 8, false), 0);
    for (const auto& [name, value] : values)
      EXPECT_EQ(btf__add_enum64_value(b.get(), name.c_str(), static_cast<__u64>(value)), 0);
  } else {
    EXPECT_GT(btf__add_enum(b.get(), enum_name.c_str(), 4), 0);
    for (const auto& [name, value] : values)
      EXPECT_EQ(btf__add_enum_value(b.get(), name.c_str(), value), 0);
  }
  return b;
}

std::vector<std::pair<std::string, long long>> up_to_read(bool with_last = true) {
  std::vector<std::pair<std::string, long long>> values;
  for (std::size_t i = 0; i < kUpToRead.size(); ++i)
    values.emplace_back(kUpToRead[i], static_cast<long long>(i));
  if (with_last) values.emplace_back("IORING_OP_LAST", 23);
  return values;
}

TEST(ListOps, KernelUpToReadMarksPresence) {
  BtfPtr b = make_btf("io_uring_op", up_to_read());
  std::vector<OpcodeRow> rows = opcode_table(kernel_opcodes(b.get()));
  ASSERT_EQ(rows.size(), 63u);  // the built-in table's 0..62; LAST is not a row
  EXPECT_TRUE(opcode_table_from_btf(rows));
  for (uint32_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].opcode, i);
    EXPECT_TRUE(rows[i].builtin);
    EXPECT_EQ(rows[i].in_kernel, i <= 22 ? OpPresence::Yes : OpPresence::No) << i;
  }
  EXPECT_EQ(rows[0].name, "NOP");
  EXPECT_EQ(rows[0].since, "5.1");
  EXPECT_EQ(rows[8].name, "SYNC_FILE_RANGE");
  EXPECT_EQ(rows[8].since, "5.2");
  EXPECT_EQ(rows[22].name, "READ");
  EXPECT_EQ(rows[22].since, "5.6");
  EXPECT_EQ(rows[23].name, "WRITE");
  EXPECT_EQ(rows[33].since, "5.8");   // TEE
  EXPECT_EQ(rows[40].since, "5.18");  // MSG_RING
  EXPECT_EQ(rows[47].since, "6.0");   // SEND_ZC
  EXPECT_EQ(rows[50].since, "6.7");   // WAITID: after READ_MULTISHOT, not the man page's 6.5
  EXPECT_EQ(rows[58].name, "RECV_ZC");
  EXPECT_EQ(rows[58].since, "6.15");
  EXPECT_EQ(rows[62].name, "PIPE");
  EXPECT_EQ(rows[62].since, "6.16");
}

TEST(ListOps, EnumeratorOrderDoesNotMatter) {
  auto values = up_to_read();
  std::swap(values[0], values[23]);  // LAST first, NOP last
  std::vector<OpcodeRow> rows = opcode_table(kernel_opcodes(make_btf("io_uring_op", values).get()));
  ASSERT_EQ(rows.size(), 63u);
  EXPECT_EQ(rows[0].in_kernel, OpPresence::Yes);
  EXPECT_EQ(rows[23].in_kernel, OpPresence::No);
}

TEST(ListOps, NewerKernelOpsKeepTheKernelsName) {
  auto values = up_to_read(false);
  values.emplace_back("IORING_OP_FUTURE", 70);
  values.emplace_back("IORING_OP_LAST", 71);
  std::vector<OpcodeRow> rows = opcode_table(kernel_opcodes(make_btf("io_uring_op", values).get()));
  ASSERT_EQ(rows.size(), 64u);
  const OpcodeRow& future = rows.back();
  EXPECT_EQ(future.opcode, 70u);
  EXPECT_EQ(future.name, "FUTURE");
  EXPECT_EQ(future.in_kernel, OpPresence::Yes);
  EXPECT_EQ(future.since, "");
  EXPECT_FALSE(future.builtin);
  EXPECT_EQ(rows[62].in_kernel, OpPresence::No);
}

TEST(ListOps, Enum64IsReadToo) {
  std::vector<OpcodeRow> rows = opcode_table(kernel_opcodes(make_btf("io_uring_op", up_to_read(), true).get()));
  ASSERT_EQ(rows.size(), 63u);
  EXPECT_EQ(rows[22].in_kernel, OpPresence::Yes);
  EXPECT_EQ(rows[23].in_kernel, OpPresence::No);
}

void expect_all_unknown(const std::vector<OpcodeRow>& rows) {
  ASSERT_EQ(rows.size(), 63u);
  EXPECT_FALSE(opcode_table_from_btf(rows));
  for (const OpcodeRow& row : rows) EXPECT_EQ(row.in_kernel, OpPresence::Unknown) << row.opcode;
  EXPECT_EQ(rows[22].name, "READ");
  EXPECT_EQ(rows[22].since, "5.6");
}

TEST(ListOps, NoEnumMeansUnknown) {
  // Another enum with io_uring-ish names is not the op enum.
  BtfPtr b = make_btf("io_uring_register_op", {{"IORING_REGISTER_BUFFERS", 0}});
  expect_all_unknown(opcode_table(kernel_opcodes(b.get())));
}

TEST(ListOps, EnumWithoutOpsMeansUnknown) {
  BtfPtr b = make_btf("io_uring_op", {{"IORING_OP_LAST", 0}, {"SOMETHING_ELSE", 1}});
  expect_all_unknown(opcode_table(kernel_opcodes(b.get())));
}

TEST(ListOps, NullBtfMeansUnknown) { expect_all_unknown(opcode_table(kernel_opcodes(nullptr))); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Columns: "#" right-aligned to 2, op left-aligned to 16 (FIXED_FD_INSTALL), "kernel"
// 6, "since" 5; indent 2, gap 2, trailing blanks trimmed.
TEST(ListOps, TextFromBtf) {
  BtfPtr b = make_btf("io_uring_op", up_to_read());
  std::ostringstream out;
  render_list_ops(out, opcode_table(kernel_opcodes(b.get())), "6.18.44", true);
  std::vector<std::string> lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u + 1u + 1u + 1u + 63u + 1u + 1u);
  EXPECT_EQ(lines[0], "io_uring opcodes (IORING_OP_*), kernel 6.18.44");
  EXPECT_EQ(lines[1], std::string(lines[0].size(), '='));
  EXPECT_EQ(lines[2],
            "source: the kernel's BTF (enum io_uring_op); \"since\" from the built-in table");
  EXPECT_EQ(lines[3], "");
  EXPECT_EQ(lines[4], "   #  op                kernel  since");
  EXPECT_EQ(lines[5], "   0  NOP               yes     5.1");
  EXPECT_EQ(lines[5 + 22], "  22  READ              yes     5.6");
  EXPECT_EQ(lines[5 + 23], "  23  WRITE             no      5.6");
  EXPECT_EQ(lines[5 + 54], "  54  FIXED_FD_INSTALL  no      6.8");
  EXPECT_EQ(lines[5 + 62], "  62  PIPE              no      6.16");
  EXPECT_EQ(lines[68], "");
  EXPECT_EQ(lines[69], "23 of 63 opcodes present on this kernel");
}

TEST(ListOps, TextNewerKernelOp) {
  auto values = up_to_read(false);
  values.emplace_back("IORING_OP_FUTURE", 70);
  std::ostringstream out;
  render_list_ops(out, opcode_table(kernel_opcodes(make_btf("io_uring_op", values).get())), "7.1.0", true);
  std::vector<std::string> lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 71u);
  EXPECT_EQ(lines[5 + 63], "  70  FUTURE            yes     ?");
  EXPECT_EQ(lines[70],
            "24 of 64 opcodes present on this kernel; 1 unknown to uringscope (filter them by "
            "number)");
}

TEST(ListOps, TextFromBuiltinTable) {
  std::ostringstream out;
  render_list_ops(out, opcode_table(kernel_opcodes(nullptr)), "5.15.0", false);
  std::vector<std::string> lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u + 2u + 1u + 1u + 63u + 1u + 1u);
  EXPECT_EQ(lines[0], "io_uring opcodes (IORING_OP_*), kernel 5.15.0");
  EXPECT_EQ(lines[2], "source: the built-in table, not the kernel: its BTF has no enum io_uring_op");
  EXPECT_EQ(lines[3], "        or could not be read, so the kernel column is unknown (?)");
  EXPECT_EQ(lines[4], "");
  EXPECT_EQ(lines[5], "   #  op                kernel  since");
  EXPECT_EQ(lines[6], "   0  NOP               ?       5.1");
  EXPECT_EQ(lines.back(), "63 opcodes in the built-in table");
}

TEST(ListOps, Json) {
  BtfPtr b = make_btf("io_uring_op", up_to_read());
  nlohmann::ordered_json j = list_ops_json(opcode_table(kernel_opcodes(b.get())), "6.18.44", true);
  EXPECT_EQ(j["kernel_release"], "6.18.44");
  EXPECT_EQ(j["source"], "btf");
  ASSERT_EQ(j["ops"].size(), 63u);
  EXPECT_EQ(j["ops"][22].dump(),
            R"({"opcode":22,"name":"READ","in_kernel":true,"since":"5.6","builtin":true})");
  EXPECT_EQ(j["ops"][23]["in_kernel"], false);

  nlohmann::ordered_json u = list_ops_json(opcode_table(kernel_opcodes(nullptr)), "", false);
  EXPECT_EQ(u["source"], "builtin");
  EXPECT_TRUE(u["ops"][0]["in_kernel"].is_null());

  auto values = up_to_read(false);
  values.emplace_back("IORING_OP_FUTURE", 70);
  nlohmann::ordered_json f =
      list_ops_json(opcode_table(kernel_opcodes(make_btf("io_uring_op", values).get())), "7.1.0", true);
  EXPECT_EQ(f["ops"].back().dump(),
            R"({"opcode":70,"name":"FUTURE","in_kernel":true,"since":null,"builtin":false})");
}

}  // namespace
}  // namespace uringscope::list_ops_test
