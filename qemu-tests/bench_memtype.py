#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cost of ramtrail's mapping types in one guest boot: a syscall loop timed
with recording off (module not loaded) and with each mem_type, interleaved
over several rounds. Under QEMU TCG only ratios inside one boot mean
anything. A benchmark: it asserts nothing.

usage: bench_memtype.py [--kver 6.12] [--rounds 3]
"""
import argparse
import re
import statistics
import sys

import harness as h
import ramtrail_guest as rg

BODY = r"""
loop() {{
    t0=$(cut -d' ' -f1 /proc/uptime)
    dd if=/dev/zero of=/dev/null bs=1 count={count} 2>/dev/null
    t1=$(cut -d' ' -f1 /proc/uptime)
    echo "RESULT $1 $t0 $t1"
}}
r=0
while [ $r -lt {rounds} ]; do
    loop off
    for mt in 0 1 2; do
        rt_load {params} functions=ksys_read,vfs_read,ksys_write,vfs_write mem_type=$mt >/dev/null
        loop mem_type=$mt
        rmmod ramtrail
    done
    r=$((r + 1))
done
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kver", default="6.12")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--count", type=int, default=100000)
    a = ap.parse_args()
    k = h.kernel(a.kver)
    rg.build_tools()
    g = rg.Guest(k, rg.build_all(a.kver), "bench-memtype", 2,
                 BODY.format(rounds=a.rounds, count=a.count, params=rg.PARAMS))
    r = g.run(timeout=900, tcg_single=False)      # as bench.py: a thread per vCPU
    runs = {}
    for m in re.finditer(r"^RESULT (\S+) ([\d.]+) ([\d.]+)$", r.log, re.M):
        runs.setdefault(m[1], []).append(float(m[3]) - float(m[2]))
    if "off" not in runs:
        print(f"no results; see {h.BUILD / (g.name + '.log')}")
        return 1
    off = statistics.median(runs["off"])
    print(f"{k.release}, 2 CPUs, QEMU TCG, one boot, {a.rounds} interleaved rounds of "
          f"dd bs=1 count={a.count} (4 recorded functions per byte)")
    print("| setting | median s | ratio to off |\n|---|---|---|")
    for name, v in runs.items():
        print(f"| {name} | {statistics.median(v):.2f} | {statistics.median(v) / off:.2f} |")
    print("Only ratios inside this boot mean anything under TCG. Nothing is asserted.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
