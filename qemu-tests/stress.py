#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Crash campaign: many crash cycles on one guest RAM file, state carried over.

For each (kernel, CPU count) one RAM file lives through --cycles cycles. A
cycle picks, from a seeded RNG, one crash kind and instant:

  panic       record for a random time, sysrq c
  oops        record, an oops the kernel survives (ramtrail_oops.ko on CPU 0),
              sysrq c shortly after
  lockup      record, ramtrail_oops.ko spin=30 with preemption off on the
              last CPU; softlockup_panic=1 watchdog_thresh=1 panic it
  cut-rec     QEMU SIGKILLed at a random instant while recording
  cut-load    QEMU SIGKILLed 0-1.5 s after the marker printed just before
              insmod: while the module saves the previous trace, formats
              the zones or registers with pstore
  cut-freeze  QEMU SIGKILLed 0-0.6 s after the marker printed just before
              sysrq c: while freezing, dumping the log or resetting

Every boot loads ramtrail (recording FUNCS); the boot after the crash (in the
same QEMU after a panic, in a new QEMU after a power cut) mounts pstore,
lists it and copies every file out (x86: through /dev/mem to a memmap'ed
range; arm64: to a virtio disk) for the host to read (with its md5 printed
on the console to check the copy), then sometimes erases some files with rm. The checker, against what earlier
cycles showed:

  - every file shown before and not erased is still there, identical
    (records without their address columns, which follow KASLR; dmesg
    byte for byte), and no trace is there twice
  - every trace line parses; CPU < smp; timestamps non-decreasing per CPU
    and over the file; names are in the guest's /proc/kallsyms, else a
    bare 0x number; tools/ramtrail decodes the file to as many records
  - a crash that froze the trace (panic, oops, lockup) yields a new newest
    trace whose crashing CPU ends on the crash path, and a new dmesg file
    with the crash when a dmesg slot was free; the crash boot printed one
    trace-on-oops dump (dump_on_oops=2), whole, in time order
  - insmod rc=0 in every boot (but one cut during the load); no Oops, BUG,
    WARNING before the intended crash (boots that crashed before ramtrail
    loaded, the QEMU TCG flake, are noted and skipped)
  - the region's boot counter (boot_id in the module's status file) goes up

