#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make check-debug: ramtrail under the kernel's own checkers.

Builds what is missing of Debian's 6.12 with the checkers
(debug-kernel.sh: "debug" has KASAN, lockdep and PROVE_RCU, the
atomic-sleep and preemption checks, debug objects and lists, kmemleak,
KFENCE and UBSAN bounds; "kcsan" has KCSAN), then on each:

  - the QEMU scenarios that run the most of ramtrail's code
    (test_module.py --only SCENARIOS) with 2 and 4 CPUs;
  - a crash campaign (stress.py) of --stress-cycles cycles, 2 CPUs;
  - every guest log of those runs scanned, whole (after an intended
    crash too), for the checkers' reports: KASAN, KFENCE, KCSAN, lockdep
    and RCU, a sleeping function in atomic context, UBSAN, refcount,
    WARN, and the kmemleak scan each guest forces before it powers off
    (harness.PRELUDE's finish). Each report fails the run, unless it is
    one of KNOWN: a report of the kernel's own code that ramtrail does
    not cause, named with the reason, and printed every time it is seen;
    a KCSAN report whose racing accesses run none of ramtrail's code
    (KCSAN_OWN), printed with its functions as the kernel's own race;
    in a boot whose first crash is QEMU TCG's stale int3
    (ramtrail_guest.stale_int3), what follows that crash in that boot.

--tcg single runs the kcsan kernel's vCPUs in one host thread, as the
others' (harness.kernel): KCSAN then sees fewer races, but the churn
scenario gets through without QEMU's stale int3 in ftrace's patching.

usage: check_debug.py [--flavours debug,kcsan] [--smp 2,4]
                      [--only SCENARIOS|none] [--stress-cycles N]
                      [--tcg single]
"""
import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import harness as h
import ramtrail_guest as rg

HERE = Path(__file__).resolve().parent
SCENARIOS = ("panic,powercut,allfuncs,crashloop,oops,tasks,dump,control,"
             "refusals,paramrace,modinit,churn")

# The checkers' first lines. Intended crashes (sysrq, the oops module, a
# soft lockup) print none of these.
REPORTS = [
    ("KASAN", r"BUG: KASAN: .*"),
    ("KFENCE", r"BUG: KFENCE: .*"),
    ("KCSAN", r"BUG: KCSAN: .*"),
    ("lockdep", r"WARNING: (possible circular locking dependency detected|"
                r"possible recursive locking detected|inconsistent lock state|"
                r"possible irq lock inversion dependency detected|"
                r"suspicious RCU usage|bad unlock balance detected!|"
                r"held lock freed!|lock held when returning to user space!)"),
    ("sleep", r"BUG: (sleeping function called from invalid context|"
              r"scheduling while atomic|using smp_processor_id\(\) in preemptible).*"),
    ("UBSAN", r"UBSAN: .*"),
    ("refcount", r"refcount_t: .*"),
    ("WARN", r"WARNING: CPU: \d+ PID: \d+ at .*"),
    ("debugobjects", r"ODEBUG: .*"),
    ("list", r"list_(add|del) corruption.*"),
    ("BUG", r"kernel BUG at .*"),
    ("double fault", r"PANIC: double fault.*|<#DF>"),
    ("kmemleak", r"unreferenced object 0x[0-9a-f]+ .*"),
]
REPORT = re.compile("|".join(f"(?P<k{i}>{p})" for i, (_, p) in enumerate(REPORTS)))

# Reports of the kernel's own code that ramtrail does not cause:
# (kind, pattern on the report and the lines after it, why).
KNOWN = [
    ("kmemleak", r"unreferenced object 0x[0-9a-f]+ \(size \d+\):\n(?:.*\n){0,5}?"
                 r"\s+__kmalloc\S*\n\s+pstore_ftrace_seq_start\+",
     "pstore's iterator of its ftrace files (fs/pstore/inode.c, 6.12.95): "
     "pstore_ftrace_seq_next() returns NULL at a file's end without freeing "
     "the cursor pstore_ftrace_seq_start() allocated, so seq_file's stop() "
     "frees NULL: one cursor leaks per file read to its end, whatever the "
     "backend (ramoops' ftrace files too); ftrace-ramtrail-N is such a file"),
    ("KCSAN", r"data-race in __tmigr_cpu_activate / tmigr_handle_remote_up",
     "the timer migration hierarchy (kernel/time/timer_migration.c, 6.12.95): "
     "__tmigr_cpu_activate() sets a CPU event's ignore flag without the lock "
     "tmigr_handle_remote_cpu() reads it under, on purpose: its comment says the "
     "active path updates it locklessly and a migrator that sees it late only "
     "expires that CPU's timers remotely"),
    ("KCSAN", r"data-race in run_posix_cpu_timers / wait_consider_task",
     "an exiting task's tick (kernel/time/posix-cpu-timers.c, 6.12.95): "
     "run_posix_cpu_timers() reads current->exit_state plainly, only to return "
     "if it is set, while the parent's wait4() moves it from EXIT_ZOMBIE to "
     "EXIT_DEAD with cmpxchg() (kernel/exit.c): set either way, the same return"),
    ("KCSAN", r"data-race in (release_task|process_one_work)\+\S+\n\s*\n"
              r"race at unknown origin, with read to \S+ of 8 bytes",
     "the scheduler is not instrumented (kernel/sched/Makefile: KCSAN_SANITIZE "
     ":= n), so its writes are an unknown origin: release_task() and "
     "process_one_work() read a task's se.sum_exec_runtime, which update_curr() "
     "advances from the tick (the value moves by about a tick)"),
    ("KCSAN", r"data-race in _find_(next|first)_bit\+\S+\n\s*\n"
              r"race at unknown origin.*\n\s+_find_(next|first)_bit\+\S+\n"
              r"\s+_nohz_idle_balance",
     "the scheduler is not instrumented (kernel/sched/Makefile: KCSAN_SANITIZE "
     ":= n), so its writes are an unknown origin: _nohz_idle_balance() walks "
     "nohz.idle_cpus_mask, which CPUs entering and leaving idle change with "
     "atomic bit operations; kernel/sched/fair.c reads it racily by design"),
]


# A KCSAN report not in KNOWN whose racing accesses run no code of
# ramtrail's (no frame of its modules above an entry): ramtrail's own
# code is instrumented, so a write of its would be one of the accesses,
# not an unknown origin. Each is printed with its functions, never
# silently dropped; those understood go to KNOWN with their reason.
KCSAN_OWN = ("neither racing access runs ramtrail's code, which KCSAN instruments "
             "(a write of its own would be named): the kernel's own race, not "
             "explained further here")

# The line that ends KASAN's, KFENCE's and KCSAN's reports.
RULE = re.compile(r"^\[ *\d+\.\d+\] ={40,}$")
TIMESTAMP = re.compile(r"^\[ *\d+\.\d+\] ?")


def reports(text):
    """[(kind, first line, the report's lines after it, line number)] in a
    guest log: up to its closing rule, 30 lines at most, their printk
    timestamps removed."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = REPORT.search(line)
        if m:
            kind = REPORTS[int(m.lastgroup[1:])][0]
            after = []
            for nxt in lines[i + 1:i + 31]:
                if RULE.match(nxt):
                    break
                after.append(TIMESTAMP.sub("", nxt))
            out.append((kind, m.group(0)[:160], "\n".join(after), i))
    return out


def ramtrail_frames(report):
    """A frame of ramtrail's modules in one of a report's stacks, above
    its interrupt or exception entry (asm_*): below it is the code the
    interrupt came in, which takes no part in what is reported."""
    for stack in re.split(r"\n\s*\n", report):
        for frame in stack.splitlines():
            if re.match(r"\s*asm_", frame):
                break
            if "[ramtrail" in frame:
                return True
    return False


def scan(res, flavour, logs):
    """One check per log: no report but the KNOWN ones and, in each boot
    whose first crash is QEMU's stale int3 (ramtrail_guest.stale_int3),
    what that crash printed and caused until the boot's end."""
    for log in logs:
        text = log.read_text(errors="replace")
        found = reports(text)
        spans = rg.stale_int3_spans(text)
        excused = [[] for _ in spans]  # the kinds each span holds
        bad, known = [], []
        for kind, first, after, line in found:
            span = next((i for i, (a, b, _) in enumerate(spans) if a <= line < b), None)
            if span is not None:
                excused[span].append(kind)
                continue
            mine = ramtrail_frames(after)
            why = next((w for k, p, w in KNOWN if k == kind and not mine and
                        re.search(p, first + "\n" + after)), None)
            if not why and kind == "KCSAN" and not mine:
                why = KCSAN_OWN
            (known if why else bad).append((kind, first, why, mine))
        for kind, first, why, _ in known:
            print(f"     note: {log.name}: {kind} report of the kernel's own code, "
                  f"not ramtrail's: {first} ({why})", flush=True)
        for (a, _, where), kinds in zip(spans, excused):
            print(f"     note: {log.name}: line {a + 1}: a boot's first crash is QEMU "
                  f"TCG's: a trap on an int3 ftrace had already patched away, in "
                  f"{where}; what it caused to the end of that boot "
                  f"({', '.join(sorted(set(kinds))) or 'no report'}) is the emulator's, "
                  "not ramtrail's", flush=True)
        res.check(f"[6.12-{flavour}] {log.name}: no checker report",
                  not bad, [f"{k}: {f}{' (ramtrail in its trace)' if r else ''}"
                            for k, f, _, r in bad][:6])
        scans = text.count("=== BEGIN kmemleak ===")
        if flavour == "debug" and "=== POWEROFF ===" in text:
            res.check(f"[6.12-{flavour}] {log.name}: kmemleak scanned before each "
                      "power-off", scans > 0, f"{scans} scans")


def last_counts(out):
    m = re.search(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$", out, re.M)
    return (int(m[1]), int(m[2]), int(m[3] or 0)) if m else (0, 1, 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--flavours", default="debug,kcsan")
    ap.add_argument("--smp", default="2,4")
    ap.add_argument("--only", default=SCENARIOS)
    ap.add_argument("--stress-cycles", type=int, default=10)
    ap.add_argument("--tcg", choices=["single"])
    a = ap.parse_args()
    if a.tcg:
        os.environ["RAMTRAIL_TCG"] = a.tcg     # for the runs below
    res = h.Results()
    for flavour in a.flavours.split(","):
        kver = f"6.12-{flavour}"
        p = subprocess.run([str(HERE / "debug-kernel.sh"), flavour],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        took = re.findall(r"took .*", p.stdout)
        res.check(f"[{kver}] kernel built (debug-kernel.sh)", p.returncode == 0,
                  (took or ["cached"])[-1] if p.returncode == 0 else p.stdout[-2000:])
        if p.returncode:
            continue
        for old in h.BUILD.glob(f"{kver}-*.log"):
            old.unlink()
        runs = []
        if a.only != "none":
            runs.append([str(HERE / "test_module.py"), "--kver", kver,
                         "--smp", a.smp, "--only", a.only])
        if a.stress_cycles:
            runs.append([str(HERE / "stress.py"), "--kver", kver, "--smp", "2",
                         "--cycles", str(a.stress_cycles)])
        for cmd in runs:
            print(f"== {Path(cmd[0]).name} on {kver}", flush=True)
            p = subprocess.run([sys.executable, *cmd], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            sys.stdout.write(p.stdout)
            n_ok, n_bad, n_skip = last_counts(p.stdout)
            res.check(f"[{kver}] {Path(cmd[0]).name}: its checks pass",
                      p.returncode == 0 and n_bad == 0 and n_ok > 0,
                      f"{n_ok} passed, {n_bad} failed, {n_skip} skipped")
        scan(res, flavour, sorted(h.BUILD.glob(f"{kver}-*.log")))
    return 1 if res.summary() else 0


if __name__ == "__main__":
    sys.exit(main())
