#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The ramtrail module end to end, in QEMU, on Debian's 6.1 and 6.12.

Scenarios (each checked on the serial log and on the guest's RAM file):
  panic     record on every CPU, sysrq crash, warm reboot, read it back
  powercut  QEMU killed while every CPU records; new QEMU on the same RAM
  allfuncs  functions='*', sysrq crash: the crashing CPU's tail is the crash path
  garbage   the host damages zones (and, apart, the header); load survives
  crashloop crash, reboot, crash again before reading: first trace kept
  erase     rm in /sys/fs/pstore; the next boot shows nothing stale
  oops      an oops the kernel survives freezes recording; reset, read back
  refusals  System RAM, busy pstore, bad parameters: clear errors, no load

panic and powercut also check tools/ramtrail on the RAM file against what
the guest printed (qemu-tests/toolcheck.py).

usage: test_module.py [--kver 6.1,6.12] [--smp 2,4] [--only NAME,...]
"""
import argparse
import random
import re
import subprocess
import sys
import time

import harness as h
import toolcheck

RESV, RESV_SIZE = 0x30000000, 64 << 20
MEMMAP = f"memmap={RESV_SIZE >> 20}M${RESV:#x}"
# Ramoops gets its own reserved range in the refusal test.
OOPS_RESV = 0x38000000
MEMMAP2 = f"memmap=1M${OOPS_RESV:#x}"
PARAMS = f"mem_address={RESV:#x} mem_size={RESV_SIZE >> 20}M"
# Functions the workload calls on every CPU, and the sysrq crash path.
FUNCS = ("ksys_read,vfs_read,seq_read_iter,ksys_write,vfs_write,"
         "do_sys_openat2,__handle_sysrq,sysrq_handle_crash,write_sysrq_trigger")
TOOL = toolcheck.TOOL

GUEST = r"""
NCPU=$(grep -c ^processor /proc/cpuinfo)
rt_load() {
    insmod /lib/modules/ramtrail.ko "$@"
    echo "insmod rc=$?"
}
boot_id() { dmesg | sed -n 's/.*ramtrail: boot \([0-9]*\):.*/\1/p' | tail -n 1; }
workload() {
    c=0
    while [ $c -lt $NCPU ]; do
        taskset -c $c sh -c 'while :; do cat /proc/version >/dev/null; done' &
        c=$((c + 1))
    done
}
pstore() {
    mount -t pstore pstore /sys/fs/pstore
    # Console messages would cut lines of the files in two: quiet it.
    read level rest </proc/sys/kernel/printk
    echo 1 >/proc/sys/kernel/printk
    begin files; ls /sys/fs/pstore; end files
    for f in /sys/fs/pstore/*ramtrail*; do
        [ -e "$f" ] && show "$(basename $f)" "$f"
    done
    echo $level >/proc/sys/kernel/printk
}
rtlog() { begin rtlog; dmesg | grep -E 'ramtrail|pstore'; end rtlog; }
""" + toolcheck.GUEST


def build_all(kver):
    ko = subprocess.run([str(h.REPO / "scripts/build-module.sh"), kver], check=True,
                        capture_output=True, text=True).stdout.split()[-1]
    return ko


def build_oops(k):
    """The test helper module that oopses on load, built for kernel k."""
    out = h.BUILD / f"oops-{k.kver}"
    out.mkdir(parents=True, exist_ok=True)
    for f in ("ramtrail_oops.c", "Kbuild"):
        (out / f).write_bytes((h.REPO / "qemu-tests/oops" / f).read_bytes())
    subprocess.run(["make", "-s", "-C", str(k.kdir), f"M={out}", *k.kbuild_args,
                    "modules"], check=True, capture_output=True)
    return str(out / "ramtrail_oops.ko")


class Guest:
    """One scenario's guest: initramfs with ramtrail.ko and a RAM file."""

    def __init__(self, k, ko, name, smp, body, modules=(), fresh=True):
        self.k, self.smp, self.name = k, smp, f"{k.kver}-smp{smp}-{name}"
        self.work = h.BUILD / self.name
        self.rd = h.Initramfs(k, self.work, h.init_script(GUEST + body),
                              files={"bin/ramtrail": toolcheck.STATIC},
                              modules=list(modules) + [ko])
        self.ram = h.RamFile(self.work / "guest.ram", 1 << 30, fresh=fresh)

    def run(self, append="", timeout=240, **kw):
        kw.setdefault("log_path", h.BUILD / f"{self.name}.log")
        return h.run_qemu(self.k, self.rd, self.ram, smp=self.smp,
                          append=f"{MEMMAP} {toolcheck.MEMMAP} {append}".strip(),
                          timeout=timeout,
                          **kw)

    def stats(self):
        out = subprocess.run([str(TOOL), "stats", str(self.ram.path), "--offset",
                              hex(RESV), "--size", str(RESV_SIZE)],
                             capture_output=True, text=True)
        return out.returncode, out.stdout + out.stderr


LINE = re.compile(r"^CPU:(\d+) ts:(\d+) ([0-9a-f]+)  ([0-9a-f]+)  (\S+) <- (\S+)$")


def parse_ftrace(text):
    """pstore's ftrace lines -> [(cpu, ts, func, parent)]; other lines kept apart."""
    recs, other = [], []
    for line in text.splitlines():
        m = LINE.match(line.strip())
        if m:
            recs.append((int(m[1]), int(m[2]), m[5], m[6]))
        elif line.strip():
            other.append(line)
    return recs, other


def brief(r):
    return f"boots={r.boots} rc={r.rc} killed={r.killed} timed_out={r.timed_out}"


BOOT = re.compile(r"^\[ *0\.000000\] Linux version", re.M)
SECTION = re.compile(r"^=== BEGIN (\S+) ===$.*?^=== END \1 ===$", re.M | re.S)


def env_crash(boot):
    """A boot that crashed before ramtrail was loaded: not ours. Seen once in
    about 60 boots of 6.12 with 4 vCPUs under TCG, early after a warm reset
    ("Oops: int3" in sched_clock_cpu, kernel not tainted)."""
    crash = min([boot.find(s) for s in ("Oops", "Kernel panic") if s in boot] or [-1])
    return crash >= 0 and "ramtrail:" not in boot[:crash]


def env_crashes(r):
    """The boots of a run (their logs) that crashed before ramtrail was loaded."""
    return [b for b in BOOT.split(SECTION.sub("", r.log))[1:] if env_crash(b)]


def boots(r):
    """Boots of a run, not counting those that crashed before ramtrail."""
    crashed = env_crashes(r)
    if crashed:
        print(f"     note: {len(crashed)} boot(s) crashed before ramtrail was "
              "loaded (kernel not tainted by it): not counted", flush=True)
    return r.boots - len(crashed)


def no_oops(res, t, log, intended="sysrq: Trigger a crash"):
    """No oops/BUG/WARNING in any boot, before its intended crash (if any).
    Files the guest printed (the panic log in dmesg-ramtrail-N) don't count,
    nor boots that crashed before ramtrail was loaded (env_crash)."""
    bad = []
    for boot in BOOT.split(SECTION.sub("", log)):
        if env_crash(boot):
            continue
        boot = boot.split(intended)[0]
        bad += [s for s in ("Oops", "BUG:", "WARNING:", "general protection",
                            "Call Trace") if s in boot]
    res.check(f"{t} no oops, BUG or WARNING", not bad, bad)


def section(r, name):
    return "\n".join(h.sections(r.log, name))


def per_cpu(recs):
    n = {}
    for r in recs:
        n[r[0]] = n.get(r[0], 0) + 1
    return n


def host_stats(g):
    """The RAM file, decoded on the host by tools/ramtrail: {key: value}."""
    rc, out = g.stats()
    kv = {}
    for line in out.splitlines():
        w = line.split()
        if w and w[0].startswith("cpu") and len(w) > 2:
            kv[w[0]] = int(w[2])
            kv[w[0] + "_newest"] = int(w[-1])
        elif len(w) == 2:
            kv[w[0]] = w[1]
    return rc, kv


def check_trace(res, t, recs, smp, crash_path=True):
    cpus = {r[0] for r in recs}
    res.check(f"{t} records from every CPU", cpus == set(range(smp)),
              f"cpus={sorted(cpus)} records={len(recs)}")
    ts = [r[1] for r in recs]
    res.check(f"{t} timestamps non-decreasing", all(a <= b for a, b in zip(ts, ts[1:])))
    raw = [r for r in recs if r[2].startswith("0x") or r[3].startswith("0x")]
    res.check(f"{t} every symbol resolved (KASLR relocated)", recs and not raw,
              raw[:3])
    if crash_path:
        crash = [r for r in recs if r[2] == "sysrq_handle_crash"]
        cpu = crash[-1][0] if crash else None
        last = [r[2] for r in recs if r[0] == cpu][-3:]
        res.check(f"{t} crashing CPU ends with the sysrq crash path",
                  crash and last[-1] == "sysrq_handle_crash", last)


# Boot 1 records a workload on every CPU and panics; boot 2 reads back.
RECORD_AND_CRASH = f"""
rt_load {PARAMS} functions={FUNCS}
if [ "$(boot_id)" = 1 ]; then
    workload; sleep 3
    echo "sysrq-c: crashing the kernel"
    echo c > /proc/sysrq-trigger
fi
pstore; rtlog; ksyms_out
"""


def scenario_panic(k, ko, smp, res):
    t = f"[{k.kver} smp{smp} panic]"
    g = Guest(k, ko, "panic", smp, RECORD_AND_CRASH)
    r = g.run()
    res.check(f"{t} panic, warm reboot, poweroff", boots(r) == 2 and r.rc == 0, brief(r))
    recs, other = parse_ftrace(section(r, "ftrace-ramtrail-0"))
    res.check(f"{t} ftrace-ramtrail-0 has only records", recs and not other, other[:3])
    check_trace(res, t, recs, smp)
    dm = section(r, "dmesg-ramtrail-0")
    res.check(f"{t} dmesg-ramtrail-0 holds the panic",
              "Kernel panic - not syncing: sysrq triggered crash" in dm, dm[:200])
    rt = section(r, "rtlog")
    res.check(f"{t} recovery names boot 1 and the panic freeze",
              "saved boot 1:" in rt and "frozen by panic" in rt, rt)
    no_oops(res, t, r.log)
    ksyms = toolcheck.kallsyms(g, r)
    res.check(f"{t} guest's kallsyms copied out", ksyms, "no 'kallsyms bytes' line")
    if ksyms:
        decoded = toolcheck.check_decode(res, t, g, 1, section(r, "ftrace-ramtrail-0"),
                                         ksyms)
        toolcheck.check_export(res, t, g, 1, ksyms, decoded)


def scenario_powercut(k, ko, smp, res):
    t = f"[{k.kver} smp{smp} powercut]"
    g = Guest(k, ko, "powercut", smp, f"""
rt_load {PARAMS} functions={FUNCS}
if [ "$(boot_id)" = 1 ]; then
    workload; sleep 1
    echo "=== RECORDING ==="
    sleep 600
fi
insmod /lib/modules/reed_solomon.ko
pstore; rtlog; live_tool; ksyms_out
""", modules=["reed_solomon"])
    r = g.run(kill_on="=== RECORDING ===", kill_delay=3)
    res.check(f"{t} QEMU killed while recording", r.killed and boots(r) == 1, brief(r))
    rc, st = host_stats(g)
    res.check(f"{t} host decodes the cut region: still recording",
              rc == 0 and st.get("state") == "recording", st)
    host = {c: st.get(f"cpu{c}", 0) for c in range(smp)}
    cut = toolcheck.cut_image(g)
    r = g.run()
    res.check(f"{t} new QEMU on the same RAM boots and powers off",
              boots(r) == 1 and r.rc == 0, brief(r))
    recs, other = parse_ftrace(section(r, "ftrace-ramtrail-0"))
    check_trace(res, t, recs, smp, crash_path=False)
    res.check(f"{t} guest recovered every record the host decodes",
              per_cpu(recs) == host and all(host.values()),
              f"guest {per_cpu(recs)} host {host}")
    res.check(f"{t} recovery says it was cut while recording",
              "saved boot 1:" in section(r, "rtlog") and
              "still recording: power cut" in section(r, "rtlog"), section(r, "rtlog"))
    no_oops(res, t, r.log)
    toolcheck.check_cut(res, t, cut, section(r, "ftrace-ramtrail-0"))
    toolcheck.check_live(res, t, r, section(r, "ftrace-ramtrail-0"))
    ksyms = toolcheck.kallsyms(g, r)
    res.check(f"{t} guest's kallsyms copied out", ksyms, "no 'kallsyms bytes' line")
    if ksyms:
        toolcheck.check_decode(res, t, g, 1, section(r, "ftrace-ramtrail-0"), ksyms)
        # Boot 2 loaded reed_solomon after ramtrail: its zones name it.
        toolcheck.check_modules(res, t, g, k, 2, ksyms, "reed_solomon")


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
read level rest </proc/sys/kernel/printk
echo 1 >/proc/sys/kernel/printk
# Over a million records: print only the crashing CPU's newest ones, from
# the last part. (Its sysrq_handle_crash and panic can be thousands of
# other CPUs' records apart: vCPUs take turns in one TCG thread.)
last=$(ls /sys/fs/pstore | sed -n 's/^ftrace-ramtrail-//p' | sort -n | tail -n 1)
f=/sys/fs/pstore/ftrace-ramtrail-$last
c=$(grep sysrq_handle_crash $f | tail -n 1 | sed 's/^CPU:\\([0-9]*\\) .*/\\1/')
begin lastpart; grep "^CPU:$c " $f | tail -n 400; end lastpart
echo $level >/proc/sys/kernel/printk
rtlog
""")
    r = g.run(timeout=600)
    res.check(f"{t} panic, warm reboot, poweroff", boots(r) == 2 and r.rc == 0, brief(r))
    rt = section(r, "rtlog")
    res.check(f"{t} recovery names boot 1 and the panic freeze, no corrupt block",
              "saved boot 1:" in rt and "frozen by panic" in rt and
              "corrupt blocks" not in rt, rt)
    recs, _ = parse_ftrace(section(r, "lastpart"))
    crash = [x for x in recs if x[2] == "sysrq_handle_crash"]
    cpu = crash[-1][0] if crash else None
    tail = [x[2] for x in recs if x[0] == cpu]
    after = tail[len(tail) - tail[::-1].index("sysrq_handle_crash"):] if crash else []
    # sysrq_handle_crash() is rcu_read_unlock(); panic(): nothing else but
    # what those call before panic's entry freezes recording.
    res.check(f"{t} crashing CPU ends with sysrq_handle_crash -> ... -> panic",
              crash and tail[-1] == "panic" and len(after) <= 8 and
              "panic" not in after[:-1], tail[-6:])
    ts = [x[1] for x in recs]
    res.check(f"{t} timestamps non-decreasing", all(a <= b for a, b in zip(ts, ts[1:])))
    no_oops(res, t, r.log)


# struct ramtrail_region_header.version (include/uapi/linux/ramtrail.h)
VERSION_OFFSET = 8


def scenario_garbage(k, ko, smp, res):
    t = f"[{k.kver} smp{smp} garbage]"
    g = Guest(k, ko, "garbage", smp, f"""
rt_load {PARAMS} functions={FUNCS}
if ! grep -q rt.read /proc/cmdline; then
    workload; sleep 5
    echo 0 > /sys/module/ramtrail/parameters/enabled
    poweroff -f
fi
pstore; rtlog
""")
    r = g.run()
    rc, st = host_stats(g)
    res.check(f"{t} boot 1 recorded", rc == 0 and boots(r) == 1 and st.get("cpu0"), st)
    before = {c: st.get(f"cpu{c}", 0) for c in range(smp)}
    newest = st.get("cpu0_newest", 0)
    res.check(f"{t} CPU 0 wrote at least 3 blocks", newest >= 2, st)
    # Damage CPU 0's written blocks only: random bytes over one block,
    # zeros over part of another, bit flips in the newest.
    rnd = random.Random(smp)
    z0 = RESV + int(st.get("zone_offset", 0))
    g.ram.write(z0 + 1 * 4096, rnd.randbytes(4096))
    g.ram.write(z0 + 512, bytes(2048))
    for _ in range(16):
        a = z0 + newest * 4096 + rnd.randrange(4096)
        g.ram.write(a, bytes([g.ram.read(a, 1)[0] ^ (1 << rnd.randrange(8))]))
    rc, st = host_stats(g)
    damaged = st.get("cpu0", 0)
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
    res.check(f"{t} drops reported", "cpu0:" in section(r, "rtlog") and
              "corrupt blocks" in section(r, "rtlog"), section(r, "rtlog"))
    check_trace(res, t, recs, smp, crash_path=False)
    no_oops(res, t, r.log)

    # A header written by a future format version.
    g.ram.write(RESV + VERSION_OFFSET, (99).to_bytes(4, "little"))
    r = g.run(append="rt.read")
    rt = section(r, "rtlog")
    res.check(f"{t} future version: reported, reformatted, loaded",
              "format version 99" in rt and "boot 1:" in rt and "insmod rc=0" in r.log, rt)
    res.check(f"{t} future version: no trace shown",
              "ftrace-ramtrail" not in section(r, "files"), section(r, "files"))
    no_oops(res, t + " (future version)", r.log)


def scenario_crashloop(k, ko, smp, res):
    t = f"[{k.kver} smp{smp} crashloop]"
    g = Guest(k, ko, "crashloop", smp, f"""
rt_load {PARAMS} functions={FUNCS}
id=$(boot_id)
if [ "$id" = 1 ]; then
    workload; sleep 2
    echo c > /proc/sysrq-trigger
elif [ "$id" = 2 ]; then
    # crash again without reading; write-heavy this time
    c=0
    while [ $c -lt $NCPU ]; do
        taskset -c $c sh -c 'while :; do echo x >/dev/null; done' &
        c=$((c + 1))
    done
    sleep 1
    echo c > /proc/sysrq-trigger
fi
pstore; rtlog
""")
    r = g.run(timeout=300)
    res.check(f"{t} two panics, three boots", boots(r) == 3 and r.rc == 0, brief(r))
    rt = section(r, "rtlog")
    m = re.search(r"ftrace-ramtrail-1(?:\.\.(\d+))?: trace of boot 2", rt)
    res.check(f"{t} file 0 is boot 1's trace, files 1.. boot 2's",
              "ftrace-ramtrail-0: trace of boot 1" in rt and m, rt)
    last = int(m[1]) if m and m[1] else 1
    first, _ = parse_ftrace(section(r, "ftrace-ramtrail-0"))
    # Over 131072 records are split into several files, in order.
    second, _ = parse_ftrace("\n".join(section(r, f"ftrace-ramtrail-{i}")
                                       for i in range(1, last + 1)))
    reads = lambda recs: sum(x[2] == "seq_read_iter" for x in recs)
    writes = lambda recs: sum(x[2] == "vfs_write" for x in recs)
    res.check(f"{t} first crash's trace kept: read workload",
              reads(first) > 10 * max(writes(first), 1), (reads(first), writes(first)))
    res.check(f"{t} second crash's trace: write workload",
              writes(second) > 10 * max(reads(second), 1), (reads(second), writes(second)))
    check_trace(res, t + " first", first, smp)
    check_trace(res, t + " second", second, smp)
    res.check(f"{t} both panic logs kept",
              "sysrq triggered crash" in section(r, "dmesg-ramtrail-0") and
              "sysrq triggered crash" in section(r, "dmesg-ramtrail-1"))
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
    begin after-rm; ls /sys/fs/pstore; end after-rm
    echo b > /proc/sysrq-trigger
fi
pstore; rtlog
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
    Saved area of 64 KiB, 16 bytes a record: traces of ~2000 and ~1200
    reads fill most of it; with the first erased, a third of ~1200 fits
    only in the first one's place, whole, and the second stays as it was."""
    t = f"[{k.kver} smp{smp} savedfull]"
    g = Guest(k, ko, "savedfull", smp, f"""
rt_load {PARAMS} functions=ksys_read saved_size=64K
id=$(boot_id)
if [ "$id" = 1 ]; then
    dd if=/dev/zero of=/dev/null bs=1 count=2000 2>/dev/null
    echo c > /proc/sysrq-trigger
elif [ "$id" = 2 ]; then
    dd if=/dev/zero of=/dev/null bs=1 count=1200 2>/dev/null
    echo c > /proc/sysrq-trigger
elif [ "$id" = 3 ]; then
    pstore
    rm /sys/fs/pstore/ftrace-ramtrail-0
    dd if=/dev/zero of=/dev/null bs=1 count=1200 2>/dev/null
    echo c > /proc/sysrq-trigger
fi
pstore; rtlog
""")
    r = g.run(timeout=300)
    res.check(f"{t} three panics, four boots", boots(r) == 4 and r.rc == 0, brief(r))
    reads = lambda text: [x for x in parse_ftrace(text)[0] if x[2] == "ksys_read"]
    f0 = [reads(x) for x in h.sections(r.log, "ftrace-ramtrail-0")]
    f1 = [reads(x) for x in h.sections(r.log, "ftrace-ramtrail-1")]
    rt = section(r, "rtlog")
    saved3 = re.search(r"saved boot 3: (\d+) records .* (\d+) oldest did not fit", rt)
    res.check(f"{t} third trace saved whole in the erased one's place",
              saved3 and int(saved3[1]) >= 1200 and saved3[2] == "0",
              saved3 and saved3[0] or rt)
    res.check(f"{t} files listed by boot: 0 is boot 2's, 1 is boot 3's",
              "ftrace-ramtrail-0: trace of boot 2" in rt and
              "ftrace-ramtrail-1: trace of boot 3" in rt, rt)
    res.check(f"{t} second trace unchanged by the erase and the third save",
              len(f0) == 2 and len(f1) == 2 and len(f1[0]) >= 1200 and
              f0[1] == f1[0], [len(x) for x in f0 + f1])
    res.check(f"{t} third trace holds its reads",
              len(f1) == 2 and len(f1[1]) >= 1200 and f1[1] != f1[0],
              [len(x) for x in f1])
    rc, out = g.stats()
    boots_saved = re.findall(r"^saved boot (\d+) ", out, re.M)
    res.check(f"{t} host stats: the region keeps boots 2 and 3 only",
              rc == 0 and boots_saved == ["2", "3"], boots_saved or out[-400:])
    no_oops(res, t, r.log)


def scenario_oops(k, ko, smp, res):
    t = f"[{k.kver} smp{smp} oops]"
    g = Guest(k, ko, "oops", smp, f"""
rt_load {PARAMS} functions={FUNCS}
if [ "$(boot_id)" = 1 ]; then
    workload; sleep 2
    insmod /lib/modules/ramtrail_oops.ko
    sleep 1
    # The kernel survived the oops; recording stays frozen, even when asked.
    begin enable; echo 1 > /sys/module/ramtrail/parameters/enabled
    echo "enable rc=$?"; end enable
    cat /proc/version >/dev/null
    echo b > /proc/sysrq-trigger
fi
pstore; rtlog
""", modules=[build_oops(k)])
    r = g.run()
    res.check(f"{t} oops survived, warm reset, two boots", boots(r) == 2 and r.rc == 0
              and "Oops" in r.log and "Kernel panic" not in r.log, brief(r))
    rt = section(r, "rtlog")
    res.check(f"{t} recovery says frozen by oops", "saved boot 1:" in rt and
              "frozen by oops" in rt, rt)
    en = section(r, "enable")
    res.check(f"{t} enabled=1 refused while frozen", "enable rc=0" not in en and
              "recording is frozen by oops" in r.log, en)
    recs, _ = parse_ftrace(section(r, "ftrace-ramtrail-0"))
    check_trace(res, t, recs, smp, crash_path=False)
    dm = section(r, "dmesg-ramtrail-0")
    res.check(f"{t} dmesg-ramtrail-0 holds the oops", "Oops" in dm and
              "ramtrail_oops" in dm, dm[:300])
    no_oops(res, t, r.log, intended="ramtrail_oops: writing through a NULL pointer")


# struct ramtrail_region_header (include/uapi/linux/ramtrail.h): state, and
# nonce, a per-boot field covered by the header checksum only.
STATE_OFFSET, NONCE_OFFSET, STATE_FORMATTING = 20, 128, 1


def scenario_torn(k, ko, smp, res):
    """A reset while the next boot rewrites the header (its state left
    FORMATTING, or its per-boot fields half written) loses that boot's zones,
    never the saved traces and dmesg records of earlier boots."""
    t = f"[{k.kver} smp{smp} torn]"
    g = Guest(k, ko, "torn", smp, f"""
rt_load {PARAMS} functions={FUNCS}
if [ "$(boot_id)" = 1 ]; then
    workload; sleep 2
    echo c > /proc/sysrq-trigger
fi
pstore; rtlog
""")
    # Addresses change with each boot's KASLR: compare what they name.
    shown = lambda r: (parse_ftrace(section(r, "ftrace-ramtrail-0"))[0],
                       section(r, "dmesg-ramtrail-0"))
    r = g.run()
    first = shown(r)
    res.check(f"{t} crash and read back", boots(r) == 2 and all(first), brief(r))
    for name, offset, data in (
            ("format interrupted", STATE_OFFSET, STATE_FORMATTING.to_bytes(4, "little")),
            ("header half written", NONCE_OFFSET, bytes(8))):
        g.ram.write(RESV + offset, data)
        r = g.run()
        now = shown(r)
        res.check(f"{t} {name}: module loads", boots(r) == 1 and "insmod rc=0" in r.log,
                  brief(r))
        res.check(f"{t} {name}: boot 1's trace and panic log still there, unchanged",
                  now == first, [(len(a), len(b)) for a, b in zip(now, first)])
        no_oops(res, f"{t} {name}", r.log)


def scenario_crosskernel(k, ko, smp, res):
    """A trace recorded by another kernel build is shown with offsets, never
    with this kernel's names for them; the same build's trace is named."""
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
pstore; rtlog
"""
    old = Guest(k61, build_all("6.1"), "crosskernel", smp, body)
    new = Guest(k, ko, "crosskernel", smp, body)
    new.ram = old.ram
    r = old.run(append="panic=0", timeout=120, kill_on="Kernel panic", kill_delay=2)
    res.check(f"{t} 6.1 recorded and crashed", r.killed, brief(r))
    r = new.run(append="rt.read")
    recs, _ = parse_ftrace(section(r, "ftrace-ramtrail-0"))
    named = [x for x in recs if not x[2].startswith("0x")]
    res.check(f"{t} 6.12 shows 6.1's trace with offsets only",
              recs and not named, named[:3])
    r = new.run(append="panic=0", timeout=120, kill_on="Kernel panic", kill_delay=2)
    res.check(f"{t} 6.12 recorded and crashed", r.killed, brief(r))
    r = old.run(append="rt.read")
    files = h.sections(r.log, "files")
    recs, _ = parse_ftrace(section(r, "ftrace-ramtrail-1"))
    named = [x for x in recs if not x[2].startswith("0x")]
    res.check(f"{t} 6.1 shows 6.12's trace with offsets only",
              recs and not named, (files, named[:3]))
    no_oops(res, t, r.log)


def scenario_refusals(k, ko, smp, res):
    t = f"[{k.kver} smp{smp} refusals]"
    g = Guest(k, ko, "refusals", smp, f"""
state() {{ lsmod | grep -c '^ramtrail' ; grep -c ramtrail /proc/iomem; }}
try() {{
    name=$1; shift
    dmesg -c >/dev/null
    begin $name; rt_load "$@"; dmesg | grep ramtrail; state; end $name
}}
try sysram mem_address=0x1000000 mem_size=16M
try memtype {PARAMS} mem_type=7
try size mem_address={RESV:#x} mem_size=banana
try noregion
try nofunc {PARAMS} functions=no_such_function_xyz
insmod /lib/modules/reed_solomon.ko
insmod /lib/modules/ramoops.ko mem_address={OOPS_RESV:#x} mem_size=0x100000 record_size=0x10000
try busy {PARAMS}
try inuse mem_address={OOPS_RESV:#x} mem_size=1M
rmmod ramoops
try ok {PARAMS} functions={FUNCS}
cat /proc/version >/dev/null
rmmod ramtrail
begin unload; echo "rmmod rc=$?"; state; end unload
try reload {PARAMS}
""", modules=["ramoops"])
    r = g.run(append=MEMMAP2)
    res.check(f"{t} boots and powers off", boots(r) == 1 and r.rc == 0, brief(r))
    expect = {
        "sysram": "is System RAM: reserve it with memmap=",
        "memtype": "mem_type=7: use 0 (write-combined), 1 (uncached) or 2 (cached)",
        "size": "need a page-aligned range",
        "noregion": "no region: give mem_address= and mem_size=",
        "nofunc": "functions: no traceable function matches 'no_such_function_xyz'",
        "busy": "pstore is taken by ramoops",
        # ramoops does not claim its range: ramtrail spots its signature.
        "inuse": "the range holds a ramoops buffer (signature DBGC)",
    }
    for name, msg in expect.items():
        out = section(r, name)
        lines = out.split()
        res.check(f"{t} {name}: refused with a clear message, nothing left",
                  msg in out and "insmod rc=0" not in out and lines[-2:] == ["0", "0"],
                  out)
    res.check(f"{t} busy: the message tells about pstore.backend=ramtrail",
              "pstore.backend=ramtrail" in section(r, "busy"), section(r, "busy"))
    ok = section(r, "ok").split()
    res.check(f"{t} loads once pstore is free", "rc=0" in section(r, "ok") and
              ok[-2:] == ["1", "1"], section(r, "ok"))
    res.check(f"{t} unloads cleanly, region released",
              section(r, "unload").split() == ["rmmod", "rc=0", "0", "0"],
              section(r, "unload"))
    res.check(f"{t} reload saves the stopped boot's records",
              re.search(r"saved boot \d+: \d+ records .*\(stopped", section(r, "reload")),
              section(r, "reload"))
    no_oops(res, t, r.log)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kver", default="6.1,6.12")
    ap.add_argument("--smp", default="2,4")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    res = h.Results()
    subprocess.run(["make", "-s", "-C", str(h.REPO / "tools"),
                    f"O={h.REPO}/build/tools", str(TOOL), str(toolcheck.STATIC)],
                   check=True)
    scenarios = {n[9:]: f for n, f in globals().items() if n.startswith("scenario_")}
    only = [s for s in a.only.split(",") if s] or list(scenarios)
    for kver in a.kver.split(","):
        k = h.kernel(kver)
        ko = build_all(kver)
        for smp in [int(s) for s in a.smp.split(",")]:
            for name in only:
                t0 = time.monotonic()
                scenarios[name](k, ko, smp, res)
                print(f"     {kver} smp{smp} {name}: {time.monotonic() - t0:.0f} s", flush=True)
    return 1 if res.summary() else 0


if __name__ == "__main__":
    sys.exit(main())
