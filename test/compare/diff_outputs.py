#!/usr/bin/env python3
"""Compares one run's output files with several runs of a reference binary.

    diff_outputs.py NEW_DIR OLD_DIR [OLD_DIR...]

Timings differ between runs, and so does the spacing of columns sized to them. So each
file is first normalised: durations (a number with a time unit), latency-valued JSON keys
and latency histogram samples are masked, runs of blanks fold into one, and a rule of
= or - under a heading counts as one length; counts the scheduler decides (io-wq
workers spawned, task-work runs, enter calls that waited) are masked too. Then it is
split into numbers and the text between them. A number that still differs between the
OLD runs is noise (a pid, an address, a count of timer-driven samples) and is masked;
everything else in NEW must equal the first OLD run exactly, token for token. A --trace
file is compared as a multiset of events (record order varies too). Prints the first
differing line of each file that differs and exits 1 if any does.
"""
import collections
import json
import pathlib
import re
import sys

NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?")


DURATION = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?\s?(?:ns|us|µs|ms|s|min|h)\b")
# JSON keys whose values are times, or counts of timed samples (histogram buckets).
ADDRESS = re.compile(r"0x[0-9a-f]+")
HISTOGRAM_ROW = re.compile(r"^ *<t> -> <t> : \S+ +\|[* ]+\|\n", re.M)
TIMED_KEY = re.compile(r"(_ns|_us|_ms|_s|_per_s|^avg.*|^p50.*|^p99.*|^max.*|_pct|^log2_hist|^wall.*|^ts|^dur)$")
# Counts the scheduler decides, not the program: how many io-wq workers the kernel
# spawned, how often task work ran, how often a waiting io_uring_enter() was woken.
SCHEDULED_KEY = re.compile(r"^(workers_distinct|distinct|task_work_runs|task_work_items|"
                           r"local_task_work_runs|local_task_work_items|enter_calls|"
                           r"enter_calls_per_s|workers)$")
SCHEDULED_LINE = re.compile(r"^\s*(io-wq workers|task work runs|local task work|enter calls|"
                            r"io_uring_enter\(\) calls)",
                            re.M)
SCHEDULED_SAMPLE = re.compile(r"^(uringscope_(io_wq_workers|task_work|local_task_work|enter_calls)\S*)"
                              r"(\{[^}]*\})? \S+")
# Exposition samples that are times or histogram counts.
TIMED_SAMPLE = re.compile(r"^(\S*(seconds|_bucket|_sum|_created)\S*(\{[^}]*\})?) \S+")


