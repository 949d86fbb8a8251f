// SPDX-License-Identifier: MIT
// The display filter (-e): parsing, and what it keeps of hand-built snapshots and
// findings. Opcode numbers are the UAPI values (NOP 0, OPENAT 18, READ 22, WRITE 23,
// SEND 26), written out here rather than looked up through the code under test.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "util/error.h"
#include "report/views.h"

namespace uringscope::filter_test {
namespace {

constexpr uint32_t kNop = 0, kOpenat = 18, kRead = 22, kWrite = 23, kSend = 26;

using Ops = std::set<uint32_t>;

std::string usage_error(const std::vector<std::string>& exprs) {
  try {
    parse_display_filter(exprs);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

// --- parsing ------------------------------------------------------------------------

TEST(DisplayFilterParse, Nothing) {
  DisplayFilter f = parse_display_filter({});
  EXPECT_TRUE(f.empty());
  EXPECT_FALSE(f.has_op_condition());
  EXPECT_EQ(display_filter_text(f), "");
}

TEST(DisplayFilterParse, OpList) {
  DisplayFilter f = parse_display_filter({"op=READ,WRITE"});
  EXPECT_EQ(f.ops, Ops({kRead, kWrite}));
  EXPECT_FALSE(f.punt);
  EXPECT_FALSE(f.error);
  EXPECT_TRUE(f.has_op_condition());
}

TEST(DisplayFilterParse, OpNamesAnyCaseWithOrWithoutPrefix) {
  EXPECT_EQ(parse_display_filter({"op=read,Write"}).ops, Ops({kRead, kWrite}));
  EXPECT_EQ(parse_display_filter({"op=IORING_OP_READ"}).ops, Ops({kRead}));
  EXPECT_EQ(parse_display_filter({"op=ioring_op_openat"}).ops, Ops({kOpenat}));
  EXPECT_EQ(parse_display_filter({"OP=nop"}).ops, Ops({kNop}));
  EXPECT_EQ(parse_display_filter({"op= read , write "}).ops, Ops({kRead, kWrite}));
}

TEST(DisplayFilterParse, OpNumbers) {
  EXPECT_EQ(parse_display_filter({"op=22,23"}).ops, Ops({kRead, kWrite}));
  EXPECT_EQ(parse_display_filter({"op=0"}).ops, Ops({kNop}));
  EXPECT_EQ(parse_display_filter({"op=read,22"}).ops, Ops({kRead}));
  // Beyond the built-in table (a newer kernel's op): by number, or as the tables print it.
  EXPECT_EQ(parse_display_filter({"op=70"}).ops, Ops({70}));
  EXPECT_EQ(parse_display_filter({"op=OP_70"}).ops, Ops({70}));
  EXPECT_EQ(parse_display_filter({"op=255"}).ops, Ops({255}));
  // The catch-all row is printed as OTHER (slot 79).
  EXPECT_EQ(parse_display_filter({"op=other"}).ops, Ops({79}));
}

TEST(DisplayFilterParse, PuntAndError) {
  DisplayFilter p = parse_display_filter({"punt"});
  EXPECT_TRUE(p.punt);
  EXPECT_FALSE(p.error);
  EXPECT_FALSE(p.has_op_condition());
  DisplayFilter e = parse_display_filter({"error"});
  EXPECT_TRUE(e.error);
  EXPECT_FALSE(e.punt);
}

TEST(DisplayFilterParse, RepeatsCombineWithAnd) {
  DisplayFilter f = parse_display_filter({"punt", "op=READ", "error", "punt"});
  EXPECT_EQ(f.ops, Ops({kRead}));
  EXPECT_TRUE(f.punt);
  EXPECT_TRUE(f.error);
  // Two op= lists: the ops in both.
  EXPECT_EQ(parse_display_filter({"op=READ,WRITE", "op=write,send"}).ops, Ops({kWrite}));
  EXPECT_EQ(parse_display_filter({"op=READ,WRITE,SEND", "op=SEND,READ", "op=READ"}).ops,
            Ops({kRead}));
}

TEST(DisplayFilterParse, Errors) {
  EXPECT_EQ(usage_error({"op=REED"}), "-e: unknown op 'REED' (see --list-ops)");
  EXPECT_EQ(usage_error({"op=READ,bogus"}), "-e: unknown op 'bogus' (see --list-ops)");
  EXPECT_EQ(usage_error({"op=256"}), "-e: unknown op '256' (see --list-ops)");
  EXPECT_EQ(usage_error({"op=-1"}), "-e: unknown op '-1' (see --list-ops)");
  EXPECT_EQ(usage_error({"op=22x"}), "-e: unknown op '22x' (see --list-ops)");
  // IORING_OP_LAST is a count, not an op.
  EXPECT_EQ(usage_error({"op=LAST"}), "-e: unknown op 'LAST' (see --list-ops)");
  EXPECT_EQ(usage_error({"foo"}), "-e: unknown filter 'foo': use op=NAME[,NAME], file=GLOB, punt, error or all");
  EXPECT_EQ(usage_error({"punt=1"}),
            "-e: unknown filter 'punt=1': use op=NAME[,NAME], file=GLOB, punt, error or all");
  EXPECT_EQ(usage_error({"op"}), "-e: unknown filter 'op': use op=NAME[,NAME], file=GLOB, punt, error or all");
  EXPECT_EQ(usage_error({""}), "-e: unknown filter '': use op=NAME[,NAME], file=GLOB, punt, error or all");
  EXPECT_EQ(usage_error({"punt", "errors"}),
            "-e: unknown filter 'errors': use op=NAME[,NAME], file=GLOB, punt, error or all");
  EXPECT_EQ(usage_error({"op="}), "-e: op= needs at least one op name");
  EXPECT_EQ(usage_error({"op=READ,,WRITE"}), "-e: empty op name in 'op=READ,,WRITE'");
  EXPECT_EQ(usage_error({"op=READ,"}), "-e: empty op name in 'op=READ,'");
  EXPECT_EQ(usage_error({"op=read", "op=write"}),
            "-e: op=READ and op=WRITE have no op in common (list several ops as op=A,B)");
}

TEST(DisplayFilterParse, CanonicalText) {
  EXPECT_EQ(display_filter_text(parse_display_filter({"error", "op=write,read", "punt"})),
            "op=READ,WRITE punt error");
  EXPECT_EQ(display_filter_text(parse_display_filter({"op=70"})), "op=OP_70");
}

// --- snapshots ------------------------------------------------------------------------
//
// ring 0  READ 10 submitted, 5 punted; WRITE 8 submitted, 3 errors; NOP 4, nothing else
// ring 1  READ 20 submitted, clean; OPENAT 6 submitted, 2 punted, 1 rejected before issue
// ring 2  NOP 1
// merged  NOP 5; OPENAT 6 (punt 2, failed 1); READ 30 (punt 5); WRITE 8 (errors 3)
// leaks   ring 0 READ, ring 1 READ, ring 1 OPENAT, ring 2 NOP; 3 suspected + 1 pending

OpStats op(uint32_t opcode, uint64_t submitted, uint64_t punted = 0, uint64_t errors = 0,
           uint64_t failed = 0) {
  OpStats o;
  o.opcode = opcode;
  o.submitted = submitted;
  o.completed = submitted;
  o.punted = punted;
  o.errors = errors;
  o.failed = failed;
  return o;
}

Ring ring(uint32_t id, uint64_t submissions, std::vector<OpStats> ops) {
  Ring r;
  r.id = id;
  r.pid = 1000 + id;
  r.counters.submissions = submissions;
  r.counters.completions = submissions;
  r.counters.cq_overflows = id + 1;
  r.ops = std::move(ops);
  return r;
}

PendingRequest pending(uint32_t ring_id, uint32_t opcode, uint64_t user_data) {
  PendingRequest p;
  p.ring = ring_id;
  p.opcode = opcode;
  p.age_ns = 1'000'000'000;
  p.user_data = user_data;
  return p;
}

Snapshot fixture() {
  Snapshot s;
  s.wall_ns = 1'000'000'000;
  s.rings = {ring(0, 22, {op(kNop, 4), op(kRead, 10, 5), op(kWrite, 8, 0, 3)}),
             ring(1, 26, {op(kOpenat, 6, 2, 0, 1), op(kRead, 20)}),
             ring(2, 1, {op(kNop, 1)})};
  s.leak.threshold_ns = 500'000'000;
  s.leak.suspected = 3;
  s.leak.pending = 1;
  s.leak.oldest_ns = 1'000'000'000;
  s.leak.requests = {pending(0, kRead, 1), pending(1, kRead, 2), pending(1, kOpenat, 3),
                     pending(2, kNop, 4)};
  s.tool.rings_full = 7;
  aggregate(s);
  return s;
}

std::vector<uint32_t> opcodes(const std::vector<OpStats>& ops) {
  std::vector<uint32_t> out;
  for (const OpStats& o : ops) out.push_back(o.opcode);
  return out;
}

std::vector<uint64_t> leak_ids(const Snapshot& s) {
  std::vector<uint64_t> out;
  for (const PendingRequest& p : s.leak.requests) out.push_back(p.user_data);
  return out;
}

using Codes = std::vector<uint32_t>;

// What no filter touches: every ring, its counters, the totals, the leak totals, the tool.
void expect_ring_level_kept(const Snapshot& f) {
  ASSERT_EQ(f.rings.size(), 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(f.rings[i].id, i);
    EXPECT_EQ(f.rings[i].counters.cq_overflows, i + 1);
  }
  EXPECT_EQ(f.rings[0].counters.submissions, 22u);
  EXPECT_EQ(f.rings[1].counters.submissions, 26u);
  EXPECT_EQ(f.totals.submissions, 22u + 26u + 1u);
  EXPECT_EQ(f.totals.cq_overflows, 1u + 2u + 3u);
  EXPECT_EQ(f.leak.suspected, 3u);
  EXPECT_EQ(f.leak.pending, 1u);
  EXPECT_EQ(f.tool.rings_full, 7u);
  // Whole values, so that a field added to any of them cannot go unchecked.
  const Snapshot s = fixture();
  for (uint32_t i = 0; i < 3; ++i) {
    Ring got = f.rings[i], want = s.rings[i];
    got.ops.clear();
    want.ops.clear();
    EXPECT_EQ(got, want) << "ring " << i;
  }
  EXPECT_EQ(f.totals, s.totals);
  EXPECT_EQ(f.tool, s.tool);
  EXPECT_EQ(f.kernel, s.kernel);
  EXPECT_EQ(f.target, s.target);
  EXPECT_EQ(f.workers, s.workers);
  EXPECT_EQ(f.leak.oldest_ns, s.leak.oldest_ns);
}

TEST(DisplayFilterSnapshot, EmptyFilterKeepsEverything) {
  Snapshot s = fixture();
  Snapshot f = filter_snapshot(s, {});
  EXPECT_EQ(opcodes(f.ops), Codes({kNop, kOpenat, kRead, kWrite}));
  EXPECT_EQ(opcodes(f.rings[0].ops), Codes({kNop, kRead, kWrite}));
  EXPECT_EQ(leak_ids(f), std::vector<uint64_t>({1, 2, 3, 4}));
  expect_ring_level_kept(f);
  EXPECT_EQ(f, s);
}

TEST(DisplayFilterSnapshot, ByOp) {
  Snapshot f = filter_snapshot(fixture(), parse_display_filter({"op=read"}));
  EXPECT_EQ(opcodes(f.rings[0].ops), Codes({kRead}));
  EXPECT_EQ(opcodes(f.rings[1].ops), Codes({kRead}));
  EXPECT_TRUE(f.rings[2].ops.empty());  // the ring itself stays
  ASSERT_EQ(opcodes(f.ops), Codes({kRead}));
  EXPECT_EQ(f.ops[0].submitted, 10u + 20u);
  EXPECT_EQ(f.ops[0].punted, 5u);
  EXPECT_EQ(leak_ids(f), std::vector<uint64_t>({1, 2}));
  expect_ring_level_kept(f);
}

TEST(DisplayFilterSnapshot, ByNumberSameAsByName) {
  Snapshot a = filter_snapshot(fixture(), parse_display_filter({"op=22,23"}));
  EXPECT_EQ(opcodes(a.ops), Codes({kRead, kWrite}));
  EXPECT_EQ(opcodes(a.rings[0].ops), Codes({kRead, kWrite}));
  EXPECT_EQ(opcodes(a.rings[1].ops), Codes({kRead}));
}

TEST(DisplayFilterSnapshot, Punt) {
  Snapshot f = filter_snapshot(fixture(), parse_display_filter({"punt"}));
  EXPECT_EQ(opcodes(f.rings[0].ops), Codes({kRead}));
  EXPECT_EQ(opcodes(f.rings[1].ops), Codes({kOpenat}));  // ring 1's READ had no punts
  EXPECT_TRUE(f.rings[2].ops.empty());
  ASSERT_EQ(opcodes(f.ops), Codes({kOpenat, kRead}));
  // The merged READ row keeps all 30 READs (5 punted), not only ring 0's 10.
  EXPECT_EQ(f.ops[1].submitted, 30u);
  EXPECT_EQ(f.ops[1].punted, 5u);
  EXPECT_EQ(leak_ids(f), std::vector<uint64_t>({1, 3}));
  expect_ring_level_kept(f);
}

TEST(DisplayFilterSnapshot, Error) {
  Snapshot f = filter_snapshot(fixture(), parse_display_filter({"error"}));
  EXPECT_EQ(opcodes(f.rings[0].ops), Codes({kWrite}));
  // OPENAT had no error CQEs but one request rejected before issue.
  EXPECT_EQ(opcodes(f.rings[1].ops), Codes({kOpenat}));
  EXPECT_TRUE(f.rings[2].ops.empty());
  EXPECT_EQ(opcodes(f.ops), Codes({kOpenat, kWrite}));
  EXPECT_EQ(leak_ids(f), std::vector<uint64_t>({3}));
  expect_ring_level_kept(f);
}

TEST(DisplayFilterSnapshot, OpAndPunt) {
  Snapshot f = filter_snapshot(fixture(), parse_display_filter({"op=READ,WRITE", "punt"}));
  EXPECT_EQ(opcodes(f.rings[0].ops), Codes({kRead}));
  EXPECT_TRUE(f.rings[1].ops.empty());
  EXPECT_EQ(opcodes(f.ops), Codes({kRead}));
  EXPECT_EQ(leak_ids(f), std::vector<uint64_t>({1}));
}

TEST(DisplayFilterSnapshot, NothingMatches) {
  Snapshot f = filter_snapshot(fixture(), parse_display_filter({"op=SEND"}));
  for (const Ring& r : f.rings) EXPECT_TRUE(r.ops.empty());
  EXPECT_TRUE(f.ops.empty());
  EXPECT_TRUE(f.leak.requests.empty());
  expect_ring_level_kept(f);
}

// --- findings -------------------------------------------------------------------------

Finding finding(std::string id, std::string tag, std::optional<uint32_t> ring_id,
                std::optional<uint32_t> opcode) {
  Finding f;
  f.tag = std::move(tag);
  f.ring = ring_id;
  f.opcode = opcode;
  f.message = std::move(id);  // the test's handle on it
  return f;
}

// f1 PUNT ring 0 READ      (row: 5 punted)
// f2 ERRORS ring 0 WRITE   (row: 3 errors)
// f3 BATCH ring 1          (no op)
// f4 PUNT, no ring, no op  (run level)
// f5 LEAK ring 1 READ      (row: clean)
// f6 POLL-RETRY ring 1 OPENAT (row: 2 punted, 1 rejected)
// f7 a finding on merged READ (no ring: 30 READs, 5 punted, no errors)
// f8 LEAK ring 2 OPENAT    (ring 2 has no OPENAT row)
// f9 LEAK ring 9 READ      (no such ring)
std::vector<Finding> all_findings() {
  return {finding("f1", "PUNT", 0, kRead),        finding("f2", "ERRORS", 0, kWrite),
          finding("f3", "BATCH", 1, std::nullopt), finding("f4", "PUNT", std::nullopt, std::nullopt),
          finding("f5", "LEAK", 1, kRead),        finding("f6", "POLL-RETRY", 1, kOpenat),
          finding("f7", "PUNT", std::nullopt, kRead), finding("f8", "LEAK", 2, kOpenat),
          finding("f9", "LEAK", 9, kRead)};
}

std::vector<std::string> ids(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const Finding& f : findings) out.push_back(f.message);
  return out;
}

using Ids = std::vector<std::string>;

std::vector<std::string> kept(const std::vector<std::string>& exprs) {
  return ids(filter_findings(all_findings(), parse_display_filter(exprs), fixture()));
}

TEST(DisplayFilterFindings, EmptyFilterKeepsAll) {
  EXPECT_EQ(kept({}), Ids({"f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9"}));
}

TEST(DisplayFilterFindings, ByOpDropsOplessFindings) {
  // READ findings whatever their row's numbers; rows that do not exist match op= alone.
  EXPECT_EQ(kept({"op=READ"}), Ids({"f1", "f5", "f7", "f9"}));
  EXPECT_EQ(kept({"op=openat"}), Ids({"f6", "f8"}));
  EXPECT_EQ(kept({"op=18"}), Ids({"f6", "f8"}));
  EXPECT_EQ(kept({"op=SEND"}), Ids({}));
}

TEST(DisplayFilterFindings, PuntKeepsOplessFindings) {
  // f5: ring 1's READ row had no punts; f8, f9: no row, so no punts.
  EXPECT_EQ(kept({"punt"}), Ids({"f1", "f3", "f4", "f6", "f7"}));
}

TEST(DisplayFilterFindings, Error) {
  // f7: merged READ had no errors.
  EXPECT_EQ(kept({"error"}), Ids({"f2", "f3", "f4", "f6"}));
}

TEST(DisplayFilterFindings, OpAndPunt) {
  EXPECT_EQ(kept({"op=READ", "punt"}), Ids({"f1", "f7"}));
}

TEST(DisplayFilterFindings, OrderAndContentKept) {
  std::vector<Finding> in = all_findings();
  in[0].suggestion = "fix it";
  in[0].severity = Severity::Crit;
  std::vector<Finding> out = filter_findings(in, parse_display_filter({"op=READ"}), fixture());
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out[0].suggestion, "fix it");
  EXPECT_EQ(out[0].severity, Severity::Crit);
  EXPECT_EQ(out[0].ring, std::optional<uint32_t>(0));
}

}  // namespace
}  // namespace uringscope::filter_test
