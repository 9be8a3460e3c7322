#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The ramtrail module end to end, in QEMU, on Debian's 6.1 and 6.12.

Scenarios (each checked on the serial log and on the guest's RAM file):
  panic     record on every CPU, sysrq crash, warm reboot, read it back
  powercut  QEMU killed while every CPU records; new QEMU on the same RAM
  allfuncs  functions='*', sysrq crash: the crashing CPU's tail is the crash path
  garbage   the host damages zones (and, apart, the header); load survives
  crashloop crash, reboot, crash again before reading: first trace kept
  regionsrc the region from a device tree node (arm64): its properties set
            the parameters not given, mem_type=1 refused; from reserve_mem=
            and mem_name (6.12)
  erase     rm in /sys/fs/pstore; the next boot shows nothing stale
  oops      an oops the kernel survives freezes recording and dumps the
            oopsing CPU's tail once (dump_on_oops=1); changes are refused;
            reset, read back
  memtypes  mem_type=1 and 2: the same crash read back (2 CPUs)
  forged    a header forged with valid checksums (dmesg records too small
            for pstore, a boot number past the limit): formatted anew, the
            next crash's log read back, boots numbered on
  refusals  System RAM, no memory, bad parameters: clear errors, no load;
            pstore held by ramoops: it records without pstore, and the
            next load with pstore saves that trace
  tasks     named tasks on every CPU, events=, markers written by each task
            and past the device's limit, sysrq crash from a named task:
            tasks, contexts, sched_switch, log events and markers (in time
            order among the task's records) read back through pstore's
            text file, decode of the RAM file and trace-cmd report
  dump      dump_on_oops=2: every CPU's tail on the serial console at the
            crash, the same lines in the saved trace and the dmesg record;
            a cold boot keeps the serial log only
  control   functions=, events=, frozen= at run time, read back by decode
            of the live region and after a reset; sysrq-y while recording
  paramrace the writable parameters written in a loop by another task
            while the module loads (a full region saved) and while a load
            fails after its save: refused until it is live, no probe or hook
            outlives a failed load; then a freeze thawed and a reset: saved
            as a cut, not as the freeze
  preempt   a test build stretches the thaw's section; preempt=full, a
            SCHED_FIFO task on the thawing CPU and a crash from another
            CPU inside the section: the crash waits for the thaw, then
            freezes (reason panic)
  churn     ramtrail loaded with functions='*' and unloaded, every
            writable parameter written under load, while ftrace's function
            and function_graph tracers and a kprobe event run: they still
            trace after it, nothing oopses
  modinit   a module loaded where the last one's init text was freed:
            a call from that init and one from the later module each keep
            their own name (pstore files, decode with the .ko, the dump);
            the module before has no text of its own. Then a full module
            table: a module with no entry, where one unloaded was, gets
            no name

Every check reads facts: the module's debugfs status file, the command's
`stats --format json` of the RAM file, the pstore files, insmod's exit
status; never the module's messages.

panic and powercut also check tools/ramtrail on the RAM file against what
the guest printed, with the guest's /proc/kallsyms copied out through RAM:

  decode    the host's decode of the RAM file equals, record by record, what
            the guest printed from /sys/fs/pstore's text: CPU, timestamp
            (us), function, caller (symbols across KASLR); the ftrace file
            holds the same records as offsets, no address
  export    Debian's trace-cmd report reads the exported trace.dat: same
            events, CPUs, names, first and last timestamps as decode
  cut       the host's decode of a power-cut image equals what the guest
            recovered from it at the next boot
  modules   names of modules loaded after ramtrail (reed_solomon, ext4),
            from their .ko, equal the guest's own /proc/kallsyms: the
            tool's hash of a .ko's functions equals the kernel's
  live      in the guest, the command reads the live region through debugfs
            and the pstore file itself

usage: test_module.py [--kver 6.1,6.12] [--smp 2,4] [--only NAME,...]
                      [--skip NAME,...]

--kver 6.12-arm64 or 6.1-arm64 runs the scenarios on arm64 (QEMU's virt
board; one architecture per run).

--skip names scenarios counted as skipped, not run, NAME on every kernel
or NAME@KVER on one: make check's 4-CPU suite skips those whose subject
is the region's layout, not its CPUs, and its 2-CPU suite runs lowmem
(the longest, about 140 s) on 6.12 only (make check-full runs them all).
"""
import argparse
import json
import random
import re
import shutil
import struct
import subprocess
import sys
import time
import zlib

import harness as h
import ramtrail_guest as rg
from ramtrail_guest import (FUNCS, PARAMS, RESV, Guest, brief, boots, differs, dumps,
                            last_status, no_oops, parse_ftrace, per_cpu, section)

# Ramoops gets its own reserved range in the refusal test.
OOPS_RESV = 0x38000000
MEMMAP2 = f"memmap=1M${OOPS_RESV:#x}"
# The guest's own command on the live region and on a pstore file.
LIVE_TOOL = f"""
live_tool() {{
    debugfs
    begin live; quiet ramtrail stats {rg.REGION} --format json; echo "rc=$?"; end live
    begin livepstore
    ramtrail decode /sys/fs/pstore/ftrace-ramtrail-0 >/tmp/d; echo "rc=$?"
    echo "records $(grep -c -E ' \[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: ' /tmp/d)"
    echo "unknown $(grep -c '^ *<unknown>-? ' /tmp/d)"
    end livepstore
}}
"""
REPORT = re.compile(r"\[(\d+)\] +(\d+\.\d{6}): function: +(\S+)")


def saved_trace(js, boot):
    """Boot `boot`'s entry in the saved list of a stats object, or {}."""
    return next((x for x in rg.saved(js) if x["boot_id"] == boot), {})


def check_trace(res, t, recs, smp, crash_path=True, preempt_full=False):
    """recs: a part's function records as its text gives them
    (rg.part_functions()). The crash path: sysrq_handle_crash ends the
    crashing CPU's records, or with preempt_full (the task may be preempted
    once it has left the RCU read section, before panic) none of the
    path's functions follow it there."""
    cpus = {r[0] for r in recs}
    res.check(f"{t} records from every CPU", cpus == set(range(smp)),
              f"cpus={sorted(cpus)} records={len(recs)}")
    ts = [float(r[1]) for r in recs]
    res.check(f"{t} timestamps non-decreasing", all(a <= b for a, b in zip(ts, ts[1:])))
    raw = [r for r in recs if r[2].startswith("0x") or r[3].startswith("0x")]
    res.check(f"{t} every symbol resolved (KASLR relocated)", recs and not raw,
              raw[:3])
    if crash_path:
        crash = [r for r in recs if r[2] == "sysrq_handle_crash"]
        cpu = crash[-1][0] if crash else None
        mine = [r[2] for r in recs if r[0] == cpu]
        after = mine[len(mine) - mine[::-1].index("sysrq_handle_crash"):] if crash else []
        path = {"write_sysrq_trigger", "__handle_sysrq", "sysrq_handle_crash"}
        res.check(f"{t} crashing CPU ends with the sysrq crash path",
                  crash and (not path & set(after) if preempt_full else not after),
                  mine[-3:])


def pstore_records(text):
    """pstore's lines -> [(cpu, usec, function, caller+off/size)]."""
    return [(c, rg.usec(ts), f, p) for c, ts, f, p in parse_ftrace(text)[0]]


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"record {i}: guest {x} host {y}"
    return f"lengths guest {len(a)} host {len(b)}"


def check_decode(res, t, g, boot, guest, ksyms):
    """decode == the guest's pstore text (guest: rg.part_functions()),
    record by record; returns the decoded records."""
    rc, host, err = rg.decode(g.ram.path, *g.REGION_ARGS, "--boot", boot,
                              "--system-map", ksyms)
    res.check(f"{t} tool: decode of the RAM file = guest's pstore text, record by "
              "record (CPU, time, function, caller)",
              rc == 0 and guest and host == guest,
              f"rc={rc} {err.strip()[:200]} {first_diff(guest, host)}")
    return host


def check_ftrace_file(res, t, r, part=0):
    """pstore's ftrace-ramtrail-N holds the function records of the part's
    text (CPU, time), each function and caller as its offset in the trace:
    a value no symbol names, which pstore prints as it is, never an address
    of this boot."""
    text = h.sections(r.log, f"ftrace-ramtrail-{part}")[-1:]
    recs, other = parse_ftrace("\n".join(text))
    vals = rg.offset_values("\n".join(text))
    fun = rg.part_functions(r, part)
    big = [v for pair in vals for v in pair if v >= 1 << 32]
    res.check(f"{t} ftrace-ramtrail-{part}: the function records of its text (CPU, "
              "time), each function and caller an offset (< 2^32) that pstore "
              "names by its value: no address of this boot",
              recs and not other and len(vals) == len(recs) and not big and
              [(c, rg.usec(ts)) for c, ts, _, _ in recs] == [x[:2] for x in fun] and
              all((f, p) == (f"{a:#x}", f"{b:#x}") for (_, _, f, p), (a, b)
                  in zip(recs, vals)),
              f"other {other[:2]} big {big[:2]} records {len(recs)} text {len(fun)} "
              f"{first_diff([(c, rg.usec(ts)) for c, ts, _, _ in recs], [x[:2] for x in fun])}")


def check_offsets_slide_free(res, t, r, ksyms, part=0):
    """An offset in pstore's ftrace-ramtrail-N is the function's place from
    panic() (text_base: panic() less 2 GiB) in the recording boot: the same
    build puts each function at the same distance from panic() whatever
    KASLR's slide, so the reading boot's kallsyms gives every offset, and
    no offset tells where either boot's kernel lies. The place is ftrace's
    call site, a few bytes into the function (after x86's ENDBR64)."""
    addr, seen = {}, set()
    for line in ksyms.read_text().splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tT":
            if f[2] in seen:
                addr.pop(f[2], None)	# a name twice: not a place
            else:
                addr[f[2]] = int(f[0], 16)
            seen.add(f[2])
    vals = rg.offset_values("\n".join(h.sections(r.log, f"ftrace-ramtrail-{part}")[-1:]))
    fun = rg.part_functions(r, part)
    panic = addr.get("panic")
    pairs = [(v, addr[f]) for (v, _), (_, _, f, _) in zip(vals, fun) if f in addr]
    bad = [(hex(v), hex(a)) for v, a in pairs
           if panic is None or not 0 <= v - ((1 << 31) + a - panic) < 16]
    res.check(f"{t} ftrace-ramtrail-{part}: each kernel function's offset is its distance "
              "from panic() plus 2 GiB (and its call site's few bytes), as this boot's "
              "kallsyms gives it: no KASLR slide",
              panic and len(pairs) >= 10 and not bad,
              f"{len(pairs)} named, bad {bad[:3]}")


def check_export(res, t, g, boot, ksyms, decoded):
    """trace-cmd report of the exported trace.dat agrees with decode."""
    dat = g.work / "trace.dat"
    p = rg.tool("export", g.ram.path, *g.REGION_ARGS, "--boot", boot, "--system-map",
                ksyms, "-o", dat)
    rep = subprocess.run(["trace-cmd", "report", str(dat)], capture_output=True,
                         text=True)
    ev = REPORT.findall(rep.stdout)
    want = [(str(c), ts, f) for c, ts, f, _ in decoded]
    got = [(str(int(c)), ts, f) for c, ts, f in ev]
    cpus = re.search(r"^cpus=(\d+)", rep.stdout, re.M)
    # Records of two CPUs in the same nanosecond may come in either order.
    per_cpu = lambda recs: sorted(recs, key=lambda r: r[0])
    res.check(f"{t} tool: trace-cmd report of the exported trace.dat: same events, "
              "CPUs, names, first and last time as decode",
              p.returncode == 0 and rep.returncode == 0 and want and
              per_cpu(got) == per_cpu(want) and
              [r[1] for r in got] == [r[1] for r in want]
              and cpus and int(cpus[1]) == g.smp,
              f"export rc={p.returncode} report rc={rep.returncode} "
              f"{rep.stderr.strip()[:200]} events {len(got)}/{len(want)} "
              f"first {got[:1]} {want[:1]} last {got[-1:]} {want[-1:]}")


def cut_image(g):
    """The host's decode of the image as QEMU left it: [(cpu, usec)]."""
    rc, recs, err = rg.decode(g.ram.path, *g.REGION_ARGS)
    return rc, [(c, ts) for c, ts, _, _ in recs]


def check_cut(res, t, cut, pstore_text):
    rc, host = cut
    guest = [(c, ts) for c, ts, _, _ in pstore_records(pstore_text)]
    res.check(f"{t} tool: decode of the cut image = what the guest recovered from it",
              rc == 0 and guest and host == guest,
              f"rc={rc} {first_diff(guest, host)}")


def check_modules(res, t, g, k, boot, ksyms, mod):
    """Module names from the .ko = the guest's kallsyms for that module."""
    kodir = g.work / "ko"
    shutil.rmtree(kodir, ignore_errors=True)
    kodir.mkdir()
    for path in h.module_closure(k, [mod]):
        shutil.copy(path, kodir)
    p = rg.tool("kallsyms", g.ram.path, *g.REGION_ARGS, "--boot", boot,
                "--system-map", ksyms, "--modules", kodir)
    tag = f"[{mod}]"
    ours = {(line.split()[0], line.split()[2]) for line in p.stdout.splitlines()
            if line.endswith(tag)}
    guest = {(line.split()[0], line.split()[2])
             for line in ksyms.read_text().splitlines()
             if line.endswith(tag) and line.split()[1] in "tT"}
    res.check(f"{t} tool: {mod} functions named from its .ko at the addresses "
              "the guest's kallsyms gives",
              p.returncode == 0 and len(ours) >= max(5, 0.8 * len(guest))
              and ours <= guest,
              f"rc={p.returncode} {p.stderr.strip()[:200]} ours {len(ours)} "
              f"guest {len(guest)} wrong {sorted(ours - guest)[:3]}")


def check_live(res, t, r, pstore_text):
    """The guest's own ramtrail on debugfs and pstore (live_tool)."""
    live = section(r, "live").strip().splitlines()
    try:
        js = json.loads("\n".join(live[:-1]))
    except ValueError:
        js = {}
    mods = [m["name"] for m in js.get("modules", [])]
    res.check(f"{t} tool in the guest: reads the live region through debugfs "
              "(boot 2 recording, its modules listed)",
              live[-1:] == ["rc=0"] and
              differs(js, boot_id=2, state="recording") == {} and
              js.get("zones", {}).get("records", 0) > 0 and "reed_solomon" in mods,
              "\n".join(live)[:600])
    lp = section(r, "livepstore")
    n = re.search(r"records (\d+)", lp)
    unknown = re.search(r"unknown (\d+)", lp)
    want = len(pstore_records(pstore_text))
    res.check(f"{t} tool in the guest: decodes /sys/fs/pstore/ftrace-ramtrail-0, "
              "each record's task from the text beside it",
              "rc=0" in lp and n and int(n[1]) == want and want and unknown and
              int(unknown[1]) < want, f"{lp.strip()} pstore records {want}")


def scenario_panic(k, ko, smp, res):
    t = f"[{k.kver} smp{smp} panic]"
    g = Guest(k, ko, "panic", smp, rg.RECORD_AND_CRASH)
    r = g.run()
    res.check(f"{t} panic, warm reboot, poweroff", boots(r) == 2 and r.rc == 0, brief(r))
    check_ftrace_file(res, t, r)
    check_trace(res, t, rg.part_functions(r), smp, preempt_full=k.preempt_full)
    dm = section(r, "dmesg-ramtrail-0")
    res.check(f"{t} dmesg-ramtrail-0 holds the panic",
              "Kernel panic - not syncing: sysrq triggered crash" in dm, dm[:200])
    st = last_status(r)
    res.check(f"{t} status: boot 2 keeps boot 1's trace (state frozen, reason "
              "panic) as ftrace-ramtrail-0, every zone sealed at the panic",
              not differs(st, boot_id=2, previous_header="ok", previous_boot_id=1,
                          previous_state="frozen", previous_freeze_reason="panic",
                          previous_trace="saved", previous_skipped=0,
                          previous_sealed_zones=smp) and
              st.get("previous_sealed_blocks", 0) > 0 and
              st.get("previous_records", 0) > 0 and
              [(x.get("first"), x.get("boot")) for x in st["trace"]] == [(0, 1)], st)
    no_oops(res, t, r.log)
    ksyms = rg.kallsyms(g, r)
    res.check(f"{t} guest's kallsyms copied out", ksyms, "no 'kallsyms bytes' line")
    if ksyms:
        check_offsets_slide_free(res, t, r, ksyms)
        decoded = check_decode(res, t, g, 1, rg.part_functions(r), ksyms)
        check_export(res, t, g, 1, ksyms, decoded)
        # Another build of this release: schedule() 16 bytes further.
        other = g.work / "kallsyms-other-build"
        other.write_text(re.sub(r"^([0-9a-f]+)( T schedule)$",
                                lambda m: f"{int(m[1], 16) + 0x10:016x}{m[2]}",
                                ksyms.read_text(), count=1, flags=re.M))
        rc, host, err = rg.decode(g.ram.path, *g.REGION_ARGS, "--boot", 1,
                                  "--system-map", other)
        res.check(f"{t} tool: the guest's kallsyms with schedule() 16 bytes "
                  "further (another build of the release) names nothing (exit 4)",
                  other.read_text() != ksyms.read_text() and rc == 4 and not host
                  and "another build" in err, (rc, err.strip()[:200]))


def scenario_powercut(k, ko, smp, res):
    t = f"[{k.kver} smp{smp} powercut]"
    # ext4 and its dependencies, deps first: a module of many text sections
    ext4 = " ".join(h._modname(p) for p in h.module_closure(k, ["ext4"]))
    g = Guest(k, ko, "powercut", smp, LIVE_TOOL + f"""
rt_load {PARAMS} functions={FUNCS}
if [ "$(boot_id)" = 1 ]; then
    workload; sleep 1
    echo "=== RECORDING ==="
    sleep 600
fi
for m in reed_solomon {ext4}; do insmod /lib/modules/$m.ko; done
pstore; live_tool; ksyms_out
""", modules=["reed_solomon", "ext4"])
    r = g.run(kill_on="=== RECORDING ===", kill_delay=3)
    res.check(f"{t} QEMU killed while recording", r.killed and boots(r) == 1, brief(r))
    rc, js, err = g.stats()
    res.check(f"{t} host decodes the cut region: state recording",
              rc == 0 and js and js["state"] == "recording", (rc, err, js))
    host = {c["cpu"]: c["records"] for c in (js or {}).get("zones", {}).get("cpus", [])}
    cut = cut_image(g)
    r = g.run()
    res.check(f"{t} new QEMU on the same RAM boots and powers off",
              boots(r) == 1 and r.rc == 0, brief(r))
    recs, other = parse_ftrace(section(r, "ftrace-ramtrail-0"))
    check_trace(res, t, rg.part_functions(r), smp, crash_path=False)
    res.check(f"{t} guest recovered every record the host decodes",
              per_cpu(recs) == host and all(host.values()),
              f"guest {per_cpu(recs)} host {host}")
    st = last_status(r)
    res.check(f"{t} status: boot 1 was cut while recording, its trace saved; "
              "its writers sealed the blocks they left, no zone's newest",
              not differs(st, boot_id=2, previous_boot_id=1, previous_state="recording",
                          previous_freeze_reason="none", previous_trace="saved",
                          previous_records=sum(host.values()),
                          previous_sealed_zones=0) and
              st.get("previous_sealed_blocks", 0) > 0, st)
    no_oops(res, t, r.log)
    check_cut(res, t, cut, section(r, "ftrace-ramtrail-0"))
    check_live(res, t, r, section(r, "ftrace-ramtrail-0"))
    ksyms = rg.kallsyms(g, r)
    res.check(f"{t} guest's kallsyms copied out", ksyms, "no 'kallsyms bytes' line")
    if ksyms:
        check_decode(res, t, g, 1, rg.part_functions(r), ksyms)
        # Boot 2 loaded these after ramtrail: its zones name them. The
        # tool uses a .ko only if its functions hash as the kernel's did.
        for mod in ("reed_solomon", "ext4"):
            check_modules(res, t, g, k, 2, ksyms, mod)


def interrupt_entry(rec):
    """A record that starts an interrupt: irq_enter*() or a function called
    from the interrupt's vector (sysvec_*, asm_*, common_interrupt)."""
    caller = rec[3].split("+")[0]
    return (rec[2].startswith(("irq_enter", "__sysvec_", "sysvec_")) or
            caller.startswith(("sysvec_", "asm_", "common_interrupt", "__sysvec_")))


# Where a task may leave its CPU to others: anything may run on it until
# the task comes back.
SWITCH_OUT = ("__schedule", "schedule", "preempt_schedule", "preempt_schedule_common",
              "preempt_schedule_irq", "preempt_schedule_notrace")


def crash_tail(recs, strict=True):
    """The crashing CPU's records from its last sysrq_handle_crash on: its
    own callees and theirs, then panic() called from it, then nothing.
    Interrupts are on until panic()'s body disables them, and with full
    preemption the task may be preempted once rcu_read_unlock() has run,
    so an interrupt may run between sysrq_handle_crash and panic, or
    between the function tracer's record of panic and the freeze (both are
    callbacks at panic's entry, the recorder first): it may end the trace.
    Not strict: anything may come between sysrq_handle_crash and panic (a
    kernel with lockdep and PROVE_RCU calls traced functions from its
    notrace ones there). Returns (ok, what the tail was)."""
    crash = [i for i, x in enumerate(recs) if x[2] == "sysrq_handle_crash"]
    if not crash:
        return False, "no sysrq_handle_crash"
    cpu = recs[crash[-1]][0]
    tail = [x for x in recs[crash[-1]:] if x[0] == cpu]
    names = [x[2] for x in tail]
    panics = [i for i, x in enumerate(tail)
              if x[2] == "panic" and x[3].split("+")[0] == "sysrq_handle_crash"]
    if not panics:
        return False, names[-8:]
    p = panics[0]
    called, irq = {"sysrq_handle_crash"}, not strict
    for x in tail[1:p]:
        irq = irq or interrupt_entry(x) or x[2] in SWITCH_OUT
        if not irq and x[3].split("+")[0] not in called:
            return False, ("before panic", names[:p + 1][-10:])
        called.add(x[2])
    after = tail[p + 1:]
    if after and not interrupt_entry(after[0]):
        return False, ("after panic", names[p:][:10])
    return True, names[max(0, p - 3):p + 4]


def scenario_allfuncs(k, ko, smp, res):
    """Every traceable function recorded: the crashing CPU's tail still ends
    with the sysrq crash path (sysrq_handle_crash ... panic)."""
    t = f"[{k.kver} smp{smp} allfuncs]"
    # Quoted: an unquoted * would glob-expand in busybox sh.
    g = Guest(k, ko, "allfuncs", smp, f"""
rt_load {PARAMS} functions='*'
if [ "$(boot_id)" = 1 ]; then
    workload; sleep 3
    echo "sysrq-c: crashing the kernel"
    echo c > /proc/sysrq-trigger
fi
mount -t pstore pstore /sys/fs/pstore
# Over a million records: print only the crashing CPU's, from its last
# sysrq_handle_crash on, from the last part, which holds the newest 8
# chunks whole (parts are cut back from the crash). Its
# sysrq_handle_crash and panic can be thousands of other CPUs' records
# apart: vCPUs take turns in one TCG thread. Past 5000 records (a kernel
# with the checkers calls traced functions from lockdep's and KASAN's
# hooks all along), the first and the last 2500: where the path starts
# and how it ends.
lastpart() {{
    last=$(ls /sys/fs/pstore | sed -n 's/^ftrace-ramtrail-//p' | sort -n | tail -n 1)
    for f in $(ls /sys/fs/pstore | grep ^console-ramtrail- | sort -t- -k3 -n); do
        [ $((${{f#console-ramtrail-}} / 100)) = $last ] && cat /sys/fs/pstore/$f
    done >/tmp/lp
    c=$(grep ': sysrq_handle_crash <-' /tmp/lp | tail -n 1 | sed 's/^.*\\[\\([0-9]*\\)\\] .*/\\1/')
    grep -F "[$c] " /tmp/lp >/tmp/lc
    n=$(grep -n ': sysrq_handle_crash <-' /tmp/lc | tail -n 1 | cut -d: -f1)
    tail -n +${{n:-1}} /tmp/lc >/tmp/lt
    begin lastpart
    if [ "$(wc -l </tmp/lt)" -gt 5000 ]; then
        head -n 2500 /tmp/lt; tail -n 2500 /tmp/lt
    else
        cat /tmp/lt
    fi
    end lastpart
}}
quiet lastpart
""")
    r = g.run(timeout=600)
    res.check(f"{t} panic, warm reboot, poweroff", boots(r) == 2 and r.rc == 0, brief(r))
    st = last_status(r)
    rc, js, err = g.stats()
    res.check(f"{t} status: boot 1's trace kept (state frozen, reason panic)",
              not differs(st, previous_boot_id=1, previous_state="frozen",
                          previous_freeze_reason="panic", previous_trace="saved"), st)
    res.check(f"{t} host stats: boot 1's saved trace has no corrupt block",
              rc == 0 and not differs(saved_trace(js, 1), corrupt_blocks=0),
              (rc, err, saved_trace(js, 1)))
    recs = rg.text_functions(section(r, "lastpart"))
    ok, why = crash_tail(recs, strict=k.slowdown == 1)
    res.check(f"{t} crashing CPU ends with sysrq_handle_crash -> ... -> panic "
              "(or an interrupt taken at panic's entry, before the freeze)", ok, why)
    ts = [float(x[1]) for x in recs]
    res.check(f"{t} timestamps non-decreasing", all(a <= b for a, b in zip(ts, ts[1:])))
    no_oops(res, t, r.log)


# Offsets of struct ramtrail_region_header's fields (include/uapi/linux/
# ramtrail.h, checked by fs/ramtrail/format_asserts.h); its checksum covers
# the HDR_CHECKED bytes before the freeze record, checksum and state as 0.
HDR = dict(version=8, checksum=16, state=20, region_size=24, dmesg_offset=40,
           dmesg_size=48, saved_offset=56, saved_size=64, dmesg_count=76,
           layout_checksum=80, zone_offset=88, nr_cpus=100, nr_blocks=104,
           boot_id=128)
HDR_CHECKED = 512


def scenario_garbage(k, ko, smp, res):
    t = f"[{k.kver} smp{smp} garbage]"
    g = Guest(k, ko, "garbage", smp, f"""
rt_load {PARAMS} functions={FUNCS}
if ! grep -q rt.read /proc/cmdline; then
    workload; sleep 5
    echo 0 > /sys/module/ramtrail/parameters/enabled
    poweroff -f
fi
pstore
""")
    r = g.run()
    rc, js, err = g.stats()
    zones = lambda js: {c["cpu"]: c for c in (js or {}).get("zones", {}).get("cpus", [])}
    before = {c: z["records"] for c, z in zones(js).items()}
    res.check(f"{t} boot 1 recorded", rc == 0 and boots(r) == 1 and before.get(0),
              (rc, err, before))
    newest = zones(js).get(0, {}).get("newest_block", 0)
    res.check(f"{t} CPU 0 wrote at least 3 blocks", newest >= 2, zones(js).get(0))
    # Damage CPU 0's written blocks only: random bytes over one block,
    # zeros over part of another, bit flips in the newest.
    rnd = random.Random(smp)
    z0 = RESV + (js or {}).get("zone_offset", 0)
    g.ram.write(z0 + 1 * 4096, rnd.randbytes(4096))
    g.ram.write(z0 + 512, bytes(2048))
    for _ in range(16):
        a = z0 + newest * 4096 + rnd.randrange(4096)
        g.ram.write(a, bytes([g.ram.read(a, 1)[0] ^ (1 << rnd.randrange(8))]))
    rc, js, err = g.stats()
    damaged = zones(js).get(0, {}).get("records", 0)
    res.check(f"{t} host sees fewer records in the damaged zone",
              rc == 0 and damaged < before[0], f"{before[0]} -> {damaged}")
    r = g.run(append="rt.read")
    res.check(f"{t} module loads over damaged zones", boots(r) == 1 and r.rc == 0
              and "insmod rc=0" in r.log, brief(r))
    recs, other = parse_ftrace(section(r, "ftrace-ramtrail-0"))
    got = per_cpu(recs)
    res.check(f"{t} intact zones recovered whole",
              all(got.get(c) == before[c] for c in range(1, smp)),
              f"guest {got} before damage {before}")
    res.check(f"{t} damaged zone: what the host decodes, nothing more",
              got.get(0, 0) == damaged, f"guest {got.get(0)} host {damaged}")
    rc, js, err = g.stats()
    cb = saved_trace(js, 1).get("corrupt_blocks", 0)
    res.check(f"{t} drops counted in the saved trace (host stats)", cb > 0,
              (rc, err, saved_trace(js, 1)))
    res.check(f"{t} the load says how many blocks were damaged, once",
              len(re.findall(rf"ramtrail: boot 1: {cb} blocks of its zones are "
                             r"damaged", r.log)) == 1,
              [x for x in r.log.splitlines() if "damaged" in x][:3])
    check_trace(res, t, rg.part_functions(r), smp, crash_path=False)
    no_oops(res, t, r.log)

    # Bytes of the saved trace changed in RAM. Three in one codeword of its
    # oldest chunk: the host's decode corrects them, the module corrects
    # them at load, says so, counts them in its status, writes the slot
    # back and shows every record.
    shown = len(recs)
    s1 = saved_trace(js, 1)
    slot = RESV + js.get("saved_offset", 0) + s1.get("slots_offset", 0)
    # Slot 0's bytes: the last slot of a trace that never wrapped is cut.
    size = min(s1.get("chunk_size", 0),
               s1.get("offset", 0) + s1.get("bytes", 0) - s1.get("slots_offset", 0))
    res.check(f"{t} the saved trace has parity (ecc=16 by default)",
              s1.get("ecc") == 16 and s1.get("chunks", 0) >= 1, s1)
    for at in (40, 100, 200):       # past the chunk's header, in its entries
        g.ram.write(slot + at, bytes([g.ram.read(slot + at, 1)[0] ^ 0x5a]))
    # Two bytes of its header: one of its magic's, one of its boot_id's.
    head = RESV + js.get("saved_offset", 0) + s1.get("offset", 0)
    for at in (2, 25):
        g.ram.write(head + at, bytes([g.ram.read(head + at, 1)[0] ^ 0x24]))
    rc, js, err = g.stats()
    s1 = saved_trace(js, 1)
    res.check(f"{t} 3 changed bytes in a chunk, 2 in its header: the host corrects them",
              rc == 0 and s1.get("corrected_chunks") == 1 and not s1.get("damaged_chunks") and
              "boot 1's saved trace: its header had changed" in err, (rc, err, s1))
    r = g.run(append="rt.read")
    st = last_status(r)
    t1 = next((x for x in st.get("trace", []) if x.get("boot") == 1), {})
    recs, other = parse_ftrace(section(r, "ftrace-ramtrail-0"))
    res.check(f"{t} 3 changed bytes in a chunk, 2 in its header: the load corrects "
              "them, says so once, counts them in its status, every record shown",
              t1.get("corrected") == 1 and t1.get("damaged") == 0 and len(recs) == shown and
              st.get("saved_headers_corrected") == 1 and
              len(re.findall(r"ramtrail: boot 1's saved trace: 3 bytes in 1 chunks had "
                             r"changed in RAM, corrected by their parity", r.log)) == 1 and
              len(re.findall(r"ramtrail: boot 1's saved trace: its header had changed in "
                             r"RAM, corrected by its parity", r.log)) == 1,
              (t1, st.get("saved_headers_corrected"), shown, len(recs),
               [x for x in r.log.splitlines() if "corrected" in x]))
    rc, js, err = g.stats()
    s1 = saved_trace(js, 1)
    res.check(f"{t} the corrected chunk was written back: nothing left to correct",
              rc == 0 and s1.get("corrected_chunks") == 0 and not s1.get("damaged_chunks"),
              (rc, err, s1))
    no_oops(res, t + " (corrected chunk)", r.log)

    # Nine bytes in one codeword, one more than its parity corrects (the
    # codewords are interleaved: data byte i is in codeword i % nr): the
    # chunk is damaged; the host counts it, the module says so at load, in
    # its status, and shows the rest.
    ecc = s1.get("ecc", 0)
    nr = -(-(size - -(-size // 255) * ecc) // (255 - ecc))
    for at in range(nr * 8, nr * 17, nr):
        g.ram.write(slot + at, bytes([g.ram.read(slot + at, 1)[0] ^ 0xa5]))
    rc, js, err = g.stats()
    s1 = saved_trace(js, 1)
    res.check(f"{t} 9 changed bytes in a codeword: the host counts one damaged chunk",
              rc == 0 and s1.get("damaged_chunks") == 1 and
              0 < s1.get("damaged_records", 0) <= s1.get("records", 0), (rc, err, s1))
    r = g.run(append="rt.read")
    st = last_status(r)
    t1 = next((x for x in st.get("trace", []) if x.get("boot") == 1), {})
    recs, other = parse_ftrace(section(r, "ftrace-ramtrail-0"))
    res.check(f"{t} damaged chunk: status counts it, the rest of the trace is shown, "
              "less than what the chunk claimed is missing",
              t1.get("damaged") == 1 and t1.get("corrected") == 0 and
              shown - s1.get("damaged_records", 0) <= len(recs) < shown,
              (t1, shown, len(recs), s1.get("damaged_records")))
    no_oops(res, t + " (damaged chunk)", r.log)

    # A header written by a future version of the format.
    g.ram.write(RESV + HDR["version"], (99).to_bytes(4, "little"))
    r = g.run(append="rt.read")
    st = last_status(r)
    res.check(f"{t} future version: status names it, region reformatted, loaded",
              not differs(st, previous_header="version", previous_version=99,
                          boot_id=1, previous_trace="none") and "insmod rc=0" in r.log, st)
    res.check(f"{t} future version: no trace shown",
              "ftrace-ramtrail" not in section(r, "files"), section(r, "files"))
    no_oops(res, t + " (future version)", r.log)


# A region of its own for the device tree's node (x86: no device tree).
DT_RESV, DT_RESV_SIZE = rg.RAM_BASE + 0x34000000, 64 << 20
DT_SAVED = 8 << 20


def live_saved_size(r, name):
    """saved_size of the live region as the guest's command read it in
    the first section `name` (or None)."""
    try:
        return json.loads(h.sections(r.log, name)[0]).get("saved_size")
    except (ValueError, IndexError):
        return None


def scenario_regionsrc(k, ko, smp, res):
    """Where the region comes from beside mem_address/mem_size: arm64's
    /reserved-memory node compatible with "ramtrail" (its properties
    setting the parameters the load was not given; mem_type=1 refused
    there), and 6.12's reserve_mem= with mem_name."""
    t = f"[{k.kver} smp{smp} regionsrc]"
    if k.arch == "arm64":
        node = (f'ramtrail@{DT_RESV:x} {{ compatible = "ramtrail"; '
                f'reg = <0x0 {DT_RESV:#x} 0x0 {DT_RESV_SIZE:#x}>; no-map; '
                f'saved-size = <{DT_SAVED:#x}>; dmesg-count = <2>; }};')
        g = Guest(k, ko, "regionsrc", smp, f"""
debugfs
rt_load functions={FUNCS}
begin live; quiet ramtrail stats {rg.REGION} --format json; end live
if [ "$(boot_id)" = 1 ]; then
    workload; sleep 2
    echo c > /proc/sysrq-trigger
fi
pstore
rmmod ramtrail
rt_load reset=1 saved_size=4M dmesg_count=1
begin given; quiet ramtrail stats {rg.REGION} --format json; end given
rmmod ramtrail
rt_load mem_type=1
""")
        r = g.run(dt=node)
        res.check(f"{t} crash, warm reboot, poweroff", boots(r) == 2 and r.rc == 0, brief(r))
        rcs = re.findall(r"^insmod rc=(\d+)", r.log, re.M)
        res.check(f"{t} loaded with no region parameter in both boots, then with "
                  "the parameters given; mem_type=1 refused (EINVAL): uncached is "
                  "device memory on arm64", rcs == ["0", "0", "0", "22"], rcs)
        rc, js, err = rg.stats(g.ram.path, "--offset", hex(DT_RESV - rg.RAM_BASE),
                               "--size", DT_RESV_SIZE)
        res.check(f"{t} the region is the node's range: the host reads there the "
                  "header of the last load (reset=1: boot 1, saved_size=4M)",
                  rc == 0 and js and js.get("boot_id") == 1 and
                  js.get("saved_size") == 4 << 20, (rc, err.strip()[:200], js and
                                                    (js.get("boot_id"), js.get("saved_size"))))
        res.check(f"{t} the node's saved-size is the load's saved_size",
                  live_saved_size(r, "live") == DT_SAVED, live_saved_size(r, "live"))
        res.check(f"{t} a parameter given at load wins over the node's property",
                  live_saved_size(r, "given") == 4 << 20, live_saved_size(r, "given"))
        files = section(r, "files")
        sts = rg.status(r)
        st = sts[1] if len(sts) > 1 else {}
        res.check(f"{t} boot 2 reads boot 1's trace and its panic log back",
                  st.get("previous_trace") == "saved" and
                  st.get("previous_freeze_reason") == "panic" and
                  "Kernel panic" in section(r, "dmesg-ramtrail-0") and
                  section(r, "ftrace-ramtrail-0").count("\n") > 10, (st, files))
        no_oops(res, t, r.log)
    else:
        res.skip(f"{t} a device tree's node: arm64's")
    if not k.kver.startswith("6.12"):
        res.skip(f"{t} reserve_mem=: Linux 6.12 and later")
        return
    g = Guest(k, ko, "regionsrc-rmem", smp, f"""
debugfs
rt_load mem_name=rtmem functions={FUNCS}
if [ "$(boot_id)" = 1 ]; then
    workload; sleep 2
    echo c > /proc/sysrq-trigger
fi
pstore
""")
    r = g.run(append="reserve_mem=16M:4096:rtmem")
    rcs = re.findall(r"^insmod rc=(\d+)", r.log, re.M)
    st = (rg.status(r) or [{}])[-1]
    res.check(f"{t} reserve_mem= and mem_name: loaded in both boots, boot 2 reads "
              "boot 1's trace back", boots(r) == 2 and r.rc == 0 and rcs == ["0", "0"] and
              st.get("previous_trace") == "saved" and
              section(r, "ftrace-ramtrail-0").count("\n") > 10, (brief(r), rcs, st))
    no_oops(res, t, r.log)


def scenario_crashloop(k, ko, smp, res):
    t = f"[{k.kver} smp{smp} crashloop]"
    g = Guest(k, ko, "crashloop", smp, f"""
rt_load {PARAMS} functions={FUNCS}
id=$(boot_id)
if [ "$id" = 1 ]; then
    workload; sleep {2 * k.slowdown}
    echo c > /proc/sysrq-trigger
elif [ "$id" = 2 ]; then
    # crash again without reading; write-heavy this time
    c=0
    while [ $c -lt $NCPU ]; do
        taskset -c $c sh -c 'while :; do echo x >/dev/null; done' &
        c=$((c + 1))
    done
    sleep {k.slowdown}
    echo c > /proc/sysrq-trigger
fi
pstore
""")
    r = g.run(timeout=300)
    res.check(f"{t} two panics, three boots", boots(r) == 3 and r.rc == 0, brief(r))
    st = last_status(r)
    traces = [(x.get("first"), x.get("boot")) for x in st["trace"]]
    b2 = rg.first_file(2)
    res.check(f"{t} status: file 0 is boot 1's trace, files {b2}.. boot 2's",
              traces == [(0, 1), (b2, 2)] and st["trace"][0].get("files") == 1, st)
    last = st["trace"][1].get("files", 1) if len(traces) == 2 else 1
    first = rg.part_functions(r, 0)
    # Over 131072 records are split into several parts, in order.
    second = [x for i in range(last) for x in rg.part_functions(r, b2 + i)]
    reads = lambda recs: sum(x[2] == "seq_read_iter" for x in recs)
    writes = lambda recs: sum(x[2] == "vfs_write" for x in recs)
    res.check(f"{t} first crash's trace kept: read workload",
              reads(first) > 10 * max(writes(first), 1), (reads(first), writes(first)))
    res.check(f"{t} second crash's trace: write workload",
              writes(second) > 10 * max(reads(second), 1), (reads(second), writes(second)))
    check_trace(res, t + " first", first, smp, preempt_full=k.preempt_full)
    check_trace(res, t + " second", second, smp, preempt_full=k.preempt_full)
    res.check(f"{t} both panic logs kept",
              "sysrq triggered crash" in section(r, "dmesg-ramtrail-0") and
              # boot 2's log went to slot 1, the free one
              "sysrq triggered crash" in section(r, f"dmesg-ramtrail-{b2 + 1}"))
    no_oops(res, t, r.log)


def scenario_erase(k, ko, smp, res):
    t = f"[{k.kver} smp{smp} erase]"
    g = Guest(k, ko, "erase", smp, f"""
# Recording starts off; only boot 1 turns it on (boot 2 must leave nothing).
rt_load {PARAMS} functions={FUNCS} enabled=0
id=$(boot_id)
if [ "$id" = 1 ]; then
    echo 1 > /sys/module/ramtrail/parameters/enabled
    workload; sleep 2
    echo c > /proc/sysrq-trigger
elif [ "$id" = 2 ]; then
    pstore
    rm /sys/fs/pstore/*-ramtrail-*
    after_rm() {{ begin after-rm; ls /sys/fs/pstore; end after-rm; }}
    quiet after_rm
    echo b > /proc/sysrq-trigger
fi
pstore
""")
    r = g.run(timeout=300)
    res.check(f"{t} three boots", boots(r) == 3 and r.rc == 0, brief(r))
    files = h.sections(r.log, "files")
    res.check(f"{t} boot 2 had the crash's files",
              len(files) == 2 and "ftrace-ramtrail-0" in files[0] and
              "dmesg-ramtrail-0" in files[0], files)
    res.check(f"{t} rm removed them", "ramtrail" not in section(r, "after-rm"),
              section(r, "after-rm"))
    res.check(f"{t} next boot shows no stale record",
              len(files) == 2 and "ramtrail" not in files[1], files)
    no_oops(res, t, r.log)


def scenario_savedfull(k, ko, smp, res):
    """The space of an erased trace is reused while a later one is kept.
    A saved area of 20 KiB, about 4 bytes a read (measured: 12.7 KiB for
    boot 1's 3000 reads, 1.9 KiB for boot 2's 300): boot 1's trace takes
    most of it, boot 2's some of the rest; with boot 1's erased, boot 3's
    300 go in its place, the largest free span, whole, and boot 2's stays
    as it was. Holds while boot 1's trace takes 10 to 18 KiB."""
    t = f"[{k.kver} smp{smp} savedfull]"
    g = Guest(k, ko, "savedfull", smp, f"""
rt_load {PARAMS} functions=ksys_read saved_size=20K
id=$(boot_id)
if [ "$id" = 1 ]; then
    dd if=/dev/zero of=/dev/null bs=1 count=3000 2>/dev/null
    echo c > /proc/sysrq-trigger
elif [ "$id" = 2 ]; then
    dd if=/dev/zero of=/dev/null bs=1 count=300 2>/dev/null
    echo c > /proc/sysrq-trigger
elif [ "$id" = 3 ]; then
    pstore
    rm /sys/fs/pstore/ftrace-ramtrail-0
    dd if=/dev/zero of=/dev/null bs=1 count=300 2>/dev/null
    echo c > /proc/sysrq-trigger
fi
pstore
""")
    r = g.run(timeout=300)
    res.check(f"{t} three panics, four boots", boots(r) == 4 and r.rc == 0, brief(r))
    reads = lambda text: [x for x in rg.text_functions(text) if x[2] == "ksys_read"]
    # Each trace keeps its files' names at every boot.
    f1, f2, f3 = ([reads(x) for x in rg.part_text(r.log, rg.first_file(b))]
                  for b in (1, 2, 3))
    st = last_status(r)
    res.check(f"{t} third trace saved whole",
              not differs(st, previous_boot_id=3, previous_trace="saved",
                          previous_skipped=0) and st.get("previous_records", 0) >= 300,
              st)
    res.check(f"{t} files listed by boot, named by it: boot 2's, boot 3's",
              [(x.get("first"), x.get("boot")) for x in st["trace"]] ==
              [(rg.first_file(2), 2), (rg.first_file(3), 3)], st["trace"])
    res.check(f"{t} first trace whole before its erase",
              len(f1) == 1 and len(f1[0]) >= 3000, [len(x) for x in f1])
    res.check(f"{t} second trace unchanged by the erase and the third save",
              len(f2) == 2 and len(f2[0]) >= 300 and f2[0] == f2[1],
              [len(x) for x in f2])
    res.check(f"{t} third trace holds its reads",
              len(f3) == 1 and len(f3[0]) >= 300 and f3[0] != f2[0],
              [len(x) for x in f3])
    rc, js, err = g.stats()
    saved = rg.saved(js)
    res.check(f"{t} host stats: the region keeps boots 2 and 3 only, the third "
              "in the first one's place (offset 0)",
              rc == 0 and [(x["boot_id"], x["offset"] == 0) for x in saved] ==
              [(2, False), (3, True)] and all(x["skipped"] == 0 for x in saved),
              (rc, err, saved))
    no_oops(res, t, r.log)


def scenario_lowmem(k, ko, smp, res):
    """pstore keeps every file it lists in memory: on a machine short of it
    a mount shows whole parts of a trace, the newest first (the crash's
    own records), and leaves the older ones out, whole, with their files'
    numbers; once the files shown are removed, a new mount shows the ones
    before. Boot 2 takes the guest's
    memory down to what a small machine has (huge pages) and mounts, lists
    and removes until nothing is left. A part half shown would let rm erase
    records never shown; a mount that takes all memory wakes the OOM
    killer. Memory does not depend on the CPU count: 2 CPUs only."""
    if smp != 2:
        res.skip(f"[{k.kver} smp{smp} lowmem] 2 CPUs only")
        return
    t = f"[{k.kver} smp{smp} lowmem]"
    g = Guest(k, ko, "lowmem", smp, f"""
rt_load mem_address={RESV:#x} mem_size=8M functions='*'
if [ "$(boot_id)" = 1 ]; then
    workload; sleep 2
    echo c > /proc/sysrq-trigger
fi
status
# A sixteenth of RAM stays available past the parts made (ramtrail
# guesses about 13 MiB for each of these parts, 4 MiB of ftrace file
# and 128 bytes a record): leave 60 MiB above it, 3 to 4 parts a mount.
mem() {{ awk "/^$1:/ {{print \\$2}}" /proc/meminfo; }}
avail=$(mem MemAvailable)
echo $(( (avail - $(mem MemTotal) / 16 - 60 * 1024) / 2048 )) >/proc/sys/vm/nr_hugepages
a0=$(mem MemAvailable)
echo "hugepages $(cat /proc/sys/vm/nr_hugepages) of 2 MiB, MemAvailable $avail kB, then $a0 kB"
# Function lines of a text file: one ": " (after the time); events have two.
funcs() {{ awk -F': ' 'NF == 2 && !/^#/' "$1" | wc -l; }}
# Part $1: lines of its ftrace file, function lines of its text, and
# "offsets" if every value pstore printed in the file has 8 hex digits at
# most (an offset in the trace; an address of this boot has 16).
names() {{
    f=/sys/fs/pstore/ftrace-ramtrail-$1
    long=$(awk 'length($3) > 8 || length($4) > 8' $f | wc -l)
    for t in $(ls /sys/fs/pstore | grep ^console-ramtrail- | sort -t- -k3 -n); do
        [ $((${{t#console-ramtrail-}} / 100)) = $1 ] && cat /sys/fs/pstore/$t
    done | awk -F': ' 'NF == 2 && !/^#/' >/tmp/nc
    [ $long = 0 ] && same=offsets || same=addresses
    echo "names $1 $(wc -l <$f) $(wc -l </tmp/nc) $same"
}}
round() {{
    for f in /sys/fs/pstore/ftrace-ramtrail-*; do
        [ -e "$f" ] && echo "ftrace $(basename $f) $(wc -l <$f)"
    done
    for f in /sys/fs/pstore/console-ramtrail-*; do
        [ -e "$f" ] || continue
        echo "console $(basename $f) $(funcs $f)"
        echo "head $(basename $f) $(grep -m 1 '^# trace: ' $f)"
    done
    n=$(ls /sys/fs/pstore | sed -n 's/^ftrace-ramtrail-//p' | sort -n | head -n 1)
    [ -n "$n" ] && names $n
}}
r=0
while [ $r -lt 8 ]; do
    left=$(dmesg | grep -c 'are not shown')
    mount -t pstore pstore /sys/fs/pstore
    begin round; quiet round; end round
    shown=$(ls /sys/fs/pstore | grep -c -e '^ftrace-ramtrail-' -e '^console-ramtrail-')
    rm -f /sys/fs/pstore/*-ramtrail-*
    umount /sys/fs/pstore
    [ "$shown" = 0 ] && break
    # MemAvailable moves by up to 20 MiB between mounts here, removed
    # files or not (once 6.1 then had no room for a part): wait a little
    # for it to come back, as a next boot would have it. A mount that
    # left no part out leaves the next one nothing to show: no wait.
    w=0
    if [ "$(dmesg | grep -c 'are not shown')" != "$left" ]; then
        while [ $(mem MemAvailable) -lt $((a0 - 24 * 1024)) ] && [ $w -lt 20 ]; do
            sleep 1; w=$((w + 1))
        done
    fi
    echo "mount $r: MemAvailable $(mem MemAvailable) kB after $w s"
    r=$((r + 1))
done
""")
    r = g.run(timeout=600)
    res.check(f"{t} panic, warm reboot, poweroff", boots(r) == 2 and r.rc == 0, brief(r))
    st = last_status(r)
    trace = [x for x in st.get("trace", []) if x.get("boot") == 1]
    first, parts = (trace[0].get("first"), trace[0].get("files")) if trace else (None, 0)
    rounds = []
    for text in h.sections(r.log, "round"):
        got = {"ftrace": {}, "console": {}}
        for kind, name, n in re.findall(r"^(ftrace|console) \S+-ramtrail-(\d+) (\d+)$",
                                        text, re.M):
            got[kind][int(name)] = int(n)
        names = re.search(r"^names (\d+) (\d+) (\d+) (\w+)$", text, re.M)
        got["names"] = names and (int(names[2]), int(names[3]), names[4])
        got["head"] = {int(n): line for n, line in
                       re.findall(r"^head \S+-ramtrail-(\d+) (.*)$", text, re.M)}
        rounds.append(got)
    shown = [sorted(x["ftrace"]) for x in rounds]
    res.check(f"{t} boot 1's trace saved in several parts ({parts})",
              not differs(st, previous_boot_id=1, previous_trace="saved") and parts >= 3,
              (st.get("previous_trace"), trace))
    res.check(f"{t} the first mount shows some parts and leaves others out",
              rounds and 0 < len(rounds[0]["ftrace"]) < parts, shown)
    # A part's text files are named from its own number: those of
    # ftrace-ramtrail-N are console-ramtrail-(N * 100) and up, whatever
    # the other parts' text takes, so a mount needs to read no other part.
    texts = [{n: sorted(c % 100 for c in x["console"] if c // 100 == n)
              for n in {c // 100 for c in x["console"]} | set(x["ftrace"])}
             for x in rounds]
    res.check(f"{t} each mount shows whole parts: each ftrace-ramtrail-N's records "
              "are the function lines of console-ramtrail-(N * 100) and up",
              rounds and all(set(tx) == set(x["ftrace"]) and
                             all(tx[n] and tx[n] == list(range(len(tx[n]))) and
                                 x["ftrace"][n] == sum(x["console"][n * 100 + i]
                                                       for i in tx[n])
                                 for n in tx)
                             for x, tx in zip(rounds, texts)),
              [{n: (x["ftrace"].get(n), tx[n]) for n in tx}
               for x, tx in zip(rounds, texts)])
    # Newest first: each mount a run of parts that ends where the one
    # after it (shown before) starts, the first ending at the last part.
    ids = [i for x in reversed(shown) for i in x]
    res.check(f"{t} the first mount ends at the last part, later mounts show the "
              "ones before: every part once",
              first is not None and ids == list(range(first, first + parts)) and
              len(rounds) > 2 and not rounds[-1]["ftrace"], shown)
    res.check(f"{t} a part's ftrace file holds its text's function records, as "
              "offsets, no address (the first part of each mount)",
              all(x["names"] and x["names"][0] == x["names"][1] > 0 and
                  x["names"][2] == "offsets" for x in rounds if x["ftrace"]),
              [x["names"] for x in rounds])
    # Each text file begins with its part's "# trace:" line, its number
    # after "file": a reader chains a part's files only.
    heads = {c: line for x in rounds for c, line in x["head"].items()}
    res.check(f"{t} each text file of a part begins with the part's trace line and "
              "its own number (parts of several files among them)",
              heads and any(c % 100 for c in heads) and
              all(re.fullmatch(r"# trace: nonce [0-9a-f]{16} boot 1 part \d+ of \d+ file 1",
                               heads.get(c - c % 100, "")) and
                  line == heads[c - c % 100][:-1] + str(c % 100 + 1)
                  for c, line in heads.items()),
              sorted(heads.items())[:4])
    text_ids = [i for x in rounds for i in x["console"]]
    res.check(f"{t} text files: each name once over the mounts",
              text_ids and len(text_ids) == len(set(text_ids)),
              [sorted(x["console"]) for x in rounds])
    res.check(f"{t} no OOM kill", "Out of memory" not in r.log and "oom-kill" not in r.log,
              [x for x in r.log.splitlines() if "oom" in x.lower()][:3])
    no_oops(res, t, r.log)


def scenario_oops(k, ko, smp, res):
    t = f"[{k.kver} smp{smp} oops]"
    g = Guest(k, ko, "oops", smp, f"""
rt_load {PARAMS} functions={FUNCS} dump_on_oops=1 dump_lines={DUMP_LINES}
if [ "$(boot_id)" = 1 ]; then
    workload; sleep 2
    insmod /lib/modules/ramtrail_oops.ko
    sleep 1
    # The kernel survived the oops; recording stays frozen, even when asked.
    # quiet: the refusal's warning must not land inside the section.
    enable() {{ begin enable; echo 1 > /sys/module/ramtrail/parameters/enabled
        echo "enable rc=$?"; end enable; }}
    quiet enable
    change() {{ begin change
        for p in functions=vfs_read events=sched:sched_switch frozen=0; do
            echo ${{p#*=}} > {PARAMS_DIR}/${{p%%=*}}; echo "${{p%%=*}} rc=$?"
        done
        cat {PARAMS_DIR}/functions; end change; }}
    quiet change
    status after-enable
    cat /proc/version >/dev/null
    echo b > /proc/sysrq-trigger
fi
pstore
""", modules=[rg.build_oops(k)])
    r = g.run()
    res.check(f"{t} oops survived, warm reset, two boots", boots(r) == 2 and r.rc == 0
              and "Oops" in r.log and "Kernel panic" not in r.log, brief(r))
    st = last_status(r)
    res.check(f"{t} status: boot 1's trace kept (state frozen, reason oops)",
              not differs(st, boot_id=2, previous_boot_id=1, previous_state="frozen",
                          previous_freeze_reason="oops", previous_trace="saved"), st)
    en = section(r, "enable")
    after = last_status(r, "after-enable")
    res.check(f"{t} enabled=1 refused while frozen: state frozen, reason oops",
              "enable rc=" in en and "enable rc=0" not in en and
              not differs(after, state="frozen", freeze_reason="oops"), (en, after))
    ch = section(r, "change")
    res.check(f"{t} functions=, events=, frozen=0 refused while frozen by the oops",
              len(re.findall(r"^\w+ rc=[1-9]\d*$", ch, re.M)) == 3 and
              ch.split()[-1] == FUNCS, ch)
    check_trace(res, t, rg.part_functions(r), smp, crash_path=False)
    dm = section(r, "dmesg-ramtrail-0")
    res.check(f"{t} dmesg-ramtrail-0 holds the oops", "Oops" in dm and
              "ramtrail_oops" in dm, dm[:300])
    parts = rg.split_boots(r.log)
    first = dumps(parts[0]) if parts else []
    oops_at = parts[0].find("Oops") if parts else -1
    res.check(f"{t} dump_on_oops=1: one dump in boot 1, after the oops, none in boot 2",
              [x["kind"] for x in first] == ["crash"] and oops_at >= 0 and
              parts[0].find("ramtrail: dump (crash)") > oops_at and
              not dumps(parts[1]), [x["kind"] for x in first])
    cpu = re.search(r"CPU: (\d+) (?:UID: \d+ )?PID: \d+ Comm: insmod",
                    parts[0] if parts else "")
    if len(first) == 1 and res.check(f"{t} the oops names its CPU", cpu, ""):
        check_dump(res, f"{t} dump_on_oops=1:", first[0], smp, DUMP_LINES,
                   only=int(cpu[1]))
        dd = dumps(dm)
        res.check(f"{t} dmesg-ramtrail-0 holds the same dump",
                  len(dd) == 1 and dd[0]["lines"] == first[0]["lines"], len(dd))
    no_oops(res, t, r.log, intended="ramtrail_oops: writing through a NULL pointer")


# The header's state FORMATTING; its boot_id, a per-boot field covered by
# the header checksum only.
STATE_FORMATTING = 1


def scenario_torn(k, ko, smp, res):
    """A reset while the next boot rewrites the header (its state left
    FORMATTING, or its per-boot fields half written) loses that boot's zones,
    never the saved traces and dmesg records of earlier boots; nor does a
    bit flipped in the header's layout."""
    t = f"[{k.kver} smp{smp} torn]"
    g = Guest(k, ko, "torn", smp, f"""
rt_load {PARAMS} functions={FUNCS}
if [ "$(boot_id)" = 1 ]; then
    workload; sleep 2
    echo c > /proc/sysrq-trigger
fi
pstore
""")
    shown = lambda r: (parse_ftrace(section(r, "ftrace-ramtrail-0"))[0],
                       section(r, "dmesg-ramtrail-0"))
    r = g.run()
    first = shown(r)
    res.check(f"{t} crash and read back", boots(r) == 2 and all(first), brief(r))
    saved_size = bytearray(g.ram.read(RESV + HDR["saved_size"], 8))
    saved_size[2] ^= 0x10
    for name, offset, data, header in (
            ("format interrupted", HDR["state"], STATE_FORMATTING.to_bytes(4, "little"),
             "formatting"),
            ("header half written", HDR["boot_id"], bytes(8), "checksum"),
            ("a bit of the layout flipped", HDR["saved_size"], bytes(saved_size),
             "checksum")):
        g.ram.write(RESV + offset, data)
        r = g.run()
        now = shown(r)
        st = last_status(r)
        res.check(f"{t} {name}: module loads, status says what it found",
                  boots(r) == 1 and "insmod rc=0" in r.log and
                  not differs(st, previous_header=header), (brief(r), st))
        res.check(f"{t} {name}: boot 1's trace and panic log still there, unchanged",
                  now == first, [(len(a), len(b)) for a, b in zip(now, first)])
        no_oops(res, f"{t} {name}", r.log)


def forge_header(ram, dmesg_size, boot_id):
    """Rewrite the region header as a forger would, checksums right: dmesg
    records of dmesg_size bytes (the areas after them moved to match, as
    ramtrail_layout() would place them) and boot number boot_id."""
    hdr = bytearray(ram.read(RESV, HDR_CHECKED))
    get = lambda f, fmt: struct.unpack_from(fmt, hdr, HDR[f])[0]
    put = lambda f, fmt, v: struct.pack_into(fmt, hdr, HDR[f], v)
    align = lambda v: (v + 4095) & ~4095
    saved = align(get("dmesg_offset", "<Q") + get("dmesg_count", "<I") * dmesg_size)
    zones = align(saved + get("saved_size", "<Q"))
    put("dmesg_size", "<Q", dmesg_size)
    put("saved_offset", "<Q", saved)
    put("zone_offset", "<Q", zones)
    put("nr_blocks", "<I", min((get("region_size", "<Q") - zones) //
                               get("nr_cpus", "<I") >> 12, 0xffffffff))
    # The layout checksum: region_size up to itself.
    put("layout_checksum", "<I",
        zlib.crc32(bytes(hdr[HDR["region_size"]:HDR["layout_checksum"]])))
    put("boot_id", "<Q", boot_id)
    c = HDR["checksum"]
    put("checksum", "<I", zlib.crc32(bytes(hdr[:c]) + bytes(8) + bytes(hdr[c + 8:])))
    ram.write(RESV, bytes(hdr))


def scenario_forged(k, ko, smp, res):
    """A header forged with valid checksums: dmesg records too small for
    pstore's dump header (a heap overflow at the next panic if kept) and a
    boot number that would end the numbering. The module formats the region
    anew, numbers boots from what it can trust, and the next crash's log is
    read back whole."""
    t = f"[{k.kver} smp{smp} forged]"
    g = Guest(k, ko, "forged", smp, f"""
rt_load {PARAMS} functions={FUNCS}
if ! grep -q rt.read /proc/cmdline; then
    workload; sleep 2
    echo c > /proc/sysrq-trigger
fi
pstore
""")
    crash = dict(append="panic=0", timeout=120, kill_on="Kernel panic", kill_delay=2)
    r = g.run(**crash)
    dmesg_size = lambda: struct.unpack("<Q", g.ram.read(RESV + HDR["dmesg_size"], 8))[0]
    size = dmesg_size()
    res.check(f"{t} boot 1 recorded and crashed", r.killed and "insmod rc=0" in r.log,
              brief(r))
    forge_header(g.ram, 56, 1 << 60)
    r = g.run(**crash)
    res.check(f"{t} forged layout: loaded, formatted anew with its parameters",
              r.killed and "insmod rc=0" in r.log and
              dmesg_size() == size, brief(r))
    r = g.run(append="rt.read")
    logs = [x for x in re.findall(r"^=== BEGIN (dmesg-ramtrail-\d+) ===", r.log, re.M)]
    st = last_status(r)
    res.check(f"{t} the crash after it: its log read back, boots numbered on",
              len(logs) >= 1 and "sysrq" in section(r, logs[0]).lower() and
              0 < st.get("boot_id", 0) < 100,
              (brief(r), logs, st.get("boot_id")))
    no_oops(res, t, r.log)


def forge_kernel_build(ram):
    """The live module table's kernel entry (RAMTRAIL_MOD_KERNEL), its hash
    changed and its checksum made again: as if another build of the same
    release and version string had recorded. Returns the boot's number."""
    modtab, = struct.unpack("<Q", ram.read(RESV + 32, 8))
    # struct ramtrail_module_entry: flags at 24, name at 32, funcs_hash at 112
    e = bytearray(ram.read(RESV + modtab, 120))
    if e[32:40] != b"vmlinux\0":
        return None
    flags, = struct.unpack_from("<I", e, 24)
    struct.pack_into("<Q", e, 112, struct.unpack_from("<Q", e, 112)[0] ^ 0x1000)
    struct.pack_into("<II", e, 24, 0, 0)
    crc = zlib.crc32(struct.pack("<I", flags & 0x16), zlib.crc32(bytes(e)))
    struct.pack_into("<II", e, 24, flags, crc)
    ram.write(RESV + modtab, bytes(e))
    return struct.unpack("<Q", ram.read(RESV + HDR["boot_id"], 8))[0]


def scenario_crosskernel(k, ko, smp, res):
    """A trace recorded by another kernel build is shown with offsets, never
    with this kernel's names for them; the same build's trace is named.
    Last, 6.12 records and crashes, and its module table's kernel entry is
    forged as another build of 6.12 would have written it (release and
    version string the same, its functions elsewhere): 6.12 shows that
    trace with offsets only."""
    if k.kver != "6.12":
        return
    t = f"[6.1->6.12->6.1 smp{smp} crosskernel]"
    k61 = h.kernel("6.1")
    body = f"""
rt_load {PARAMS} functions={FUNCS}
if ! grep -q rt.read /proc/cmdline; then
    workload; sleep 2
    echo c > /proc/sysrq-trigger
fi
pstore
"""
    old = Guest(k61, rg.build_all("6.1"), "crosskernel", smp, body)
    new = Guest(k, ko, "crosskernel", smp, body)
    new.ram = old.ram
    r = old.run(append="panic=0", timeout=120, kill_on="Kernel panic", kill_delay=2)
    res.check(f"{t} 6.1 recorded and crashed", r.killed, brief(r))
    r = new.run(append="rt.read")
    recs = rg.part_functions(r)
    named = [x for x in recs if not x[2].startswith("0x")]
    res.check(f"{t} 6.12 shows 6.1's trace with offsets only",
              recs and not named, named[:3])
    r = new.run(append="panic=0", timeout=120, kill_on="Kernel panic", kill_delay=2)
    res.check(f"{t} 6.12 recorded and crashed", r.killed, brief(r))
    r = old.run(append="rt.read")
    files = h.sections(r.log, "files")
    recs = rg.part_functions(r, rg.first_file(2))
    named = [x for x in recs if not x[2].startswith("0x")]
    res.check(f"{t} 6.1 shows 6.12's trace with offsets only",
              recs and not named, (files, named[:3]))
    no_oops(res, t, r.log)
    r = new.run(append="panic=0", timeout=120, kill_on="Kernel panic", kill_delay=2)
    boot = forge_kernel_build(new.ram)
    res.check(f"{t} 6.12 recorded and crashed, its kernel entry forged",
              r.killed and boot, brief(r))
    r = new.run(append="rt.read")
    recs = rg.part_functions(r, rg.first_file(boot or 1))
    named = [x for x in recs if not x[2].startswith("0x")]
    res.check(f"{t} 6.12 shows the trace of another build of 6.12 with offsets only",
              recs and not named, (h.sections(r.log, "files"), named[:3]))
    no_oops(res, t, r.log)


# errno of each refusal, as busybox insmod prints it (strerror). pstore
# refuses a second backend with EBUSY (6.12) or EPERM (6.1).
EINVAL, EBUSY, EPERM, EIO = "Invalid argument", "Device or resource busy", \
    "Operation not permitted", "Input/output error"
# Above the guest's 1 GiB of RAM, below the PCI devices: no memory there.
NO_RAM = 0x80000000


def scenario_memtypes(k, ko, smp, res):
    """mem_type=1 (uncached, a vmap of the range's pages) and 2 (cached,
    flushed line by line) keep a crash's trace as the default mapping does.
    The mapping does not depend on the CPU count: 2 CPUs only. arm64
    refuses mem_type=1 (Device memory): the load fails with EINVAL."""
    if smp != 2:
        res.skip(f"[{k.kver} smp{smp} memtypes] 2 CPUs only")
        return
    if k.arch == "arm64":
        t = f"[{k.kver} smp{smp} mem_type=1]"
        g = Guest(k, ko, "memtype1", smp, f"rt_load {PARAMS} mem_type=1\nrt_load {PARAMS}\n")
        r = g.run()
        rcs = re.findall(r"^insmod rc=(\d+)", r.log, re.M)
        res.check(f"{t} refused on arm64 (EINVAL), loaded without it: uncached is "
                  "Device memory there", rcs == ["22", "0"] and r.rc == 0, (rcs, brief(r)))
    for mt in (1, 2) if k.arch != "arm64" else (2,):
        t = f"[{k.kver} smp{smp} mem_type={mt}]"
        g = Guest(k, ko, f"memtype{mt}", smp,
                  rg.RECORD_AND_CRASH.replace("rt_load ", f"rt_load mem_type={mt} "))
        r = g.run()
        res.check(f"{t} panic, warm reboot, poweroff", boots(r) == 2 and r.rc == 0,
                  brief(r))
        recs = rg.part_functions(r)
        check_trace(res, t, recs, smp, preempt_full=k.preempt_full)
        st = last_status(r)
        res.check(f"{t} status: boot 2 keeps boot 1's trace (state frozen, reason panic)",
                  not differs(st, boot_id=2, previous_boot_id=1, previous_state="frozen",
                              previous_freeze_reason="panic", previous_trace="saved",
                              previous_records=len(recs)), st)
        no_oops(res, t, r.log)


# Kernel events every tasks guest records, and the timer interrupt's
# function, which runs in hardirq context.
EVENTS = "sched:*,irq:*,workqueue:*,timer:*,printk:console"
TASK_FUNCS = ("do_sys_openat2,__handle_sysrq,sysrq_handle_crash,write_sysrq_trigger,"
              "hrtimer_interrupt")
# A small saved area: the serial line carries the whole text.
TASK_PARAMS = f"mem_address={RESV:#x} mem_size=8M saved_size=1M"
SWITCH = re.compile(r"sched_switch: prev_comm=(.*) prev_pid=(\d+) .* ==> "
                    r"next_comm=(.*) next_pid=(\d+) ")
# trace-cmd report -l -N: comm-pid CPU flags time: event: fields
REPORT_L = re.compile(r"^\s*(.*?)-(-?\d+)\s+(\d+)(\S{5})\S*\s+(\d+\.\d{6}): +(\w+): +(.*)$")


def parse_report(text):
    """trace-cmd report -l -N lines as rg.parse_text() tuples."""
    out = []
    for line in text.splitlines():
        m = REPORT_L.match(line)
        if not m:
            continue
        what = (m[7].replace(" <-- ", " <-") if m[6] == "function"
                else f"{m[6]}: {m[7]}")
        out.append((m[1].strip(), None if m[2] == "-1" else int(m[2]), int(m[3]),
                    m[4], m[5], what))
    return out


# A marker as text: "tracing_mark_write: TEXT"; trace-cmd: "print: " first.
MARKER = re.compile(r"^(?:print: )?tracing_mark_write: (.*)$")


def check_markers(res, t, what, recs, smp, names):
    """The tasks guest's markers: each CPU's worker wrote "rtmark CPU I"
    every 16 reads of /proc/version, after opening the device; dd wrote
    300 bytes (busybox's dd writes until all are taken: 255, then 45);
    nothing while paused."""
    def task_func(r, cpu, pid):
        return r[2] == cpu and r[1] == pid and r[3][2] == "." and \
            not r[5].split(" ", 1)[0].endswith(":")
    bad, seen = [], {c: [] for c in range(smp)}
    for j, r in enumerate(recs):
        m = MARKER.match(r[5])
        w = m and re.match(r"rtmark (\d+) (\d+)$", m[1])
        if not w:
            continue
        c = int(w[1])
        seen.setdefault(c, []).append(int(w[2]))
        prev = next((x for x in reversed(recs[:j]) if task_func(x, r[2], r[1])), None)
        nxt = next((x for x in recs[j + 1:] if task_func(x, r[2], r[1])), None)
        if r[2] != c or r[0] != f"rtw{c}" or r[1] != names[f"rtw{c}"] or \
           not prev or not prev[5].startswith("do_sys_openat2") or \
           float(prev[4]) > float(r[4]) or \
           (nxt and (not nxt[5].startswith("do_sys_openat2") or
                     float(nxt[4]) < float(r[4]))):
            bad.append((prev, r, nxt))
    res.check(f"{t} {what}: each worker's markers on its CPU, as its task, numbered "
              "up, each after the open of the device and before the next open",
              all(len(v) >= 2 and v == sorted(set(v)) and v[0] % 16 == 0
                  for v in seen.values()) and not bad,
              ({c: v[:3] + v[-1:] for c, v in seen.items()}, bad[:2]))
    xs = [len(m[1]) for m in map(MARKER.match, (r[5] for r in recs))
          if m and m[1] and set(m[1]) == {"x"}]
    res.check(f"{t} {what}: a 300-byte write records its first 255 bytes (a short "
              "write), the rest as the next marker; no marker while paused",
              xs == [255, 45] and not any(r[5].endswith("rtpaused") for r in recs), xs)


def check_tasks(res, t, what, recs, smp, names, crasher, comm_per_pid=False):
    """The facts a trace of the tasks guest must show, in any text form.
    With comm_per_pid (trace-cmd), a pid's records all show its last name,
    also those from before it was pinned and renamed."""
    unknown = sum(r[1] is None for r in recs)
    res.check(f"{t} {what}: records, and the task of each known (but for "
              "task events lost in flight)", len(recs) > 100 and unknown * 1000 < len(recs),
              (len(recs), unknown))
    wrong = [r for r in recs if r[0] in names and r[1] != names[r[0]]]
    res.check(f"{t} {what}: every record of a named task has its pid "
              "(as the guest's ps printed)", not wrong, wrong[:3])
    mine = {n: [r[2] for r in recs if r[0] == n] for n in names}
    if comm_per_pid:
        mine = {n: set(cpus[-1:]) for n, cpus in mine.items()}
    else:
        mine = {n: set(cpus) for n, cpus in mine.items()}
    res.check(f"{t} {what}: each CPU's pinned task recorded, on its CPU"
              f"{' last' if comm_per_pid else ' only'}",
              all(mine.get(f"rtw{c}") == {c} for c in range(smp)), mine)
    last = [r for r in recs if r[2] == 1][-1:]
    res.check(f"{t} {what}: the crashing task is the last task on the crashing CPU",
              last and last[0][0] == "rtcrash" and last[0][1] == crasher,
              (crasher, last))
    timer = [r for r in recs if r[5].startswith("hrtimer_interrupt")]
    res.check(f"{t} {what}: timer interrupt records in hardirq context",
              timer and all(r[3][2] == "h" for r in timer),
              (len(timer), sorted({r[3] for r in timer})))
    bad, n, after = [], 0, {}
    for r in recs:
        cpu = r[2]
        if cpu in after and r[1] is not None and r[1] != after.pop(cpu):
            bad.append(r)
        m = SWITCH.search(r[5])
        if not m:
            continue
        n += 1
        if (r[1] is not None and r[1] != int(m[2])) or \
           (m[1] in names and names[m[1]] != int(m[2])) or \
           (m[4] == "0" and m[3] != f"swapper/{cpu}"):     # each CPU's idle task
            bad.append(r)
        after[cpu] = int(m[4])
    res.check(f"{t} {what}: sched_switch events agree with the tasks of the "
              "records before and after them", n > 10 and not bad, (n, bad[:3]))
    check_markers(res, t, what, recs, smp, names)
    log = [r for r in recs if r[5].startswith("console: ")]
    trig = [r for r in log if "sysrq: Trigger a crash" in r[5]]
    crash_fn = [r for r in recs if r[5].startswith("sysrq_handle_crash")]
    res.check(f"{t} {what}: the log's lines are events, in time order, the "
              "crash's line before the crash function",
              log and trig and crash_fn and trig[-1][4] <= crash_fn[-1][4] and
              trig[-1][2] == crash_fn[-1][2] == 1 and
              [float(r[4]) for r in log] == sorted(float(r[4]) for r in log),
              (len(log), trig[-1:], crash_fn[-1:]))


def core_text(ko):
    """1 if module `ko` has text outside its init (a .text* section that is
    not empty), else 0."""
    out = subprocess.run(["readelf", "-SW", ko], check=True, capture_output=True,
                         text=True).stdout
    return int(any(int(m[1], 16) for m in
                   re.finditer(r"\] \.text\S* +PROGBITS +[0-9a-f]+ [0-9a-f]+ ([0-9a-f]+) ", out)))


def scenario_modinit(k, ko, smp, res):
    """The kernel frees a module's init text once the init has run, and the
    next module loaded takes that place (seen on both kernels). A call from
    the init, recorded before, must not be named after the later module's
    function there, nor the later module's calls after the init: neither
    in pstore's files of the next boot (where the later module is loaded
    again), nor in the host tool's decode with the .ko files, nor in the
    dump printed as the kernel dies.

    Then the later module is unloaded and the module table, sized for it
    (max_modules=7 on x86, 8 on arm64, the kernel's build its first entry), is full: a third module takes its place with no entry
    of its own. Its call must not take the unloaded module's name (which
    alone covered that place in the table) anywhere: it has none.

    The next boot first loads another build of ramtrail_initb, of the same
    sizes, whose functions lie elsewhere: pstore's files must not name the
    traced build's calls with it, nor the tool with its .ko; then the traced
    build, which names them. Module layout is not about CPUs: 2 CPUs only in
    make check."""
    t = f"[{k.kver} smp{smp} modinit]"
    mods = [rg.build_oops(k, n) for n in
            ("ramtrail_inita", "ramtrail_initb", "ramtrail_late")]
    other = rg.build_oops(k, "ramtrail_initb", other=True)
    # KASAN's constructor and destructor give ramtrail_inita text outside
    # its init: an entry of its own, and the table one entry longer.
    core = core_text(mods[0])
    # arm64 keeps two entries for a full table (its module area lies on
    # both sides of the kernel image).
    full = 2 if k.arch == "arm64" else 1
    g = Guest(k, ko, "modinit", smp, f"""
rt_load {PARAMS} functions={FUNCS},msleep dump_on_oops=2 dump_lines=64 max_modules={6 + core + full}
if [ "$(boot_id)" = 1 ]; then
    insmod /lib/modules/ramtrail_inita.ko
    sleep 1     # its init text is freed after an RCU grace period
    insmod /lib/modules/ramtrail_initb.ko
    echo 1 > /sys/module/ramtrail_initb/parameters/poke
    rmmod ramtrail_initb
    # The kernel reuses initb's place once a later free flushes: the
    # first load of ramtrail_late finds the table full, its unload flushes.
    insmod /lib/modules/ramtrail_late.ko
    rmmod ramtrail_late
    insmod /lib/modules/ramtrail_late.ko
    echo 1 > /sys/module/ramtrail_late/parameters/poke
    mods() {{ begin mods; ramtrail stats {rg.REGION} --format json; end mods; }}
    quiet mods
    sleep 1     # the console drains before the crash's messages
    echo c > /proc/sysrq-trigger
fi
insmod /lib/modules/ramtrail_initb-other.ko
pstore
for f in $(ls /sys/fs/pstore | grep ^console-ramtrail- | sort -t- -k3 -n); do
    show console /sys/fs/pstore/$f
done
umount /sys/fs/pstore
rmmod ramtrail_initb
insmod /lib/modules/ramtrail_initb.ko
mount -t pstore pstore /sys/fs/pstore
for f in $(ls /sys/fs/pstore | grep ^console-ramtrail- | sort -t- -k3 -n); do
    quiet show traced /sys/fs/pstore/$f
done
ksyms_out
""", modules=mods, files={"lib/modules/ramtrail_initb-other.ko": other})
    r = g.run()
    res.check(f"{t} three modules loaded, one unloaded, crash, warm reboot, "
              "poweroff", boots(r) == 2 and r.rc == 0, brief(r))
    parts = rg.split_boots(r.log)
    first = parts[0] if parts else ""
    a = re.search(r"ramtrail_inita: init at ([0-9a-f]+)", first)
    b = re.search(r"ramtrail_initb: poke at ([0-9a-f]+)", first)
    # the second load of ramtrail_late, the one whose poke is called
    late = list(re.finditer(r"ramtrail_late: poke at ([0-9a-f]+)", first))[-1:]
    late = late[0] if late else None
    page = lambda m: m and int(m[1], 16) >> 12
    res.check(f"{t} boot 1: ramtrail_initb's text lies where ramtrail_inita's "
              "init was, ramtrail_late's where ramtrail_initb's was (the "
              "cases under test)",
              a and b and late and page(a) == page(b) == page(late),
              (a and a[1], b and b[1], late and late[1]))
    try:
        table = json.loads(next(x for x in section(r, "mods").splitlines()
                                if x.startswith("{")))["modules"]
    except (ValueError, KeyError, StopIteration):
        table = []
    kinds = [(m["name"], m["init"], m["full"], m["kernel"]) for m in table]
    res.check(f"{t} boot 1's table: the kernel's build, ramtrail, its init, "
              "inita's init, initb and its init (gone), then the entry of a "
              "full table (arm64: two, around the kernel image); none for "
              "ramtrail_late",
              kinds == [("vmlinux", False, False, True),
                        ("ramtrail", False, False, False),
                        ("ramtrail", True, False, False),
                        *[("ramtrail_inita", False, False, False)] * core,
                        ("ramtrail_inita", True, False, False),
                        ("ramtrail_initb", False, False, False),
                        ("ramtrail_initb", True, False, False),
                        *[("", False, True, False)] * full] and
              table[4 + core]["gone"] and table[5 + core]["gone"] and
              not table[3 + core]["gone"], table)
    # msleep's callers in time order: a's init, b's poke, late's poke
    want = [r"\[ramtrail_inita\]\.init\+0x[0-9a-f]+$",
            r"\[ramtrail_initb\]\+0x[0-9a-f]+$", r"0x[0-9a-f]+$"]
    callers = lambda recs: [x[3] for x in recs if x[2] == "msleep"]
    named = lambda got, pats: (len(got) == len(pats) and
                               all(re.match(p, c) for p, c in zip(pats, got)))
    check_ftrace_file(res, t, r)
    text = [(c, w.partition(" <-")[2]) for _, _, c, _, _, w in
            rg.parse_text("\n".join(h.sections(r.log, "console")))
            if w.startswith("msleep <-")]
    res.check(f"{t} pstore text, another build of initb loaded: the init's "
              "caller and initb's named by their module only, ramtrail_late's "
              "not at all", named([x[1] for x in text], want), text)
    got = callers(rg.text_functions(section(r, "traced")))
    res.check(f"{t} pstore text, the traced build of initb loaded: initb's "
              "caller named by its function, the others as before",
              named(got, [want[0], r"ramtrail_initb_poke( \[ramtrail_initb\])?$",
                          want[2]]), got)
    ksyms = rg.kallsyms(g, r)

    def decode_callers(folder, kos):
        """The host's decode of boot 1 with the .ko files kos: (rc, msleep's
        callers, stderr)."""
        kodir = g.work / folder
        shutil.rmtree(kodir, ignore_errors=True)
        kodir.mkdir()
        for m in kos:
            shutil.copy(m, kodir)
        rc, host, err = rg.decode(g.ram.path, *g.REGION_ARGS, "--boot", 1, "--system-map",
                                  ksyms or "/dev/null", "--modules", kodir)
        return rc, [x[3] for x in host if x[2] == "msleep"], err

    rc, got, err = decode_callers("ko", mods)
    res.check(f"{t} tool: decode with the three .ko files names the init's "
              "caller and initb's, each by its own function; ramtrail_late's "
              "is a number",
              rc == 0 and named(got, [r"(ramtrail_inita_init|init_module) "
                                      r"\[ramtrail_inita\]$",
                                      r"ramtrail_initb_poke \[ramtrail_initb\]$",
                                      want[2]]),
              (rc, err.strip()[:200], got))
    rc, got, err = decode_callers("ko-other", [other])
    res.check(f"{t} tool: decode with another build of initb's .ko, of the "
              "same sizes, names nothing from it (initb's caller by its module "
              "only), and says why",
              rc == 0 and "another build" in err and "bytes" not in err and
              named(got, want),
              (rc, err.strip()[:200], got))
    d = dumps(first)
    got = [x[5].partition(" <-")[2] for x in
           rg.parse_text("\n".join(d[0]["lines"] if d else []))
           if x[5].startswith("msleep <-")]
    # This boot's address, in the log: hashed as %p prints it.
    hashed = r"([0-9a-f]{16}|\(_+ptrval_+\))$"
    res.check(f"{t} boot 1's dump as it died: the init's caller named by its "
              "module and init text, initb's (unloaded) by its module, "
              "ramtrail_late's as a hashed number, not by the kernel's name of now",
              len(d) == 1 and named(got, want[:2] + [hashed]), got)
    no_oops(res, t, r.log)


def scenario_tasks(k, ko, smp, res):
    t = f"[{k.kver} smp{smp} tasks]"
    g = Guest(k, ko, "tasks", smp, f"""
rt_load {TASK_PARAMS} functions={TASK_FUNCS} events={EVENTS}
if [ "$(boot_id)" = 1 ]; then
    # The marker device: its mode, a write past its limit, one while paused.
    marks() {{
        ls -l /dev/ramtrail_marker
        head -c 300 /dev/zero | tr '\\000' x >/tmp/x300
        dd if=/tmp/x300 of=/dev/ramtrail_marker bs=300 count=1 2>/dev/null
        echo "dd rc=$?"
        echo 0 >/sys/module/ramtrail/parameters/enabled
        echo rtpaused >/dev/ramtrail_marker; echo "paused rc=$?"
        echo 1 >/sys/module/ramtrail/parameters/enabled
    }}
    begin marks; marks; end marks
    c=0
    while [ $c -lt $NCPU ]; do
        taskset -c $c sh -c "renice -n 19 -p \\$\\$ >/dev/null
            echo -n rtw$c >/proc/self/comm
            i=0
            while :; do
                read x </proc/version
                i=\\$((i + 1))
                [ \\$((i % 16)) = 0 ] && echo \\"rtmark $c \\$i\\" >/dev/ramtrail_marker
            done" &
        c=$((c + 1))
    done
    sleep 2
    ps -o pid,comm >/tmp/ps
    quiet show ps /tmp/ps
    taskset -c 1 sh -c 'echo -n rtcrash >/proc/self/comm; echo "crasher $$"
        echo c >/proc/sysrq-trigger'
fi
mount -t pstore pstore /sys/fs/pstore
show_files() {{
    for f in $(ls /sys/fs/pstore | grep ^console-ramtrail- | sort -t- -k3 -n); do
        show $f /sys/fs/pstore/$f
    done
    for f in $(ls /sys/fs/pstore | grep ^ftrace-ramtrail-); do
        show $f /sys/fs/pstore/$f
    done
}}
quiet show_files; ksyms_out
""")
    r = g.run()
    res.check(f"{t} crash from a named task, warm reboot, poweroff",
              boots(r) == 2 and r.rc == 0, brief(r))
    names = {c: int(p) for p, c in
             re.findall(r"^\s*(\d+) (rtw\d+)\s*$", section(r, "ps"), re.M)}
    crasher = re.search(r"^crasher (\d+)", r.log, re.M)
    res.check(f"{t} the guest's ps shows a named task per CPU",
              sorted(names) == [f"rtw{c}" for c in range(smp)] and crasher,
              (names, bool(crasher)))
    if not crasher or len(names) != smp:
        return
    names["rtcrash"] = int(crasher[1])
    marks = section(r, "marks")
    paused = re.search(r"^paused rc=(\d+)", marks, re.M)
    res.check(f"{t} the marker device: root's alone (crw-------), dd's 300-byte "
              "write done (in more calls), a write while paused fails with EBADF",
              marks.lstrip().startswith("crw------- ") and "dd rc=0" in marks and
              paused and paused[1] != "0" and "Bad file descriptor" in marks, marks)
    # One part, or more on a slow kernel (its events take longer): in order.
    parts = sorted({int(n) // 100 for n in
                    re.findall(r"^=== BEGIN console-ramtrail-(\d+) ===$", r.log, re.M)})
    text = "\n".join(x for p in parts for x in rg.part_text(r.log, p)[:1])
    check_tasks(res, t, "pstore text", rg.parse_text(text),
                smp, names, names["rtcrash"])
    check_crash_record(res, t, k, g, r, smp, names["rtcrash"])
    ksyms = rg.kallsyms(g, r) or "/dev/null"
    p = rg.tool("decode", g.ram.path, *g.REGION_ARGS, "--boot", 1,
                "--system-map", ksyms)
    check_tasks(res, t, "decode of the RAM file", rg.parse_text(p.stdout), smp, names,
                names["rtcrash"])
    dat = g.work / "trace.dat"
    e = rg.tool("export", g.ram.path, *g.REGION_ARGS, "--boot", 1,
                "--system-map", ksyms, "-o", dat)
    rep = subprocess.run(["trace-cmd", "report", "-l", "-N", str(dat)],
                         capture_output=True, text=True)
    res.check(f"{t} export and trace-cmd report succeed",
              e.returncode == 0 and rep.returncode == 0,
              (e.stderr[-200:], rep.stderr[-200:]))
    check_tasks(res, t, "trace-cmd report of the export", parse_report(rep.stdout),
                smp, names, names["rtcrash"], comm_per_pid=True)
    # The Perfetto export of the same trace, parsed back by Perfetto's own
    # messages and compared with the JSON, record by record.
    pf, js = g.work / "trace.pftrace", g.work / "trace.json"
    for fmt, path in (("perfetto", pf), ("json", js)):
        rg.tool("export", g.ram.path, *g.REGION_ARGS, "--boot", 1, "--system-map", ksyms,
                "--format", fmt, "-o", path)
    cmp = subprocess.run([sys.executable, str(h.REPO / "tools/tests/test_perfetto.py"),
                          str(rg.TOOL.parent), str(pf), str(js)],
                         capture_output=True, text=True)
    res.check(f"{t} Perfetto export: parsed by Perfetto's messages, every record as the "
              "JSON export's (time, task, CPU, name), tasks and sched_switch fields",
              cmp.returncode == 0 and re.search(r"^[1-9]\d* passed, 0 failed$", cmp.stdout, re.M),
              " | ".join(x for x in cmp.stdout.splitlines() if not x.startswith("ok"))[-1500:]
              + cmp.stderr[-500:])
    res.check(f"{t} ftrace-ramtrail-0: over 100 function records",
              len(parse_ftrace(section(r, "ftrace-ramtrail-0"))[0]) > 100)
    check_ftrace_file(res, t, r)
    # What systemd-pstore copies into the journal, which the adm group reads.
    made = text + "\n" + section(r, "ftrace-ramtrail-0")
    ptrs = [x for x in text.splitlines() if "work struct " in x or "timer=" in x]
    raw = sorted(set(re.findall(r"\b(?:0x)?ffff[0-9a-f]{12}\b", made)))
    res.check(f"{t} pstore's ftrace and console files: work and timer pointers "
              "hashed, no kernel address of any boot", ptrs and not raw,
              (len(ptrs), raw[:3]))
    no_oops(res, t, r.log)


def check_crash_record(res, t, k, g, r, smp, crasher):
    """The header of the saved trace's text, and `ramtrail crash` on the
    pstore files as systemd-pstore archives them (copied from the log):
    the crash of task rtcrash on CPU 1 by sysrq, with no address."""
    d = g.work / "pstore"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir()
    shown = sorted(set(re.findall(r"^=== BEGIN ((?:ftrace|console)-ramtrail-\d+) ===$",
                                  r.log, re.M)))
    for name in shown:
        (d / name).write_text(section(r, name) + "\n")
    parts = sorted((int(n.rsplit("-", 1)[1]) for n in shown if n.startswith("ftrace")))
    heads = [section(r, f"console-ramtrail-{n * 100}").splitlines()[:4] for n in parts]
    want = (rf"# ramtrail: boot 1 \({re.escape(k.release)}\), saved trace, {smp} CPUs, "
            r"frozen by (oops|panic) on CPU 1$")
    res.check(f"{t} each part's text begins with the trace's header: boot 1, its "
              "release, frozen on CPU 1, which part",
              parts and all(len(x) == 4 and re.match(want, x[0]) and
                            x[1].startswith("# build: #") and
                            re.match(rf"# trace: nonce [0-9a-f]{{16}} boot 1 part {i + 1} "
                                     rf"of {len(parts)} file 1$", x[2]) and
                            re.match(r"# records: [1-9]\d*, lost \d+, ", x[3])
                            for i, x in enumerate(heads)), heads[:2])
    p = rg.tool("crash", *(d / f"ftrace-ramtrail-{n}" for n in parts))
    f = dict(x.split("=", 1) for x in p.stdout.splitlines() if "=" in x)
    fn = f.get("RAMTRAIL_FUNCTIONS", "").split()
    res.check(f"{t} ramtrail crash on the pstore files: the crash's journal fields: "
              "boot 1, the release, CPU 1, task rtcrash and its pid, sysrq_handle_crash "
              "first of 8 functions",
              p.returncode == 0 and f.get("MESSAGE_ID") == "5160ece0466c4b9bb1358cb46880f020"
              and f.get("RAMTRAIL_BOOT") == "1" and f.get("RAMTRAIL_RELEASE") == k.release
              and f.get("RAMTRAIL_CPU") == "1" and f.get("RAMTRAIL_TASK") == "rtcrash" and
              f.get("RAMTRAIL_PID") == str(crasher) and f.get("RAMTRAIL_CONTEXT") == "task"
              and len(fn) == 8 and fn[0] == "sysrq_handle_crash" and
              re.fullmatch(r"[0-9a-f]{16}", f.get("RAMTRAIL_SIGNATURE", "")) and
              f.get("RAMTRAIL_PARTS_READ") == str(len(parts)),
              (p.returncode, p.stderr[-300:], f))
    res.check(f"{t} ramtrail crash: no kernel address in any field",
              p.stdout and not re.search(r"ffff[0-9a-f]{8}", p.stdout), p.stdout)


def scenario_refusals(k, ko, smp, res):
    t = f"[{k.kver} smp{smp} refusals]"
    g = Guest(k, ko, "refusals", smp, f"""
debugfs
state() {{
    echo "loaded $(lsmod | grep -c '^ramtrail ')"
    echo "iomem $(grep -c ramtrail /proc/iomem)"
    echo "status $([ -e {rg.STATUS} ] && echo 1 || echo 0)"
}}
try_one() {{ name=$1; shift; begin $name; rt_load "$@"; state; end $name; }}
try() {{ quiet try_one "$@"; }}
try sysram mem_address={rg.RAM_BASE + 0x1000000:#x} mem_size=16M
try memtype {PARAMS} mem_type=7
try size mem_address={RESV:#x} mem_size=banana
try sizetail mem_address={RESV:#x} mem_size=64Mx
try savedsize {PARAMS} saved_size=lots
try savedtiny {PARAMS} saved_size=512
try noregion
[ {int(k.arch == "x86_64")} = 1 ] && try nomem mem_address={NO_RAM:#x} mem_size=16M
try nofunc {PARAMS} functions=no_such_function_xyz
try noevent {PARAMS} events=sched:sched_switch,sched:no_such_event
try untraced {PARAMS} events=sched:sched_stat_runtime
try frozenload {PARAMS} frozen=1
try dumpmode {PARAMS} dump_on_oops=3
try dumplines {PARAMS} dump_lines=0
try fewmods {PARAMS} max_modules=3
try manymods {PARAMS} max_modules=4097
try badecc {PARAMS} ecc=33
begin badecc-msg; dmesg | grep 'ramtrail: ecc='; end badecc-msg
insmod /lib/modules/reed_solomon.ko
insmod /lib/modules/ramoops.ko mem_address={OOPS_RESV:#x} mem_size=0x100000 record_size=0x10000
# pstore taken: it records without pstore; the region has the trace.
busy() {{
    begin busy
    echo "=== INSMOD ===" >/dev/kmsg
    insmod /lib/modules/ramtrail.ko {PARAMS} functions=vfs_read
    echo "insmod rc=$?"
    state
    grep -E '^(boot_id|pstore):' {rg.STATUS}
    cat /proc/version >/dev/null; cat /proc/version >/dev/null
    echo "decoded $(ramtrail decode {rg.REGION} --system-map /proc/kallsyms 2>/dev/null | grep -c ' vfs_read <-')"
    rmmod ramtrail
    echo "rmmod rc=$?"
    end busy
}}
quiet busy
try inuse mem_address={OOPS_RESV:#x} mem_size=1M
rmmod ramoops
try ok {PARAMS} functions={FUNCS} events=sched:*,irq:*
# reed_solomon was loaded before ramtrail, ramoops loaded and unloaded.
mods() {{ begin mods; ramtrail stats {rg.REGION} --format json; end mods
    begin procmods; cat /proc/modules; end procmods; }}
quiet mods
cat /proc/version >/dev/null
rmmod ramtrail
rc=$?
unload() {{ begin unload; echo "rmmod rc=$rc"; state; end unload; }}
quiet unload
try reload {PARAMS}
""", modules=["ramoops"])
    r = g.run(append=MEMMAP2)
    res.check(f"{t} boots and powers off", boots(r) == 1 and r.rc == 0, brief(r))

    def facts(name):
        out = section(r, name)
        f = {k: int(v) for k, v in re.findall(r"^(loaded|iomem|status) (\d+)$", out, re.M)}
        rc = re.findall(r"^insmod rc=(\d+)$", out, re.M)
        err = re.findall(r"^insmod: can't insert '[^']*': (.+)$", out, re.M)
        return dict(f, rc=int(rc[-1]) if rc else None, errno=err[-1] if err else None)

    expect = {"sysram": EINVAL, "memtype": EINVAL, "size": EINVAL, "sizetail": EINVAL,
              "savedsize": EINVAL, "savedtiny": EINVAL, "noregion": EINVAL,
              # arm64: nothing at an address is an external abort, an oops,
              # as on hardware: x86 only.
              **({"nomem": EIO} if k.arch == "x86_64" else {}),
              "nofunc": EINVAL, "noevent": EINVAL, "untraced": EINVAL,
              "frozenload": EINVAL, "dumpmode": EINVAL, "dumplines": EINVAL,
              "fewmods": EINVAL, "manymods": EINVAL, "badecc": EINVAL,
              # ramoops does not claim its range: ramtrail spots its signature.
              "inuse": EBUSY}
    for name, errno in expect.items():
        f = facts(name)
        res.check(f"{t} {name}: insmod fails ({' or '.join(errno) if isinstance(errno, tuple) else errno}), "
                  "no module, region or status file left",
                  f["rc"] not in (None, 0) and f["errno"] in
                  (errno if isinstance(errno, tuple) else (errno,)) and
                  not differs(f, loaded=0, iomem=0, status=0), (f, section(r, name)))
    res.check(f"{t} badecc: the load says what ecc= takes",
              "ramtrail: ecc=33: give 0 (none) to 32 parity bytes per codeword" in
              section(r, "badecc-msg"), section(r, "badecc-msg"))
    busy = facts("busy")
    text = section(r, "busy")
    decoded = re.findall(r"^decoded (\d+)$", text, re.M)
    busy_id = re.findall(r"^boot_id: (\d+)$", text, re.M)
    res.check(f"{t} pstore taken by ramoops: loads and records without it, the "
              "region has the trace, unloads", not differs(
                  busy, rc=0, errno=None, loaded=1, iomem=1, status=1) and
              "pstore: taken" in text and decoded and int(decoded[0]) > 0 and
              "rmmod rc=0" in text, text)
    ok = facts("ok")
    res.check(f"{t} loads once pstore is free", not differs(
        ok, rc=0, errno=None, loaded=1, iomem=1, status=1), ok)
    st = rg.status(r)
    res.check(f"{t} that load registers and saves the trace of the one without pstore",
              st and busy_id and not differs(
                  st[0], pstore="registered", previous_boot_id=int(busy_id[0]),
                  previous_state="stopped", previous_trace="saved") and
              st[0].get("previous_records", 0) > 0, (busy_id, st[:1]))
    try:
        table = {m["name"]: (m["base"], m["gone"])
                 for m in json.loads(section(r, "mods")).get("modules", [])}
    except ValueError:
        table = {}
    live = {name: int(addr, 16) for name, addr in re.findall(
        r"^(\S+) \d+ \d+ \S+ Live (0x[0-9a-f]+)", section(r, "procmods"), re.M)}
    res.check(f"{t} module table: reed_solomon, loaded before ramtrail, at the "
              "address /proc/modules gives; ramoops, gone before, not in it",
              "reed_solomon" in live and table.get("reed_solomon") ==
              (live["reed_solomon"], False) and "ramtrail" in table and
              "ramoops" not in table, (table, live))
    res.check(f"{t} unloads cleanly, region released",
              section(r, "unload").split() == ["rmmod", "rc=0", "loaded", "0", "iomem",
                                               "0", "status", "0"], section(r, "unload"))
    loads = rg.status(r)            # the "ok" load's, then the reload's
    st = loads[-1] if len(loads) == 2 else {}
    res.check(f"{t} reload saves the stopped boot's records",
              facts("reload")["rc"] == 0 and not differs(
                  st, previous_boot_id=loads[0].get("boot_id"), previous_state="stopped",
                  previous_trace="saved") and st.get("previous_records", 0) > 0, loads)
    no_oops(res, t, r.log)


# ---------------------------------------------------------------- dumps
PARAMS_DIR = "/sys/module/ramtrail/parameters"
CPUS = "/sys/kernel/debug/ramtrail/cpus"
DUMP_LINES = 16


# A task an event names by pid, with the name the reader's table gave it.
NAMED = re.compile(r"\b((?:prev_|next_)?)comm=(\S+) ((?:prev_|next_)?)pid=(\d+)")


def named(line):
    """The (pid, name) pairs a text line gives: its own task's, its event's."""
    m = rg.TEXT.match(line)
    own = [(m[2], m[1].strip())] if m and m[2] != "?" else []
    return own + [(pid, name) for _, name, _, pid in NAMED.findall(line)]


def in_text(line, text, names):
    """line is one of text's lines, but for the names an event gives other
    tasks: the dump names a task as it knew it at the crash (or "<...>"),
    console-ramtrail by the last name its trace gave that pid. Each name
    the dump printed must be one the trace gave that pid (names)."""
    norm = lambda x: NAMED.sub(lambda m: f"{m[1]}comm=* {m[3]}pid={m[4]}", x)
    return norm(line) in text and all(
        n == "<...>" or (pid, n) in names for pid, n in named(line))


def check_dump(res, t, d, smp, lines, crash_cpu=None, crash_path=None, only=None):
    """A dump of every CPU (or of CPU only): whole, named, in time order,
    ending on the CPU that froze recording with its crash path."""
    recs = rg.parse_text("\n".join(d["lines"]))
    n = per_cpu([(r[2],) for r in recs])
    cpus = [only] if only is not None else list(range(smp))
    res.check(f"{t} dump: {lines} records of each of CPUs {cpus}, all printed, "
              "no other line inside", d.get("printed") == len(recs) == len(cpus) * lines and
              n == {c: lines for c in cpus} and d["cpus"] == len(cpus) and
              not d["foreign"], (d.get("printed"), n, d["foreign"][:3]))
    res.check(f"{t} dump: in time order",
              all(float(a[4]) <= float(b[4]) for a, b in zip(recs, recs[1:])),
              [r[4] for r in recs][:20])
    res.check(f"{t} dump: every record names its task and its function",
              recs and all(r[1] is not None and r[0] != "<unknown>" and
                           not re.search(r"\b0x[0-9a-f]+\b", r[5]) for r in recs),
              [r for r in recs if r[1] is None or "0x" in r[5]][:3])
    if crash_cpu is not None:
        last = recs[-1] if recs else None
        res.check(f"{t} dump: ends on CPU {crash_cpu}, which froze recording, "
                  f"with {crash_path}", d["cut"] == (crash_cpu if only is None else None)
                  and last and last[2] == crash_cpu and last[5] == crash_path,
                  (d["cut"], last))
    return recs


DUMP_BODY = f"""
rt_load {TASK_PARAMS} functions={FUNCS},panic events=sched:sched_switch dump_on_oops=MODE dump_lines={DUMP_LINES}
if [ "$(boot_id)" = 1 ]; then
    workload; sleep 2
    taskset -c 1 sh -c 'echo c > /proc/sysrq-trigger'
fi
mount -t pstore pstore /sys/fs/pstore
show_files() {{
    begin files; ls /sys/fs/pstore; end files
    for f in $(ls /sys/fs/pstore | grep ^console-ramtrail- | sort -t- -k3 -n); do
        show console /sys/fs/pstore/$f
    done
    show dmesg-ramtrail-0 /sys/fs/pstore/dmesg-ramtrail-0
}}
quiet show_files
"""


def scenario_dump(k, ko, smp, res):
    """dump_on_oops=2: a sysrq crash on CPU 1 prints every CPU's tail; the
    reboot finds the same lines in the saved trace and the dmesg record. A
    cold boot (QEMU killed after the dump, its RAM file deleted) keeps only
    the serial log, which still tells the story."""
    t = f"[{k.kver} smp{smp} dump]"
    crash_path = "panic <-sysrq_handle_crash"
    g = Guest(k, ko, "dump", smp, DUMP_BODY.replace("MODE", "2"))
    r = g.run()
    res.check(f"{t} crash, warm reboot, poweroff", boots(r) == 2 and r.rc == 0, brief(r))
    parts = rg.split_boots(r.log)
    first = dumps(parts[0]) if parts else []
    res.check(f"{t} boot 1 prints one dump, at the crash; boot 2 none",
              [d["kind"] for d in first] == ["crash"] and len(parts) == 2 and
              not dumps(parts[1]), [d["kind"] for d in first])
    if len(first) != 1:
        return
    d = first[0]
    recs = check_dump(res, t, d, smp, DUMP_LINES, 1, crash_path)
    lines = [x.rstrip() for x in "\n".join(h.sections(r.log, "console")).splitlines()]
    names = {pair for x in lines for pair in named(x)}
    text = {NAMED.sub(lambda m: f"{m[1]}comm=* {m[3]}pid={m[4]}", x) for x in lines}
    missing = [line for line in d["lines"] if not in_text(line, text, names)]
    res.check(f"{t} every dump line is in console-ramtrail of boot 1 (names of other "
              "tasks: one that pid had in the trace)", recs and not missing, missing[:3])
    dm = dumps(section(r, "dmesg-ramtrail-0"))
    res.check(f"{t} dmesg-ramtrail-0 holds the same dump",
              len(dm) == 1 and dm[0]["lines"] == d["lines"],
              [len(x["lines"]) for x in dm])
    no_oops(res, t, r.log)

    # The cold boot: QEMU dies right after the dump; the next one starts on
    # a new RAM file, so nothing but the serial log is left.
    cold = Guest(k, ko, "dump-cold", smp, DUMP_BODY.replace("MODE", "2"))
    r1 = cold.run(kill_on="ramtrail: end of dump", kill_delay=0.5)
    cold = Guest(k, ko, "dump-cold", smp, f"""
rt_load {TASK_PARAMS} functions={FUNCS}
mount -t pstore pstore /sys/fs/pstore
show_files() {{ begin files; ls /sys/fs/pstore; end files; }}
quiet show_files
""", fresh=True)
    r2 = cold.run()
    st = last_status(r2)
    first = dumps(r1.log)
    res.check(f"{t} cold: QEMU killed after the dump; the new RAM holds no trace",
              r1.killed and len(first) == 1 and r2.rc == 0 and
              not differs(st, boot_id=1, previous_trace="none") and
              "ftrace-ramtrail" not in section(r2, "files"),
              (brief(r1), len(first), st.get("previous_trace"), section(r2, "files")))
    if first:
        check_dump(res, f"{t} cold:", first[0], smp, DUMP_LINES, 1, crash_path)
    no_oops(res, f"{t} cold:", r1.log)


def parse_cpus(text):
    """debugfs cpus -> {cpu: {records, dropped, laps, pos, stopped}}."""
    return {int(c): {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", rest)}
            for c, rest in re.findall(r"^cpu: (\d+) (.*)$", text, re.M)}


def scenario_control(k, ko, smp, res):
    """Run-time control: functions= and events= change what is recorded,
    frozen=1 keeps the tail (here and across a reset), frozen=0 resumes;
    bad values are refused and change nothing."""
    t = f"[{k.kver} smp{smp} control]"
    P = PARAMS_DIR
    g = Guest(k, ko, "control", smp, f"""
rt_load {TASK_PARAMS} functions=do_sys_openat2 dump_lines={DUMP_LINES}
if [ "$(boot_id)" = 1 ]; then
    debugfs
    set_p() {{ echo "$2" > {P}/$1; echo "$1 rc=$?"; }}
    workload; sleep 1
    quiet set_p functions seq_read_iter
    sleep 1
    echo y > /proc/sysrq-trigger
    frz() {{
        begin frz$1; set_p frozen 1; cat {CPUS}; end frz$1
        sleep 1
        begin frz$1-later; cat {CPUS}; cat {P}/frozen; end frz$1-later
    }}
    frz 1
    status frozen
    runs() {{
        ramtrail decode {rg.REGION} --system-map /proc/kallsyms 2>/dev/null >/tmp/runs
        grep -c 'counter not synchronised' /tmp/runs | sed 's/^/unsynced /'
        sed -n 's/^[^[]*\\[\\([0-9]*\\)\\] .* \\([a-z_0-9]*\\) <-.*$/\\1 \\2/p' /tmp/runs | uniq -c
    }}
    begin runs; runs; end runs
    begin bad
    quiet set_p functions no_such_function_xyz; cat {P}/functions
    quiet set_p dump_lines 0; quiet set_p dump_on_oops 3; cat {P}/dump_lines {P}/dump_on_oops
    end bad
    quiet set_p frozen 0
    sleep 1
    begin thawed; cat {CPUS}; end thawed
    quiet set_p events sched:sched_switch
    quiet set_p functions ''
    sleep 1
    frz 2
    ramtrail decode {rg.REGION} --system-map /proc/kallsyms >/tmp/d 2>/dev/null
    begin tail; c=0
    while [ $c -lt $NCPU ]; do grep "\\[00$c\\]" /tmp/d | tail -n 1; c=$((c + 1)); done
    end tail
    begin newest; tail -n 20 /tmp/d; end newest
    sleep 1
    echo b > /proc/sysrq-trigger
fi
mount -t pstore pstore /sys/fs/pstore
show_files() {{
    for f in $(ls /sys/fs/pstore | grep ^console-ramtrail- | sort -t- -k3 -n); do
        show console /sys/fs/pstore/$f
    done
}}
quiet show_files
""")
    # The debug kernel with 4 CPUs takes over 20 minutes (its 5 x 240 s).
    r = g.run(timeout=360)
    res.check(f"{t} reset while frozen, two boots", boots(r) == 2 and r.rc == 0, brief(r))
    rc = dict(re.findall(r"^(\w+) rc=(\d+)$", r.log, re.M))
    res.check(f"{t} functions=, events=, frozen= written at run time",
              rc.get("functions") == "0" and rc.get("events") == "0" and
              rc.get("frozen") == "0", rc)
    # functions=do_sys_openat2, then seq_read_iter: runs of (CPU, name) in
    # time order. Each CPU switches once. Across CPUs the switch may overlap
    # by the time ftrace takes to patch, and by the counters' skew when the
    # trace says they were not synchronised (its order across CPUs is then
    # approximate): the overlap is bounded only when they were.
    text = section(r, "runs")
    cpu_runs = [(int(n), int(c), f) for n, c, f in
                re.findall(r"^\s*(\d+) (\d+) (\S+)$", text, re.M)]
    runs = []
    for n, _, f in cpu_runs:
        if runs and runs[-1][1] == f:
            runs[-1] = (runs[-1][0] + n, f)
        else:
            runs.append((n, f))
    per_cpu = {}
    for _, c, f in cpu_runs:
        if per_cpu.get(c, [None])[-1] != f:
            per_cpu.setdefault(c, []).append(f)
    synced = re.search(r"^unsynced 0$", text, re.M) is not None
    total = sum(n for n, _ in runs)
    middle = sum(n for n, _ in runs[1:-1])
    res.check(f"{t} do_sys_openat2, then after functions=seq_read_iter only "
              "seq_read_iter, on every CPU (overlap across CPUs under 2 % "
              "when their counters were synchronised)", len(runs) >= 2 and
              runs[0][1] == "do_sys_openat2" and runs[-1][1] == "seq_read_iter" and
              runs[0][0] >= 20 and runs[-1][0] >= 20 and
              (middle * 50 <= total or not synced) and
              len(per_cpu) == smp and
              all(seq in (["do_sys_openat2", "seq_read_iter"], ["do_sys_openat2"],
                          ["seq_read_iter"]) for seq in per_cpu.values()) and
              {f for _, f in runs} == {"do_sys_openat2", "seq_read_iter"},
              (synced, per_cpu, runs[:8]))
    for i in (1, 2):
        a, b = parse_cpus(section(r, f"frz{i}")), parse_cpus(section(r, f"frz{i}-later"))
        # The traced function and event still fire while frozen (the cat
        # of the cpus file is a seq_read_iter): refused, not counted lost.
        res.check(f"{t} freeze {i}: every CPU paused, nothing recorded or counted "
                  "dropped for 1 s",
                  len(a) == smp and all(a[c]["stopped"] == 1 and a[c]["records"] ==
                                        b[c]["records"] and a[c]["pos"] == b[c]["pos"]
                                        and a[c]["dropped"] == b[c]["dropped"]
                                        for c in a) and
                  section(r, f"frz{i}-later").split()[-1] == "Y", (a, b))
    st = last_status(r, "frozen")
    res.check(f"{t} status: frozen by the user", not differs(
        st, state="frozen", freeze_reason="user"), st)
    bad = section(r, "bad")
    rcs = re.findall(r"^(\w+) rc=(\d+)$", bad, re.M)
    values = [x.strip() for x in bad.split("\n") if re.fullmatch(r"\w+", x.strip())]
    res.check(f"{t} bad values refused, nothing changed",
              [n for n, _ in rcs] == ["functions", "dump_lines", "dump_on_oops"] and
              all(v != "0" for _, v in rcs) and values == ["seq_read_iter", str(DUMP_LINES), "0"],
              bad)
    a, b = parse_cpus(section(r, "frz1-later")), parse_cpus(section(r, "thawed"))
    res.check(f"{t} thaw: every CPU records again", len(b) == smp and all(
        b[c]["stopped"] == 0 and b[c]["records"] > a[c]["records"] for c in b), (a, b))
    ds = dumps(rg.split_boots(r.log)[0]) if boots(r) else []
    if res.check(f"{t} sysrq-y while recording prints one dump", [d["kind"] for d in ds]
                 == ["request"], [d["kind"] for d in ds]):
        check_dump(res, f"{t} sysrq-y:", ds[0], smp, DUMP_LINES)
    newest = rg.parse_text(section(r, "newest"))
    res.check(f"{t} events=sched:sched_switch, functions='': the newest records are "
              "sched_switch events only", len(newest) == 20 and
              all(x[5].startswith("sched_switch: ") for x in newest), newest[:3])
    st = last_status(r)
    res.check(f"{t} status: boot 2 saved boot 1's trace, frozen by the user "
              "(frozen, thawed, frozen again: every zone sealed)",
              not differs(st, previous_state="frozen", previous_freeze_reason="user",
                          previous_trace="saved", previous_sealed_zones=smp), st)
    live = {x[2]: (x[4], x[5].split(":")[0]) for x in rg.parse_text(section(r, "tail"))}
    saved = {}
    for x in rg.parse_text("\n".join(h.sections(r.log, "console"))):
        saved[x[2]] = (x[4], x[5].split(":")[0])
    res.check(f"{t} the tail at the freeze is the saved trace's tail, per CPU",
              len(live) == smp and live == saved, (live, saved))
    no_oops(res, t, r.log, intended="sysrq: Resetting")


# w PARAM VALUE: write a parameter; its outcome appended to /tmp/w as
# "PARAM ok|busy|absent|invalid|other".
WRITE_PARAM = f"""
w() {{
    out=$( {{ echo "$2" > {PARAMS_DIR}/$1; }} 2>&1 )
    case "$?:$out" in
    0:*) r=ok ;;
    *busy*) r=busy ;;
    # A file removed between the lookup and the open: the shell's O_CREAT
    # in a sysfs directory, which cannot create, fails with EACCES.
    *"No such file"*|*nonexistent*|*"No such device"*|*"Permission denied"*) r=absent ;;
    *"Invalid argument"*) r=invalid ;;
    *) r=other; echo "$1: $out" >> /tmp/other ;;
    esac
    echo "$1 $r" >> /tmp/w
}}
# w_report NAME: the outcomes of /tmp/w counted, in section NAME.
w_report() {{ begin $1; sort /tmp/w | uniq -c; cat /tmp/other 2>/dev/null; end $1; }}
# hammer F1 F2: write the writable parameters in a loop, functions= F1
# and F2 in turn, until /tmp/stop. A write that lands before init begins
# is the load's own value, as if given to insmod.
hammer() {{
    rm -f /tmp/stop /tmp/w
    while [ ! -e /tmp/stop ]; do
        w functions $1; w events 'sched:*'; w enabled 0; w frozen 1
        w frozen 0; w enabled 1; w functions $2; w events 'irq:*'
        w dump_lines 8
    done
}}
unhammer() {{
    touch /tmp/stop; wait $1
    w_report $2
    rm -f /tmp/other
}}
"""


def write_outcomes(r, name):
    """Section `name` of w_report: {(param, outcome): writes}."""
    return {(p, o): int(n) for n, p, o in
            re.findall(r"^\s*(\d+) (\w+) (\w+)$", section(r, name), re.M)}


def scenario_paramrace(k, ko, smp, res):
    """The writable parameters written while the module loads and while a
    load fails late; a user freeze thawed, then a reset."""
    t = f"[{k.kver} smp{smp} paramrace]"
    P = PARAMS_DIR
    g = Guest(k, ko, "paramrace", smp, WRITE_PARAM + f"""
rt_load {PARAMS} functions='*'
if [ "$(boot_id)" = 1 ]; then
    # Fill the zones: the next load saves them (the longest load).
    workload; sleep 4
    kill $(jobs -p) 2>/dev/null; wait
    rmmod ramtrail
    hammer vfs_read seq_read_iter & h=$!
    rt_load {PARAMS} functions=vfs_read
    quiet unhammer $h loading
    settle() {{
        begin settled
        for p in "enabled 1" "frozen 0" "functions do_sys_openat2"; do
            set -- $p; echo "$2" > {P}/$1; echo "$1 rc=$?"
        done
        cat {P}/functions {P}/enabled {P}/frozen
        end settled
        begin cpus-before; cat {CPUS}; end cpus-before
        workload; sleep 1; kill $(jobs -p); wait
        begin cpus-after; cat {CPUS}; end cpus-after
    }}
    quiet settle
    # A list past param_set_charp()'s 1024 bytes: refused, never applied.
    toolong() {{
        begin toolong
        echo "$(printf 'ksys_read,%.0s' $(seq 1 130))" > {P}/functions
        echo "long rc=$?"; cat {P}/functions
        workload; sleep 1; kill $(jobs -p); wait
        echo "ksys_read $(ramtrail decode {rg.REGION} --system-map /proc/kallsyms 2>/dev/null | grep -c ' ksys_read <-')"
        end toolong
    }}
    quiet toolong
    # A dump goes to the log: this boot's pointers (work, timer) hashed.
    echo > {P}/functions; echo 64 > {P}/dump_lines
    echo 'workqueue:*,timer:*' > {P}/events
    workload; sleep 2; kill $(jobs -p); wait
    echo y > /proc/sysrq-trigger
    rmmod ramtrail
    # A load that fails after its save: functions= matches nothing (and
    # so does what the hammer writes, should it land before init).
    hammer no_such_function_xyz no_such_function_abc & h=$!
    fail_twice() {{
        begin failing
        rt_load {PARAMS} functions=no_such_function_xyz
        rt_load {PARAMS} functions=no_such_function_xyz
        end failing
    }}
    quiet fail_twice
    quiet unhammer $h failing-writes
    after() {{
        begin after; workload; sleep 2; kill $(jobs -p); wait
        echo "loaded $(lsmod | grep -c '^ramtrail ')"; end after
    }}
    quiet after
    # Frozen by the user, thawed, then a reset while recording.
    rt_load {PARAMS} functions=vfs_read
    w frozen 1; w frozen 0
    status thawed
    workload; sleep 1
    echo b > /proc/sysrq-trigger
fi
""")
    r = g.run()
    res.check(f"{t} reset after the thaw, two boots", boots(r) == 2 and r.rc == 0, brief(r))

    load = write_outcomes(r, "loading")
    busy = sum(n for (_, o), n in load.items() if o == "busy")
    odd = {k: n for k, n in load.items() if k[1] not in ("ok", "busy", "absent") and
           k != ("frozen", "invalid")}
    res.check(f"{t} writes during the load (a full region saved) refused with EBUSY, "
              "taken once it is live", busy >= 3 and not odd and
              sum(n for (_, o), n in load.items() if o == "ok") >= 9, load)
    st = rg.status(r)
    res.check(f"{t} the hammered load saved the full zones and records",
              len(st) >= 2 and not differs(st[1], previous_state="stopped",
                                           previous_trace="saved") and
              st[1].get("previous_records", 0) > 10000,
              st[1] if len(st) > 1 else st)
    settled = section(r, "settled")
    before, after = parse_cpus(section(r, "cpus-before")), parse_cpus(section(r, "cpus-after"))
    lines = [x.strip() for x in settled.splitlines()]
    res.check(f"{t} after the load, writes take effect and it records",
              "enabled rc=0" in lines and "functions rc=0" in lines and
              "do_sys_openat2" in lines and len(after) == smp and
              all(after[c]["records"] > before.get(c, {}).get("records", 1 << 62)
                  for c in after), (settled, before, after))
    long = [x.strip() for x in section(r, "toolong").splitlines()]
    res.check(f"{t} functions= of 1300 bytes: refused (ENOSPC), the filter unchanged, "
              "nothing of it recorded",
              any("No space left on device" in x for x in long) and
              re.findall(r"^long rc=(\d+)$", "\n".join(long), re.M) == ["1"] and
              long[-2:] == ["do_sys_openat2", "ksys_read 0"], long)
    ds = dumps(rg.split_boots(r.log)[0]) if boots(r) else []
    lines = [x for d in ds for x in d["lines"]]
    ptrs = [x for x in lines if "work struct " in x or "timer=" in x]
    raw = [x for x in lines if re.search(r"\bffff[0-9a-f]{12}\b|0xffff", x)]
    res.check(f"{t} sysrq-y with work and timer events: their pointers and any "
              "unnamed address hashed, never this boot's address",
              len(ds) == 1 and ptrs and not raw, (len(ds), ptrs[:2], raw[:3]))
    fail = section(r, "failing")
    res.check(f"{t} a load that fails after its save fails (EINVAL) while written",
              re.findall(r"^insmod rc=(\d+)$", fail, re.M) == ["22", "22"] and
              fail.count("Invalid argument") == 2, fail)
    # Taken: enabled and dump_lines, values kept for when it is live, and
    # any write that lands before init begins (the load's own value).
    fw = write_outcomes(r, "failing-writes")
    res.check(f"{t} functions=, events=, frozen= written during the failing loads: "
              "refused (EBUSY) while init runs",
              sum(n for (p, o), n in fw.items() if o == "busy" and
                  p in ("functions", "events", "frozen")) >= 3 and
              all(o in ("busy", "absent", "ok") or (p, o) == ("frozen", "invalid")
                  for p, o in fw), fw)
    res.check(f"{t} after the failed loads, no module and events and calls run "
              "without a stray hook",
              re.findall(r"^loaded (\d+)$", section(r, "after"), re.M) == ["0"],
              section(r, "after"))
    thawed = last_status(r, "thawed")
    res.check(f"{t} frozen, then thawed: recording", not differs(
        thawed, state="recording", freeze_reason="none"), thawed)
    st = last_status(r)
    # The saved area is full of the first loads' traces: what the state says.
    res.check(f"{t} a reset after the thaw is read as a cut while recording",
              not differs(st, previous_state="recording", previous_freeze_reason="none"), st)
    no_oops(res, t, r.log, intended="sysrq: Resetting")


# The guest of churn: ftrace's function tracer in an instance, its
# function_graph tracer at the top and a kprobe event run while PLUGIN
# (CHURN_RAMTRAIL or CHURN_FTRACE) is attached to every function and
# detached CYCLES times, every writable parameter written while attached
# (ramtrail: functions= twice, each time from or to every function).
CHURN = f"""
T=/sys/kernel/tracing
grep -q " $T " /proc/mounts || mount -t tracefs nodev $T
echo 'p:rtchurn vfs_read' > $T/kprobe_events
echo 1 > $T/events/kprobes/rtchurn/enable
mkdir $T/instances/churn
echo 'vfs_*' > $T/instances/churn/set_ftrace_filter
echo function > $T/instances/churn/current_tracer
echo ksys_read > $T/set_ftrace_filter
echo function_graph > $T/current_tracer
echo "tracers $(cat $T/current_tracer) $(cat $T/instances/churn/current_tracer)"
hits() {{ awk '$1 == "rtchurn" {{ print $2 }}' $T/kprobe_profile; }}
workload
i=0
while [ $i -lt $CYCLES ]; do
    i=$((i + 1))
    attach
    writes
    settle $i
    detach; echo "detach rc=$?"
done
kill $(jobs -p); wait
echo > $T/trace; echo > $T/instances/churn/trace
k0=$(hits)
workload; sleep 1; kill $(jobs -p); wait
echo 0 > $T/tracing_on; echo 0 > $T/instances/churn/tracing_on
begin ftrace
echo "graph $(grep -c 'ksys_read()' $T/trace)"
echo "function $(grep -c ' vfs_read <-' $T/instances/churn/trace)"
echo "kprobe $(( $(hits) - k0 ))"
end ftrace
"""
# ramtrail on every function; each writable parameter written in a loop.
CHURN_RAMTRAIL = WRITE_PARAM + f"""
attach() {{ quiet rt_load {PARAMS} functions='*'; }}
writes() {{
    rm -f /tmp/w /tmp/other
    w functions 'vfs_read,ksys_read'; w events 'sched:*'; w enabled 0
    w dump_on_oops 2; w frozen 1; w dump_lines 8; w frozen 0
    w enabled 1; w functions '*'; w events 'irq:*,timer:*'
    w dump_on_oops 0; w dump_lines 64
}}
settle() {{
    w_report writes-$1
    w functions '*'; w events 'sched:*'; w frozen 0; w enabled 1
    debugfs
    begin cpus-a-$1; cat {CPUS}; end cpus-a-$1
    sleep 1
    begin cpus-b-$1; cat {CPUS}; end cpus-b-$1
}}
detach() {{ rmmod ramtrail; }}
"""
# A second function tracer instance in ramtrail's place (churn_int3.py).
# Its steps run after CHURN has mounted tracefs; each is checked, as
# ramtrail's are (insmod rc, detach rc).
CHURN_FTRACE = r"""
O=/sys/kernel/tracing/instances/other
attach() {
    mkdir $O && echo > $O/set_ftrace_filter && echo function > $O/current_tracer
    echo "insmod rc=$?"
}
writes() {
    echo 'vfs_read ksys_read' > $O/set_ftrace_filter && echo > $O/set_ftrace_filter
    echo "writes rc=$?"
}
settle() { :; }
detach() { echo nop > $O/current_tracer && rmdir $O; }
"""


def churn_guest(k, ko, smp, plugin, cycles, name="churn"):
    return Guest(k, ko, name, smp, f"CYCLES={cycles}\n" + plugin + CHURN)


def scenario_churn(k, ko, smp, res):
    """ramtrail loaded with functions='*' and unloaded 3 times (once on a
    kernel with the checkers) while ftrace's
    function tracer (an instance), its function_graph tracer and a kprobe
    event run, every writable parameter written in a loop while it is
    loaded: each load and unload succeeds, each write is taken, ramtrail
    records on every CPU after the writes, and ftrace's tracers and the
    kprobe still trace after the last unload."""
    t = f"[{k.kver} smp{smp} churn]"
    # Under KASAN and lockdep one cycle takes 10 minutes.
    cycles = 3 if k.slowdown == 1 else 1
    g = churn_guest(k, ko, smp, CHURN_RAMTRAIL, cycles)
    r = g.run(timeout=360)
    where = rg.stale_int3_loaded(r.log)
    if where:
        # QEMU's (rg.stale_int3), ramtrail loaded: kept for check-debug's
        # scan, then boot again.
        kept = h.BUILD / f"{g.name}-stale-int3.log"
        kept.write_text(r.log)
        print(f"     note: {t} QEMU TCG trapped on an int3 ftrace had already "
              f"patched away, in {where} (log {kept.name}): one more boot", flush=True)
        r = churn_guest(k, ko, smp, CHURN_RAMTRAIL, cycles).run(timeout=360)
        again = rg.stale_int3_loaded(r.log)
        if again:
            res.skip(f"{t} QEMU TCG's stale int3 in two boots ({where}, {again})")
            return
    res.check(f"{t} one boot, powered off", boots(r) == 1 and r.rc == 0 and
              "=== POWEROFF ===" in r.log, brief(r))
    res.check(f"{t} ftrace's function and function_graph tracers set",
              re.search(r"^tracers function_graph function$", r.log, re.M), brief(r))
    loads = re.findall(r"^insmod rc=(\d+)$", r.log, re.M)
    unloads = re.findall(r"^detach rc=(\d+)$", r.log, re.M)
    res.check(f"{t} {cycles} loads and unloads with functions='*', each rc 0",
              loads == ["0"] * cycles and unloads == ["0"] * cycles, (loads, unloads))
    for i in range(1, cycles + 1):
        wr = write_outcomes(r, f"writes-{i}")
        a, b = parse_cpus(section(r, f"cpus-a-{i}")), parse_cpus(section(r, f"cpus-b-{i}"))
        res.check(f"{t} load {i}: the 6 writable parameters written while it records, "
                  "every write taken; then it records on every CPU",
                  len({p for p, _ in wr}) == 6 and all(o == "ok" for _, o in wr) and
                  len(b) == smp and all(b[c]["records"] > a.get(c, {}).get("records", 1 << 62)
                                        for c in b), (wr, a, b))
    ft = dict(re.findall(r"^(graph|function|kprobe) (-?\d+)$", section(r, "ftrace"), re.M))
    res.check(f"{t} after the last unload: function_graph, the function tracer and "
              "the kprobe still trace",
              len(ft) == 3 and all(int(v) > 0 for v in ft.values()), ft)
    no_oops(res, t, r.log)


def scenario_preempt(k, ko, smp, res):
    """A crash on another CPU while the user's freeze or thaw runs its
    section. Neither section is preemptible, so the crash waits for it (at
    most 20 ms), then freezes or finds the trace frozen. A test build
    stretches the sections to 8 ms; the kernel runs preempt=full; a
    SCHED_FIFO task on the CPU of the section wakes every 200 us and,
    whenever a section runs, takes that CPU for a second from whatever it
    can preempt; the crash comes from CPU 1 while the section runs
    (qemu-tests/insection.c). Boot 1 crashes inside a thaw, boot 2 inside
    a freeze. 2 CPUs only: with 4, QEMU runs the vCPUs on one host thread,
    where the crash's CPU waits while the one in the section does not run
    at all."""
    t = f"[{k.kver} smp{smp} preempt]"
    if smp != 2:
        res.skip(f"{t} 2 CPUs only")
        return
    if not k.preemptible:
        res.skip(f"{t} the kernel cannot preempt the kernel (no PREEMPT, no "
                 "PREEMPT_DYNAMIC for preempt=full: Debian's arm64)")
        return
    P = PARAMS_DIR
    g = Guest(k, rg.build_stretch(k.kver), "preempt", smp, f"""
rt_load {PARAMS} functions={FUNCS}
id=$(boot_id)
[ "$id" -ge 2 ] && pstore
if [ "$id" -le 2 ]; then
    workload; sleep 1; kill $(jobs -p); wait
    [ "$id" = 1 ] && {{ echo 1 > {P}/frozen; status frozen; }}
    echo 8000 > {P}/test_stretch_us
    insection hog 0 1000 &
    insection crash 1 &
    sleep 1
    taskset -c 0 sh -c "echo $((id - 1)) > {P}/frozen"
    sleep 5
    echo "boot $id: no crash"
fi
""", files={"bin/insection": rg.build_insection()})
    r = g.run(append="preempt=full")
    res.check(f"{t} a hog on CPU 0, crash from CPU 1 inside a section there: "
              "boot 1 in a thaw, boot 2 in a freeze; warm reboots",
              boots(r) == 3 and r.rc == 0 and r.log.count("insection: hog ready") == 2 and
              r.log.count("insection: crasher ready") == 2 and "no crash" not in r.log and
              re.search(r"Dynamic Preempt: full", r.log), brief(r))
    res.check(f"{t} boot 1: frozen by the user before the thaw",
              not differs(last_status(r, "frozen"), state="frozen", freeze_reason="user"),
              last_status(r, "frozen"))
    st = rg.status(r)
    st2 = next((x for x in st if x.get("boot_id") == 2), {})
    res.check(f"{t} boot 1: the crash froze recording after the thaw (reason panic), "
              "not the user's freeze, nor nothing",
              not differs(st2, previous_state="frozen", previous_freeze_reason="panic",
                          previous_trace="saved"), st2)
    # Boot 1's crash path ran while recording was still paused.
    check_trace(res, t + " boot 1", rg.part_functions(r, 0), smp, crash_path=False)
    st3 = next((x for x in st if x.get("boot_id") == 3), {})
    res.check(f"{t} boot 2: the user's freeze completed, the crash found it "
              "(frozen by user), no record over its tail",
              not differs(st3, previous_boot_id=2, previous_state="frozen",
                          previous_freeze_reason="user", previous_trace="saved"), st3)
    no_oops(res, t, r.log)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kver", default="6.1,6.12")
    ap.add_argument("--smp", default="2,4")
    ap.add_argument("--only", default="")
    ap.add_argument("--skip", default="")
    a = ap.parse_args()
    err = rg.use_arch(a.kver.split(","))
    if err:
        ap.error(f"--kver: {err}")
    res = h.Results()
    kernels = {kver: h.kernel(kver) for kver in a.kver.split(",")}  # fetched first:
    rg.build_tools()                            # arm64's brings the cross compiler
    scenarios = {n[9:]: f for n, f in globals().items() if n.startswith("scenario_")}
    only = [s for s in a.only.split(",") if s] or list(scenarios)
    skip = {s for s in a.skip.split(",") if s}
    unknown = sorted((set(only) | {s.split("@")[0] for s in skip}) - set(scenarios))
    if unknown:
        ap.error(f"no such scenario: {', '.join(unknown)}")
    for kver, k in kernels.items():
        ko = rg.build_all(kver)
        for smp in [int(s) for s in a.smp.split(",")]:
            for name in only:
                if name in skip or f"{name}@{kver}" in skip:
                    res.skip(f"{kver} smp{smp} {name} (--skip)")
                    continue
                t0, failed = time.monotonic(), res.failed
                scenarios[name](k, ko, smp, res)
                h.drop_rams(res.failed > failed)
                print(f"     {kver} smp{smp} {name}: {time.monotonic() - t0:.0f} s", flush=True)
    return 1 if res.summary() else 0


if __name__ == "__main__":
    sys.exit(main())