usage: stress.py [--cycles N] [--seed S] [--kver 6.1,6.12] [--smp 2,4]
(arm64: --kver 6.1-arm64,6.12-arm64; one architecture a run)
"""
import argparse
import collections
import hashlib
import json
import random
import re
import sys
import time

import harness as h
import ramtrail_guest as rg

# pstore files copied out here (rg.OUT_DEV): x86's memmap'ed range, after
# the kallsyms on arm64's disk
DUMP_SIZE = 128 << 20
DUMP = 0x34000000 if rg.ARCH == "x86_64" else rg.KSYMS_SIZE
TOKEN = DUMP + DUMP_SIZE - 4096              # "A<cycle>": the crash boot ran
MEMMAP3 = f"memmap={DUMP_SIZE >> 20}M${DUMP:#x}" if rg.ARCH == "x86_64" else ""
DMESG_SLOTS = 4                              # ramtrail's default dmesg_count
FUNCS = rg.FUNCS + ",do_one_initcall,watchdog_timer_fn"
KINDS = {"panic": 3, "oops": 2, "lockup": 2, "cut-rec": 2, "cut-load": 3,
         "cut-freeze": 2}
FROZEN = ("panic", "oops", "lockup")
# Keep the saved area (a third of 64M, 4 to 30 bytes a record) from filling.
SAVED_RECORDS_MAX = 400000
OOPS_SLACK = 40                               # other tasks' records on CPU 0 after the oopsing init call
DUMP_LINES = 8                                # trace-on-oops dump of the crash boots
INTENDED = ("sysrq: Trigger a crash", "ramtrail_oops: writing through a NULL pointer",
            "ramtrail_oops: spinning")

BODY = f"""
arg() {{ tr ' ' '\\n' </proc/cmdline | sed -n "s/^st\\.$1=//p"; }}
CYCLE=$(arg cycle) ACT=$(arg act) T=$(arg t) ERASE=$(arg erase) REC=$(arg rec)
TOK=$(({TOKEN:#x} / 4096))
out_up
tok=$(dd if={rg.OUT_DEV} bs=4096 skip=$TOK count=1 2>/dev/null | tr -d '\\000' | head -c 32)
# Markers the host cuts power on go through printk: a line still in the
# tty's buffer when the kernel panics never reaches the console. (rt_load
# prints "=== INSMOD ===" so.)
mark() {{ echo "=== $1 ===" >/dev/kmsg; }}
if [ "$ACT" != none ] && [ "$tok" != "A$CYCLE" ]; then
    # The crash boot. Next boot of this QEMU (after the panic) reads back.
    printf 'A%s' "$CYCLE" | dd of={rg.OUT_DEV} bs=4096 seek=$TOK{rg.OUT_SYNC} 2>/dev/null
    echo "=== PHASE A ==="
    rt_load {rg.PARAMS} functions={FUNCS} dump_on_oops=2 dump_lines={DUMP_LINES}
    echo "bootid $(boot_id)"
    workload
    case $ACT in
    cut-load) ;;
    panic|cut-freeze)
        sleep $T; mark SYSRQ; echo c >/proc/sysrq-trigger ;;
    oops)
        sleep $T; taskset -c 0 insmod /lib/modules/ramtrail_oops.ko
        sleep 0.5; mark SYSRQ; echo c >/proc/sysrq-trigger ;;
    lockup)
        sleep $T; taskset -c $((NCPU - 1)) insmod /lib/modules/ramtrail_oops.ko spin=30 ;;
    cut-rec)
        sleep 0.3; mark RECORDING ;;
    esac
    sleep 600
fi
echo "=== PHASE B ==="
if [ "$REC" = 1 ]; then
    rt_load {rg.PARAMS} functions={FUNCS}
else
    rt_load {rg.PARAMS} enabled=0
