#!/usr/bin/env python3
"""Check CITATION.cff: valid YAML, the keys a Citation File Format 1.2.0 file needs, and
a version that matches the project version in CMakeLists.txt.

usage: check_citation.py CITATION.cff CMakeLists.txt

Prints one line per problem and exits 1 when there is any; exits 0 (with a one-line
summary) when the file is fine, 2 on bad usage. A missing python3-yaml is a failure, not a
skip: the check cannot vouch for a file it could not parse.
"""

import datetime
import re
import sys
import urllib.parse

# Every top-level key of the CFF 1.2.0 schema; the schema allows no others, so anything
# else is most likely a typo (`repository_code`, `date_released`, ...).
CFF_KEYS = {
    "abstract", "authors", "cff-version", "commit", "contact", "date-released", "doi",
    "identifiers", "keywords", "license", "license-url", "message", "preferred-citation",
    "references", "repository", "repository-artifact", "repository-code", "title", "type",
    "url", "version",
}

SPDX_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]*")


def project_version(cmake_path, problems):
    try:
        text = open(cmake_path, encoding="utf-8").read()
    except OSError as e:
        problems.append(f"{cmake_path}: cannot read: {e.strerror}")
        return None
    m = re.search(r"project\s*\(\s*uringscope\s+VERSION\s+([0-9]+(?:\.[0-9]+)*)", text)
    if not m:
        problems.append(f"{cmake_path}: no 'project(uringscope VERSION x.y.z' line")
        return None
    return m.group(1)


def nonempty_str(v):
    return isinstance(v, str) and v.strip() != ""


def check_license(value, problems):
    """CFF 1.2.0's schema takes one SPDX license identifier or a list of them, not an
    SPDX expression: "MIT AND (GPL-2.0-only OR BSD-3-Clause)" fails cffconvert."""
    items = value if isinstance(value, list) else [value]
    if not items:
        problems.append("license: empty list")
        return
    for item in items:
        if not nonempty_str(item):
            problems.append(f"license: {item!r} is not a non-empty string")
        elif not SPDX_ID.fullmatch(item) or item in ("AND", "OR", "WITH"):
            problems.append(f"license: {item!r} is not a single SPDX identifier "
                            "(CFF takes a list of identifiers, not an expression)")


def check_url(key, value, problems):
    if not nonempty_str(value):
        problems.append(f"{key}: missing or not a string")
        return
    u = urllib.parse.urlparse(value)
    if u.scheme not in ("http", "https") or not u.netloc or " " in value:
        problems.append(f"{key}: {value!r} is not an http(s) URL")


def check(cff, expected_version, problems):
    if not isinstance(cff, dict):
        problems.append("CITATION.cff: the top level is not a mapping")
        return

    for key in sorted(set(cff) - CFF_KEYS):
        problems.append(f"{key}: not a CFF 1.2.0 key")

    if str(cff.get("cff-version")) != "1.2.0":
        problems.append(f"cff-version: {cff.get('cff-version')!r}, expected '1.2.0'")
    for key in ("message", "title"):
        if not nonempty_str(cff.get(key)):
            problems.append(f"{key}: missing or empty")
    if "abstract" in cff and not nonempty_str(cff["abstract"]):
        problems.append("abstract: present but empty")
    if "type" in cff and cff["type"] not in ("software", "dataset"):
        problems.append(f"type: {cff['type']!r}, expected 'software' or 'dataset'")

    authors = cff.get("authors")
    if not isinstance(authors, list) or not authors:
        problems.append("authors: missing or not a non-empty list")
    else:
        for i, a in enumerate(authors):
            if not isinstance(a, dict):
                problems.append(f"authors[{i}]: not a mapping")
            elif not (nonempty_str(a.get("name")) or nonempty_str(a.get("family-names"))):
                problems.append(f"authors[{i}]: needs 'name' (an entity) or 'family-names' (a person)")

    version = cff.get("version")
    if version is None:
        problems.append("version: missing")
    elif not isinstance(version, str):
        problems.append(f"version: {version!r} should be a quoted string")
    elif expected_version is not None and version != expected_version:
        problems.append(f"version: {version!r} does not match the project version {expected_version!r} in CMakeLists.txt")

    released = cff.get("date-released")
    if released is None:
        problems.append("date-released: missing")
    elif isinstance(released, datetime.datetime) or not isinstance(released, (str, datetime.date)):
        problems.append(f"date-released: {released!r} is not a date (YYYY-MM-DD)")
    elif isinstance(released, str):
        try:
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", released):
                raise ValueError
            datetime.date.fromisoformat(released)
        except ValueError:
            problems.append(f"date-released: {released!r} is not a valid YYYY-MM-DD date")

    if "license" not in cff:
        problems.append("license: missing")
    else:
        check_license(cff["license"], problems)

    check_url("repository-code", cff.get("repository-code"), problems)
    for key in ("url", "repository", "repository-artifact", "license-url"):
        if key in cff:
            check_url(key, cff[key], problems)

    keywords = cff.get("keywords")
    if not isinstance(keywords, list) or not keywords:
        problems.append("keywords: missing or not a non-empty list")
    else:
        for i, k in enumerate(keywords):
            if not nonempty_str(k):
                problems.append(f"keywords[{i}]: {k!r} is not a non-empty string")
        strs = [k for k in keywords if isinstance(k, str)]
        for k in sorted({k for k in strs if strs.count(k) > 1}):
            problems.append(f"keywords: {k!r} is listed more than once")


def main(argv):
    if len(argv) != 3:
        print("usage: check_citation.py CITATION.cff CMakeLists.txt", file=sys.stderr)
        return 2
    cff_path, cmake_path = argv[1], argv[2]
    try:
        import yaml
    except ImportError:
        print("check_citation: FAILED: the Python module 'yaml' is missing; install python3-yaml "
              "(Debian: apt-get install python3-yaml) to check CITATION.cff")
        return 1

    problems = []
    expected = project_version(cmake_path, problems)
    try:
        with open(cff_path, encoding="utf-8") as f:
            cff = yaml.safe_load(f)
    except OSError as e:
        problems.append(f"{cff_path}: cannot read: {e.strerror}")
        cff = None
    except yaml.YAMLError as e:
        problems.append(f"{cff_path}: not valid YAML: {' '.join(str(e).split())}")
        cff = None
    if cff is not None or not problems:
        check(cff, expected, problems)

    for p in problems:
        print(p if p.startswith((cff_path + ":", cmake_path + ":")) else f"{cff_path}: {p}")
    if problems:
        return 1
    print(f"check_citation: {cff_path} ok (CFF 1.2.0, version {expected})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
