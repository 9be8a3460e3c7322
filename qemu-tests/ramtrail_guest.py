# SPDX-License-Identifier: GPL-2.0
"""ramtrail in QEMU guests: what the tests, the crash campaign, the demo and
the benchmarks share (harness.py, below it, knows nothing of ramtrail).

  ko = build_all("6.12")                    # ramtrail.ko for that kernel
  g = Guest(h.kernel("6.12"), ko, "panic", 2, RECORD_AND_CRASH)
  r = g.run()                                # harness.run_qemu's result
  st = status(r)[-1]                         # the last boot's status file
  rc, js, err = g.stats()                    # ramtrail stats --format json
  recs, other = parse_ftrace(section(r, "ftrace-ramtrail-0"))

Checks read facts, never the module's messages: the module's debugfs status
file (STATUS: one "key: value" a line, parse_status()) as the guest prints
it, and the command's `stats --format json` of the region, run on the host
on the RAM file (Guest.stats()) or in the guest on debugfs (/bin/ramtrail).
"""
import json
import os
import re
import subprocess
import sys

import harness as h

# The guests' architecture, for the whole run: x86_64, or arm64
# (test_module.py --kver 6.12-arm64 sets it). Guest physical addresses
# below are RAM_BASE plus an offset in the RAM file.
ARCH = os.environ.get("RAMTRAIL_ARCH", "x86_64")
RAM_BASE = h.RAM_BASE[ARCH]


def use_arch(kvers):
    """Run this script again with RAMTRAIL_ARCH set if kernels `kvers`
    (e.g. "6.12-arm64") are of another architecture than the guests'
    addresses were made for at import; None if they are, or an error
    message if they mix two."""
    arches = {"arm64" if k.endswith("-arm64") else "x86_64" for k in kvers}
    if len(arches) > 1:
        return "the kernels of one architecture per run"
    if arches != {ARCH}:
        os.environ["RAMTRAIL_ARCH"] = arches.pop()
        os.execv(sys.executable, [sys.executable, *sys.argv])
    return None
# The region every guest reserves, and the module's parameters for it.
RESV, RESV_SIZE = RAM_BASE + 0x30000000, 64 << 20
MEMMAP = f"memmap={RESV_SIZE >> 20}M${RESV:#x}"
PARAMS = f"mem_address={RESV:#x} mem_size={RESV_SIZE >> 20}M"
# Functions the workload calls on every CPU, and the sysrq crash path.
FUNCS = ("ksys_read,vfs_read,seq_read_iter,ksys_write,vfs_write,"
         "do_sys_openat2,__handle_sysrq,sysrq_handle_crash,write_sysrq_trigger")
STATUS = "/sys/kernel/debug/ramtrail/status"


def first_file(boot):
    """N of boot `boot`'s first pstore file (ftrace-, console-, dmesg-ramtrail-N):
    a boot's files are numbered from (boot - 1) * 1024 (RAMTRAIL_IDS_PER_BOOT)."""
    return (boot - 1) * 1024
REGION = "/sys/kernel/debug/ramtrail/region"

# The command, on the host and (static) as /bin/ramtrail in guests.
TOOL = h.REPO / "build" / "tools" / "ramtrail"
# The compiler of the guests' static programs.
GUEST_CC = "cc" if ARCH == "x86_64" else "aarch64-linux-gnu-gcc"
STATIC = h.REPO / "build" / ("tools" if ARCH == "x86_64" else "tools-arm64") / "ramtrail-static"
# Where a guest hands bytes to the host ("out"): on x86 /dev/mem, into a
# memmap'ed range of the RAM file (offsets are physical addresses); arm64's
# /dev/mem writes mapped RAM only, never a no-map range, so there a virtio
# disk of the scenario's directory (offsets in it), flushed by each write.
OUT_DEV = "/dev/mem" if ARCH == "x86_64" else "/dev/vda"
OUT_SYNC = "" if ARCH == "x86_64" else " conv=fsync"
OUT_DISK = "out.img"
OUT_MODULES = ("virtio_mmio", "virtio_blk") if ARCH == "arm64" else ()
OUT_UP = ("" if ARCH == "x86_64" else
          """for m in virtio_mmio virtio_blk; do insmod /lib/modules/$m.ko 2>/dev/null; done
    n=0; while [ ! -b /dev/vda ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done""")
