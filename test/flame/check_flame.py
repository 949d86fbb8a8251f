#!/usr/bin/env python3
"""Scores one weight's --folded and --flamegraph output of the injector's `files` run.

    check_flame.py WEIGHT GROUND_TRUTH REPORT.json OUT.folded BROWSER.html

GROUND_TRUTH holds the injector's GROUND-TRUTH lines: for count and bytes the folded
stacks must carry exactly its per-file requests and bytes and sum to its per-op totals
(the injector has no clock of its own, so time is held to the JSON report's latency
histograms instead). BROWSER.html is what headless Chromium dumped after harness.html
drove the SVG: every frame of the folded tree drawn at its share of the width, labels
that fit, a click that zooms, a reset that restores, a search that reports the share.
Prints one "ok"/"FAIL" line per check; exits 1 when any failed.
"""
import html
import json
import re
import sys

FRAME_HEIGHT = 16
MIN_WIDTH = 0.1  # px: the writer does not draw narrower frames
EPS = 0.011      # px: the SVG prints coordinates with two decimals

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def ground_truth(path):
    gt = {"ops": {}, "files": []}
    for line in open(path):
        if not line.startswith("GROUND-TRUTH "):
            continue
        words = line.split()[1:]
        fields = dict(w.split("=", 1) for w in words if "=" in w)
        if words[0].startswith("scenario="):
            gt["pid"] = int(fields["pid"])
        elif words[0] == "ring":
            gt["fd"] = int(fields["fd"])
        elif words[0].startswith("op="):
            gt["ops"][fields["op"]] = fields
        elif words[0] == "file":
            gt["files"].append(fields)
    return gt


def folded(path):
    stacks = []
    for line in open(path):
        frames, weight = line.rstrip("\n").rsplit(" ", 1)
        stacks.append((tuple(frames.split(";")), int(weight)))
    return stacks


def histogram_sum_bounds(row):
    """The exact latency sum lies within one ns per request of avg_ns * requests."""
    n = sum(row["log2_hist"])
    return row["avg_ns"] * n, n


def check_against_truth(weight, gt, report, stacks):
    ring_frame = re.compile(r"ring #\d+ \(pid %d, fd %d\)$" % (gt["pid"], gt["fd"]))
    check(all(s[0][0] == "inject" and ring_frame.match(s[0][1]) for s in stacks),
          "every stack is the injector's ring: comm;ring #N (pid %d, fd %d)" % (gt["pid"], gt["fd"]))
    by_stack = dict(stacks)
    rows = [r for ring in report["rings"] for r in ring["files"]]
    ring_name = stacks[0][0][1] if stacks else ""
    key = "requests" if weight == "count" else "bytes"
    for f in gt["files"]:
        if f["kind"] == "file":
            name = f["path"]
        else:
            named = [r["name"] for r in rows if r["ino"] == int(f["ino"]) and r["op"] == f["op"]]
            name = named[0] if named else "(no JSON row for ino %s)" % f["ino"]
        got = by_stack.get(("inject", ring_name, f["op"], name))
        check(got == int(f[key]),
              "%s stack inject;ring;%s;%s = %s (injector: %s)" % (weight, f["op"], name, got, f[key]))
    for op, fields in gt["ops"].items():
        truth = int(fields["completed"] if weight == "count" else fields["bytes"])
        got = sum(w for frames, w in stacks if frames[2] == op)
        check(got == truth, "%s stacks of %s sum to %d (injector: %d)" % (weight, op, got, truth))


def check_time(report, stacks):
    ops = [op for ring in report["rings"] for op in ring["ops"]]
    low, slack = 0, 0
    for op in ops:
        s, n = histogram_sum_bounds(op)
        low, slack = low + s, slack + n
    total = sum(w for _, w in stacks)
    check(low <= total <= low + slack,
          "time stacks sum to %d ns: the ops' latency sums (%d..%d)" % (total, low, low + slack))
    by_stack = dict(stacks)
    for ring in report["rings"]:
        for row in ring["files"]:
            s, n = histogram_sum_bounds(row)
            got = [w for frames, w in by_stack.items() if frames[2:] == (row["op"], row["name"])]
            check(len(got) == 1 and s <= got[0] <= s + n,
                  "time stack %s;%s = %s ns (JSON row: %d..%d)" % (row["op"], row["name"], got, s, s + n))


def expected_frames(stacks, inner_width):
    values = {("all",): sum(w for _, w in stacks)}
    for frames, w in stacks:
        for depth in range(1, len(frames) + 1):
            path = ("all",) + frames[:depth]
            values[path] = values.get(path, 0) + w
    total = values[("all",)]
    return total, sorted((len(p) - 1, p[-1], v) for p, v in values.items()
                         if total and v / total * inner_width >= MIN_WIDTH)


def depth_of(frame, root_y):
    return round((root_y - frame["y"]) / FRAME_HEIGHT)


