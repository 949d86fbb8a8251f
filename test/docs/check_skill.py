#!/usr/bin/env python3
"""Check the agent skill skills/uringscope/SKILL.md against the Agent Skills format and
against the project's own documentation.

usage: check_skill.py SKILL.md [docs/findings.md [docs/json.md]]

(the two docs default to ../../docs/ next to this script)

Checks:
  - the file starts with YAML front matter that parses, with `name` equal to
    "uringscope" and to the skill's folder name, a `description` shorter than 1,024
    characters, and a body (everything after the front matter) under 500 lines;
  - every finding tag the skill mentions is a tag docs/findings.md says is implemented.
    A mention is a `[TAG]` in brackets, a level-3 heading made of one tag-like word, a
    hyphenated ALL-CAPS word (DEFER-TW), or any word equal to a tag of docs/findings.md,
    implemented or reserved (REAP-LAG, HAZARD...);
  - conversely, every implemented tag has its own `### TAG` heading in the skill, and
    every PUNT reason of docs/findings.md is named (in backticks) in the PUNT section;
  - every JSON path the skill writes in an inline code span (`findings[].evidence`,
    `.leak.suspected`, `rings[].counters.cq_overflows`) is documented in docs/json.md;
    `[]` and leading dots are ignored. A span counts as a path when its first segment
    is a top-level key of the report and it has a `.` or `[]`. Paths under
    `findings[].evidence.` must name an evidence key listed in docs/findings.md.
    Fenced code blocks (jq programs) are not checked.

Prints one line per problem and exits 1 when there is any; exits 0 with a summary
otherwise, 2 on bad usage. A missing python3-yaml is a failure, not a skip.
"""

import json
import os
import re
import sys

TAG_WORD = r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*"
IDENT = r"[a-z_][a-z0-9_]*"
PATH_RE = re.compile(rf"^\.?{IDENT}(?:\[\])?(?:\.{IDENT}(?:\[\])?)*$")
BACKTICK = re.compile(r"`([^`\n]+)`")
# Hyphenated ALL-CAPS words that are ordinary technical terms, not finding tags.
NOT_TAGS = {"CO-RE"}


def norm(path):
    """`.rings[].counters.cq_overflows` -> ('rings', 'counters', 'cq_overflows')"""
    return tuple(p for p in path.lstrip(".").replace("[]", "").split(".") if p)


def strip_fences(lines):
    """The lines outside fenced code blocks (others become empty, so numbering stays)."""
    out, fenced = [], False
    for line in lines:
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return out


def table_rows(lines, i):
    """Rows of the markdown table starting at line i: (header cells, [row cells], next i)."""
    def cells(line):
        return [c.strip() for c in line.strip().strip("|").split("|")]
    header = cells(lines[i])
    rows = []
    i += 2  # header and the |---| line
    while i < len(lines) and lines[i].lstrip().startswith("|"):
        rows.append(cells(lines[i]))
        i += 1
    return header, rows, i


def is_table_start(lines, i):
    return (lines[i].lstrip().startswith("|") and i + 1 < len(lines)
            and re.match(r"^\s*\|[\s:|-]+\|\s*$", lines[i + 1]) is not None)


# ---------------------------------------------------------------- docs/findings.md

