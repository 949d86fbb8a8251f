#!/usr/bin/env python3
"""`uringscope top` driven as a person drives it: in a tmux pane of 80x24, keys sent with
send-keys, the screen read back with capture-pane, on the fault injector's `files` and
`clean` scenarios whose GROUND-TRUTH lines give the exact counts the screen must show.

    top_test.py --uringscope PATH --inject PATH

Each scenario prints PASS or FAIL lines; the exit status is 1 when any check failed.
Every check that cannot run (no tmux, no bpftool) is a failure, never a skip.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

FAILED = []


def check(ok, what, detail=""):
    print(("PASS " if ok else "FAIL ") + what + ("" if ok or not detail else "\n" + detail))
    if not ok:
        FAILED.append(what)
    return ok


class Pane:
    """A tmux server of our own with one 80x24 window running a plain bash."""

    def __init__(self, work):
        self.sock = "usc-top-%d" % os.getpid()
        self.work = work
        self.tmux("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "80", "-y", "24",
                  "HISTFILE=/dev/null bash --norc --noprofile")
        self.tmux("set", "-g", "status", "off")
        self.line("PS1='PROMPT$ '; clear")
        self.wait(lambda s: "PROMPT$" in s, "the shell prompt")

    def tmux(self, *args):
        return subprocess.run(["tmux", "-L", self.sock, *args], capture_output=True, text=True,
                              check=False).stdout

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "t", *keys)

    def line(self, text):
        self.tmux("send-keys", "-t", "t", "-l", text)
        self.keys("Enter")

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "t")

    def history(self):
        return self.tmux("capture-pane", "-p", "-t", "t", "-S", "-2000")

    def flag(self, name):
        return self.tmux("display", "-p", "-t", "t", "#{%s}" % name).strip()

    def wait(self, predicate, what, timeout=20):
        end = time.time() + timeout
        text = ""
        while time.time() < end:
            text = self.screen()
            if predicate(text):
                return text
            time.sleep(0.1)
        raise TimeoutError("waited %ds for %s; the screen:\n%s" % (timeout, what, text))

    def close(self):
        self.tmux("kill-server")


def ground_truth(path, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        if os.path.exists(path):
            text = open(path).read()
            if "GROUND-TRUTH submit_calls" in text:
                return [dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
                        | {"label": line.split()[1]}
                        for line in text.splitlines() if line.startswith("GROUND-TRUTH")]
        time.sleep(0.05)
    raise TimeoutError("no GROUND-TRUTH in " + path)


def exited(screen):
    """Whether the shell printed the status line (not just the command that prints it)."""
    return re.search(r"^EXIT=\d+", screen, re.M) is not None


def rows(screen, first_word):
    """The words of the screen's lines that start with `first_word`."""
    return [line.split() for line in screen.splitlines() if line.split()[:1] == [first_word]]


def held_program_ids():
    """Ids of the BPF programs some process holds an fd or link of (its fdinfo says)."""
    held = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            for fd in os.listdir("/proc/%s/fdinfo" % pid):
                with open("/proc/%s/fdinfo/%s" % (pid, fd)) as f:
                    for line in f:
                        if line.startswith("prog_id:"):
                            held.add(int(line.split()[1]))
        except OSError:
            continue  # gone meanwhile, or not ours to read
    return held


def leaked_programs(timeout=5):
    """usc_ programs that no process holds: left behind by a run that ended. Others may
    run uringscope on this machine at the same time; their programs are held by them.
    The kernel frees programs a moment after the last holder closes them."""
    end = time.time() + timeout
    while True:
        out = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, text=True, check=True)
        ours = {p["id"] for p in json.loads(out.stdout or "[]") if p.get("name", "").startswith("usc_")}
        leaked = sorted(ours - held_program_ids())
        if not leaked or time.time() > end:
            return leaked
        time.sleep(0.2)


def terminal_restored(pane, before, label):
    pane.line("stty -g > %s/stty.after" % pane.work)
    time.sleep(0.3)
    after = open(pane.work + "/stty.after").read() if os.path.exists(pane.work + "/stty.after") else ""
    check(after == before, label + ": stty modes as before the run", "before %r\nafter %r" % (before, after))
    check(pane.flag("alternate_on") == "0", label + ": alternate screen left")
    check(pane.flag("cursor_flag") == "1", label + ": cursor visible")
    check(pane.flag("keypad_cursor_flag") == "0", label + ": keypad back in normal mode")
    os.remove(pane.work + "/stty.after")