# The guest copies its /proc/kallsyms here (ksyms_out) for the host: Debian's
# System.map is a placeholder, the real one is in an 858 MB -dbg package.
KSYMS_SIZE = 16 << 20
KSYMS = RAM_BASE + 0x3c000000 if ARCH == "x86_64" else 0
KSYMS_MEMMAP = f"memmap={KSYMS_SIZE >> 20}M${KSYMS:#x}" if ARCH == "x86_64" else ""

# Shell helpers of every ramtrail guest (after harness.PRELUDE).
GUEST = rf"""
NCPU=$(grep -c ^processor /proc/cpuinfo)
debugfs() {{
    grep -q ' /sys/kernel/debug ' /proc/mounts ||
        mount -t debugfs debugfs /sys/kernel/debug
}}
# quiet CMD...: run CMD with the console quiet, so that no kernel message
# lands inside what it prints.
quiet() {{
    local level rest
    read level rest </proc/sys/kernel/printk
    echo 1 >/proc/sys/kernel/printk
    "$@"
    set -- $?
    echo $level >/proc/sys/kernel/printk
    return $1
}}
# status [NAME]: the status file in section NAME (default status)
status() {{ debugfs; quiet status_show "${{1:-status}}"; }}
status_show() {{ begin $1; cat {STATUS}; end $1; }}
# rt_load PARAMS...: insmod ramtrail; "insmod rc=N"; its status if loaded.
# The marker goes through printk, where power cuts aim at it; a boot that
# crashes before it or the one on the console (which a quiet console
# keeps) did so before ramtrail was loaded (env_crash).
rt_load() {{
    echo "=== RT_LOAD ==="      # on the console even when printk is quiet
    echo "=== INSMOD ===" >/dev/kmsg
    insmod /lib/modules/ramtrail.ko "$@"
    rc=$?
    echo "insmod rc=$rc"
    [ $rc = 0 ] && status
    return $rc
}}
boot_id() {{ sed -n 's/^boot_id: //p' {STATUS}; }}
workload() {{
    c=0
    while [ $c -lt $NCPU ]; do
        taskset -c $c sh -c 'while :; do cat /proc/version >/dev/null; done' &
        c=$((c + 1))
    done
}}
pstore() {{
    mount -t pstore pstore /sys/fs/pstore
    quiet pstore_show
}}
pstore_show() {{
    begin files; ls /sys/fs/pstore; end files
    for f in /sys/fs/pstore/*ramtrail*; do
        [ -e "$f" ] && show "$(basename $f)" "$f"
    done
}}
rtlog() {{ begin rtlog; dmesg | grep -E 'ramtrail|pstore'; end rtlog; }}
# Before kmemleak's scan (kernels with it only): functions and events
# detached, so that the scan's own calls are not recorded (minutes under
# TCG with functions='*'); what ramtrail allocated stays allocated.
before_kmemleak() {{
    for p in functions events; do
        [ -w /sys/module/ramtrail/parameters/$p ] && echo 2>/dev/null >/sys/module/ramtrail/parameters/$p
    done
}}
out_up() {{
    {OUT_UP or ":"}
}}
ksyms_out() {{
    out_up
    dd if=/proc/kallsyms of={OUT_DEV} bs=4096 seek=$(({KSYMS:#x} / 4096)){OUT_SYNC} 2>/dev/null
    echo "kallsyms bytes $(wc -c </proc/kallsyms)"
}}
"""

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


# ---------------------------------------------------------------- builds
def build_all(kver):
    """ramtrail.ko (and ramtrail_bench.ko beside it) for kernel kver."""
    return subprocess.run([str(h.REPO / "scripts/build-module.sh"), kver], check=True,
                          capture_output=True, text=True).stdout.split()[-1]


def build_stretch(kver):
    """The test build of ramtrail.ko whose freeze and thaw sections can be
    stretched (RAMTRAIL_TEST_STRETCH), for kernel kver."""
    env = dict(os.environ, RAMTRAIL_TEST_STRETCH="1")
    return subprocess.run([str(h.REPO / "scripts/build-module.sh"), kver], check=True,
                          capture_output=True, text=True, env=env).stdout.split()[-1]


def build_insection():
    """qemu-tests/insection.c, static for the guest."""
    out = h.BUILD / f"insection-{ARCH}"
    subprocess.run([GUEST_CC, "-static", "-O2", "-Wall", "-o", str(out),
                    str(h.REPO / "qemu-tests/insection.c")], check=True)
    return out


