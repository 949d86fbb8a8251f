// SPDX-License-Identifier: MIT
// The boundary's liburing source without a kernel: the struct io_uring offsets the uprobes
// read (checked against liburing's own header), finding liburing in a process's maps, and
// how the report and JSON say which source a number came from.
#include <gtest/gtest.h>
#include <liburing.h>

#include <cstddef>
#include <sstream>
#include <string>

#include "os/shared_libraries.h"
#include "report/boundary_json.h"
#include "report/report.h"
#include "support/fixtures.h"
#include "uringscope/abi.h"
// The BPF side's own constants: #defines only, readable from C++.
#include "constants.bpf.h"

namespace uringscope {
namespace {

TEST(LiburingAbi, TheOffsetsTheUprobesReadAreLiburings) {
  EXPECT_EQ(offsetof(struct io_uring, ring_fd), static_cast<std::size_t>(US_LU_RING_FD_OFF));
  EXPECT_EQ(offsetof(struct io_uring, flags), static_cast<std::size_t>(US_LU_FLAGS_OFF));
  EXPECT_EQ(offsetof(struct io_uring, cq.cqes), static_cast<std::size_t>(US_LU_CQ_CQES_OFF));
  EXPECT_EQ(static_cast<unsigned>(IORING_SETUP_CQE32), US_SETUP_CQE32);
}

TEST(LiburingMaps, FindsEachLiburingOnceAndSkipsDeletedAndLookalikes) {
  const std::string maps =
      "7f00-7f01 r--p 00000000 fe:01 123 /usr/lib/x86_64-linux-gnu/liburing.so.2.3\n"
      "7f01-7f02 r-xp 00001000 fe:01 123 /usr/lib/x86_64-linux-gnu/liburing.so.2.3\n"
      "7f02-7f03 r-xp 00000000 fe:01 124 /opt/app/lib/liburing.so.2 (deleted)\n"
      "7f03-7f04 r-xp 00000000 fe:01 125 /opt/app/lib/liburing-ffi.so.2\n"
      "7f04-7f05 r-xp 00000000 fe:01 126 /opt/app/lib/liburing.so.2\n"
      "7ffd-7ffe rw-p 00000000 00:00 0 [stack]\n";
  EXPECT_EQ(liburing_in_maps(maps), (std::vector<std::string>{
                                        "/usr/lib/x86_64-linux-gnu/liburing.so.2.3",
                                        "/opt/app/lib/liburing.so.2"}));
  EXPECT_TRUE(liburing_in_maps("").empty());
}

TEST(LiburingSource, TheHeaderLineSaysWhichSourcesAndWhyNot) {
  Snapshot snap;
  LiburingUprobes& lu = snap.liburing;
  EXPECT_EQ(boundary_sources_line(snap),
            "boundary: the rings' indices (--liburing adds uprobes on a shared liburing)");
  lu.tried = true;
  lu.why_not = "no shared liburing.so found for the targets (linked statically, inlined, or not used)";
  EXPECT_EQ(boundary_sources_line(snap),
            "boundary: the rings' indices only; liburing uprobes: no shared liburing.so found for "
            "the targets (linked statically, inlined, or not used)");
  lu.libraries = {"/usr/lib/x86_64-linux-gnu/liburing.so.2"};
  lu.functions = 8;
  snap.rings.resize(1);
  EXPECT_EQ(boundary_sources_line(snap),
            "boundary: the rings' indices only; liburing uprobes on "
            "/usr/lib/x86_64-linux-gnu/liburing.so.2 saw no call (liburing linked statically, "
            "inlined, or not used)");
  snap.rings[0].boundary.lu_submit_calls = 1;
  EXPECT_EQ(boundary_sources_line(snap),
            "boundary: the rings' indices, and uprobes on /usr/lib/x86_64-linux-gnu/liburing.so.2 "
            "(8 liburing calls)");
}

TEST(LiburingSource, PerRingCallsAndExactLagInJsonAndText) {
  Snapshot snap;
  snap.boundary_measured = true;
  snap.liburing = {true, {"/lib/liburing.so.2"}, 8, ""};
  Ring ring;
  ring.id = 4;
  RingBoundary& b = ring.boundary;
  b.lu_submit_calls = 30;
  b.lu_submit_sqes = 60;
  b.lu_submit_max = 4;
  b.lu_cqes_handed = 30;
  b.lu_reap_lag = report_test::uniform_histogram(25, 50'000'000);
  snap.rings = {ring};
  const auto j = end_to_end_json(snap);
  EXPECT_EQ(j.at("uprobes").at("attached"), true);
  EXPECT_EQ(j.at("uprobes").at("calls"), 8);
  EXPECT_FALSE(j.at("uprobes").contains("detail"));
  const auto& lu = j.at("rings").at(0).at("liburing");
  EXPECT_EQ(lu.at("submit_calls"), 30);
  EXPECT_DOUBLE_EQ(lu.at("sqes_per_call").get<double>(), 2.0);
  EXPECT_EQ(lu.at("max_sqes_per_call"), 4);
  EXPECT_EQ(lu.at("reap_lag").at("watched"), 25);
  EXPECT_EQ(lu.at("reap_lag").at("avg_ns"), 50'000'000);
  std::ostringstream out;
  render_boundary(out, snap.rings[0], {});
  EXPECT_NE(out.str().find("30 io_uring_submit*() calls, 2.0 SQEs per call (max 4); 30 CQEs "
                           "handed over by waiting calls, exact reap lag"),
            std::string::npos)
      << out.str();
  snap.liburing = {true, {}, 0, "why"};
  EXPECT_EQ(end_to_end_json(snap).at("uprobes").at("detail"), "why");
}

}  // namespace
}  // namespace uringscope
