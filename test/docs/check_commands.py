#!/usr/bin/env python3
"""Check that the uringscope command lines the documentation shows use options the
binary has: every option of every `uringscope ...` line in a fenced code block must be
one that `uringscope --help` lists, and an option that takes a value must have one.

usage: check_commands.py URINGSCOPE FILE.md... [-- EMULATOR...]
       check_commands.py --self-test URINGSCOPE [-- EMULATOR...]

A line counts when `uringscope` is a word of it, after an optional prompt (`$`, `#`) and
`sudo`. Its words are read as uringscope reads them: options up to the command it runs
(the first word that is not an option or an option's value, or `--`), so the command's
own options (fio's `--name=...`) are not checked. A line ending in a backslash goes on.
`top` is taken as the subcommand. Prints one line per problem and exits 1 when there is
any; exits 0 with a summary otherwise, 2 on bad usage. --self-test checks the checker on
lines with known mistakes.
"""

import re
import shlex
import subprocess
import sys

# A --help row: "  -p,--pid PID[,PID]   text". Names, then either one space and a
# placeholder (the option takes a value) or two spaces and the description.
HELP_ROW = re.compile(r"^  (-[^\s]+)( [^\s].*?)?(?:\s{2,}|$)")


def options_of(help_text):
    """{spelling: takes_value} for every spelling --help lists; `--json [=FILE]`'s value
    is optional and given only with `=`, so it counts as taking none."""
    options = {}
    table = help_text.split("Options:", 1)[-1].split("Examples:", 1)[0]
    for line in table.splitlines():
        m = HELP_ROW.match(line)
        if not m:
            continue
        placeholder = (m.group(2) or "").strip()
        takes_value = placeholder != "" and not placeholder.startswith("[=")
        for spelling in re.sub(r"\{[^}]*\}", "", m.group(1)).split(","):
            options[spelling] = takes_value
    return options


def command_lines(text):
    """(line number, words after `uringscope`) for each uringscope line of a code block."""
    fence = None
    pending, start = "", 0
    for number, line in enumerate(text.splitlines(), 1):
        marker = re.match(r"\s*(`{3,}|~{3,})", line)
        if marker and (fence is None or marker.group(1).startswith(fence)):
            fence = None if fence is not None else marker.group(1)
            pending = ""
            continue
        if fence is None:
            continue
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        full, pending = pending + line, ""
        # A command substitution is one word, the value of the option before it.
        code = re.sub(r"\$\([^()]*\)", "SUBSTITUTION", full.split(" #", 1)[0])
        try:
            words = shlex.split(code)
        except ValueError:
            continue
        while words and words[0] in ("$", "#", "sudo"):
            words = words[1:]
        if words and words[0].endswith("uringscope") and "/" not in words[0].rstrip("uringscope"):
            yield start, words[1:]


def problems_in(words, options):
    if words[:1] == ["top"]:
        words = words[1:]
    problems = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--" or not word.startswith("-") or word == "-":
            break
        name, has_equals, _ = word.partition("=")
        if name not in options:
            problems.append(f"{name}: not an option of uringscope --help")
        elif options[name] and not has_equals:
            if i + 1 >= len(words):
                problems.append(f"{name}: takes a value, none given")
            i += 1
        i += 1
    return problems


SELF_TEST_PAGE = """```sh
sudo uringscope --nope -p
uringscope -p SUBST --json=x -c -- fio --not-ours
$ sudo uringscope top --rings
# uringscope -f ./server --its-own -x
sudo uringscope -i 2 \\
    --bogus ./app
```
uringscope --outside-a-code-block
"""
SELF_TEST_EXPECTED = [
    "2: --nope: not an option of uringscope --help",
    "2: -p: takes a value, none given",
    "4: --rings: takes a value, none given",
    "6: --bogus: not an option of uringscope --help",
]


def self_test(options):
    found = [f"{number}: {p}" for number, words in command_lines(SELF_TEST_PAGE)
             for p in problems_in(words, options)]
    if found != SELF_TEST_EXPECTED:
        print(f"check_commands: self-test failed: found {found}")
        return 1
    print("check_commands: self-test passed")
    return 0


def main(argv):
    args = argv[1:]
    emulator = []
    if "--" in args:
        emulator = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    testing = args[:1] == ["--self-test"]
    if testing:
        args = args[1:]
    if len(args) < (1 if testing else 2):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    binary, files = args[0], args[1:]
    help_text = subprocess.run(emulator + [binary, "--help"], capture_output=True, text=True,
                               check=True).stdout
    options = options_of(help_text)
    if len(options) < 20:
        print(f"check_commands: read only {len(options)} options from {binary} --help")
        return 1
    if testing:
        return self_test(options)
    found, lines = [], 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for number, words in command_lines(text):
            lines += 1
            found += [f"{path}:{number}: {p}" for p in problems_in(words, options)]
    for problem in found:
        print(problem)
    if found:
        return 1
    if lines == 0:
        print("check_commands: no uringscope command line found")
        return 1
    print(f"check_commands: {lines} command lines in {len(files)} files, every option known")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
