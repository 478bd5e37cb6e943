#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every public function that returns a gcev_status says which statuses it can return
(issue 23 item 5): the comment above its declaration, or above the run of declarations
it ends, names at least one status (GCEV_OK, GCEV_END or a GCEV_E_* code), so a caller
learns from the header what to handle, never from the source.

    check_api_statuses.py INCLUDE_DIR
"""
import glob
import os
import re
import sys

STATUS = re.compile(r"GCEV_(OK|END|E_[A-Z_]+)\b")
DECL = re.compile(r"^GCEV_API\s+gcev_status\s+(\w+)\s*\(")


def check(path):
    """(functions returning gcev_status, problems) of one header."""
    total, problems = 0, []
    comment = ""  # the comment block that speaks of the declarations that follow it
    in_comment = False
    for no, line in enumerate(open(path, encoding="utf-8"), 1):
        s = line.strip()
        if in_comment:
            comment += line
            in_comment = "*/" not in s
            continue
        if s.startswith("/*"):
            comment = line
            in_comment = "*/" not in s
            continue
        m = DECL.match(line)
        if m:
            total += 1
            if not STATUS.search(comment):
                problems.append(f"{os.path.basename(path)}:{no}: {m.group(1)}() returns a gcev_status, "
                                "but the comment above it names none of the statuses it can return")
        elif not s or s.startswith("#") or re.match(r"(typedef|struct|enum|union|})\b", s):
            comment = ""  # a blank line, a directive or a type ends what a comment speaks of
    return total, problems


def main():
    total, problems = 0, []
    for h in sorted(glob.glob(os.path.join(sys.argv[1], "*.h"))):
        t, p = check(h)
        total += t
        problems += p
    for p in problems:
        print(p, file=sys.stderr)
    if total < 40:
        print(f"only {total} functions returning gcev_status found: the check lost them", file=sys.stderr)
        return 1
    print(f"{total} public functions return a gcev_status; {len(problems)} do not name their statuses")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