def build_oops(k, name="ramtrail_oops", other=False):
    """A test helper module of qemu-tests/oops, built for kernel k: the one
    that oopses on load (default), ramtrail_inita, ramtrail_initb or
    ramtrail_late; with other, the build of them made with
    RAMTRAIL_OTHER_BUILD (in a folder of its own, the same file names)."""
    out = h.BUILD / f"oops-{k.kver}{'-other' if other else ''}"
    out.mkdir(parents=True, exist_ok=True)
    src = h.REPO / "qemu-tests/oops"
    for f in src.iterdir():
        if f.suffix == ".c" or f.name == "Kbuild":
            (out / f.name).write_bytes(f.read_bytes())
    if other:
        with open(out / "Kbuild", "a") as kb:
            kb.write("ccflags-y += -DRAMTRAIL_OTHER_BUILD\n")
    subprocess.run(["make", "-s", "-C", str(k.kdir), f"M={out}", *k.kbuild_args,
                    "modules"], check=True, capture_output=True)
    return str(out / f"{name}.ko")


def build_tools(*targets):
    """The command (host and static) or other targets of tools/Makefile;
    for arm64 guests, the static command cross-built."""
    subprocess.run(["make", "-s", "-C", str(h.REPO / "tools"), f"O={h.REPO}/build/tools",
                    *map(str, targets or (TOOL, h.REPO / "build/tools/ramtrail-static"))],
                   check=True)
    if not targets and ARCH == "arm64":
        subprocess.run(["make", "-s", "-C", str(h.REPO / "tools"), f"O={STATIC.parent}",
                        "CC=aarch64-linux-gnu-gcc", str(STATIC)], check=True)


# ---------------------------------------------------------------- guests
class Guest:
    """One scenario's guest: initramfs with GUEST + body, ramtrail.ko, the
    static command as /bin/ramtrail, and a 1 GiB RAM file, as
    build/qemu/<kver>-smp<N>-<name>/."""

    def __init__(self, k, ko, name, smp, body, modules=(), fresh=True, files=None,
                 out_size=KSYMS_SIZE):
        self.k, self.smp, self.name = k, smp, f"{k.kver}-smp{smp}-{name}"
        self.work = h.BUILD / self.name
        self.rd = h.Initramfs(k, self.work, h.init_script(GUEST + body),
                              files={"bin/ramtrail": STATIC, **(files or {})},
                              modules=list(modules) + list(OUT_MODULES) + [ko])
        self.ram = h.RamFile(self.work / "guest.ram", 1 << 30, fresh=fresh, base=RAM_BASE)
        self.out_size = out_size

    def run(self, append="", timeout=240, **kw):
        """Boot the guest; on arm64 with its out disk, zeroed."""
        kw.setdefault("log_path", h.BUILD / f"{self.name}.log")
        if ARCH == "arm64":
            disk = self.work / OUT_DISK
            with open(disk, "wb") as f:
                f.truncate(self.out_size)
            kw["extra"] = [*kw.get("extra", ()), "-drive",
                           f"file={disk},format=raw,if=none,id=out",
                           "-device", "virtio-blk-device,drive=out"]
        return h.run_qemu(self.k, self.rd, self.ram, smp=self.smp,
                          append=" ".join(filter(None, (MEMMAP, KSYMS_MEMMAP, append))),
                          timeout=timeout, **kw)

    # Where the region is in the RAM file. Without it the command searches
    # from address 0 and may find a stale copy of the header first (the
    # guest's memory holds some: the module's own, what it read of debugfs).
    REGION_ARGS = ("--offset", hex(RESV - RAM_BASE), "--size", RESV_SIZE)

    def stats(self):
        """The region in the RAM file, as the host's command sees it."""
        return stats(self.ram.path, *self.REGION_ARGS)

    def out_read(self, off, size):
        """`size` bytes the guest wrote to OUT_DEV at `off`."""
        if ARCH == "x86_64":
            return self.ram.read(off, size)
        with open(self.work / OUT_DISK, "rb") as f:
            f.seek(off)
            return f.read(size)


def tool(*args):
    """The host's ramtrail command: a CompletedProcess with text output."""
    return subprocess.run([str(TOOL), *map(str, args)], capture_output=True, text=True)


def stats(image, *args):
    """ramtrail stats --format json -> (rc, object or None, stderr)."""
    p = tool("stats", image, "--format", "json", *args)
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except ValueError:
        return p.returncode, None, p.stderr + p.stdout[:300]


def saved(js):
    """The saved traces of a stats object, [] if none or no object."""
    return (js or {}).get("saved", [])


