# SPDX-License-Identifier: MIT
"""Reads bench/scaling.sh's raw CSV (PREFIX-*.csv) into the figures' numbers: per point,
the median over pairs of the nanoseconds uringscope adds per request (each traced run
against the mean of the baselines right before and after it, as bench/analyze.py pairs
run.sh's runs), and the medians of the memory, attach and report measurements.
"""
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import analyze  # noqa: E402  (the one pairing rule for every bench figure)

CURVE_ORDER = ["depth", "rings", "kinds", "threads", "iowq"]
# URINGSCOPE_TABLE_SIZES' defaults (bpf/uringscope.h, src/loader/tracer.h).
DEFAULT_ROWS = {"rings": 1024, "opstats": 4096, "inflight": 32768, "udata": 65536,
                "threads": 8192, "files": 4096, "names": 4096}


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def x_key(x):
    try:
        return (0, float(x))
    except ValueError:
        return (1, {"same": 0, "other": 1}.get(x, 2))


def per_thread(curve, x):
    """Threads run side by side: a thread's own time per request is threads x the
    aggregate's, and so is what the tracer adds to it."""
    return int(x) if curve == "threads" else 1


def tool_counts(runs, workload, tracer):
    """Medians over the traced runs of what the tool's JSON report counted, per request:
    the boundary's timer looks, requests the in-flight table could not track."""
    out = {}
    for key in ("timer_looks", "inflight_drops", "tool_losses"):
        vals = [float(r[key]) / max(int(r["ops"]), 1) for r in runs
                if r["workload"] == workload and r["tracer"] == tracer and r.get(key)]
        out[key] = statistics.median(vals) if vals else None
    return out


def main_tracer(points):
    """The tracer the figures show: the default mode (uringscope or uringscope-json)."""
    tracers = {t for (_c, _x, t) in points}
    for t in ("uringscope-json", "uringscope"):
        if t in tracers:
            return t
    return sorted(tracers)[0] if tracers else None


def paired_points(prefix, max_spread):
    """{(curve, x, tracer): {...}} for every tracer of the paired curves."""
    runs = read_csv(prefix + "-runs.csv")
    pairs, dropped, foreign = analyze.pairs_from_runs(runs, max_spread)
    out = {}
    for (workload, tracer), ps in pairs.items():
        curve, x = workload.split(":", 1)
        k = per_thread(curve, x)
        base = [float(r["ops_per_sec"]) for r in runs
                if r["workload"] == workload and r["tracer"] == "none"]
        ns = [p["ns_added"] * k for p in ps]
        out[(curve, x, tracer)] = {
            "curve": curve, "x": x, "tracer": tracer, "n": len(ps),
            "dropped": dropped.get((workload, tracer), 0),
            "foreign": foreign.get((workload, tracer), 0),
            "ns": statistics.median(ns), "ns_min": min(ns), "ns_max": max(ns),
            "cpu": statistics.median([p["cpu_added"] for p in ps]),
            "base_ns": statistics.median([p["base_ns"] * k for p in ps]),
            "base_ops": statistics.median(base) if base else None,
            "rel": statistics.median([p["rel"] for p in ps]),
            **tool_counts(runs, workload, tracer),
        }
    for (workload, tracer), n in list(dropped.items()) + list(foreign.items()):
        curve, x = workload.split(":", 1)
        out.setdefault((curve, x, tracer), {"curve": curve, "x": x, "tracer": tracer, "n": 0,
                                            "dropped": dropped.get((workload, tracer), 0),
                                            "foreign": foreign.get((workload, tracer), 0)})
    return out


def curve(points, name, tracer=None):
    tracer = tracer or main_tracer(points)
    rows = [p for (c, _x, t), p in points.items() if c == name and t == tracer and p["n"]]
    return sorted(rows, key=lambda p: x_key(p["x"]))


def medians(rows, keys, value):
    """{keys tuple: median of value} over rows grouped by keys (numbers as floats)."""
    groups = {}
    for r in rows:
        try:
            v = float(r[value])
        except ValueError:
            continue
        groups.setdefault(tuple(r[k] for k in keys), []).append(v)
    return {k: statistics.median(v) for k, v in groups.items()}


def memory(prefix):
    return read_csv(prefix + "-memory.csv")


def attach(prefix):
    rows = read_csv(prefix + "-attach.csv")
    return rows, medians(rows, ("mode", "processes", "rings_each"), "attach_ms")


def report(prefix):
    rows = read_csv(prefix + "-report.csv")
    return (medians(rows, ("rings", "format"), "report_ms"),
            medians(rows, ("rings", "format"), "exit_ms"),
            medians(rows, ("rings", "format"), "report_bytes"))


SUBMIT_PROGRAMS = ("usc_sub_req", "usc_sub_sqe", "usc_sub_sqe_old", "floor_submit_req",
                   "floor_submit_sqe")


def programs(prefix):
    """{(curve, x, tracer): [(program, ns per run, runs per request, ns per request)]};
    requests are loadgen's over the time between the two snapshots (its rate times that
    time). The programs also run for every other process's io_uring events (and return
    at the target filter): other_share() says how many of the submit runs were not
    loadgen's."""
    out = {}
    for r in read_csv(prefix + "-programs.csv"):
        cnt, ns = int(r["run_cnt"]), int(r["run_time_ns"])
        reqs = float(r["loadgen_ops_per_sec"]) * int(r["window_ms"]) / 1000
        if cnt and reqs:
            out.setdefault((r["curve"], r["x"], r["tracer"]), []).append(
                (r["program"], ns / cnt, cnt / reqs, ns / reqs))
    return out


def other_share(progs):
    """{key: share of the submit program's runs that were not loadgen's requests}"""
    out = {}
    for key, rows in progs.items():
        per_req = [r[2] for r in rows if r[0] in SUBMIT_PROGRAMS]
        if per_req:
            out[key] = 1 - 1 / per_req[0] if per_req[0] else None
    return out


def machine(prefix):
    path = prefix + "-machine.tsv"
    return analyze.read_kv(path) if os.path.exists(path) else {}
