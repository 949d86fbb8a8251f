#!/usr/bin/env python3
"""Keeps files and functions small enough to read (docs/architecture.md, "Size").

    check_sizes.py ROOT

Fails when a source file under src/, bpf/ or include/ has more than MAX_FILE_LINES lines,
or a function body more than MAX_FUNCTION_LINES, unless the file or function is a data
table listed in ALLOWED with its reason. Comments and blank lines count: a reader reads
them too. The function finder is a brace matcher, not a parser: a definition is a `{`
whose header has a parameter list and is not a control statement, a lambda or an
initialiser, found at namespace or class scope (nested lambdas count towards their
function).
"""
import pathlib
import re
import sys

MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60

# path or path:function -> why it may be longer.
ALLOWED = {
    "bpf/vmlinux/x86/vmlinux.h": "generated from kernel BTF (bpf/vmlinux/gen-vmlinux.sh)",
    "bpf/vmlinux/arm64/vmlinux.h": "generated from kernel BTF (bpf/vmlinux/gen-vmlinux.sh)",
}

CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|do|else|return|case)\b")
NAME = re.compile(r"([A-Za-z_~][A-Za-z0-9_:<>~]*)\s*\(")


def strip(text):
    """Source with comments, strings and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(name, first line, line count) of every function defined at namespace/class scope."""
    code = strip(text)
    stack = []  # (kind, name, start line) per open brace
    header_start = 0
    found = []
    for pos, c in enumerate(code):
        if c in ";}":
            if c == "}" and stack:
                kind, name, start = stack.pop()
                if kind == "function":
                    end = code.count("\n", 0, pos) + 1
                    found.append((name, start, end - start + 1))
            header_start = pos + 1
        elif c == "{":
            header = code[header_start:pos]
            enclosing_ok = all(k in ("scope",) for k, _, _ in stack)
            kind = "block"
            flat = " ".join(header.split())
            if re.search(r"\b(namespace|class|struct|union|enum)\b[^()]*$", flat) or flat.startswith("extern"):
                kind = "scope" if all(k == "scope" for k, _, _ in stack) else "block"
            elif (enclosing_ok and "(" in flat and not CONTROL.match(flat)
                  and not re.search(r"=\s*$|\]\s*\(|=\s*\[|^\s*\[", flat)
                  and not flat.rstrip().endswith(",")):
                kind = "function"
            name = ""
            if kind == "function":
                m = NAME.findall(flat.split("(")[0] + "(")
                name = m[-1] if m else "?"
            line = code.count("\n", 0, header_start + len(header) - len(header.lstrip())) + 1
            stack.append((kind, name, line))
            header_start = pos + 1
    return found


def main():
    root = pathlib.Path(sys.argv[1])
    problems = []
    files = [p for d in ("src", "bpf", "include") for p in sorted((root / d).rglob("*"))
             if p.suffix in (".c", ".cpp", ".h")]
    for path in files:
        rel = path.relative_to(root).as_posix()
        if rel in ALLOWED:
            continue
        text = path.read_text(errors="replace")
        lines = text.count("\n")
        if lines > MAX_FILE_LINES:
            problems.append(f"{rel}: {lines} lines (at most {MAX_FILE_LINES}): split it by job")
        for name, start, length in functions(text):
            if length > MAX_FUNCTION_LINES and f"{rel}:{name}" not in ALLOWED:
                problems.append(f"{rel}:{start}: {name}() is {length} lines "
                                f"(at most {MAX_FUNCTION_LINES})")
    for p in problems:
        print(p)
    print(f"{len(files)} files checked, {len(problems)} over the limits")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
