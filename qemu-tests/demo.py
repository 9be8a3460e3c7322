#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ramtrail's main job, shown: a guest records what every CPU does, panics,
reboots warm (same RAM), and reads back the merged trace and the panic log
from /sys/fs/pstore; then the host reads the same trace offline from the
guest's RAM file with tools/ramtrail, and exports it for KernelShark.

usage: demo.py [--kver 6.12|6.12-arm64] [--smp 4]

On arm64 (QEMU's virt board) the region is a device tree's no-map
/reserved-memory node, as on a phone or a board.
"""
import argparse
import re
import sys

import harness as h
import ramtrail_guest as rg

# A boot that crashes before ramtrail is loaded is not ramtrail's doing
# (ramtrail_guest.env_crash; QEMU's TCG with more vCPUs than host cores): the
# whole demo then runs again, up to this many times.
RETRIES = 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kver", default="6.12")
    ap.add_argument("--smp", type=int, default=4)
    a = ap.parse_args()
    err = rg.use_arch([a.kver])
    if err:
        ap.error(err)
    k = h.kernel(a.kver)
    rg.build_tools()
    ko = rg.build_all(a.kver)
    where = rg.MEMMAP if k.arch == "x86_64" else \
        f"a no-map /reserved-memory node at {rg.RESV:#x} (the device tree)"
    print(f"Booting Debian {k.release} in QEMU (TCG, {a.smp} CPUs) with "
          f"{where}; ramtrail records: {rg.FUNCS}", flush=True)
    for attempt in range(1, RETRIES + 2):
        g = rg.Guest(k, ko, "demo", a.smp, rg.RECORD_AND_CRASH)
        r = g.run()
        crashed = rg.env_crashes(r)
        if not crashed or attempt > RETRIES:
            break
        log = h.BUILD / (g.name + ".log")
        kept = log.replace(log.with_name(f"{g.name}-crashed{attempt}.log"))
        oops = next(l for l in crashed[0].splitlines() if "Oops" in l or "Kernel panic" in l)
        print(f"note: the guest kernel crashed before ramtrail was loaded: "
              f"{re.sub(r'^.*?] ', '', oops)}\n      (a known flake of QEMU's TCG, not "
              f"ramtrail's; log: {kept}); running the demo again, "
              f"retry {attempt} of {RETRIES}", flush=True)
    if r.boots != 2:
        print(f"demo failed ({rg.brief(r)}, {len(crashed)} crashed before ramtrail "
              f"was loaded); serial log: {h.BUILD / (g.name + '.log')}")
        return 1
    trace = rg.section(r, "ftrace-ramtrail-0").splitlines()
    print("\n--- ramtrail's messages at the next boot (dmesg) ---")
    print(rg.section(r, "rtlog"))
    print(f"\n--- {rg.STATUS} at the next boot ---")
    print(h.sections(r.log, "status")[-1].strip())
    print(f"\n--- /sys/fs/pstore/ftrace-ramtrail-0: {len(trace)} records, "
          "all CPUs merged by time; the last 20 ---")
    print("\n".join(trace[-20:]))
    dm = rg.section(r, "dmesg-ramtrail-0").splitlines()
    start = next((i for i, l in enumerate(dm) if "Kernel panic" in l or "sysrq" in l), 0)
    print("\n--- /sys/fs/pstore/dmesg-ramtrail-0 (the panic log), from the crash ---")
    print("\n".join(dm[start:start + 15]))
    ksyms = rg.kallsyms(g, r)
    if ksyms:
        out = rg.tool("decode", g.ram.path, *g.REGION_ARGS, "--boot", 1,
                      "--system-map", ksyms)
        lines = out.stdout.splitlines()
        print(f"\n--- offline on the host: {rg.TOOL.name} decode {g.ram.path} "
              f"--offset {rg.RESV - rg.RAM_BASE:#x} --boot 1 --system-map <guest's kallsyms> ---")
        print("\n".join(lines[:7] + ["   ..."] + lines[-8:]))
        dat = g.work / "trace.dat"
        out = rg.tool("export", g.ram.path, *g.REGION_ARGS, "--boot", 1,
                      "--system-map", ksyms, "-o", dat)
        print(out.stderr.strip() + f"  (trace-cmd report {dat}; kernelshark {dat})")
    print(f"\nFull serial log: {h.BUILD / (g.name + '.log')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