def stty_now(pane):
    pane.line("clear; stty -g > %s/stty.before" % pane.work)
    time.sleep(0.3)
    return open(pane.work + "/stty.before").read()


def ops_tab(pane, gt):
    screen = pane.wait(lambda s: "1:rings" in s and "READ" in s, "the ops tab", 10)
    for op in ("READ", "WRITE", "SEND", "RECV"):
        want = next(g["completed"] for g in gt if g.get("op") == op and g["label"].startswith("op="))
        got = rows(screen, op)
        check(bool(got) and got[0][2] == want, "ops tab: %s shows %s CQEs" % (op, want), screen)
    names = [r[0] for r in rows(screen, "READ") + rows(screen, "WRITE") + rows(screen, "SEND") + rows(screen, "RECV")]
    order = [line.split()[0] for line in screen.splitlines()[2:] if line.split()[:1] and line.split()[0] in names]
    counts = [int(r[2].replace(",", "")) for name in order for r in rows(screen, name)]
    check(counts == sorted(counts, reverse=True), "ops tab: sorted by CQEs, busiest first", screen)
    pane.keys("I")
    screen = pane.wait(lambda s: "ascending" in s, "the reversed sort", 5)
    order = [line.split()[0] for line in screen.splitlines()[2:] if line.split()[:1] and line.split()[0] in names]
    counts = [int(r[2].replace(",", "")) for name in order for r in rows(screen, name)]
    check(counts == sorted(counts), "ops tab: I reverses the order", screen)
    pane.keys("I", "l", "l")
    pane.wait(lambda s: "sorted by p99" in s, "sorted by p99", 5)
    check(True, "ops tab: l moves the sort to the next columns (p99)")


def filter_push_pop(pane, gt):
    # On the ops tab: find WRITE, push it, look at the files tab, pop it.
    pane.keys("/")
    pane.tmux("send-keys", "-t", "t", "-l", "WRITE")
    pane.keys("Enter")
    time.sleep(0.3)
    pane.keys("Enter")
    screen = pane.wait(lambda s: "filter: op=WRITE" in s, "the WRITE filter on the status line", 5)
    check(True, "Enter pushes op=WRITE onto the filter stack")
    pane.keys("3")
    screen = pane.wait(lambda s: "2:ops" in s and "reqs" in s, "the files tab", 5)
    file_rows = [l.split() for l in screen.splitlines()[2:20] if re.search(r"\bWRITE\b|\bREAD\b|\bSEND\b|\bRECV\b", l)]
    want = sorted(int(g["requests"]) for g in gt if g["label"] == "file" and g["op"] == "WRITE")
    got = sorted(int(r[-5].replace(",", "")) for r in file_rows)
    check(all(r[-7] == "WRITE" for r in file_rows) and got == want,
          "files tab under op=WRITE: only the WRITE files, with their requests %s" % want, screen)
    pane.keys("Escape")
    screen = pane.wait(lambda s: "filter: none" in s, "the filter popped", 5)
    check(len([l for l in screen.splitlines() if re.search(r"\bREAD\b", l)]) > 0,
          "Esc pops the filter: READ files are back", screen)


def files_tab(pane, gt):
    screen = pane.wait(lambda s: "reqs" in s and "c.dat" in s, "the files tab", 10)
    files = [g for g in gt if g["label"] == "file" and g.get("kind") == "file"]
    shown = 0
    for g in files:
        name = os.path.basename(g["path"])
        for line in screen.splitlines():
            w = line.split()
            if len(w) >= 8 and w[0].endswith("/" + name) and w[1] == g["op"]:
                shown += 1
                check(w[3].replace(",", "") == g["requests"], "files tab: %s %s has %s requests" % (name, g["op"], g["requests"]), line)
    check(shown >= 5, "files tab: the busiest files are on the screen (%d checked)" % shown, screen)


