#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Validate uringscope JSON reports against a JSON Schema (draft 2020-12).

    python3 test/check_json_schema.py docs/json.schema.json report.json [more.json ...]

Prints one line per problem, "FILE: $.json.path: message", and exits
  0  every file is a valid report,
  1  at least one file is not (schema violation, malformed JSON, duplicate key),
  2  usage error, an unreadable file, a broken schema, or jsonschema is missing
     (2 wins over 1: the run could not check everything it was asked to).

Only the standard library and the jsonschema module (Debian: python3-jsonschema,
4.10 or later) are used, so the system python3 runs it without a virtualenv.
"""

import json
import sys

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


def fail_usage(message):
    print(f"check_json_schema: {message}", file=sys.stderr)
    sys.exit(EXIT_USAGE)


try:
    import jsonschema
except ImportError:
    fail_usage(
        "the jsonschema module is missing for "
        f"{sys.executable}: install python3-jsonschema (apt-get install python3-jsonschema)"
    )


class ReportError(Exception):
    """The file is readable but is not a well-formed JSON document."""


def json_path(parts):
    """'$.rings[0].fd' from the deque of keys and indices jsonschema reports."""
    text = "$"
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part.isidentifier():
            text += f".{part}"
        else:
            text += "[" + json.dumps(part) + "]"
    return text


def sort_key(parts):
    # Indices numerically (rings[2] before rings[10]), keys by name.
    return [(0, part, "") if isinstance(part, int) else (1, 0, part) for part in parts]


def reject_duplicates(pairs):
    # json.load keeps the last of two equal keys without a word; a report that
    # repeats a key is broken whichever value a consumer ends up reading.
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ReportError(f"duplicate key {json.dumps(key)}")
        seen[key] = value
    return seen


def reject_constant(name):
    # NaN and Infinity are not JSON; Python would accept them by default.
    raise ReportError(f"{name} is not valid JSON")


def load(path):
    """The parsed document; OSError for I/O problems, ReportError for bad JSON."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        return json.loads(
            data, object_pairs_hook=reject_duplicates, parse_constant=reject_constant
        )
    except (ValueError, UnicodeDecodeError) as e:  # JSONDecodeError is a ValueError
        raise ReportError(f"not valid JSON: {e}") from None


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        fail_usage(f"usage: {argv[0]} SCHEMA FILE...")

    schema_path, files = argv[1], argv[2:]
    try:
        schema = load(schema_path)
    except (OSError, ReportError) as e:
        fail_usage(f"{schema_path}: {e}")
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        fail_usage(f"{schema_path}: not a valid draft 2020-12 schema: {e.message}")
    validator = jsonschema.Draft202012Validator(schema)

    status = EXIT_OK
    for path in files:
        try:
            report = load(path)
        except OSError as e:
            print(f"{path}: cannot read: {e.strerror or e}", file=sys.stderr)
            status = EXIT_USAGE
            continue
        except ReportError as e:
            print(f"{path}: {e}")
            status = max(status, EXIT_INVALID)
            continue
        # Sorted by location so the output is stable from run to run.
        errors = sorted(validator.iter_errors(report), key=lambda e: sort_key(e.absolute_path))
        for error in errors:
            print(f"{path}: {json_path(error.absolute_path)}: {error.message}")
        if errors:
            status = max(status, EXIT_INVALID)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