fi
echo "bootid $(boot_id)"
mount -t pstore pstore /sys/fs/pstore
readback() {{
    begin files; ls /sys/fs/pstore; end files
    off=0
    for f in /sys/fs/pstore/*; do
        [ -f "$f" ] || continue
        n=$(basename $f); sz=$(wc -c <"$f")
        if [ $((off + sz)) -gt $(({TOKEN - DUMP})) ]; then echo "dumpfull $n $sz"; continue; fi
        dd if="$f" of={rg.OUT_DEV} bs=4096 seek=$((({DUMP:#x} + off) / 4096)){rg.OUT_SYNC} 2>/dev/null
        echo "file $n $off $sz $(md5sum <"$f" | cut -d' ' -f1)"
        off=$(((off + sz + 4095) / 4096 * 4096))
    done
    echo "=== READBACK DONE ==="
    for e in $(echo "$ERASE" | tr , ' '); do
        case $e in f*) pat=ftrace-ramtrail-;; *) pat=dmesg-ramtrail-;; esac
        n=$(ls /sys/fs/pstore | grep "^$pat" | sort -t- -k3 -n | sed -n "$((${{e#?}} + 1))p")
        [ -n "$n" ] && rm "/sys/fs/pstore/$n" && echo "erased $n"
    done
    begin after-rm; ls /sys/fs/pstore; end after-rm
}}
quiet readback
[ "$(arg ksyms)" = 1 ] && ksyms_out
"""

HEXCOLS = re.compile(r"^(CPU:\d+ ts:\d+) [0-9a-f]+  [0-9a-f]+  ")


def fingerprint(name, data):
    """Trace files: their records without the address columns (translated to
    each boot's KASLR); dmesg files: their bytes. -> (kind, digest, lines,
    first, last)."""
    kind = name.split("-")[0]
    text = data.decode(errors="replace")
    if kind == "ftrace":
        text = "\n".join(HEXCOLS.sub(r"\1 ", line) for line in text.splitlines())
    lines = text.splitlines()
    return (kind, hashlib.sha1(text.encode()).hexdigest()[:16], len(lines),
            lines[0][:80] if lines else "", lines[-1][:80] if lines else "")


def file_num(name):
    """N of a pstore file named <kind>-ramtrail-N."""
    return int(name.rsplit("-", 1)[1])


def part_text(files, erased):
    """The console-ramtrail files (a part's text) that erasing the ftrace
    files @erased erases too: the text of ftrace-ramtrail-N is
    console-ramtrail-(N * 100) and up."""
    parts = {file_num(n) for n in erased if n.startswith("ftrace-ramtrail-")}
    return [n for n in files
            if n.startswith("console-ramtrail-") and file_num(n) // 100 in parts]


def fp_str(fp):
    return f"{fp[0]} {fp[1]} {fp[2]} lines, first '{fp[3]}', last '{fp[4]}'"


def parse_boot(b):
    rc = re.findall(r"^insmod rc=(\d+)", b, re.M)
    bid = re.findall(r"^bootid (\d+)", b, re.M)
    return dict(
        text=b, flake=rg.env_crash(b),
        phase="A" if "=== PHASE A ===" in b else "B" if "=== PHASE B ===" in b else None,
        insmod="=== INSMOD ===" in b or "=== PHASE B ===" in b,
        rc=[int(x) for x in rc], bootid=int(bid[0]) if bid else None,
        files=[(m[1], int(m[2]), int(m[3]), m[4]) for m in
               re.finditer(r"^file (\S+) (\d+) (\d+) ([0-9a-f]{32})$", b, re.M)],
        dumpfull=re.findall(r"^dumpfull (\S+)", b, re.M),
        readback="=== READBACK DONE ===" in b,
        erased=re.findall(r"^erased (\S+)$", b, re.M),
        ksyms=re.findall(r"^kallsyms bytes (\d+)", b, re.M))


def crash_path(kind, recs, extra):
    """(ok, detail): the crashing CPU's last records in a frozen trace."""
    def last(cpu, n=3):
        return [r[2] for r in recs if r[0] == cpu][-n:]
    if kind == "panic":
        crash = [r for r in recs if r[2] == "sysrq_handle_crash"]
        cpu = crash[-1][0] if crash else None
        return bool(crash) and last(cpu)[-1:] == ["sysrq_handle_crash"], \
            f"cpu {cpu} ends {last(cpu)}"
    if kind == "oops":
        # Oopses in ramtrail_oops_init, called on CPU 0. Its printk's slow
        # console output lets the workload's task on CPU 0 run now and then
        # (seen on 6.1: 1, then 5 calls of cat in 20 ms after the init
        # call); a freeze that failed would leave the whole workload of the
        # next second after it, hundreds of records.
        names = [r[2] for r in recs if r[0] == 0]
        if "do_one_initcall" not in names:
            return False, f"cpu 0 ends {last(0)}, no do_one_initcall"
        after = names[::-1].index("do_one_initcall")
        return after <= OOPS_SLACK, \
            f"cpu 0 ends {last(0)}, {after} records after do_one_initcall"
    cpu = extra.get("spin_cpu")  # lockup: the watchdog's timer on the spinning CPU
    names = [r[2] for r in recs if r[0] == cpu]
    ok = cpu is not None and names[-1:] == ["watchdog_timer_fn"] and \
        "do_one_initcall" in names
    return ok, f"cpu {cpu} ends {last(cpu)}"


DMESG_WORDS = {"panic": "sysrq triggered crash", "oops": "ramtrail_oops",
               "lockup": "soft lockup"}


class Campaign:
    def __init__(self, k, ko, oops_ko, smp, seed, res):
        self.k, self.smp, self.res = k, smp, res
        self.rng = random.Random(f"{seed}-{k.kver}-{smp}")
        self.g = rg.Guest(k, ko, "stress", smp, BODY, modules=[oops_ko],
                          out_size=DUMP + DUMP_SIZE)
        self.work, self.ram = self.g.work, self.g.ram
        self.known = collections.Counter()     # fingerprints alive
        self.first = {}                        # fingerprint -> (cycle, name)
        self.order = []                        # files of the last readback
        self.bootids = []
        self.ksyms = None
        self.stats = collections.Counter()
        self.kinds = collections.Counter()
        self.times = []

    # ------------------------------------------------------------ running
    def run(self, cycle, act, t=0.0, erase="", rec=1, append="", **kw):
        if rg.ARCH == "x86_64":
            self.ram.write(TOKEN, bytes(64))    # (arm64's disk: zeroed by run)
        args = (f"{MEMMAP3} st.cycle={cycle} st.act={act} "
                f"st.t={t:.2f} st.erase={erase} st.rec={rec} "
                f"st.ksyms={int(self.ksyms is None)} {append}")
        log = h.BUILD / f"{self.g.name}-{cycle:03d}{'b' if act == 'none' else ''}.log"
        r = self.g.run(append=args.strip(), timeout=kw.pop("timeout", 150),
                       log_path=log, **kw)
        r.path = log
        r.parsed = [parse_boot(b) for b in rg.split_boots(r.log)]
        return r

    def plan(self):
        kind = self.rng.choices(list(KINDS), weights=list(KINDS.values()))[0]
        p = dict(kind=kind, t=self.rng.uniform(0.3, 2.5), rec=int(self.rng.random() < 0.85))
        if kind == "cut-rec":
            p["kill"] = ("=== RECORDING ===", self.rng.uniform(0.0, 2.5))
        elif kind == "cut-load":
            p["kill"] = ("=== INSMOD ===", self.rng.uniform(0.0, 1.5))
        elif kind == "cut-freeze":
            p["kill"] = ("=== SYSRQ ===", self.rng.uniform(0.0, 0.6))
        # Erase: sometimes some files; the oldest traces when the saved
        # area fills up. Indexes count in this boot's sorted listing.
        nf = sum(1 for n in self.order if n.startswith("ftrace"))
        picks = set()
        if self.rng.random() < 0.4:
            for _ in range(self.rng.randint(1, 3)):
                if self.rng.random() < 0.7:
                    picks.add(f"f{self.rng.randrange(nf + 2)}")
                else:
                    picks.add(f"d{self.rng.randrange(DMESG_SLOTS)}")
        if self.saved_records() > SAVED_RECORDS_MAX:
            picks |= {"f0", "f1", "f2"}
        # Logs of earlier boots are never overwritten: free a dmesg slot
        # now and then, so that new crashes' logs are checked too.
        if sum(n.startswith("dmesg") for n in self.order) >= DMESG_SLOTS and \
                self.rng.random() < 0.6:
            picks.add(f"d{self.rng.randrange(DMESG_SLOTS)}")
        p["erase"] = ",".join(sorted(picks))
        return p

    def saved_records(self):
        return sum(fp[2] * n for fp, n in self.known.items() if fp[0] == "ftrace")

    def cycle(self, c):
        p = self.plan()
        t = f"[{self.k.kver} smp{self.smp} #{c} {p['kind']}]"
        self.kinds[p["kind"]] += 1
        t0 = time.monotonic()
        desc = f"t={p['t']:.2f}s rec={p['rec']} erase={p['erase'] or '-'}"
        if "kill" in p:
            desc += f" kill {p['kill'][1]:.2f}s after {p['kill'][0].strip('= ')}"
        print(f"     cycle {c}: {p['kind']} {desc}", flush=True)
        append = "softlockup_panic=1 watchdog_thresh=1" if p["kind"] == "lockup" else ""
        runs = []
        if "kill" in p:
            runs.append(self.run(c, p["kind"], p["t"], append=append,
                                 kill_on=p["kill"][0], kill_delay=p["kill"][1]))
            # (a TCG flake before the load sends the guest to the read-back)
            self.res.check(f"{t} power cut", not runs[0].timed_out and (
                runs[0].killed or any(b["flake"] for b in runs[0].parsed)),
                f"{rg.brief(runs[0])} log {runs[0].path}")
            runs.append(self.run(c, "none", erase=p["erase"], rec=p["rec"]))
        else:
            runs.append(self.run(c, p["kind"], p["t"], erase=p["erase"], rec=p["rec"],
                                 append=append))
        self.check(c, t, p, runs)
        self.times.append(sum(r.duration for r in runs))
        print(f"     cycle {c}: {self.times[-1]:.0f} s in QEMU, "
              f"{time.monotonic() - t0:.0f} s with waits for the QEMU lock", flush=True)

    # ------------------------------------------------------------ checking
    def check(self, c, t, p, runs):
        res, last = self.res, runs[-1]
        boots = [b for r in runs for b in r.parsed]
        flakes = [b for b in boots if b["flake"]]
        if flakes:
            self.stats["flakes"] += len(flakes)
            print(f"     note: {len(flakes)} boot(s) crashed before ramtrail was loaded "
                  "(QEMU TCG flake): skipped", flush=True)
        good = [b for b in boots if not b["flake"]]
        self.stats["boots"] += len(boots)
        logs = " ".join(str(r.path) for r in runs)
        # Every boot excused as a flake would leave nothing checked.
        res.check(f"{t} a boot with ramtrail loaded, not excused as a flake",
                  good, f"{len(boots)} boots, {len(flakes)} flakes; log {logs}")
        res.check(f"{t} run ends with a poweroff", last.rc == 0 and not last.killed
                  and not last.timed_out, f"{rg.brief(last)} log {logs}")

        # insmod rc=0 everywhere, but in a boot cut during the load
        cut = runs[0].parsed[-1] if "kill" in p and runs[0].parsed else None
        bad_rc = [b["rc"] for b in good if b["insmod"] and b["rc"] != [0]
                  and not (b is cut and not b["rc"])]
        res.check(f"{t} module loads in every boot (insmod rc=0)", not bad_rc,
                  f"{bad_rc} {logs}")
        bad = [m for b in good for m in rg.bad_messages(b["text"], INTENDED)]
        res.check(f"{t} no oops, BUG or WARNING before the intended crash", not bad,
                  f"{bad} {logs}")

        ids = [b["bootid"] for b in boots if b["bootid"] is not None]
        prev = self.bootids[-1] if self.bootids else 0
        res.check(f"{t} boot counter goes up", ids and
                  all(a < b for a, b in zip([prev] + ids, ids)),
                  f"before {prev}, this cycle {ids}")
        self.bootids += ids

        rb = [b for b in last.parsed if b["readback"]]
        if not res.check(f"{t} pstore read back", rb, logs):
            return
        rb = rb[-1]
        if rb["ksyms"] and self.ksyms is None:
            path = self.work / "kallsyms"
            path.write_bytes(self.g.out_read(rg.KSYMS, int(rb["ksyms"][-1])))
            self.ksyms = {line.split()[2] for line in path.read_text().splitlines()
                          if len(line.split()) >= 3}

        files, bad_copy = {}, []
        for name, off, size, md5 in rb["files"]:
            data = self.g.out_read(DUMP + off, size)
            files[name] = data
            if hashlib.md5(data).hexdigest() != md5:
                bad_copy.append(name)
        (self.work / f"cycle-{c:03d}").mkdir(exist_ok=True)
        for name, data in files.items():
            (self.work / f"cycle-{c:03d}" / name).write_bytes(data)
        res.check(f"{t} files copied out intact (md5)", not bad_copy and not rb["dumpfull"],
                  f"bad {bad_copy} not copied {rb['dumpfull']}")
        fps = {n: fingerprint(n, d) for n, d in files.items() if "ramtrail" in n}
        now = collections.Counter(fps.values())
        missing = self.known - now
        res.check(f"{t} every earlier file still there, identical",
                  not missing, "; ".join(f"lost {fp_str(fp)} (first seen in cycle "
                                         f"{self.first[fp][0]} as {self.first[fp][1]})"
                                         for fp in missing)[:1500])
        dup = [fp for fp, n in now.items() if n > 1]
        res.check(f"{t} no file twice", not dup, [fp_str(fp) for fp in dup])
        new = [n for n in fps if now[fps[n]] > self.known[fps[n]]]
        for n in new:
            self.first.setdefault(fps[n], (c, n))
        self.stats["files"] += len(new)
        traces = sorted((n for n in fps if n.startswith("ftrace")), key=file_num)
        dmesgs = [n for n in fps if n.startswith("dmesg")]

        # new traces: lines parse and are in order; names exist
        decoded = {n: self.check_trace(t, n, files[n], c) for n in traces if n in new}

        # a frozen crash: the newest trace is new and ends on the crash path
        crash_boot = next((b for b in runs[0].parsed if b["phase"] == "A"), None)
        if p["kind"] in FROZEN and crash_boot and not crash_boot["flake"] \
                and crash_boot["rc"] == [0]:
            newest = traces[-1] if traces else None
            recs = decoded.get(newest, [])
            m = re.search(r"ramtrail_oops: spinning \d+ s .* on CPU (\d+)",
                          crash_boot["text"])
            ok, detail = crash_path(p["kind"], recs, {"spin_cpu": m and int(m[1])})
            res.check(f"{t} new trace {newest}: crashing CPU ends on the crash path",
                      newest in new and ok,
                      f"{detail}{'' if newest in new else ' (no new trace)'}"
                      f"{'' if ok else self.host_stats()}")
            # the trace-on-oops dump: once, whole, nothing else inside
            ds = rg.dumps(crash_boot["text"])
            lines = rg.parse_text("\n".join(ds[0]["lines"])) if len(ds) == 1 else []
            res.check(f"{t} one dump at the crash: at most {DUMP_LINES} records a CPU, "
                      "in time order, nothing else inside",
                      len(ds) == 1 and ds[0]["kind"] == "crash" and not ds[0]["foreign"]
                      and lines and len(lines) == ds[0]["printed"] and
                      all(n <= DUMP_LINES for n in collections.Counter(
                          x[2] for x in lines).values()) and
                      all(x[2] < self.smp for x in lines) and
                      all(float(a[4]) <= float(b[4]) for a, b in zip(lines, lines[1:])),
                      [(d["kind"], d.get("printed"), len(d["lines"]), d["foreign"][:2])
                       for d in ds])
            old_dmesg = sum(n for fp, n in self.known.items() if fp[0] == "dmesg")
            if old_dmesg < DMESG_SLOTS:
                word = DMESG_WORDS[p["kind"]]
                got = [n for n in dmesgs if n in new and word in files[n].decode(
                    errors="replace")]
                res.check(f"{t} new dmesg file holds the crash ('{word}')", got,
                          f"new {[n for n in dmesgs if n in new]}, "
                          f"{old_dmesg} of {DMESG_SLOTS} slots taken before")

        # erase, as the guest did it: an ftrace file takes its part's text
        self.known = now
        gone = [n for n in rb["erased"] if n in fps]
        for n in gone + part_text(files, gone):
            self.known[fps[n]] -= 1
        self.known += collections.Counter()     # drop zeros
        self.stats["erased"] += len(gone)
        after = "\n".join(h.sections(last.log, "after-rm")[-1:]).split()
        res.check(f"{t} rm erased {gone or 'nothing'}",
                  not any(n in after for n in gone) and len(gone) == len(rb["erased"]),
                  f"after rm: {after}")
        self.order = sorted((n for n in after if "ramtrail" in n),
                            key=lambda n: (n.split("-")[0], file_num(n)))

    def check_trace(self, t, name, data, c):
        recs, bad = rg.parse_ftrace(data.decode(errors="replace"))
        self.stats["records"] += len(recs)
        self.res.check(f"{t} {name}: {len(recs)} records, every line parses, CPU < {self.smp}",
                       recs and not bad and all(r[0] < self.smp for r in recs),
                       f"bad {bad[:2]} cpus {sorted({r[0] for r in recs})}")
        ts = [r[1] for r in recs]
        last, back = {}, []
        for cpu, stamp, _, _ in recs:
            if stamp < last.get(cpu, 0):
                back.append((cpu, last[cpu], stamp))
            last[cpu] = stamp
        self.res.check(f"{t} {name}: timestamps non-decreasing per CPU and over the file",
                       not back and all(a <= b for a, b in zip(ts, ts[1:])),
                       f"per cpu {back[:3]} whole "
                       f"{next(((a, b) for a, b in zip(ts, ts[1:]) if a > b), None)}")
        # pstore's ftrace file gives offsets; the tool names them from the
        # part's console-ramtrail-* files copied beside it
        path = self.work / f"cycle-{c:03d}" / name
        rc, decoded, err = rg.decode(path)
        self.res.check(f"{t} {name}: tools/ramtrail decodes it, same record count",
                       rc == 0 and len(decoded) == len(recs),
                       f"rc={rc} {len(decoded)} vs {len(recs)} {err.strip()[:200]}")
        unnamed = sum(r[2].startswith("0x") for r in decoded)
        self.res.check(f"{t} {name}: the tool names every function from the text beside it",
                       decoded and not unnamed, f"{unnamed} of {len(decoded)} unnamed")
        if self.ksyms:
            names = {f for r in decoded for f in (r[2], rg.OFFSET.sub("", r[3]))}
            unknown = [n for n in names if n and not n.startswith("0x")
                       and n.split(" [")[0] not in self.ksyms]
            self.res.check(f"{t} {name}: names are kernel symbols",
                           not unknown, unknown[:5])
        return decoded

    def host_stats(self):
        rc, js, err = self.g.stats()
        return f"\n     host stats (rc {rc}): {err.strip()} " + json.dumps(
            {k: v for k, v in (js or {}).items() if k in (
                "boot_id", "state", "freeze_reason", "freeze_cpu", "zones", "saved")})

    def summary(self, cycles):
        print(f"     campaign {self.k.kver} smp{self.smp}: {cycles} cycles "
              f"({', '.join(f'{k} {n}' for k, n in sorted(self.kinds.items()))}), "
              f"{self.stats['boots']} boots ({self.stats['flakes']} TCG flakes), "
              f"boot ids up to {max(self.bootids or [0])}, {len(self.first)} files seen, "
              f"{self.stats['records']} trace records checked, {self.stats['erased']} "
              f"erased, {sum(self.known.values())} files kept "
              f"({self.saved_records()} records); per cycle "
              f"{min(self.times):.0f}-{max(self.times):.0f} s in QEMU, "
              f"mean {sum(self.times) / len(self.times):.0f} s", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cycles", type=int, default=10)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--kver", default="6.1,6.12")
    ap.add_argument("--smp", default="2,4")
    a = ap.parse_args()
    err = rg.use_arch(a.kver.split(","))
    if err:
        ap.error(err)
    seed = a.seed if a.seed is not None else random.randrange(1 << 31)
    print(f"     stress: seed {seed} (rerun with --seed {seed}), {a.cycles} cycles "
          f"per kernel and CPU count", flush=True)
    res = h.Results()
    rg.build_tools()
    for kver in a.kver.split(","):
        k = h.kernel(kver)
        ko, oops_ko = rg.build_all(kver), rg.build_oops(k)
        for smp in [int(s) for s in a.smp.split(",")]:
            camp, failed = Campaign(k, ko, oops_ko, smp, seed, res), res.failed
            for c in range(1, a.cycles + 1):
                camp.cycle(c)
            camp.summary(a.cycles)
            h.drop_rams(res.failed > failed)
    return 1 if res.summary() else 0


if __name__ == "__main__":
    sys.exit(main())