def findings_facts(text, problems, where):
    lines = text.splitlines()
    implemented = []
    m = re.search(r"Implemented tags:(.*?)\.(?:\s|$)", text, re.S)
    if m:
        implemented = re.findall(TAG_WORD, m.group(1))
    headings = [l[3:].strip() for l in lines
                if l.startswith("## ") and re.fullmatch(TAG_WORD, l[3:].strip())]
    if not implemented:
        implemented = headings
    if not implemented:
        problems.append(f"{where}: found no finding tags (no 'Implemented tags:' line, no '## TAG' headings)")
    for t in sorted(set(implemented) ^ set(headings)):
        problems.append(f"{where}: tag {t} is not both in 'Implemented tags:' and a '## {t}' heading")

    reserved = set()
    for sentence in re.split(r"(?<=\.)\s+", text):
        if "not produced" in sentence:
            reserved.update(w for w in re.findall(TAG_WORD, sentence)
                            if len(w) >= 3 and w not in implemented
                            and (w.startswith("HAZARD") or "-" in w))

    # evidence keys: backticked identifiers after the word "evidence" in a paragraph,
    # the first column of key tables right after an "Evidence:" line, and a table column
    # headed "evidence".
    evidence = set()
    paragraph = []
    for line in lines + [""]:
        if line.strip() and not line.lstrip().startswith("|"):
            paragraph.append(line)
            continue
        joined = " ".join(paragraph)
        pos = joined.lower().find("evidence")
        if pos >= 0:
            evidence.update(k for k in BACKTICK.findall(joined[pos:]) if re.fullmatch(IDENT, k))
        paragraph = []
    i = 0
    while i < len(lines):
        if is_table_start(lines, i):
            prev = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            header, rows, nxt = table_rows(lines, i)
            lower = [h.lower() for h in header]
            cols = []
            if "evidence" in lower:
                cols.append(lower.index("evidence"))
            if lower and lower[0] == "key" and "evidence" in prev.lower():
                cols.append(0)
            for row in rows:
                for c in cols:
                    if c < len(row):
                        evidence.update(k for k in BACKTICK.findall(row[c]) if re.fullmatch(IDENT, k))
            i = nxt
        else:
            i += 1

    # PUNT reasons: the values listed for the `reason` evidence key.
    reasons = []
    for line in lines:
        if line.lstrip().startswith("| `reason`"):
            reasons = [r for r in BACKTICK.findall(line.split("|")[3] if line.count("|") > 3 else "")
                       if re.fullmatch(IDENT, r)]
            break
    if not reasons:
        problems.append(f"{where}: found no `reason` row listing the PUNT reasons")
    return set(implemented), reserved, evidence, reasons


# ---------------------------------------------------------------- docs/json.md

def json_paths(text, problems, where):
    """Every key path docs/json.md documents, normalised (no [] and no leading dot)."""
    lines = text.splitlines()
    documented = set()
    aliases = []          # (alias prefix, target prefix)
    top_level = set()
    prefixes = []         # prefixes of the current section
    h2_prefixes = []
    last_para = ""
    in_fence = False
    fence_lang, fence_buf = "", []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            if not in_fence:
                in_fence, fence_lang, fence_buf = True, line.strip()[3:].strip(), []
            else:
                in_fence = False
                if fence_lang == "json":
                    add_json_example("\n".join(fence_buf), documented)
            i += 1
            continue
        if in_fence:
            fence_buf.append(line)
            i += 1
            continue
        m = re.match(r"^(#{2,3})\s+(.*)$", line)
        if m:
            names = [norm(n) for n in BACKTICK.findall(m.group(2)) if PATH_RE.match(n)]
            if m.group(1) == "##":
                if m.group(2).strip().lower() == "top level":
                    names = [()]
                h2_prefixes = names
                prefixes = names
            else:
                prefixes = names or h2_prefixes
            last_para = ""
            i += 1
            continue
        if is_table_start(lines, i):
            header, rows, nxt = table_rows(lines, i)
            if header and header[0].lower() == "key":
                table_prefixes = prefixes
                sub = re.match(r"^`([^`]+)`\s*[:,]", last_para.strip())
                if sub and PATH_RE.match(sub.group(1)):
                    table_prefixes = [p + norm(sub.group(1)) for p in prefixes]
                for row in rows:
                    keys = [k for k in BACKTICK.findall(row[0]) if PATH_RE.match(k)]
                    see = re.search(r"see \[`([^`]+)`\]\(#", " ".join(row[1:]))
                    for p in table_prefixes:
                        for k in keys:
                            documented.add(p + norm(k))
                            if p == ():
                                top_level.add(norm(k)[0])
                            if see and PATH_RE.match(see.group(1)):
                                aliases.append((p + norm(k), norm(see.group(1))))
            i = nxt
            last_para = ""
            continue
        if line.strip():
            if i == 0 or not lines[i - 1].strip():
                last_para = line   # first line of the latest paragraph
            # "Feature names in this version: `submit`, ..." lists kernel.features keys.
            if line.startswith("Feature names"):
                para = line
                j = i + 1
                while j < len(lines) and lines[j].strip():
                    para += " " + lines[j]
                    j += 1
                for name in BACKTICK.findall(para.split(". ")[0]):
                    if re.fullmatch(IDENT, name):
                        documented.add(("kernel", "features", name))
                        documented.add(("kernel", "feature_detail", name))
        i += 1

    for alias, target in aliases:
        for p in list(documented):
            if p[:len(target)] == target and len(p) > len(target):
                documented.add(alias + p[len(target):])
    # every prefix of a documented path is documented too
    for p in list(documented):
        for n in range(1, len(p)):
            documented.add(p[:n])
    documented.discard(())
    if not top_level:
        problems.append(f"{where}: found no top-level key table ('## Top level')")
    return documented, top_level