def kallsyms(g, r, name="kallsyms"):
    """The guest's last /proc/kallsyms dump (ksyms_out), as a host file (or None)."""
    sizes = re.findall(r"^kallsyms bytes (\d+)", r.log, re.M)
    if not sizes:
        return None
    path = g.work / name
    path.write_bytes(g.out_read(KSYMS, int(sizes[-1])))
    return path


# ---------------------------------------------------------------- facts
def parse_status(text):
    """The status file -> {key: value}, numbers as int; its "trace:" lines
    as a list under "trace", each {first, files, boot, records, release}."""
    st = {"trace": []}
    for line in text.splitlines():
        m = re.match(r"^([a-z_]+): ?(.*)$", line.strip())
        if not m:
            continue
        key, val = m[1], m[2].strip()
        if key == "trace":
            st["trace"].append({k: int(v) if v.isdigit() else v
                                for k, v in re.findall(r"(\w+)=(\S*)", val)})
        else:
            st[key] = int(val) if val.isdigit() else val
    return st


def status(r, name="status"):
    """Every status section of a run (status NAME in the guest), parsed."""
    return [parse_status(s) for s in h.sections(r.log, name)]


def last_status(r, name="status"):
    return (status(r, name) or [{}])[-1]


def differs(facts, **want):
    """{key: (got, wanted)} where facts (a dict) differs from want; {} if none."""
    return {k: (facts.get(k), v) for k, v in want.items() if facts.get(k) != v}


def section(r, name):
    """All of a run's sections NAME, as one text."""
    return "\n".join(h.sections(r.log, name))


# ---------------------------------------------------------------- traces
# A line of pstore's ftrace-ramtrail-N: CPU, timestamp (ns), addresses,
# function and caller (%pS: +off/size), each with a [module] tag or none.
LINE = re.compile(r"^CPU:(\d+) ts:(\d+) ([0-9a-f]+)  ([0-9a-f]+)  (\S+(?: \[\w+\])?) <- "
                  r"(\S+(?: \[\w+\])?)$")
# A record of `ramtrail decode` (ftrace's text format).
# ftrace's text: comm-pid [CPU] flags time: function <-caller, or an event
# "name: fields"; a task not known prints "<unknown>-?".
TEXT = re.compile(r"^\s*(.*)-(\d+|\?)\s+\[(\d+)\] (\S{5}) +(\d+\.\d{6}): (.*)$")
EVENT = re.compile(r"^\w+: ")
OFFSET = re.compile(r"\+0x[0-9a-f]+/0x[0-9a-f]+")


def parse_ftrace(text):
    """pstore's ftrace lines -> [(cpu, ts, func, parent)]; other lines kept apart.
    ramtrail gives pstore offsets, not addresses: func and parent are
    "0x..." (offset_values() reads the values)."""
    recs, other = [], []
    for line in text.splitlines():
        m = LINE.match(line.strip())
        if m:
            recs.append((int(m[1]), int(m[2]), m[5], m[6]))
        elif line.strip():
            other.append(line)
    return recs, other


def offset_values(text):
    """The two values of each line of pstore's ftrace-ramtrail-N, as ints."""
    return [(int(m[3], 16), int(m[4], 16)) for m in map(LINE.match, text.splitlines())
            if m]


