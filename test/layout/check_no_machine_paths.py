#!/usr/bin/env python3
"""No file of the repository points at a place that exists only on the machine it was
written on: the development checkout and its worktrees, or the team's documents kept
beside the repository. A reader who clones the repository has neither;
the facts the code relies on belong in its own docs (docs/kernel-facts.md).

usage: check_no_machine_paths.py ROOT

Reads the files git tracks under ROOT (or, outside a git checkout, every file but build
trees). Prints one line per hit and exits 1 when there is any, 0 otherwise.
"""

import os
import re
import subprocess
import sys

# Spelled in pieces so that this file does not match itself.
WORK, SHARED = "/" + "work/", "shared" + "/"
MACHINE_PATH = re.compile(r"(?<![\w.])" + WORK + r"[\w.-]+|\.\./" + SHARED + r"|(?<![\w/.])"
                          + SHARED + r"(docs|seeds)/")


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                             check=True).stdout
        return [os.path.join(root, p) for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != ".git" and not d.startswith("build")]
            files += [os.path.join(dirpath, f) for f in filenames]
        return files


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1])
    hits = 0
    for path in tracked_files(root):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = MACHINE_PATH.search(line)
                    if m:
                        print(f"{os.path.relpath(path, root)}:{number}: {m.group(0)}")
                        hits += 1
        except (IsADirectoryError, FileNotFoundError):
            continue
    if hits:
        return 1
    print("check_no_machine_paths: no machine path in the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
