// SPDX-License-Identifier: MIT
// JSON schema 2. Within a schema fields are only added, never renamed or removed, so
// every key here is a promise to scripts; docs/json.md describes each one.
#include <variant>

#include "util/errno_name.h"
#include "util/format.h"
#include "uringscope/fields.h"
#include "uringscope/opcodes.h"
#include "report/report.h"
#include "report/boundary_json.h"
#include "report/files_json.h"
#include "report/hazards_json.h"
#include "report/json_rings.h"
#include "report/json_sink.h"

namespace uringscope {
namespace {

using Json = nlohmann::ordered_json;


Json target_json(const TargetInfo& target) {
  return Json{{"mode", target_mode_name(target.mode)},
              {"pids", target.pids},
              {"pids_omitted", target.pids_omitted},
              {"command", target.command}};
}

}  // namespace

double bytes_per_second(uint64_t bytes, uint64_t window_ns) {
  return window_ns ? static_cast<double>(bytes) * 1e9 / static_cast<double>(window_ns) : 0.0;
}

namespace {

Json ops_json(const std::vector<OpStats>& ops, uint64_t window_ns) {
  Json out = Json::array();
  for (const OpStats& op : ops) out.push_back(op_json(op, window_ns));
  return out;
}

Json tool_stats_json(const ToolStats& tool) {
  Json out = Json::object();
  for (const ToolField& field : kToolFields) out[field.name] = tool.*field.member;
  return out;
}

Json punt_reasons_json(const PuntReasons& r) {
  Json out = Json::object();
  for (const PuntReasonField& field : kPuntReasonFields) out[field.name] = r.*field.member;
  return out;
}

// The number for scripts that compare against <errno.h>, the name for people.
Json errnos_json(const std::vector<ErrnoCount>& errnos) {
  Json out = Json::array();
  for (const ErrnoCount& e : errnos)
    out.push_back(Json{{"errno", e.err}, {"name", errno_name(e.err)}, {"count", e.count}});
  return out;
}

Json pending_request_json(const PendingRequest& r) {
  // user_data is often a pointer: the integer is exact (uint64), the hex string is what
  // a debugger or a log line shows.
  return Json{{"ring", r.ring},
              {"op", opcode_name(r.opcode)},
              {"opcode", r.opcode},
              {"age_ns", r.age_ns},
              {"user_data", r.user_data},
              {"user_data_hex", format_hex(r.user_data)},
              {"where", request_where_name(r.where)},
              {"abandoned", r.abandoned},
              {"waiting", r.waiting},
              {"file", r.file.empty() ? Json(nullptr) : Json(r.file)}};
}

Json workers_json(const std::vector<ProcessWorkers>& workers) {
  Json out = Json::array();
  for (const ProcessWorkers& w : workers)
    out.push_back(Json{{"pid", w.pid}, {"distinct", w.distinct}});
  return out;
}

}  // namespace

nlohmann::ordered_json kernel_json(const KernelInfo& kernel) {
  Json features = Json::object();
  Json detail = Json::object();
  for (const FeatureState& f : kernel.features) {
    features[f.name] = f.enabled;
    detail[f.name] = f.detail;
  }
  return Json{{"release", kernel.release},
              {"tier", std::string(tier_name(kernel.tier))},
              {"features", std::move(features)},
              {"feature_detail", std::move(detail)}};
}

namespace {

bool is_hazard_counter(const CounterField& field) {
  return field.member == &Counters::hazard_overlaps || field.member == &Counters::hazard_bufreg ||
         field.member == &Counters::hazard_unmap;
}

}  // namespace

Json counters_json(const Counters& counters) {
  Json out = Json::object();
  for (const CounterField& field : kCounterFields) {
    if (!is_hazard_counter(field)) out[field.name] = counters.*field.member;
  }
  // The contract names trace_rb_drops among the counters. Only --trace sends records
  // through a BPF ring buffer, and its drops are not per ring: render_json() puts the
  // run's count in the top-level counters; per ring it is 0, a true count (no ring's
  // records are told apart when the buffer is full). It keeps its place before the
  // hazard counters, which came later.
  out["trace_rb_drops"] = uint64_t{0};
  for (const CounterField& field : kCounterFields) {
    if (is_hazard_counter(field)) out[field.name] = counters.*field.member;
  }
  return out;
}

namespace {

// The run's counters: the hazard_* counts (--check) are 0 when the mode was off, and
// hazards.available says whether it was on.
Json run_counters_json(const Snapshot& snap) {
  Json out = counters_json(snap.totals);
  out["trace_rb_drops"] = snap.tool.trace_drops;
  out["hazard_overlaps"] = snap.hazards.overlaps;
  out["hazard_bufreg"] = snap.hazards.bufreg;
  out["hazard_unmap"] = snap.hazards.unmap;
  return out;
}

}  // namespace

Json op_json(const OpStats& op, uint64_t window_ns) {
  Json out = Json{{"op", opcode_name(op.opcode)}, {"opcode", op.opcode}};
  for (const OpCounterField& field : kOpCounterFields) {
    out[field.name] = op.*field.member;
    // What is derived from a counter follows it (schema order).
    if (field.member == &OpStats::punted) {
      out["punt_pct"] = op.punt_pct();
      out["punt_reasons"] = punt_reasons_json(op.punt_reasons);
    } else if (field.member == &OpStats::errors) {
      out["errnos"] = errnos_json(op.errnos);
    } else if (field.member == &OpStats::bytes) {
      out["bytes_per_request"] = op.bytes_per_request();
      out["bytes_per_sec"] = bytes_per_second(op.bytes, window_ns);
    }
  }
  add_histogram_fields(out, op.latency);
  return out;
}

Json ring_json(const Ring& ring, uint64_t window_ns) {
  Json flag_names = Json::array();
  for (const std::string& name : setup_flag_names(ring.setup_flags)) flag_names.push_back(name);
  return Json{{"id", ring.id},
              // null rather than -1: an unknown fd is not a number a script should use.
              {"fd", ring.fd < 0 ? Json(nullptr) : Json(ring.fd)},
              {"pid", ring.pid},
              {"comm", ring.comm},
              {"sq_entries", ring.sq_entries},
              {"cq_entries", ring.cq_entries},
              {"flags", ring.setup_flags},
              {"flag_names", std::move(flag_names)},
              {"sqpoll", ring.sqpoll()},
              // null when no SQPOLL thread was seen, like fd: 0 is no thread id.
              {"sq_tid", ring.sq_tid ? Json(ring.sq_tid) : Json(nullptr)},
              {"source", ring_source_name(ring.source)},
              {"destroyed", ring.destroyed},
              {"fold", fold_scope_name(ring.fold)},
              {"folded_rings", ring.folded_rings},
              {"avg_batch", ring.avg_batch()},
              {"counters", counters_json(ring.counters)},
              // A ring destroyed mid-window moved its bytes while it lived.
              {"ops", ops_json(ring.ops, ring.observed_ns ? ring.observed_ns : window_ns)},
              {"files", files_json(ring.files)}};
}

Json leak_json(const LeakInfo& leak) {
  Json requests = Json::array();
  for (const PendingRequest& r : leak.requests) requests.push_back(pending_request_json(r));
  Json samples = Json::array();
  for (const WaitingSample& s : leak.waiting_samples)
    samples.push_back(Json{{"at_ns", s.at_ns}, {"requests", s.requests}});
  return Json{{"threshold_ns", leak.threshold_ns},
              {"suspected", leak.suspected},
              {"pending", leak.pending},
              {"oldest_ns", leak.oldest_ns},
              {"requests", std::move(requests)},
              {"waiting_samples", std::move(samples)}};
}

Json finding_json(const Finding& finding) {
  Json evidence = Json::object();
  for (const Evidence& e : finding.evidence) {
    std::visit([&](const auto& value) { evidence[e.key] = value; }, e.value);
  }
  Json out{{"tag", finding.tag},
              {"severity", severity_name(finding.severity)},
              {"ring", finding.ring ? Json(*finding.ring) : Json(nullptr)},
              {"op", finding.opcode ? Json(opcode_name(*finding.opcode)) : Json(nullptr)},
              {"opcode", finding.opcode ? Json(*finding.opcode) : Json(nullptr)},
              {"message", finding.message},
              {"suggestion", finding.suggestion},
              {"evidence", std::move(evidence)}};
  // A group (one cause on many rings): every ring in its evidence, its worst members as
  // findings of their own.
  if (finding.grouped()) {
    out["evidence"]["rings"] = finding.rings;
    Json worst = Json::array();
    for (const Finding& member : finding.worst) worst.push_back(finding_json(member));
    out["worst"] = std::move(worst);
  }
  return out;
}

namespace {

void emit_json_report(JsonSink& sink, const Snapshot& snap, const std::vector<Finding>& findings,
                      const JsonReportOptions& opts) {
  sink.member("tool", "uringscope");
  sink.member("schema", kJsonSchema);
  sink.member("tool_version", snap.tool_version);
  sink.member("wall_ns", snap.wall_ns);
  sink.member("ncpus", snap.ncpus);
  sink.member("kernel", kernel_json(snap.kernel));
  sink.member("target", target_json(snap.target));
  sink.member("counters", run_counters_json(snap));
  sink.member("ops", ops_json(snap.ops, snap.wall_ns));
  // One ring at a time: the largest part of a report never exists whole in memory.
  JsonRingChoice choice = choose_json_rings(snap, findings, opts.rings);
  sink.begin_array("rings");
  for (const Ring* ring : choice.written) sink.element(ring_json(*ring, snap.wall_ns));
  sink.end_array();
  sink.member("rings_omitted", std::move(choice.omitted));
  // The leak scan always runs, so leak is always present and its zeros do mean "none
  // found". hazards always has its counts, with "available" saying whether --check was
  // on; end_to_end's "available": false says "not measured in this run" (the kernel's CQE
  // order could not be learned), where zeros would read as "measured, nothing waited".
  sink.member("leak", leak_json(snap.leak));
  sink.member("workers", workers_json(snap.workers));
  sink.member("tool_stats", tool_stats_json(snap.tool));
  sink.member("hazards", hazards_json(snap.hazards));
  sink.member("end_to_end", end_to_end_json(snap, &choice.written));
  sink.begin_array("findings");
  for (const Finding& f : findings) sink.element(finding_json(f));
  sink.end_array();
  if (opts.diff) sink.member("diff", *opts.diff);
  // Last, once every string has been through the sink.
  sink.member("invalid_utf8_replaced", sink.replaced());
}

}  // namespace

Json render_json(const Snapshot& snap, const std::vector<Finding>& findings,
                 const JsonReportOptions& opts) {
  JsonDocumentSink sink;
  emit_json_report(sink, snap, findings, opts);
  return sink.take();
}

void write_json_report(std::ostream& out, const Snapshot& snap, const std::vector<Finding>& findings,
                       const JsonReportOptions& opts) {
  JsonStreamSink sink(out);
  emit_json_report(sink, snap, findings, opts);
  sink.finish();
  out << '\n';
}

}  // namespace uringscope