def part_text(log, part):
    """The text of saved part `part` (ftrace-ramtrail-N): its files
    console-ramtrail-(N * 100) and up, as pstore_show printed them, in order;
    one text per time the part was shown."""
    names = sorted({int(m) for m in re.findall(r"^=== BEGIN console-ramtrail-(\d+) ===$",
                                              log, re.M) if int(m) // 100 == part})
    texts = [h.sections(log, f"console-ramtrail-{n}") for n in names]
    return ["\n".join(x) for x in zip(*texts)]


def text_functions(text):
    """The function records of ftrace text -> [(cpu, usec, func, caller)]
    (caller "" when none)."""
    out = []
    for _, _, cpu, _, us, what in parse_text(text):
        if not EVENT.match(what):
            func, _, parent = what.partition(" <-")
            out.append((cpu, us, func, parent))
    return out


def part_functions(r, part=0):
    """The function records of the newest showing of part `part`, from its
    text: [(cpu, usec, func, caller)]."""
    texts = part_text(r.log, part)
    return text_functions(texts[-1]) if texts else []


def usec(ns):
    """ftrace's rounding (ns2usecs) and format."""
    us = (ns + 500) // 1000
    return f"{us // 1000000}.{us % 1000000:06d}"


def parse_text(text):
    """[(comm, pid or None, cpu, flags, usec, what)] of ftrace text lines."""
    out = []
    for line in text.splitlines():
        m = TEXT.match(line)
        if m:
            pid = None if m[2] == "?" else int(m[2])
            out.append((m[1].strip(), pid, int(m[3]), m[4], m[5], m[6]))
    return out


def decode(image, *args):
    """ramtrail decode -> (rc, [(cpu, usec, function, caller)] of its
    function records, stderr)."""
    p = tool("decode", image, *args)
    recs = []
    for _, _, cpu, _, us, what in parse_text(p.stdout):
        if not EVENT.match(what):
            func, _, parent = what.partition(" <-")
            recs.append((cpu, us, func, parent))
    return p.returncode, recs, p.stderr


def per_cpu(recs):
    n = {}
    for r in recs:
        n[r[0]] = n.get(r[0], 0) + 1
    return n


# ---------------------------------------------------------------- dumps
# The trace-on-oops dump's first and last lines (after printk's prefix).
DUMP_HEAD = re.compile(r"ramtrail: dump \((crash|request)\): newest (\d+) records of "
                       r"(\d+) CPUs, boot (\d+)(?:, up to the freeze on CPU (\d+))?$")
DUMP_END = re.compile(r"ramtrail: end of dump: (\d+) records of (\d+) CPUs from (\d+) of "
                      r"(\d+) blocks in (\d+) us$")
# printk's prefix on the serial console, and in a dmesg record (<level>)
PRINTK = re.compile(r"^(?:<\d>)?\[ *\d+\.\d+\] ")


def dumps(text):
    """The dumps printed in a log: [{kind, lines, cpus, cut, printed, us,
    foreign}]: lines without printk's and the module's prefix, foreign the
    other kernel lines printed between the dump's first and last line."""
    out, cur = [], None
    for raw in text.splitlines():
        if not PRINTK.match(raw):
            continue
        line = PRINTK.sub("", raw, count=1).rstrip()
        m, e = DUMP_HEAD.search(line), DUMP_END.search(line)
        if m:
            cur = dict(kind=m[1], lines=[], cpus=int(m[3]), boot=int(m[4]),
                       cut=int(m[5]) if m[5] else None, foreign=[])
        elif e and cur:
            cur.update(printed=int(e[1]), blocks=int(e[3]), us=int(e[5]))
            out.append(cur)
            cur = None
        elif cur is not None:
            body = line[len("ramtrail: "):] if line.startswith("ramtrail: ") else ""
            (cur["lines"] if TEXT.match(body) else cur["foreign"]).append(body or line)
    return out


# ---------------------------------------------------------------- boots
BOOT = re.compile(r"^\[ *0\.000000\] Linux version", re.M)
SECTION = re.compile(r"^=== BEGIN (\S+) ===$.*?^=== END \1 ===$", re.M | re.S)


def brief(r):
    return f"boots={r.boots} rc={r.rc} killed={r.killed} timed_out={r.timed_out}"


def split_boots(log):
    """The boots of a serial log, with the files the guest printed left out."""
    return BOOT.split(SECTION.sub("", log))[1:]


def env_crash(boot):
    """A boot that crashed before rt_load's marker: not ramtrail's doing.
    Seen once in about 60 boots of 6.12 with 4 vCPUs under TCG, early after
    a warm reset ("Oops: int3" in sched_clock_cpu, kernel not tainted)."""
    crash = min([boot.find(s) for s in ("Oops", "Kernel panic") if s in boot] or [-1])
    return crash >= 0 and "=== INSMOD ===" not in boot[:crash] and \
        "=== RT_LOAD ===" not in boot[:crash]


def env_crashes(r):
    """The boots of a run (their logs) that crashed before ramtrail was loaded."""
    return [b for b in split_boots(r.log) if env_crash(b)]


# The first line of a crash, 6.1's die() header ("int3: 0000 [#1]") too.
CRASH = re.compile(r"Oops|BUG:|kernel BUG at|Kernel panic|\w+: [0-9a-f]{4} \[#\d+\]")
# An int3 trap (the oops' own header, or an int3 frame in a call trace),
# the RIP it trapped at and the code bytes around it: the byte before "<"
# is the one the CPU trapped on, as memory held it when the oops printed.
INT3_AT = re.compile(r"(?:int3: [0-9a-f]{4} \[#|asm_exc_int3\+)[^\n]*\n(?:[^\n]*\n){0,5}?"
                     r"[^\n]*RIP: 0010:(\S+)\n[^\n]*Code: (?:[0-9a-f]{2} )*([0-9a-f]{2}) <")


def first_crash(log):
    """Where a log's first crash begins, -1 if none."""
    m = CRASH.search(log)
    return m.start() if m else -1


def stale_int3(log):
    """The function a log's first crash trapped in when that crash is QEMU
    TCG's, None otherwise. ftrace patches a call site by writing int3 on
    it, then the new instruction, serialising every CPU after each step,
    and drops the handler that claims those traps only once no CPU is in
    it; a CPU that traps there later runs translated code of a text that
    is gone. Its signature: the crash is an int3 trap (the oops itself, or
    the trap's handler re-entering the site until in_nmi() overflows:
    kernel BUG in irqentry_nmi_enter), and the byte it trapped on was no
    longer int3 (cc) when the oops printed the code around it."""
    crash = first_crash(log)
    if crash < 0:
        return None
    rip = re.search(r"RIP: 0010:(\S+)", log[crash:crash + 3000])
    if not re.match(r"(?:Oops: )?int3: ", log[crash:]) and not (
            log.startswith("kernel BUG at kernel/entry/common.c", crash) and
            rip and rip[1].startswith("irqentry_nmi_enter+")):
        return None
    m = INT3_AT.search(log, crash, crash + 20000)
    return m[1] if m and m[2] != "cc" else None


def stale_int3_loaded(log):
    """The function of the first QEMU stale int3 (stale_int3) that ended
    a boot with ramtrail loaded, None if none did. A boot that died this
    way before ramtrail was loaded is env_crash's: the run rebooted and
    went on."""
    return next((w for b in split_boots(log) if not env_crash(b)
                 for w in [stale_int3(b)] if w), None)


def stale_int3_spans(log):
    """[(from, to, function)]: the line numbers, in @log, of each boot's
    stale int3 and what followed it in that boot."""
    starts = [m.start() for m in BOOT.finditer(log)] or [0]
    spans = []
    for s, e in zip(starts, starts[1:] + [len(log)]):
        where = stale_int3(log[s:e])
        if where:
            crash = s + first_crash(log[s:e])
            spans.append((log.count("\n", 0, crash), log.count("\n", 0, e), where))
    return spans


def boots(r):
    """Boots of a run, not counting those that crashed before ramtrail."""
    crashed = env_crashes(r)
    if crashed:
        print(f"     note: {len(crashed)} boot(s) crashed before ramtrail was "
              "loaded (kernel not tainted by it): not counted", flush=True)
    return r.boots - len(crashed)


BAD = ("Oops", "BUG:", "WARNING:", "general protection", "Call Trace")
# A KCSAN report, to its closing rule: check_debug.py, which runs the
# KCSAN kernel, judges each (ramtrail's, or the kernel's named own).
KCSAN_REPORT = re.compile(r"^.*BUG: KCSAN: .*\n(?:.*\n){0,80}?.*={40,}$", re.M)


def bad_messages(boot, intended=("sysrq: Trigger a crash",)):
    """The kernel's oops/BUG/WARNING words in a boot before its first
    intended crash message, KCSAN's reports aside; none in a boot that
    crashed before ramtrail."""
    if env_crash(boot):
        return []
    boot = KCSAN_REPORT.sub("", boot)
    cut = min([boot.find(s) for s in intended if s in boot] or [len(boot)])
    return [_bad_line(boot[:cut], s) for s in BAD if s in boot[:cut]]


def _bad_line(text, word):
    """The line that holds `word`, and for a call trace its next 4 lines:
    what a failed check must show to tell a kernel or TCG fault from ours."""
    start = text.rfind("\n", 0, text.find(word)) + 1
    lines = text[start:].split("\n")[:5 if word == "Call Trace" else 1]
    return " | ".join(re.sub(r"^<\d>\[ *[\d.]+\] ", "", x).strip()[:120] for x in lines)


def no_oops(res, t, log, intended="sysrq: Trigger a crash"):
    """No oops/BUG/WARNING in any boot, before its intended crash (if any).
    Files the guest printed (the panic log in dmesg-ramtrail-N) don't count,
    nor boots that crashed before ramtrail was loaded (env_crash)."""
    bad = [s for b in split_boots(log) for s in bad_messages(b, (intended,))]
    res.check(f"{t} no oops, BUG or WARNING", not bad, bad)