def help_and_resize(pane):
    pane.keys("?")
    screen = pane.wait(lambda s: "uringscope top: keys" in s, "the help screen", 5)
    for key in ("Enter", "Esc", "space", "q", "/", "r", "b"):
        check(re.search(r"^\s+" + re.escape(key) + r"\s", screen, re.M) is not None, "help shows the key " + key, screen)
    pane.keys("x")
    pane.wait(lambda s: "uringscope top: keys" not in s, "the help closed", 5)
    pane.tmux("resize-window", "-t", "t", "-x", "120", "-y", "40")
    screen = pane.wait(lambda s: len(s.splitlines()) >= 38 and "filter:" in s.splitlines()[-2], "the 120x40 screen", 5)
    check(max(len(l) for l in screen.splitlines()) > 80, "resized to 120x40: the screen uses the new width", screen)
    pane.tmux("resize-window", "-t", "t", "-x", "80", "-y", "24")
    screen = pane.wait(lambda s: len(s.splitlines()) <= 24 and "filter:" in s, "back to 80x24", 5)
    check(all(len(l) <= 80 for l in screen.splitlines()), "back to 80x24: every line fits", screen)


def scenario_files(pane, args):
    """The whole tour on `inject files 20`: tabs, counts, sort, filter, help, resize, q."""
    before = stty_now(pane)
    gt_path, js = pane.work + "/files.gt", pane.work + "/files.json"
    pane.line("%s top --files -i 0.5 --json=%s -- sh -c 'exec %s --linger 120 files 20 > %s'"
              % (args.uringscope, js, args.inject, gt_path))
    gt = ground_truth(gt_path)
    pid = next(g["pid"] for g in gt if "pid" in g)
    total = sum(int(g["completed"]) for g in gt if g["label"].startswith("op="))
    screen = pane.wait(lambda s: re.search(r"inject\[%s\]\s+\S+\s+%d\b" % (pid, total), s) is not None,
                       "the rings tab with the ring's %d CQEs" % total, 15)
    check(True, "rings tab: #0 inject[%s] with %d CQEs" % (pid, total))
    check(pane.flag("alternate_on") == "1", "top draws on the alternate screen")
    pane.keys("2")
    ops_tab(pane, gt)
    filter_push_pop(pane, gt)
    files_tab(pane, gt)
    pane.keys("4")
    screen = pane.wait(lambda s: re.search(r"^process ", s, re.M) is not None, "the processes tab", 5)
    pane.wait(lambda s: re.search(r"inject\[%s\]\s+1\s" % pid, s) is not None, "inject with 1 ring", 5)
    check(True, "processes tab: inject with 1 ring")
    pane.keys("6")
    screen = pane.wait(lambda s: "width = count" in s, "the flame tab", 5)
    # 80x24: the tab bar, the title, 18 rows of graph with the root on the last of them.
    check("inject" in screen.splitlines()[19], "flame tab: the root frame is the comm", screen)
    pane.keys("b")
    pane.wait(lambda s: "width = bytes" in s, "the flame by bytes", 5)
    help_and_resize(pane)
    pane.keys("q")
    pane.wait(lambda s: pane.flag("alternate_on") == "0", "the screen given back after q", 10)
    pane.wait(lambda s: "uringscope report" in pane.history(), "the report after q", 20)
    check(True, "q prints the full report")
    # The command goes on (as after -d); Ctrl-C ends it, and the run returns its status.
    pane.keys("C-c")
    pane.wait(lambda s: s.rstrip().endswith("PROMPT$"), "the prompt after the command", 20)
    pane.line("echo EXIT=$?")
    pane.wait(exited, "the exit status", 5)
    check("EXIT=130" in pane.screen(), "Ctrl-C ends the command: status 130", pane.screen())
    report = json.load(open(js))
    reads = next(o for r in report["rings"] for o in r["ops"] if o["op"] == "READ")
    check(str(reads["completed"]) == next(g["completed"] for g in gt if g.get("op") == "READ"),
          "--json with top: the report has the READs")
    terminal_restored(pane, before, "after q")


def scenario_target_exits(pane, args):
    before = stty_now(pane)
    gt_path = pane.work + "/clean.gt"
    pane.line("%s top -i 0.2 -- sh -c 'exec %s --linger 2 clean 2000 > %s'; echo EXIT=$?"
              % (args.uringscope, args.inject, gt_path))
    pane.wait(lambda s: "1:rings" in s, "the top screen", 15)
    screen = pane.wait(lambda s: re.search(r"inject\[\d+\]\s+\S+\s+2,000\b", s) is not None, "2,000 NOPs", 10)
    check(True, "clean 2000: the ring shows 2,000 CQEs")
    pane.wait(exited, "the run to end with its target", 20)
    check("EXIT=0" in pane.screen(), "the target exited: uringscope returns its status 0", pane.screen())
    check("uringscope report" in pane.history(), "the target exited: the report is printed")
    terminal_restored(pane, before, "after the target exited")


