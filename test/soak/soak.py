#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""uringscope left running under churn: its memory stays flat, nothing is lost.

One uringscope -f -i 1 --metrics run over a workload that, for --seconds, churns rings
(loadgen churn), churns processes that each punt their reads to io-wq (short-lived
loadgen read-async processes, one after another, so io-wq worker threads come and go
with them), and keeps a NOP storm going beside them; then it goes quiet for a few seconds
and exits. Throughout, the endpoint is scraped and the tool's RSS sampled every second.

It checks, and prints what it measured:
  - after warm-up (the first quarter of the run), the RSS peak of the run's second half
    is within 10% of the peak of its first half;
  - no table of the tool refused a row (every *_full count of the final report is 0,
    and no in-flight request was evicted);
  - the live intervals add up to the final report's completions (within what their
    printed precision allows), and the last scrape, taken once the workload was quiet,
    equals the final report exactly (requests submitted and completed);
  - no counter series of the metrics ever went backwards, nor any counter family's sum.

  test/soak/soak.py [--build DIR] [--seconds N] [--port PORT] [--keep DIR]

The short form runs 180 s (the default); the long form is the same with --seconds 600
or more (bench/README.md, "Soak").
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

WARMUP_SHARE = 0.25
RSS_GROWTH_LIMIT = 1.10
QUIET_S = 4


def parse_args():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(here, "..", "..", "build"))
    p.add_argument("--seconds", type=int, default=180)
    p.add_argument("--port", type=int, default=19473)
    p.add_argument("--keep", help="keep the run's files in this directory")
    return p.parse_args()


def workload(loadgen, seconds, data):
    """The shell script uringscope -f runs: three kinds of churn, then quiet."""
    return f"""
{loadgen} -t {seconds} -q 32 -b 8 nop >/dev/null &
{loadgen} -t {seconds} -q 8 -b 4 churn >/dev/null &
end=$(($(date +%s) + {seconds}))
while [ "$(date +%s)" -lt "$end" ]; do
  {loadgen} -n 256 -q 16 -b 8 -f {data} -s 16 read-async >/dev/null || exit 1
done &
wait
sleep {QUIET_S}
"""


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)")


def counters_of(text):
    """Every sample of a counter or histogram family (cumulative by definition)."""
    kinds = {}
    values = {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(None, 3)
            kinds[name] = kind.strip()
            continue
        if line.startswith("#") or not line:
            continue
        m = SAMPLE.match(line)
        if not m:
            continue
        name = m.group(1)
        family = re.sub(r"_(total|bucket|count|sum|created)$", "", name)
        # The exposition names a counter's family with its _total (TYPE x_total counter),
        # a histogram's without its _bucket, _count and _sum.
        kind = kinds.get(name) or kinds.get(family)
        if kind in ("counter", "histogram") and not name.endswith("_created"):
            values[(family, name, m.group(2) or "")] = float(m.group(3))
    return values


class Sampler(threading.Thread):
    """Every second: the tool's RSS and one scrape (kept as scrape-NNNN.txt in `keep`)."""

    def __init__(self, pid, port, keep=None):
        super().__init__(daemon=True)
        self.pid, self.port, self.keep = pid, port, keep
        self.rss = []      # (seconds since start, KiB)
        self.scrapes = []  # (seconds since start, {series: value})
        self.failed_scrapes = 0
        self.stop = threading.Event()

    def run(self):
        start = time.monotonic()
        while not self.stop.wait(1.0):
            now = time.monotonic() - start
            kib = rss_kib(self.pid)
            if kib is None:
                return
            self.rss.append((now, kib))
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as r:
                    text = r.read().decode()
                self.scrapes.append((now, counters_of(text)))
                if self.keep:
                    with open(os.path.join(self.keep, f"scrape-{len(self.scrapes):04d}.txt"), "w") as f:
                        f.write(text)
            except OSError:
                self.failed_scrapes += 1


HEADER = re.compile(r"^-- \+[0-9.]+s\s+\S+\s+interval ([0-9.]+)(ns|us|ms|s) ")
SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
SUFFIX = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}


def live_completions(text):
    """Completions the live view printed, summed as rate x interval, and how far off that
    sum can be from the printed precision of each rate and interval length."""
    total = slack = 0.0
    interval = interval_unit = 0.0
    blocks = 0
    cqe_end = None
    for line in text.splitlines():
        if cqe_end is None and line.startswith("ring ") and "cqe/s" in line:
            cqe_end = line.index("cqe/s") + len("cqe/s")
            continue
        m = HEADER.match(line)
        if m:
            blocks += 1
            interval = float(m.group(1)) * SCALE[m.group(2)]
            digits = m.group(1).split(".")[1] if "." in m.group(1) else ""
            interval_unit = 10 ** -len(digits) * SCALE[m.group(2)]
            continue
        if cqe_end is None or not (line.startswith("#") or line.startswith("other rings")):
            continue
        field = line[:cqe_end].split()[-1]
        fm = re.fullmatch(r"([0-9.,]+)([kMG]?)", field)
        if not fm:
            continue
        number = fm.group(1).replace(",", "")
        decimals = len(number.split(".")[1]) if "." in number else 0
        rate = float(number) * SUFFIX[fm.group(2)]
        rate_unit = 10 ** -decimals * SUFFIX[fm.group(2)]
        total += rate * interval
        slack += 0.5 * rate_unit * interval + 0.5 * interval_unit * rate
    return total, slack, blocks


def check(ok, what, detail):
    print(f"{'ok  ' if ok else 'FAIL'} {what}: {detail}")
    return ok


