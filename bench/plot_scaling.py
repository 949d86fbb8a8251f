#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Draws bench/scaling.sh's raw CSV as the figures of docs/overhead.md ("How the cost
grows") and prints the numbers behind them as Markdown.

    bench/plot_scaling.py PREFIX [--images DIR] [--markdown FILE] [--max-base-spread P]

PREFIX is what scaling.sh wrote (e.g. bench/results/2026-12-03-scaling): PREFIX-runs.csv,
-programs.csv, -memory.csv, -maps.csv, -attach.csv, -report.csv, -machine.tsv. Figures go
to --images (default docs/images/): scaling-depth.png, scaling-rings.png,
scaling-kinds.png, scaling-threads.png, memory-tables.png, attach-time.png,
report-time.png; a figure whose CSV is missing is skipped. Needs matplotlib (Debian:
python3-matplotlib).
"""
import argparse
import os
import sys

import scaling_data as sd

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot_scaling.py: matplotlib is missing (apt install python3-matplotlib)")

TRACED, BASE = "#1f77b4", "#7f7f7f"


def source_note(fig, prefix, machine, what="median of paired runs, bars: range"):
    fig.text(0.01, 0.005, f"{os.path.basename(prefix)}: {machine.get('date', '?')[:10]}, "
             f"{machine.get('nproc', '?')} vCPUs {machine.get('cpu', '')}, kernel "
             f"{machine.get('kernel', '?')}; {what}", fontsize=7, color="#555555")


def save(fig, path, prefix, machine, what="median of paired runs, bars: range"):
    """Every figure ends the same way: where its numbers come from, then the PNG."""
    source_note(fig, prefix, machine, what)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def paired_figure(points, name, xlabel, title, path, prefix, machine, log_x=True):
    rows = sd.curve(points, name)
    if not rows:
        return False
    xs = [float(r["x"]) for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.8))
    ns = [r["ns"] for r in rows]
    a.errorbar(xs, ns, yerr=[[r["ns"] - r["ns_min"] for r in rows], [r["ns_max"] - r["ns"] for r in rows]],
               marker="o", color=TRACED, capsize=3, label="uringscope -p: ns added per request")
    a.plot(xs, [r["cpu"] for r in rows], marker="x", linestyle=":", color=TRACED, alpha=0.7,
           label="... loadgen CPU ns added per request")
    a.set_ylim(bottom=0, top=max(max(r["ns_max"] for r in rows), max(r["cpu"] for r in rows)) * 1.15)
    a.set_title("what uringscope adds", fontsize=10)
    a.set_ylabel("ns per request")
    b.plot(xs, [r["base_ns"] for r in rows], marker="o", color=BASE, label="no tracer")
    b.plot(xs, [r["base_ns"] + r["ns"] for r in rows], marker="o", color=TRACED, label="uringscope -p")
    b.set_ylim(bottom=0)
    b.set_title("time per request, with and without it", fontsize=10)
    for ax in (a, b):
        if log_x:
            ax.set_xscale("log", base=2)
        ax.set_xticks(xs)
        ax.set_xticklabels([r["x"] for r in rows])
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower left" if ax is a else "upper left")
    fig.suptitle(title, fontsize=11)
    return save(fig, path, prefix, machine)


def threads_figure(points, progs, path, prefix, machine):
    groups = [("threads", "1", "1 thread\n(CPU 0)"), ("threads", "2", "2 threads\n(CPUs 0, 1)"),
              ("iowq", "same", "punted reads,\nio-wq on CPU 0"),
              ("iowq", "other", "punted reads,\nio-wq on CPU 1")]
    tracer = sd.main_tracer(points)
    rows = [(label, points.get((c, x, tracer))) for c, x, label in groups]
    rows = [(label, r) for label, r in rows if r and r["n"]]
    if not rows:
        return False
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    idx = range(len(rows))
    a.bar([i - 0.2 for i in idx], [r["ns"] for _l, r in rows], width=0.4, color=TRACED,
          yerr=[[r["ns"] - r["ns_min"] for _l, r in rows], [r["ns_max"] - r["ns"] for _l, r in rows]],
          capsize=3, label="ns added per request, per thread")
    a.bar([i + 0.2 for i in idx], [r["cpu"] for _l, r in rows], width=0.4, color="#aec7e8",
          label="loadgen CPU ns added per request")
    a.set_xticks(list(idx))
    a.set_xticklabels([label for label, _r in rows], fontsize=8)
    a.set_ylabel("ns per request")
    a.set_title("what uringscope adds", fontsize=10)
    a.legend(fontsize=8)
    a.grid(axis="y", alpha=0.3)
    names = ["usc_sub_req", "usc_cqe", "usc_punt", "usc_enter", "usc_tw_run", "usc_sched"]
    keys = [(c, x, tracer) for c, x, _l in groups if (c, x, tracer) in progs]
    width = 0.8 / max(len(keys), 1)
    for k, key in enumerate(keys):
        per = {p[0]: p[1] for p in progs[key]}
        b.bar([i + k * width for i in range(len(names))], [per.get(n, 0) for n in names], width=width,
              label=dict(((c, x, tracer), l.replace("\n", " ")) for c, x, l in groups)[key])
    b.set_xticks([i + 0.4 - width / 2 for i in range(len(names))])
    b.set_xticklabels(names, fontsize=7, rotation=20)
    b.set_ylabel("ns per program run (bpf_stats)")
    b.set_title("per program, one run each", fontsize=10)
    b.legend(fontsize=7)
    b.grid(axis="y", alpha=0.3)
    fig.suptitle("Many CPUs: 1 vs 2 submitting threads, and completions on another CPU", fontsize=11)
    return save(fig, path, prefix, machine, "left: median of paired runs, bars: range; right: one bpf_stats run each")


def memory_figure(rows, path, prefix, machine):
    if not rows:
        return False
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    for table in dict.fromkeys(r["table"] for r in rows):
        rs = sorted((r for r in rows if r["table"] == table), key=lambda r: int(r["rows"]))
        default = sd.DEFAULT_ROWS.get(table, 1)
        xs = [int(r["rows"]) / default for r in rs]
        label = f"{table} (default {default:,})"
        a.plot(xs, [int(r["map_bytes"]) / 2**20 for r in rs], marker="o", label=label)
        b.plot(xs, [int(r["peak_rss_kib"]) / 1024 for r in rs], marker="o", label=label)
    a.set_ylabel("BPF map memory, MiB (fdinfo memlock)")
    b.set_ylabel("uringscope peak RSS, MiB")
    for ax in (a, b):
        ax.set_xscale("log", base=2)
        ax.set_xticks([0.25, 1, 4, 16])
        ax.set_xticklabels(["1/4", "1", "4", "16"])
        ax.set_xlabel("one table's rows, times its default (the others at theirs)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        ax.set_ylim(bottom=0)
    fig.suptitle("Memory against URINGSCOPE_TABLE_SIZES", fontsize=11)
    return save(fig, path, prefix, machine, "one run each, -p on a NOP storm for 3 s")


def attach_figure(rows, med, path, prefix, machine):
    if not rows:
        return False
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.8))
    box = {(r["processes"], r["rings_each"]): int(r["box_rings"]) for r in rows}
    for mode, label in (("all", "uringscope -a"), ("pid", "uringscope -p (one holder)")):
        ps = sorted({int(p) for (m, p, r) in med if m == mode and r == "1"})
        a.plot(ps, [med[(mode, str(p), "1")] for p in ps], marker="o", label=label)
        rs = sorted({int(r) for (m, p, r) in med if m == mode and p == "1"})
        b.plot(rs, [med[(mode, "1", str(r))] for r in rs], marker="o", label=label)
    a.set_xlabel("processes added to the box, one ring each")
    b.set_xlabel("rings held by one process")
    for ax in (a, b):
        ax.set_xscale("log")
        ax.set_ylabel("ms from start to 'attached'")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    most = max(box.values()) if box else 0
    fig.suptitle(f"Attach time against what is already on the box (up to {most} rings in all)", fontsize=11)
    return save(fig, path, prefix, machine, "median of the trials")


def report_figure(med, exit_med, path, prefix, machine):
    if not med:
        return False
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for fmt, label in (("text", "text report"), ("text-all", "text, --rings all"), ("json", "--json=FILE")):
        rs = sorted({int(r) for (r, f) in med if f == fmt})
        if not rs:
            continue
        ax.plot(rs, [med[(str(r), fmt)] for r in rs], marker="o", label=f"{label}: written")
        ax.plot(rs, [exit_med[(str(r), fmt)] for r in rs], marker="x", linestyle=":", label=f"{label}: exited")
    ax.set_xscale("log")
    ax.set_xlabel("rings that did requests in the window")
    ax.set_ylabel("ms from SIGINT")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.suptitle("Report time against rings", fontsize=11)
    return save(fig, path, prefix, machine, "median of the trials")


def fmt(v, spec="{:.0f}"):
    return "n/a" if v is None else spec.format(v)


def paired_markdown(points):
    out = ["| curve | x | untraced ns/req | ns added/req [range] | loadgen CPU ns added | timer looks/req | "
           "untracked/req | pairs |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name in sd.CURVE_ORDER:
        for p in sorted((p for (c, _x, _t), p in points.items() if c == name),
                        key=lambda p: (p["tracer"], sd.x_key(p["x"]))):
            extra = (f"+{p['dropped']}" if p["dropped"] else "") + (f" -{p['foreign']} foreign" if p["foreign"] else "")
            if not p["n"]:
                out.append(f"| {name} ({p['tracer']}) | {p['x']} | | | | | | 0{extra} |")
                continue
            out.append(f"| {name} ({p['tracer']}) | {p['x']} | {fmt(p['base_ns'])} | {fmt(p['ns'])} "
                       f"[{fmt(p['ns_min'])}..{fmt(p['ns_max'])}] | {fmt(p['cpu'])} | "
                       f"{fmt(p.get('timer_looks'), '{:.4f}')} | {fmt(p.get('inflight_drops'), '{:.4f}')} | "
                       f"{p['n']}{extra} |")
    return out


def other_markdown(prefix):
    out = []
    progs = sd.programs(prefix)
    if progs:
        out += ["", "| point | tracer | program | ns/run | runs/request | ns/request |",
                "|---|---|---|---:|---:|---:|"]
        others = sd.other_share(progs)
        for (c, x, t), rows in progs.items():
            total = sum(r[3] for r in rows)
            if others.get((c, x, t)) is not None:
                out.append(f"| {c}:{x} | {t} | (submit runs that were not loadgen's: "
                           f"{others[(c, x, t)] * 100:.1f}%) | | | |")
            for name, ns_run, per_req, ns_req in sorted(rows, key=lambda r: -r[3]):
                out.append(f"| {c}:{x} | {t} | {name} | {ns_run:.0f} | {per_req:.3f} | {ns_req:.1f} |")
            out.append(f"| {c}:{x} | {t} | **all** | | | **{total:.0f}** |")
    mem = sd.memory(prefix)
    if mem:
        out += ["", "| table | rows | map memory MiB | RSS attached MiB (anon + mapped) | peak RSS MiB |",
                "|---|---:|---:|---:|---:|"]
        for r in mem:
            mib = lambda k: int(r[k]) / 1024  # noqa: E731
            out.append(f"| {r['table']} | {r['rows']} | {int(r['map_bytes']) / 2**20:.1f} | "
                       f"{mib('rss_attached_kib'):.1f} ({mib('rss_anon_kib'):.1f} + "
                       f"{mib('rss_file_kib') + mib('rss_shmem_kib'):.1f}) | {mib('peak_rss_kib'):.1f} |")
    rows, med = sd.attach(prefix)
    if rows:
        box = {(r["processes"], r["rings_each"]): r["box_rings"] for r in rows}
        procs = {(r["processes"], r["rings_each"]): r["box_processes"] for r in rows}
        out += ["", "| mode | processes added | rings each | processes on the box | rings on the box | attach ms (median) |",
                "|---|---:|---:|---:|---:|---:|"]
        for (mode, p, r), ms in sorted(med.items(), key=lambda kv: (kv[0][0], int(kv[0][2]), int(kv[0][1]))):
            out.append(f"| -{'a' if mode == 'all' else 'p'} | {p} | {r} | {procs[(p, r)]} | {box[(p, r)]} | {ms:.0f} |")
    written, exited, size = sd.report(prefix)
    if written:
        out += ["", "| rings | format | report written, ms | exited, ms | bytes |", "|---:|---|---:|---:|---:|"]
        for (r, f), ms in sorted(written.items(), key=lambda kv: (int(kv[0][0]), kv[0][1])):
            out.append(f"| {r} | {f} | {ms:.0f} | {exited[(r, f)]:.0f} | {size[(r, f)]:.0f} |")
    return out


def markdown(prefix, points):
    machine = sd.machine(prefix)
    out = [f"# Scaling run {os.path.basename(prefix)}", "",
           "Generated by `bench/plot_scaling.py` from the raw CSV beside this file.", "",
           "| | |", "|---|---|"]
    out += [f"| {k} | `{v}` |" for k, v in machine.items()]
    out += [""] + paired_markdown(points) + other_markdown(prefix)
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("prefix")
    ap.add_argument("--images", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "images"))
    ap.add_argument("--markdown")
    ap.add_argument("--max-base-spread", type=float)
    args = ap.parse_args()
    if not os.path.exists(args.prefix + "-machine.tsv"):
        sys.exit(f"plot_scaling.py: no {args.prefix}-machine.tsv: not a scaling.sh prefix")
    machine = sd.machine(args.prefix)
    spread = args.max_base_spread or float(machine.get("max_base_spread") or 15)
    points = sd.paired_points(args.prefix, spread)
    os.makedirs(args.images, exist_ok=True)
    img = lambda name: os.path.join(args.images, name)  # noqa: E731
    drawn = [name for name, ok in [
        ("scaling-depth.png", paired_figure(points, "depth", "requests in flight (all submitted in one io_uring_enter)",
                                            "NOPs: cost against in-flight depth", img("scaling-depth.png"), args.prefix, machine)),
        ("scaling-rings.png", paired_figure(points, "rings", "rings one thread cycles through (32 in flight on each)",
                                            "NOPs: cost against rings", img("scaling-rings.png"), args.prefix, machine)),
        ("scaling-kinds.png", paired_figure(points, "kinds", "distinct opcodes cycled through (all completing inline)",
                                            "Cost against distinct ops", img("scaling-kinds.png"), args.prefix, machine)),
        ("scaling-threads.png", threads_figure(points, sd.programs(args.prefix), img("scaling-threads.png"),
                                               args.prefix, machine)),
        ("memory-tables.png", memory_figure(sd.memory(args.prefix), img("memory-tables.png"), args.prefix, machine)),
        ("attach-time.png", attach_figure(*sd.attach(args.prefix), img("attach-time.png"), args.prefix, machine)),
        ("report-time.png", report_figure(*sd.report(args.prefix)[:2], img("report-time.png"), args.prefix, machine)),
    ] if ok]
    text = markdown(args.prefix, points)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    print(f"plot_scaling.py: wrote {', '.join(drawn) or 'no figures'} to {os.path.normpath(args.images)}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