def scenario_signal(pane, args, how):
    before = stty_now(pane)
    pidfile = pane.work + "/scope.pid"
    pane.line("sh -c 'echo $$ > %s; exec %s top -- %s --linger 60 clean 100'; echo EXIT=$?"
              % (pidfile, args.uringscope, args.inject))
    pane.wait(lambda s: "1:rings" in s, "the top screen", 15)
    if how == "SIGTERM":
        os.kill(int(open(pidfile).read()), signal.SIGTERM)
        want = "EXIT=143"  # passed on to the command, which dies of it
    else:
        pane.keys("C-c")
        want = "EXIT=130"
    pane.wait(exited, "the run to end on " + how, 20)
    check(want in pane.screen(), how + ": exit status " + want[5:], pane.screen())
    check("uringscope report" in pane.history(), how + ": the report is printed")
    terminal_restored(pane, before, "after " + how)


def scenario_hostile(pane, args):
    """A target whose name and files carry terminal escapes (`inject hostile-names`): top
    draws them as '?'; the report printed once top ends shows them escaped, so the pane's
    title stays, the screen is not cleared and no name forges a line of the report."""
    before = stty_now(pane)
    title = pane.flag("pane_title")
    gt_path = pane.work + "/hostile.gt"
    pane.line("%s top --files -i 0.2 -- sh -c 'exec %s --linger 2 hostile-names 4 > %s'; echo EXIT=$?"
              % (args.uringscope, args.inject, gt_path))
    ground_truth(gt_path)
    screen = pane.wait(lambda s: "1:rings" in s and re.search(r"#0 ev\?", s) is not None,
                       "the ring under its comm, drawn with '?'", 15)
    check(True, "top draws the hostile comm with '?'")
    pane.wait(exited, "the run to end with its target", 30)
    check("EXIT=0" in pane.screen(), "hostile names: uringscope returns the target's status 0", pane.screen())
    history = pane.tmux("capture-pane", "-p", "-J", "-t", "t", "-S", "-2000")
    check("uringscope report" in history, "hostile names: the report is printed", history[-3000:])
    for shown in (r"esc\x1b[2J\x1b[31mEVIL", r"osc\x1b]0;pwned\x07", r"nl\nfake: no findings",
                  r"ev\x1b[2J\x07\n"):
        check(shown in history, "hostile names: the report shows " + shown, history[-3000:])
    check(not any(line.startswith("fake: no findings") for line in history.splitlines()),
          "hostile names: no name forges a line")
    check(pane.flag("pane_title") == title, "hostile names: the pane's title is unchanged",
          "was %r, now %r" % (title, pane.flag("pane_title")))
    terminal_restored(pane, before, "after hostile names")


def scenario_no_terminal(args):
    r = subprocess.run(["setsid", "-w", args.uringscope, "top", "-a"], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=30, check=False)
    check(r.returncode == 1 and r.stderr.count("\n") == 1 and "top needs a terminal" in r.stderr,
          "no terminal: one line on stderr, exit 1", "status %d, stderr %r" % (r.returncode, r.stderr))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--uringscope", required=True)
    p.add_argument("--inject", required=True)
    args = p.parse_args()
    if not shutil.which("tmux") or not shutil.which("bpftool"):
        check(False, "tmux and bpftool are installed (packaging/install-deps.sh)")
        return 1
    work = tempfile.mkdtemp(prefix="usc-top.", dir="/var/tmp")
    os.chmod(work, 0o755)
    pane = Pane(work)
    try:
        for name, run in [("files", lambda: scenario_files(pane, args)),
                          ("target-exits", lambda: scenario_target_exits(pane, args)),
                          ("sigterm", lambda: scenario_signal(pane, args, "SIGTERM")),
                          ("ctrl-c", lambda: scenario_signal(pane, args, "Ctrl-C")),
                          ("hostile-names", lambda: scenario_hostile(pane, args)),
                          ("no-terminal", lambda: scenario_no_terminal(args))]:
            print("== " + name)
            try:
                run()
            except TimeoutError as e:
                check(False, name + ": " + str(e).splitlines()[0], str(e))
                pane.keys("q")
                pane.keys("C-c")
                time.sleep(1)
            check(not leaked_programs(), name + ": no program of ours left loaded")
    finally:
        pane.close()
        shutil.rmtree(work, ignore_errors=True)
    print("top_test: %s" % ("FAILED: " + ", ".join(FAILED) if FAILED else "all passed"))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
