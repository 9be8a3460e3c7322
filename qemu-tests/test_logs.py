#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The QEMU suite's log classifiers, on the host, without QEMU: what is
excused as the emulator's (ramtrail_guest.stale_int3, env_crash) and
what check-debug fails on (check_debug.scan), on excerpts of guest logs
shaped like the ones those classifiers were written from (6.1's and
6.12's die() headers, an int3 trap nested in a call trace, a byte that
still is int3 in memory).

usage: test_logs.py
"""
import contextlib
import io
import sys
import tempfile
from pathlib import Path

import check_debug as cd
import churn_int3 as ci
import harness as h
import ramtrail_guest as rg

TS = "[  57.6]"


def lines(*xs):
    return "".join(f"{TS} {x}\n" for x in xs)


def code(byte):
    """An oops' Code: line whose trapping byte (before "<") is `byte`."""
    return f"Code: 66 90 f3 0f 1e fa {byte} <a7> 8d b1 17 41 55 41 54"


START = "init: uptime 14.31\ntracers function_graph function\ninsmod rc=0\n"
RT = "=== RT_LOAD ===\n"


def oops(header, byte, rip="__mod_zone_page_state+0x5/0xb0"):
    return lines(header, "CPU: 0 UID: 0 PID: 800 Comm: cat Tainted: G O 6.12.95 #1",
                 "Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)",
                 f"RIP: 0010:{rip}", code(byte), "RSP: 0018:ffffa5744022fc50",
                 "Call Trace:", " <TASK>", " ftrace_replace_code+0x143/0x1a0")


# The int3 handler re-entering a site until in_nmi() overflows.
NESTED = lines("------------[ cut here ]------------",
               "kernel BUG at kernel/entry/common.c:375!",
               "Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI",
               "CPU: 1 UID: 0 PID: 1528 Comm: init Tainted: G O 6.12.95 #1",
               "RIP: 0010:irqentry_nmi_enter+0x31/0x40", code("90"),
               "Call Trace:", " <IRQ>", " exc_int3+0x40/0x110", " asm_exc_int3+0x39/0x40",
               "RIP: 0010:__rcu_read_unlock+0x5/0x80",
               "Code: 90 90 f3 0f 1e fa 0f <1f> 44 00 00 55 48 89 e5",
               " notify_die+0x9f/0xd0")
# A general protection fault with a kprobe's int3 frame in its trace.
GPF = lines("Oops: general protection fault, probably for non-canonical address: "
            "0000 [#1] PREEMPT SMP NOPTI",
            "RIP: 0010:ramtrail_function+0x33d/0xa20 [ramtrail]", code("48"),
            "Call Trace:", " <TASK>", " asm_exc_int3+0x39/0x40",
            "RIP: 0010:vfs_read+0x0/0x2a0", code("e8"))
KASAN = lines("BUG: KASAN: slab-out-of-bounds in ring_write_slow+0x40/0x200 [ramtrail]",
              "Read of size 8 at addr ffff8d3842 by task cat/800")


def scan(text):
    """check_debug.scan on one log: (failed, printed)."""
    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "6.12-kcsan-smp2-churn.log"
        log.write_text(text)
        res, out = h.Results(), io.StringIO()
        with contextlib.redirect_stdout(out):
            cd.scan(res, "kcsan", [log])
        return res.failed, out.getvalue()


def main():
    res = h.Results()
    e8 = START + RT + oops("Oops: int3: 0000 [#1] PREEMPT SMP NOPTI", "e8")
    res.check("stale_int3: 6.12's int3 oops at a byte that is a call now -> the function",
              rg.stale_int3(e8) == "__mod_zone_page_state+0x5/0xb0", rg.stale_int3(e8))
    old = START + RT + oops("int3: 0000 [#1] PREEMPT SMP NOPTI", "0f")
    res.check("stale_int3: 6.1's die() header (no \"Oops: \") is read too",
              rg.stale_int3(old) == "__mod_zone_page_state+0x5/0xb0", rg.stale_int3(old))
    cc = START + RT + oops("Oops: int3: 0000 [#1] PREEMPT SMP NOPTI", "cc")
    res.check("stale_int3: a trap on a byte still int3 in memory is not QEMU's",
              rg.stale_int3(cc) is None, rg.stale_int3(cc))
    res.check("stale_int3: in_nmi() overflow by int3 re-entry -> the re-entered site",
              rg.stale_int3(START + NESTED) == "__rcu_read_unlock+0x5/0x80",
              rg.stale_int3(START + NESTED))
    res.check("stale_int3: another crash with an int3 frame in its trace is not QEMU's",
              rg.stale_int3(START + RT + GPF) is None, rg.stale_int3(START + RT + GPF))
    res.check("stale_int3: a stale int3 after another crash is that crash's aftermath",
              rg.stale_int3(START + KASAN + e8) is None)
    res.check("stale_int3: no crash, nothing", rg.stale_int3(START + RT) is None)
    res.check("env_crash: a crash after RT_LOAD is never the environment's",
              not rg.env_crash(START + RT + GPF) and rg.env_crash(GPF + RT))

    res.check("churn_int3: the stale int3 classified with its function",
              ci.classify(e8) == "int3 in __mod_zone_page_state+0x5/0xb0", ci.classify(e8))
    res.check("churn_int3: another oops is an oops, a crash before the tracers says so",
              ci.classify(START + GPF).startswith("oops: Oops: general protection") and
              ci.classify(GPF).startswith("oops (before the churn)"),
              (ci.classify(START + GPF), ci.classify(GPF)))
    done = "detach rc=0\n=== BEGIN ftrace ===\n"
    res.check("churn_int3: no ftrace section is a hang, with it clean",
              ci.classify(START).startswith("hang") and ci.classify(START + done) == "clean",
              (ci.classify(START), ci.classify(START + done)))
    res.check("churn_int3: a boot whose plugin steps failed is not clean",
              ci.classify(START + done.replace("rc=0", "rc=1")).startswith("failed"))

    failed, out = scan(START + NESTED + KASAN)
    res.check("check-debug: reports after a stale int3 are named, not failed",
              failed == 0 and "QEMU TCG's" in out and "__rcu_read_unlock" in out, out)
    failed, out = scan(START + KASAN + NESTED)
    res.check("check-debug: a report before the stale int3 still fails",
              failed == 1 and "KASAN" in out, out)
    boot = "[    0.000000] Linux version 6.12.95\n"
    failed, out = scan(boot + START + NESTED + boot + START + RT + KASAN)
    res.check("check-debug: a stale int3 excuses its own boot, not the next one",
              failed == 1 and "KASAN" in out and "line 6:" in out, out)
    pre = START + oops("Oops: int3: 0000 [#1] PREEMPT SMP NOPTI", "e8")
    two = boot + pre + boot + START + RT + lines(
        "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI", "RIP: 0010:vfs_read+0x0/0x2a0", code("0f"))
    res.check("stale_int3_loaded: not a boot's before ramtrail loaded, the one after",
              rg.stale_int3_loaded(two) == "vfs_read+0x0/0x2a0" and
              rg.stale_int3_loaded(boot + pre + boot + START + RT) is None,
              rg.stale_int3_loaded(two))
    failed, out = scan(START + RT + GPF + lines("kernel BUG at mm/slub.c:435!"))
    res.check("check-debug: a BUG after another crash fails", failed == 1, out)
    return 1 if res.summary() else 0


if __name__ == "__main__":
    sys.exit(main())