def check_drawing(dump, stacks):
    inner, pad = dump["inner_width"], dump["pad"]
    frames = dump["frames"]
    check(dump["script_ran"], "the SVG's own script ran in the browser (zoom, search defined)")
    root_y = max(f["y"] for f in frames)
    total, expected = expected_frames(stacks, inner)
    drawn = sorted((depth_of(f, root_y), f["name"], f["v"]) for f in frames)
    check(drawn == expected, "%d frames drawn, one per node of the folded tree (%d)"
          % (len(drawn), len(expected)))
    bad_width = [f["name"] for f in frames if abs(f["w"] - f["v"] / total * inner) > EPS
                 or abs(f["drawn_w"] - f["w"]) > 0.5]
    check(not bad_width, "every frame's width is its share of %d px: %s" % (inner, bad_width))
    outside = [f["name"] for f in frames if f["x"] < pad - EPS or f["x"] + f["w"] > pad + inner + EPS]
    check(not outside, "every frame inside the graph: %s" % outside)
    bad_label = [f["name"] for f in frames if f["label"] and (
        f["label_px"] > f["w"] - 6 + 0.01 or not (
            f["label"] == f["name"] or
            (f["label"].endswith("..") and f["name"].startswith(f["label"][:-2]))))]
    check(not bad_label, "labels are the name or a prefix with '..', inside their frame: %s" % bad_label)
    unlabelled = [f["name"] for f in frames if f["w"] >= 120 and not f["label"]]
    check(not unlabelled, "every frame of 120 px or more has a label: %s" % unlabelled)
    untitled = [f["name"] for f in frames if not f["title"].startswith(f["name"] + " (")]
    check(not untitled, "every frame's tooltip names it: %s" % untitled)
    return total, root_y


def check_zoom(dump, name, root_y):
    inner, pad = dump["inner_width"], dump["pad"]
    before = dump["frames"]
    targets = [i for i, f in enumerate(before) if f["name"] == name]
    check(len(targets) == 1 and "zoomed" in dump, "one %s frame to click on" % name)
    if len(targets) != 1 or "zoomed" not in dump:
        return
    t = before[targets[0]]
    t_depth = depth_of(t, root_y)
    wrong = []
    for b, z in zip(before, dump["zoomed"]):
        depth = depth_of(b, root_y)
        inside = b["x"] >= t["x"] - EPS and b["x"] + b["w"] <= t["x"] + t["w"] + EPS
        covers = b["x"] <= t["x"] + EPS and b["x"] + b["w"] >= t["x"] + t["w"] - EPS
        if depth <= t_depth and covers:
            ok = not z["hidden"] and abs(z["x"] - pad) <= EPS and abs(z["w"] - inner) <= EPS
        elif depth > t_depth and inside:
            ok = not z["hidden"] and abs(z["w"] - b["v"] / t["v"] * inner) <= 0.02
        else:
            ok = z["hidden"]
        if not ok:
            wrong.append(b["name"])
    check(not wrong, "a click on %s fills the width with it, scales its children, hides the rest: %s"
          % (name, wrong))
    check(dump["unzoom_shown"], "zoomed, the Reset zoom button shows")
    restored = all(abs(a["x"] - b["x"]) <= EPS and abs(a["w"] - b["w"]) <= EPS and not b["hidden"]
                   for a, b in zip(before, dump["unzoomed"]))
    check(restored, "Reset zoom puts every frame back")


def check_search(dump, term, total):
    share = sum(f["v"] for f in dump["frames"] if re.search(term, f["name"]))
    want = 100 * share / total if total else 0
    check(abs(dump["search_pct"] - want) <= 0.01,
          "search %r matches %.2f%% of the weight (frames: %.2f%%)" % (term, dump["search_pct"], want))
    check(dump["matched_text"] == "Matched: %.2f%%" % dump["search_pct"],
          "the graph says what matched: %r" % dump["matched_text"])


def browser_dump(path):
    text = open(path).read()
    m = re.search(r'<pre id="out">(.*?)</pre>', text, re.S)
    if not m:
        return {"error": "no <pre id=\"out\"> in the browser's DOM"}
    try:
        return json.loads(html.unescape(m.group(1)))
    except json.JSONDecodeError:
        return {"error": "the harness wrote %r" % m.group(1)[:200]}


def main():
    weight, gt_path, report_path, folded_path, browser_path = sys.argv[1:6]
    gt = ground_truth(gt_path)
    report = json.load(open(report_path))
    stacks = folded(folded_path)
    check(bool(stacks), "%s: %d folded stacks" % (weight, len(stacks)))
    if weight == "time":
        check_time(report, stacks)
    else:
        check_against_truth(weight, gt, report, stacks)
    dump = browser_dump(browser_path)
    check("error" not in dump, "the browser opened the SVG: %s" % dump.get("error", "yes"))
    if "error" not in dump and stacks:
        total, root_y = check_drawing(dump, stacks)
        check_zoom(dump, "READ", root_y)
        check_search(dump, "^READ$", total)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
