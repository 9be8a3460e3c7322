#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Does ramtrail make QEMU TCG's "Oops: int3" in ftrace's text patching
more likely? A measurement: the churn scenario's guest (test_module.py:
ftrace's function tracer in an instance, function_graph at the top, a
kprobe event, a workload on every CPU) with, in turn, ramtrail attached
to every function and detached, and a second function tracer instance in
its place doing the same, boot after boot, with a host thread per vCPU
(where the oops is seen; the QEMU tests run the vCPUs on one thread).
Each boot is counted as clean, int3 (QEMU's stale int3,
ramtrail_guest.stale_int3, and the function it hit), other oops, or hang
(no power-off before the timeout). Asserts nothing. --from-logs
classifies the saved logs of an earlier run again.

usage: churn_int3.py [--kver 6.1] [--smp 4] [--boots 6] [--cycles 2]
                     [--from-logs]
"""
import argparse
import os
import re
import sys

import harness as h
import ramtrail_guest as rg
import test_module as tm

PLUGINS = {"ramtrail": tm.CHURN_RAMTRAIL, "ftrace": tm.CHURN_FTRACE}


def classify(log, timed_out=False):
    """clean, int3 (with the function it hit in), oops or hang, by the first
    crash; and whether the churn had begun when it happened."""
    crash = rg.first_crash(log)
    # The first crash only: later ones are its aftermath.
    where = rg.stale_int3(log)
    # Both plugins attach only after the guest has printed its tracers.
    before = crash >= 0 and "tracers function_graph" not in log[:crash]
    when = " (before the churn)" if before else ""
    if where:
        return f"int3 in {where}{when}"
    if log.startswith("BUG: soft lockup", crash):
        return f"hang{when}: soft lockup"
    if crash >= 0:
        return f"oops{when}: " + log[crash:log.find(chr(10), crash)][:80]
    if timed_out or "=== BEGIN ftrace ===" not in log:
        return "hang: no power-off"
    # A plugin step that failed did not patch the text: not a clean boot.
    rcs = re.findall(r"^(?:insmod|writes|detach) rc=(\d+)$", log, re.M)
    if not rcs or set(rcs) != {"0"}:
        return f"failed: the plugin's steps returned {sorted(set(rcs))}"
    return "clean"


def table(k, a, seen):
    print(f"\n{k.release}, {a.smp} vCPUs, QEMU TCG with a thread per vCPU on "
          f"{os.cpu_count()} host cores, {a.cycles} attach/detach cycles per boot")
    print("| in ftrace's place | boots | clean | int3 | other oops | hang | plugin failed |\n"
          "|---|---|---|---|---|---|---|")
    for name, v in seen.items():
        n = len(v)
        print(f"| {name} | {n} | {v.count('clean')} | "
              f"{sum(x.startswith('int3') for x in v)} | "
              f"{sum(x.startswith('oops') for x in v)} | {sum(x.startswith('hang') for x in v)} | "
              f"{sum(x.startswith('failed') for x in v)} |")
    print("A measurement: nothing is asserted.")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kver", default="6.1")
    ap.add_argument("--smp", type=int, default=4)
    ap.add_argument("--boots", type=int, default=6, help="boots per plugin")
    ap.add_argument("--cycles", type=int, default=2, help="attach/detach per boot")
    ap.add_argument("--timeout", type=int, default=600, help="seconds a boot")
    ap.add_argument("--plugins", default=",".join(PLUGINS),
                    help="which of ramtrail,ftrace to boot")
    ap.add_argument("--from-logs", action="store_true",
                    help="classify the logs of an earlier run, boot nothing")
    a = ap.parse_args()
    k = h.kernel(a.kver)
    plugins = {p: PLUGINS[p] for p in a.plugins.split(",")}
    seen = {p: [] for p in plugins}
    if a.from_logs:
        for name in plugins:
            g = f"{a.kver}-smp{a.smp}-int3-{name}"
            for i in range(a.boots):
                log = h.BUILD / f"{g}-{i}.log"
                if log.exists():
                    seen[name].append(classify(log.read_text(errors="replace")))
                    print(f"     boot {i + 1} {name}: {seen[name][-1]}")
        table(k, a, seen)
        return 0
    rg.build_tools()
    ko = rg.build_all(a.kver)
    for i in range(a.boots):
        for name, plugin in plugins.items():
            g = tm.churn_guest(k, ko, a.smp, plugin, a.cycles, name=f"int3-{name}")
            r = g.run(timeout=a.timeout, tcg_single=False,
                      log_path=h.BUILD / f"{g.name}-{i}.log")
            what = classify(r.log, r.timed_out)
            seen[name].append(what)
            print(f"     boot {i + 1} {name}: {what} ({r.duration:.0f} s)", flush=True)
    table(k, a, seen)
    return 0


if __name__ == "__main__":
    sys.exit(main())