def main():
    args = parse_args()
    if os.geteuid() != 0:
        sys.exit("soak.py: uringscope loads BPF programs; run it as root")
    uringscope = os.path.join(args.build, "uringscope")
    loadgen = os.path.join(args.build, "bench", "loadgen")
    for tool in (uringscope, loadgen):
        if not os.access(tool, os.X_OK):
            sys.exit(f"soak.py: {tool} is missing (build with -DURINGSCOPE_BENCH=ON)")
    work = args.keep or tempfile.mkdtemp(prefix="uringscope-soak.")
    os.makedirs(work, exist_ok=True)
    report = os.path.join(work, "report.json")
    script = workload(loadgen, args.seconds, os.path.join(work, "data"))
    with open(os.path.join(work, "live.txt"), "w") as live, \
         open(os.path.join(work, "stderr.txt"), "w") as err:
        tool = subprocess.Popen([uringscope, "-f", "-i", "1", "--metrics", f"127.0.0.1:{args.port}",
                                 f"--json={report}", "--", "sh", "-c", script],
                                stdout=live, stderr=err)
        sampler = Sampler(tool.pid, args.port, args.keep)
        sampler.start()
        status = tool.wait(timeout=args.seconds + 120)
        sampler.stop.set()
        sampler.join()
    with open(os.path.join(work, "live.txt")) as f:
        live_text = f.read()
    if status != 0:
        with open(os.path.join(work, "stderr.txt")) as f:
            sys.stderr.write(f.read())
        sys.exit(f"soak.py: uringscope exited with status {status} (files in {work})")
    with open(report) as f:
        final = json.load(f)

    good = True
    # Memory: flat after warm-up. The RSS breathes with the rings alive at each moment, so
    # flat means no trend: the peak of the second half of the run after warm-up against
    # the peak of the first.
    warm_at = args.seconds * WARMUP_SHARE
    mid_at = (warm_at + args.seconds) / 2
    first = [kib for t, kib in sampler.rss if warm_at <= t < mid_at]
    second = [kib for t, kib in sampler.rss if t >= mid_at]
    if len(first) < 3 or len(second) < 3:
        good = check(False, "RSS sampled", f"{len(sampler.rss)} samples")
    else:
        good &= check(max(second) <= max(first) * RSS_GROWTH_LIMIT, "RSS flat after warm-up",
                      f"peak {max(first) / 1024:.1f} MiB from {warm_at:.0f} s to {mid_at:.0f} s, "
                      f"{max(second) / 1024:.1f} MiB after, {sampler.rss[-1][1] / 1024:.1f} MiB "
                      f"at the end (limit {RSS_GROWTH_LIMIT:.2f}x; {len(sampler.rss)} samples)")

    # No table refused a row.
    tool_stats = final["tool_stats"]
    full = {k: v for k, v in tool_stats.items() if k.endswith("_full") and v}
    drops = final["counters"]["inflight_map_drops"]
    good &= check(not full and drops == 0, "no table refused a row",
                  f"{ {k: v for k, v in full.items()} or 'every *_full is 0'}, in-flight drops {drops}")

    # What it saw, for the record.
    rings = final["counters"]["rings_created"]
    completed = sum(op["completed"] for op in final["ops"])
    submitted = sum(op["submitted"] for op in final["ops"])
    workers = sum(w["distinct"] for w in final["workers"])
    pids = len(final["target"]["pids"])
    print(f"     saw: {rings:,} rings created, {submitted:,} requests submitted, {completed:,} "
          f"completed, {workers:,} io-wq workers over {len(final['workers']):,} processes "
          f"({pids} pids still listed), JSON {os.path.getsize(report):,} bytes")

    # The intervals add up to the final report.
    live_sum, slack, blocks = live_completions(live_text)
    good &= check(blocks >= args.seconds * 0.9 and abs(live_sum - completed) <= slack + blocks,
                  "live intervals add up",
                  f"{blocks} intervals sum to {live_sum:,.0f} completions, the report has "
                  f"{completed:,} (printed precision allows {slack:,.0f})")

    # Metrics: never backwards, and the quiet last scrape equals the report.
    scrapes = sampler.scrapes
    backwards = []
    for (t0, a), (t1, b) in zip(scrapes, scrapes[1:]):
        for key, value in b.items():
            if key in a and value < a[key]:
                backwards.append(f"{key[1]}{key[2]} {a[key]} -> {value} at {t1:.0f} s")
        sums_a, sums_b = {}, {}
        for key, value in a.items():
            sums_a[key[1]] = sums_a.get(key[1], 0) + value
        for key, value in b.items():
            sums_b[key[1]] = sums_b.get(key[1], 0) + value
        for name, value in sums_b.items():
            if name in sums_a and value < sums_a[name] - 1e-9 * sums_a[name]:
                backwards.append(f"sum of {name} {sums_a[name]} -> {value} at {t1:.0f} s")
    good &= check(len(scrapes) >= args.seconds * 0.9 and not backwards,
                  "metrics never go backwards",
                  f"{len(scrapes)} scrapes ({sampler.failed_scrapes} failed), "
                  f"{len(scrapes[-1][1]) if scrapes else 0} counter samples in the last"
                  + ("; " + "; ".join(backwards[:5]) if backwards else ""))
    if scrapes:
        last = scrapes[-1][1]
        m_sub = sum(v for k, v in last.items() if k[1] == "uringscope_requests_submitted_total")
        m_done = sum(v for k, v in last.items() if k[1] == "uringscope_requests_completed_total")
        good &= check(m_sub == submitted and m_done == completed, "last scrape equals the report",
                      f"submitted {m_sub:,.0f} / {submitted:,}, completed {m_done:,.0f} / {completed:,}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
