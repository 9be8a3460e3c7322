# SPDX-License-Identifier: GPL-2.0
"""Checks of tools/ramtrail on the RAM files the QEMU scenarios leave.

The guest copies its /proc/kallsyms into a memmap'ed range of its RAM with
dd to /dev/mem (Debian's System.map is a placeholder; the real one is in an
858 MB -dbg package), and the host reads it from the RAM file. With it:

  decode    the host's decode of the RAM file equals, record by record, what
            the guest printed from /sys/fs/pstore: CPU, timestamp (us),
            function, caller with offset/size (symbols across KASLR)
  export    Debian's trace-cmd report reads the exported trace.dat: same
            events, CPUs, names, first and last timestamps as decode
  cut       the host's decode of a power-cut image equals what the guest
            recovered from it at the next boot
  modules   names of a module loaded after ramtrail, from its .ko, equal the
            guest's own /proc/kallsyms
  live      in the guest, the command reads the live region through debugfs
            and the pstore file itself
"""
import re
import shutil
import subprocess

import harness as h

TOOL = h.REPO / "build" / "tools" / "ramtrail"
STATIC = h.REPO / "build" / "tools" / "ramtrail-static"   # /bin/ramtrail in guests
KSYMS, KSYMS_SIZE = 0x3c000000, 16 << 20
MEMMAP = f"memmap={KSYMS_SIZE >> 20}M${KSYMS:#x}"
GUEST = f"""
ksyms_out() {{
    dd if=/proc/kallsyms of=/dev/mem bs=4096 seek=$(({KSYMS:#x} / 4096)) 2>/dev/null
    echo "kallsyms bytes $(wc -c </proc/kallsyms)"
}}
live_tool() {{
    mount -t debugfs debugfs /sys/kernel/debug
    begin live; ramtrail stats /sys/kernel/debug/ramtrail/region; echo "rc=$?"; end live
    begin livepstore
    ramtrail decode /sys/fs/pstore/ftrace-ramtrail-0 >/tmp/d; echo "rc=$?"
    echo "records $(grep -c '^ *<' /tmp/d)"
    end livepstore
}}
"""
PSTORE = re.compile(r"^CPU:(\d+) ts:(\d+) [0-9a-f]+  [0-9a-f]+  (.+) <- (.+)$")
DECODE = re.compile(r"^ *<\.\.\.>-0 +\[(\d+)\] \.{5} +(\d+\.\d{6}): (.*)$")
REPORT = re.compile(r"\[(\d+)\] +(\d+\.\d{6}): function: +(\S+)")
OFFSET = re.compile(r"\+0x[0-9a-f]+/0x[0-9a-f]+")


def tool(*args):
    return subprocess.run([str(TOOL), *map(str, args)], capture_output=True, text=True)


def usec(ns):
    """ftrace's rounding (ns2usecs) and format."""
    us = (ns + 500) // 1000
    return f"{us // 1000000}.{us % 1000000:06d}"


def kallsyms(g, r, name="kallsyms"):
    """The guest's last /proc/kallsyms dump, as a host file (or None)."""
    sizes = re.findall(r"^kallsyms bytes (\d+)", r.log, re.M)
    if not sizes:
        return None
    path = g.work / name
    path.write_bytes(g.ram.read(KSYMS, int(sizes[-1])))
    return path


def pstore_records(text):
    """pstore's lines -> [(cpu, usec, function, caller+off/size)]."""
    out = []
    for line in text.splitlines():
        m = PSTORE.match(line.strip())
        if m:
            out.append((int(m[1]), usec(int(m[2])), m[3], m[4]))
    return out


def decode(ram, *args):
    """ramtrail decode -> (rc, [(cpu, usec, function, caller)], stderr)."""
    p = tool("decode", ram, *args)
    recs = []
    for line in p.stdout.splitlines():
        m = DECODE.match(line)
        if m:
            func, _, parent = m[3].partition(" <-")
            recs.append((int(m[1]), m[2], func, parent))
    return p.returncode, recs, p.stderr


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"record {i}: guest {x} host {y}"
    return f"lengths guest {len(a)} host {len(b)}"


def check_decode(res, t, g, boot, pstore_text, ksyms):
    """decode == pstore, record by record; returns the decoded records."""
    guest = pstore_records(pstore_text)
    rc, host, err = decode(g.ram.path, "--boot", boot, "--system-map", ksyms,
                           "--sym-offset")
    # pstore prints the function with %ps (no offset), the caller with %pS.
    host = [(c, ts, OFFSET.sub("", f), p) for c, ts, f, p in host]
    res.check(f"{t} tool: decode of the RAM file = guest's pstore, record by record "
              "(CPU, time, function, caller+off/size)",
              rc == 0 and guest and host == guest,
              f"rc={rc} {err.strip()[:200]} {first_diff(guest, host)}")
    return host


def check_export(res, t, g, boot, ksyms, decoded):
    """trace-cmd report of the exported trace.dat agrees with decode."""
    dat = g.work / "trace.dat"
    p = tool("export", g.ram.path, "--boot", boot, "--system-map", ksyms, "-o", dat)
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
    rc, recs, err = decode(g.ram.path)
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
    p = tool("kallsyms", g.ram.path, "--boot", boot, "--system-map", ksyms,
             "--modules", kodir)
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
    live = "\n".join(h.sections(r.log, "live"))
    kv = dict(line.split(None, 1) for line in live.splitlines() if " " in line)
    zones = kv.get("zones_records", "0").split()
    res.check(f"{t} tool in the guest: reads the live region through debugfs "
              "(boot 2 recording, its modules listed)",
              "rc=0" in live and kv.get("boot_id") == "2" and
              kv.get("state") == "recording" and int(zones[0]) > 0 and
              "module reed_solomon" in live, live[:600])
    lp = "\n".join(h.sections(r.log, "livepstore"))
    n = re.search(r"records (\d+)", lp)
    want = len(pstore_records(pstore_text))
    res.check(f"{t} tool in the guest: decodes /sys/fs/pstore/ftrace-ramtrail-0",
              "rc=0" in lp and n and int(n[1]) == want and want,
              f"{lp.strip()} pstore records {want}")
