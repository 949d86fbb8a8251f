#!/usr/bin/env python3
"""Check that every relative link in the project's Markdown resolves: the file it names
exists, and the #anchor, when there is one, is a heading of that file as GitHub renders
it. A moved section or a renamed page otherwise leaves readers at a dead link that no
other test notices.

usage: check_links.py ROOT [FILE.md...]
       check_links.py --self-test

With no files, checks every *.md under ROOT except build trees and .git. Links to
http(s), mailto and other schemes are not fetched (CI has no network). Links inside
fenced code blocks and inline code are not links. Prints one line per broken link and
exits 1 when there is any; exits 0 with a summary otherwise, 2 on bad usage.
--self-test checks the checker on a small tree with known good and broken links.
"""

import os
import re
import sys

SKIP_DIRS = {".git", "node_modules"}
INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def is_build_tree(name):
    return name.startswith("build")


def markdown_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in SKIP_DIRS and not is_build_tree(d))
        for name in sorted(filenames):
            if name.endswith(".md"):
                yield os.path.join(dirpath, name)


def prose_lines(text, blank_code=True):
    """The lines outside fenced code blocks, each with its 1-based number; inline code
    spans are blanked unless blank_code is false (a heading keeps their text in its id)."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        marker = re.match(r"(`{3,}|~{3,})", stripped)
        if fence is None and marker:
            fence = marker.group(1)[0] * len(marker.group(1))
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        yield number, re.sub(r"(`+)(?:(?!\1).)+?\1", "", line) if blank_code else line


def github_slug(heading_text):
    """The id GitHub gives a heading: inline markup dropped, lower case, every character
    that is not a letter, digit, space, hyphen or underscore removed, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading_text)
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors_of(path, cache):
    if path not in cache:
        seen = {}
        anchors = set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for _, line in prose_lines(text, blank_code=False):
            m = HEADING.match(line)
            if m:
                slug = github_slug(m.group(2))
                count = seen.get(slug, 0)
                seen[slug] = count + 1
                anchors.add(slug if count == 0 else f"{slug}-{count}")
        anchors.update(HTML_ANCHOR.findall(text))
        cache[path] = anchors
    return cache[path]


def link_targets(text):
    for number, line in prose_lines(text):
        for m in INLINE_LINK.finditer(line):
            yield number, m.group(1)
        m = REFERENCE_DEF.match(line)
        if m:
            yield number, m.group(1)


def check_file(path, root, cache, problems):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    checked = 0
    for number, target in link_targets(text):
        if SCHEME.match(target):
            continue
        checked += 1
        where = f"{os.path.relpath(path, root)}:{number}"
        file_part, _, anchor = target.partition("#")
        resolved = (os.path.normpath(os.path.join(os.path.dirname(path), file_part))
                    if file_part else path)
        if not os.path.exists(resolved):
            problems.append(f"{where}: {target}: no such file")
            continue
        if anchor and resolved.endswith(".md"):
            if anchor not in anchors_of(resolved, cache):
                problems.append(f"{where}: {target}: no heading #{anchor} in "
                                f"{os.path.relpath(resolved, root)}")
    return checked


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        os.mkdir(os.path.join(root, "docs"))
        with open(os.path.join(root, "docs", "page.md"), "w") as f:
            f.write("# Page\n\n## The I/O as a graph (`--folded`)\n\n## Twice\n\n## Twice\n")
        with open(os.path.join(root, "README.md"), "w") as f:
            f.write("[ok](docs/page.md#the-io-as-a-graph---folded) [ok](docs/page.md#twice-1)\n"
                    "[ok](#readme) [web](https://example.com/x.md#nothing)\n"
                    "`[code](missing.md)`\n```\n[fenced](missing.md)\n```\n"
                    "[bad](docs/missing.md) [bad](docs/page.md#nothing)\n"
                    "[ref]: docs/gone.md\n# README\n")
        problems = []
        checked = check_file(os.path.join(root, "README.md"), root, {}, problems)
    expected = ["README.md:7: docs/missing.md: no such file",
                "README.md:7: docs/page.md#nothing: no heading #nothing in docs/page.md",
                "README.md:8: docs/gone.md: no such file"]
    if problems != expected or checked != 6:
        print(f"check_links: self-test failed: checked {checked} links, found {problems}")
        return 1
    print("check_links: self-test passed")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1])
    files = [os.path.abspath(p) for p in argv[2:]] or list(markdown_files(root))
    problems = []
    cache = {}
    links = sum(check_file(path, root, cache, problems) for path in files)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"check_links: {links} relative links in {len(files)} files, all resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
