#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The man page must render without a single groff warning, the way a reader's man(1)
# renders it: a warning is a macro or escape that some formatter will get wrong.
set -euo pipefail
page=${1:?usage: manpage_render.sh PATH_TO_uringscope.8}
command -v man >/dev/null || { echo "FAIL: man(1) is missing: install man-db and groff-base" >&2; exit 1; }
[[ -r "$page" ]] || { echo "FAIL: cannot read $page" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# man-db's default warnings (--warnings alone), then every warning groff has (w), at the
# usual width and at a narrow one, where lines that cannot be broken show up.
for warnings in --warnings --warnings=w; do
  for width in 80 60; do
    LC_ALL=C.UTF-8 MANWIDTH=$width man "$warnings" -E UTF-8 -l "$page" >"$tmp/out" 2>"$tmp/err" || {
      echo "FAIL: man $warnings -l $page exited $? (MANWIDTH=$width): $(head -c 300 "$tmp/err")" >&2
      exit 1
    }
    if [[ -s "$tmp/err" ]]; then
      echo "FAIL: man $warnings -l $page (MANWIDTH=$width) warns: $(head -n 5 "$tmp/err" | tr '\n' ' ')" >&2
      exit 1
    fi
  done
done

# The sections the page promises, in the rendered text (not just the source).
for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
  grep -q "^$section\$" "$tmp/out" || { echo "FAIL: the rendered page has no $section section" >&2; exit 1; }
done
echo "ok: $page renders without warnings ($(wc -l <"$tmp/out") lines)"
