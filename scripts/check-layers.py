#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every file of fs/ramtrail calls only downwards (the order of main.c).

Reads the order from the comment at the top of fs/ramtrail/main.c
("main.c → pstore.c → ...", record.c and events.c beside them) and fails
if a file calls a function that a file above it, or a file beside, defines
(record.c may call storage.c and dump.c only; events.c, dump.c and marker.c
nothing). Prints "N passed, N failed".
"""
import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "fs" / "ramtrail"
DEF = re.compile(r"^(?!static)[a-z].*?\b(ramtrail_\w+)\(", re.M)
CALL = re.compile(r"\b(ramtrail_\w+)\s*\(")


def strip(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def main():
    m = re.search(r"^ \*\s+(main\.c(?: → \w+\.c)+)", (SRC / "main.c").read_text(), re.M)
    if not m:
        print("FAIL main.c does not state the order of the files")
        print("0 passed, 1 failed")
        return 1
    order = m.group(1).split(" → ")
    beside = {"record.c": {"storage.c", "dump.c"}, "events.c": set(), "dump.c": set(),
              "marker.c": set()}
    defined = {}
    for f in order + list(beside):
        for name in DEF.findall(strip((SRC / f).read_text())):
            defined[name] = f
    bad = []
    for f in order + list(beside):
        allowed = (beside[f] if f in beside else
                   set(order[order.index(f) + 1:]) | (set(beside) if f == "main.c" else set()))
        allowed.add(f)
        for name in set(CALL.findall(strip((SRC / f).read_text()))):
            owner = defined.get(name)
            if owner and owner not in allowed:
                bad.append(f"{f} calls {name}() of {owner}")
    for b in bad:
        print(f"FAIL {b}")
    if not bad:
        print(f"ok   files call only downwards: {' → '.join(order)}, record.c, events.c, dump.c and marker.c beside")
    print(f"{0 if bad else 1} passed, {1 if bad else 0} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