def add_json_example(block, documented):
    for candidate in (block, "{" + block.strip().rstrip(",") + "}"):
        try:
            doc = json.loads(candidate)
            break
        except ValueError:
            continue
    else:
        return

    def walk(value, prefix):
        if isinstance(value, dict):
            for k, v in value.items():
                if re.fullmatch(IDENT, k):
                    documented.add(prefix + (k,))
                    walk(v, prefix + (k,))
        elif isinstance(value, list):
            for v in value:
                walk(v, prefix)
    walk(doc, ())


# ---------------------------------------------------------------- SKILL.md

def main(argv):
    if len(argv) not in (2, 3, 4):
        print("usage: check_skill.py SKILL.md [docs/findings.md [docs/json.md]]", file=sys.stderr)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    skill_path = argv[1]
    findings_path = argv[2] if len(argv) > 2 else os.path.join(here, "..", "..", "docs", "findings.md")
    json_path = argv[3] if len(argv) > 3 else os.path.join(here, "..", "..", "docs", "json.md")
    try:
        import yaml
    except ImportError:
        print("check_skill: FAILED: the Python module 'yaml' is missing; install python3-yaml "
              "(Debian: apt-get install python3-yaml) to check SKILL.md")
        return 1

    problems = []
    texts = {}
    for p in (skill_path, findings_path, json_path):
        try:
            texts[p] = open(p, encoding="utf-8").read()
        except OSError as e:
            problems.append(f"{p}: cannot read: {e.strerror}")
    if problems:
        print("\n".join(problems))
        return 1
    skill = texts[skill_path]
    S = skill_path

    # --- front matter
    lines = skill.splitlines()
    meta, body_start = None, None
    if not lines or lines[0].strip() != "---":
        problems.append(f"{S}: does not start with '---' (YAML front matter)")
    else:
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is None:
            problems.append(f"{S}: front matter is not closed by a '---' line")
        else:
            body_start = end + 1
            try:
                meta = yaml.safe_load("\n".join(lines[1:end]))
            except yaml.YAMLError as e:
                problems.append(f"{S}: front matter is not valid YAML: {' '.join(str(e).split())}")
            if meta is not None and not isinstance(meta, dict):
                problems.append(f"{S}: front matter is not a mapping")
                meta = None
    folder = os.path.basename(os.path.dirname(os.path.abspath(skill_path)))
    if meta is not None:
        allowed = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
        for k in sorted(set(meta) - allowed):
            problems.append(f"{S}: front matter key '{k}' is not part of the Agent Skills format")
        name = meta.get("name")
        if name != "uringscope":
            problems.append(f"{S}: name is {name!r}, expected 'uringscope'")
        if name != folder:
            problems.append(f"{S}: name {name!r} does not match the folder name {folder!r}")
        if isinstance(name, str) and not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", name or ""):
            problems.append(f"{S}: name {name!r} must be lowercase letters, digits and single hyphens")
        desc = meta.get("description")
        if not isinstance(desc, str) or not desc.strip():
            problems.append(f"{S}: description is missing or empty")
        elif len(desc) >= 1024:
            problems.append(f"{S}: description is {len(desc)} characters, must be under 1024")
        comp = meta.get("compatibility")
        if comp is not None and (not isinstance(comp, str) or len(comp) > 500):
            problems.append(f"{S}: compatibility must be a string of at most 500 characters")
        md = meta.get("metadata")
        if md is not None and not (isinstance(md, dict) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in md.items())):
            problems.append(f"{S}: metadata must map strings to strings")
    body = lines[body_start:] if body_start is not None else lines
    if len(body) >= 500:
        problems.append(f"{S}: body is {len(body)} lines, must be under 500")

    # --- tags
    implemented, reserved, evidence_keys, reasons = findings_facts(
        texts[findings_path], problems, findings_path)
    known_words = implemented | reserved
    desc_text = meta.get("description", "") if meta else ""
    prose = strip_fences(body)
    mentioned = {}   # tag -> first line number (1-based in the file)
    headings = {}
    offset = body_start or 0

    def mention(tag, lineno):
        mentioned.setdefault(tag, lineno)

    for word in re.findall(rf"(?<![A-Za-z0-9_-])({TAG_WORD})(?![A-Za-z0-9_])", desc_text):
        if word in known_words or "-" in word:
            mention(word, 1)
    for n, line in enumerate(prose, start=offset + 1):
        for w in re.findall(rf"\[({TAG_WORD})\]", line):
            mention(w, n)
        h = re.match(r"^###\s+(\S+)\s*$", line)
        if h and re.fullmatch(TAG_WORD, h.group(1)) and len(h.group(1)) >= 3:
            mention(h.group(1), n)
            headings[h.group(1)] = n
        for w in re.findall(rf"(?<![A-Za-z0-9_-])({TAG_WORD})(?![A-Za-z0-9_-])", line):
            if w in known_words:
                mention(w, n)
        outside_code = BACKTICK.sub(" ", line)
        for w in re.findall(rf"(?<![A-Za-z0-9_-])({TAG_WORD})(?![A-Za-z0-9_-])", outside_code):
            if "-" in w and w not in NOT_TAGS and re.search(r"[A-Z]{2}", w):
                mention(w, n)
    for tag, n in sorted(mentioned.items(), key=lambda kv: kv[1]):
        if tag in implemented:
            continue
        if tag in reserved or any(tag.startswith(r + "-") for r in reserved):
            problems.append(f"{S}:{n}: tag {tag} is reserved but not produced by this version (docs/findings.md)")
        else:
            problems.append(f"{S}:{n}: unknown finding tag {tag}: not in docs/findings.md")
    for tag in sorted(implemented):
        if tag not in headings:
            problems.append(f"{S}: tag {tag} of docs/findings.md has no '### {tag}' section in the skill")

    # PUNT reasons
    if "PUNT" in headings:
        start = headings["PUNT"] - offset  # index into prose (0-based body index + 1)
        section = []
        for line in prose[start:]:
            if re.match(r"^#{1,3}\s", line):
                break
            section.append(line)
        named = set(BACKTICK.findall("\n".join(section)))
        for r in reasons:
            if r not in named:
                problems.append(f"{S}: PUNT reason `{r}` of docs/findings.md is not covered in the PUNT section")

    # --- JSON paths
    documented, top_level = json_paths(texts[json_path], problems, json_path)
    checked = 0
    for n, line in enumerate(prose, start=offset + 1):
        for span in BACKTICK.findall(line):
            span = span.strip()
            if not PATH_RE.match(span):
                continue
            parts = norm(span)
            if not parts or parts[0] not in top_level:
                continue
            if len(parts) == 1 and "." not in span and "[]" not in span:
                continue
            checked += 1
            if parts[:2] == ("findings", "evidence") and len(parts) > 2:
                if len(parts) > 3 or parts[2] not in evidence_keys:
                    problems.append(f"{S}:{n}: `{span}`: evidence key not listed in docs/findings.md")
                continue
            if parts not in documented:
                problems.append(f"{S}:{n}: `{span}`: path not documented in docs/json.md")

    if problems:
        print("\n".join(problems))
        return 1
    print(f"check_skill: {S} ok ({len(body)} body lines, description {len(desc_text)} chars, "
          f"{len(implemented)} tags covered, {checked} JSON paths checked)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