def mask_json(value, key=""):
    if isinstance(value, dict):
        return {k: mask_json(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return "<timed>" if TIMED_KEY.search(key) else [mask_json(v, key) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and (
            TIMED_KEY.search(key) or SCHEDULED_KEY.match(key)):
        return "<timed>"
    if isinstance(value, str):
        return DURATION.sub("<t>", value)
    return value


def normalise(name, text):
    if name.endswith(".json"):
        try:
            return json.dumps(mask_json(json.loads(text)), indent=1, sort_keys=False)
        except ValueError:
            return text
    if name.startswith("metrics"):
        text = "\n".join(SCHEDULED_SAMPLE.sub(r"\1\3 <n>", TIMED_SAMPLE.sub(r"\1 <timed>", line))
                         for line in text.split("\n"))
    else:
        text = "\n".join(NUMBER.sub("<n>", line) if SCHEDULED_LINE.match(line) else line
                         for line in text.split("\n"))
    text = DURATION.sub("<t>", text)
    # Addresses (the injector's ground truth prints its buffers') change with every run.
    text = ADDRESS.sub("0x<a>", text)
    # A histogram's rows, which buckets and how long a bar, are its timings drawn: as
    # noisy as the numbers, and a run may have a row more than another.
    text = HISTOGRAM_ROW.sub("", text)
    text = re.sub(r"^([=-])\1{2,}$", r"\1\1\1", text, flags=re.M)  # rules under a heading
    return re.sub(r"[ \t]+", " ", text)


def tokens(text):
    out, pos = [], 0
    for m in NUMBER.finditer(text):
        out.append(("t", text[pos:m.start()]))
        out.append(("n", m.group()))
        pos = m.end()
    out.append(("t", text[pos:]))
    return out


def where(text_tokens, index):
    before = "".join(v for _, v in text_tokens[:index])
    line_no = before.count("\n") + 1
    line = "".join(v for _, v in text_tokens).split("\n")[line_no - 1]
    return line_no, line


def compare(name, new, olds):
    old_tokens = [tokens(o) for o in olds]
    new_tokens = tokens(new)
    ref = old_tokens[0]
    if any(len(o) != len(ref) for o in old_tokens):
        # The reference runs disagree in shape: fall back to line-level masking.
        return compare_lines(name, new, olds)
    if len(new_tokens) != len(ref):
        line_no, line = where(new_tokens, min(len(new_tokens), len(ref)) - 1)
        print(f"  {name}: {len(new_tokens)} tokens, reference has {len(ref)} (near line {line_no}: {line[:120]})")
        return False
    for i, (kind, value) in enumerate(new_tokens):
        if kind != ref[i][0]:
            return report(name, new_tokens, i, ref[i][1])
        if kind == "n" and any(o[i][1] != ref[i][1] for o in old_tokens):
            continue  # noise in the reference itself
        if value != ref[i][1]:
            return report(name, new_tokens, i, ref[i][1])
    return True


def compare_lines(name, new, olds):
    ref_lines = [o.splitlines() for o in olds]
    new_lines = new.splitlines()
    shapes = {len(r) for r in ref_lines}
    if len(new_lines) not in shapes:
        print(f"  {name}: {len(new_lines)} lines, reference runs have {sorted(shapes)}")
        return False
    masked = [[NUMBER.sub("#", line) for line in r] for r in ref_lines]
    new_masked = [NUMBER.sub("#", line) for line in new_lines]
    for r in masked:
        if len(r) == len(new_masked) and r == new_masked:
            return True
    print(f"  {name}: differs from every reference run even with numbers masked")
    return False


def trace_signatures(text):
    """A --trace file as a multiset of events with every number and id masked: the
    order of records and the times in them differ from run to run, their kinds do not."""
    events = json.loads(text)
    events = events.get("traceEvents", events) if isinstance(events, dict) else events
    return collections.Counter(
        re.sub(r'"0x[0-9a-f]+"', '"0x#"', NUMBER.sub("#", json.dumps(e, sort_keys=True)))
        for e in events)


def compare_trace(name, new, olds):
    ref = [trace_signatures(o) for o in olds]
    got = trace_signatures(new)
    same = True
    for sig in set(got) | set().union(*ref):
        counts = [r[sig] for r in ref]
        if min(counts) == max(counts) == got[sig]:
            continue
        if "iou-wrk" in sig and got[sig] > 0 and min(counts) > 0:
            continue  # one per io-wq worker: the scheduler decides how many
        if min(counts) != max(counts) and got[sig] > 0 and min(counts) > 0:
            continue  # how many of these a run emits varies (samples, workers): present
        print(f"  {name}: {got[sig]} events like {sig[:140]}, reference runs have {counts}")
        same = False
    return same


def report(name, new_tokens, i, expected):
    line_no, _ = where(new_tokens, i)
    got = new_tokens[i][1]
    # Point at the first differing character, not at the start of a long text token.
    common = next((k for k, (a, b) in enumerate(zip(got, expected)) if a != b),
                  min(len(got), len(expected)))
    line_no += got[:common].count("\n")
    print(f"  {name}: line {line_no}: got {got[common:common + 60]!r}, "
          f"reference has {expected[common:common + 60]!r}")
    return False


def main():
    new_dir = pathlib.Path(sys.argv[1])
    old_dirs = [pathlib.Path(p) for p in sys.argv[2:]]
    same = True
    for ref_file in sorted(old_dirs[0].iterdir()):
        if ref_file.name == "stderr.txt":
            continue
        new_file = new_dir / ref_file.name
        if not new_file.exists():
            print(f"  {ref_file.name}: missing from the new run")
            same = False
            continue
        name = ref_file.name
        olds = [(d / name).read_text(errors="replace") for d in old_dirs]
        new = new_file.read_text(errors="replace")
        if name == "trace.json":
            same &= compare_trace(name, new, olds)
        else:
            same &= compare(name, normalise(name, new), [normalise(name, o) for o in olds])
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
