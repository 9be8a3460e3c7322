# SPDX-License-Identifier: GPL-2.0
"""Small QEMU test harness for ramtrail (Python 3 stdlib only).

  k = kernel("6.12")                       # unpacked Debian kernel (fetch-kernels.sh)
  rd = Initramfs(k, "build/qemu/x", init_script("..."), modules=["ramoops"])
  ram = RamFile("build/qemu/x/guest.ram", 1 << 30)
  r = run_qemu(k, rd, ram, smp=2, append="memmap=64M$0x30000000", timeout=120)
  sections(r.log, "uname"); r.boots; ram.read(0x30000000, 16)

Guest RAM is a shared file, so it survives warm reboots (panic=1, same QEMU
process) and QEMU exits, and the host can read and write it: for RAM below
the PCI hole (3 GiB on -machine pc), file offset == guest physical address.
Only TCG works here; run_qemu() holds a lock so two QEMUs never run at once.

arm64 ("6.12-arm64", "6.1-arm64"): -machine virt, whose RAM starts at
RAM_BASE["arm64"] (RamFile's base: its methods take guest physical
addresses), a device tree of QEMU's own with a /reserved-memory node
(no-map) for each memmap=SIZE$ADDR of the command line, which arm64
does not have.
"""
import fcntl
import gzip
import lzma
import os
import re
import select
import shlex
import signal
import stat
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "tools" / "tests"))
from check import Results  # noqa: E402,F401  (one result format: tools/tests/check.py)
BUILD = REPO / "build" / "qemu"          # logs and scratch; gitignored
CACHE = Path(os.environ.get("RAMTRAIL_CACHE", Path.home() / ".cache" / "ramtrail"))
BUSYBOX = "/bin/busybox"
# Guest physical address of the RAM file's first byte.
RAM_BASE = {"x86_64": 0, "arm64": 0x40000000}
BANNER = re.compile(r"^\[ *\d+\.\d+\] Linux version ", re.M)   # printk, once per boot


# ---------------------------------------------------------------- kernels
def kernel(kver):
    """The kernel `kver`: Debian's "6.1" or "6.12", unpacked, or "6.12-debug"
    or "6.12-kcsan", built from Debian's source: kver, vmlinuz, release,
    kdir, modules_dir, kbuild_args, preempt_full (built to preempt any
    task: CONFIG_PREEMPT; Debian's preempt voluntarily unless booted with
    preempt=full).  Runs fetch-kernels.sh or
    debug-kernel.sh if needed."""
    env = CACHE / ("k" + kver.replace(".", "") + ".env")
    if not env.exists():
        base, _, flavour = kver.partition("-")
        cmd = ["fetch-kernels.sh", base, "arm64"] if flavour == "arm64" else \
            ["debug-kernel.sh", flavour] if flavour else ["fetch-kernels.sh", kver]
        subprocess.run([str(HERE / cmd[0]), *cmd[1:]], check=True,
                       stdout=subprocess.DEVNULL)
    v = {}
    for line in env.read_text().splitlines():
        if "=" in line:
            key, _, val = line.partition("=")
            v[key] = " ".join(shlex.split(val))
    root = Path(v["VMLINUZ"]).parent.parent
    config = root / "boot" / f"config-{v['RELEASE']}"
    if not config.exists():
        config = Path(v["KDIR"]) / ".config"
    # A kernel with the checkers boots in 35 s under TCG, Debian's in 7.
    # KCSAN finds a race only when another CPU runs inside the window it
    # watches: its kernel's vCPUs run in parallel, a host thread each,
    # unless RAMTRAIL_TCG=single (check_debug.py --tcg single) asks for
    # one thread: fewer races seen, but none of QEMU's stale int3s.
    parallel = v["KVER"].endswith("-kcsan") and \
        os.environ.get("RAMTRAIL_TCG") != "single"
    options = set(config.read_text().splitlines())
    arch = "arm64" if v["KVER"].endswith("-arm64") else "x86_64"
    return SimpleNamespace(kver=v["KVER"], vmlinuz=v["VMLINUZ"], release=v["RELEASE"],
                           kdir=v["KDIR"], kbuild_args=shlex.split(v.get("KBUILD_ARGS", "")),
                           modules_dir=root / "lib" / "modules" / v["RELEASE"],
                           arch=arch, busybox=v.get("BUSYBOX", BUSYBOX),
                           ram_base=RAM_BASE[arch],
                           slowdown=5 if v["KVER"].endswith(("-debug", "-kcsan")) else 1,
                           parallel=parallel,
                           preempt_full="CONFIG_PREEMPT=y" in options,
                           # preempt=full on the command line takes
                           preemptible=bool({"CONFIG_PREEMPT=y",
                                             "CONFIG_PREEMPT_DYNAMIC=y"} & options))


def _modname(path):
    return Path(path).name.split(".ko")[0].replace("-", "_")


def _modules_dep(k):
    """{name: (path, [dep names])} from modules.dep.  The unpacked .debs have
    none, so depmod runs once on a symlinked copy under build/qemu/depmod/."""
    dep = k.modules_dir / "modules.dep"
    if not dep.exists():
        mdir = BUILD / "depmod" / "lib" / "modules" / k.release
        dep = mdir / "modules.dep"
        mdir.mkdir(parents=True, exist_ok=True)
        with open(mdir.parent / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not dep.exists():
                for f in ("modules.order", "modules.builtin", "modules.builtin.modinfo"):
                    (mdir / f).write_bytes((k.modules_dir / f).read_bytes())
                if not (mdir / "kernel").exists():
                    (mdir / "kernel").symlink_to(k.modules_dir / "kernel")
                subprocess.run(["depmod", "-b", str(BUILD / "depmod"), k.release], check=True)
    table = {}
    for line in dep.read_text().splitlines():
        mod, _, deps = line.partition(":")
        table[_modname(mod)] = (k.modules_dir / mod, [_modname(d) for d in deps.split()])
    return table


def module_closure(k, names):
    """Files of modules `names` (in-tree names, or paths of out-of-tree .ko
    files) and of all their dependencies, deps first."""
    table, order = _modules_dep(k), []

    def visit(name):
        if "/" in str(name):                # out-of-tree: deps from its .modinfo
            path = Path(name)
            m = re.search(rb"\0depends=([^\0]*)", path.read_bytes())
            deps = m.group(1).decode().split(",") if m and m.group(1) else []
        elif _modname(name) in table:
            path, deps = table[_modname(name)]
        else:
            raise KeyError(f"module {name} not in {k.release}/modules.dep")
        for d in deps:
            visit(d)
        if path not in order:
            order.append(path)
    for n in names:
        visit(n)
    return order


# ---------------------------------------------------------------- initramfs
PRELUDE = r"""#!/bin/sh
# harness prelude: mounts, markers, power off
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
begin() { echo "=== BEGIN $1 ==="; }
end() { echo "=== END $1 ==="; }
show() { begin "$1"; cat "$2"; end "$1"; }      # show NAME FILE
load_modules() {
    for m in $(cat /lib/modules/order); do insmod /lib/modules/$m.ko || echo "insmod $m failed"; done
}
# A kernel with kmemleak (make check-debug) scans for leaks before it stops,
# after the body's before_kmemleak, if it has one.
finish() {
    grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs none /sys/kernel/debug 2>/dev/null
    if [ -e /sys/kernel/debug/kmemleak ]; then
        type before_kmemleak >/dev/null 2>&1 && before_kmemleak
        echo scan >/sys/kernel/debug/kmemleak; show kmemleak /sys/kernel/debug/kmemleak
    fi
    echo "=== POWEROFF ==="; sleep 0.2; poweroff -f   # sleep: let the tty drain
}
echo "init: uptime $(cut -d' ' -f1 /proc/uptime)"
"""


def init_script(body):
    """/init text = PRELUDE (mounts; begin/end/show/load_modules/finish) + body."""
    return PRELUDE + body + "\nfinish\n"


class Initramfs:
    """A gzip'ed newc cpio at <build_dir>/initrd.gz: static busybox with all
    its applets in /bin (/sbin, /usr/bin, /usr/sbin link to it), /init, the
    `files` {guest_path: host path or bytes}, and the kernel's `modules` plus
    their dependencies as /lib/modules/<name>.ko (.xz decompressed; a module
    given as a path, e.g. an out-of-tree .ko, is taken as is).  The load
    order, deps first, is self.modules and /lib/modules/order."""

    def __init__(self, k, build_dir, init, files=None, modules=()):
        self.path = Path(build_dir) / "initrd.gz"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.entries, self.ino = [], 1000
        for d in ("bin", "dev", "proc", "sys", "tmp", "lib/modules", "usr", "root"):
            self._add(d, stat.S_IFDIR | 0o755)
        self._add("dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1))
        for d in ("sbin", "usr/bin", "usr/sbin"):
            self._add(d, stat.S_IFLNK | 0o777, b"/bin")
        # The kernel's architecture's busybox; the host's, of the same
        # Debian package version, lists the applets.
        self._add("bin/busybox", 0o100755,
                  Path(getattr(k, "busybox", BUSYBOX)).read_bytes())
        applets = subprocess.run([BUSYBOX, "--list"], check=True, capture_output=True,
                                 text=True).stdout.split()
        for a in applets:
            if a != "busybox":
                self._add("bin/" + a, stat.S_IFLNK | 0o777, b"busybox")
        if not init.startswith("#!"):
            init = "#!/bin/sh\n" + init
        self._add("init", 0o100755, init.encode())
        self.modules = []
        for mod in module_closure(k, modules):
            data = mod.read_bytes()
            if mod.suffix == ".xz":
                data = lzma.decompress(data)
            self.modules.append(_modname(mod))
            self._add(f"lib/modules/{self.modules[-1]}.ko", 0o100644, data)
        self._add("lib/modules/order", 0o100644, "".join(m + "\n" for m in self.modules).encode())
        for gpath, src in (files or {}).items():
            if isinstance(src, (bytes, bytearray)):
                mode = 0o100755 if src.startswith(b"#!") else 0o100644
                data = bytes(src)
            else:
                mode, data = os.stat(src).st_mode & 0o777 | 0o100000, Path(src).read_bytes()
            self._add(gpath.strip("/"), mode, data)
        with gzip.open(self.path, "wb", compresslevel=6) as f:
            for name, mode, data, rdev, ino in self.entries:
                f.write(self._header(name, mode, len(data), rdev, ino) + data)
                f.write(b"\0" * (-len(data) % 4))
            f.write(self._header("TRAILER!!!", 0, 0, (0, 0), 0))

    def _add(self, name, mode, data=b"", rdev=(0, 0)):
        parent = name.rpartition("/")[0]
        if parent and parent not in (e[0] for e in self.entries):
            self._add(parent, stat.S_IFDIR | 0o755)
        self.ino += 1
        self.entries = [e for e in self.entries if e[0] != name]   # last one wins
        self.entries.append((name, mode, data, rdev, self.ino))

    @staticmethod
    def _header(name, mode, size, rdev, ino):
        name = name.encode() + b"\0"
        fields = (ino, mode, 0, 0, 2 if stat.S_ISDIR(mode) else 1, 0, size,
                  0, 0, rdev[0], rdev[1], len(name), 0)
        hdr = b"070701" + b"".join(b"%08X" % x for x in fields) + name
        return hdr + b"\0" * (-len(hdr) % 4)


# ---------------------------------------------------------------- guest RAM
class RamFile:
    """Sparse file backing guest RAM; offset == guest physical address.
    A guest that fills its RAM makes it 1 GiB on disk: drop_rams() takes
    the files away once their checks are done."""

    made = []           # paths made since the last drop_rams()

    def __init__(self, path, size_bytes, fresh=True, base=0):
        self.path, self.size, self.base = Path(path), size_bytes, base
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path not in RamFile.made:
            RamFile.made.append(self.path)
        if fresh and self.path.exists():
            self.path.unlink()
        with open(self.path, "ab") as f:
            f.truncate(size_bytes)

    def read(self, phys_addr, length):
        with open(self.path, "rb") as f:
            return os.pread(f.fileno(), length, phys_addr - self.base)

    def write(self, phys_addr, data):
        assert self.base <= phys_addr and phys_addr - self.base + len(data) <= self.size
        with open(self.path, "r+b") as f:
            os.pwrite(f.fileno(), data, phys_addr - self.base)


KEEP_RAMS = 4           # a failing run keeps this many RAM files at most


def drop_rams(failed):
    """Unlink the RAM files made since the last call.  After a failed
    check (`failed`) they are kept for the post-mortem, KEEP_RAMS in a
    run at most so a broken module cannot fill the disk; RAMTRAIL_KEEP_RAM=1
    keeps every one.  A make check kept every file once: about 18 GiB,
    and QEMU died of SIGBUS when the disk filled."""
    keep = os.environ.get("RAMTRAIL_KEEP_RAM") == "1"
    for path in RamFile.made:
        if failed and drop_rams.kept < KEEP_RAMS and path.exists():
            drop_rams.kept += 1
            print(f"     note: {path} kept for the failed check", flush=True)
        elif not keep:
            path.unlink(missing_ok=True)
    RamFile.made = []


drop_rams.kept = 0


# ---------------------------------------------------------------- QEMU
# arm64: QEMU's virt board, GICv3 (any number of CPUs), a CPU with every
# feature QEMU has, pointer authentication in its fast form.
ARM64_MACHINE = ["-machine", "virt,gic-version=3,memory-backend=mem",
                 "-cpu", "max,pauth-impdef=on"]
MEMMAP = re.compile(r"(?:^|\s)memmap=(\d+[KMG]?)\$(0x[0-9a-fA-F]+|\d+)(?=\s|$)")


def _memmaps(append):
    """(append without its memmap=SIZE$ADDR, [(addr, size)] of them)."""
    resv = [(int(a, 0), _size(sz)) for sz, a in MEMMAP.findall(append)]
    return " ".join(MEMMAP.sub(" ", append).split()), resv


def arm64_dtb(machine, resv, nodes=""):
    """QEMU's own device tree for `machine` (its arguments: -machine, -cpu,
    -smp, -m...) with a no-map /reserved-memory node for each (addr, size)
    of `resv` and the dts text `nodes` inside that node; built once per
    content under build/qemu/dtb/."""
    body = "".join(f"\t\treserved@{a:x} {{\n\t\t\treg = <{a >> 32:#x} {a & 0xffffffff:#x} "
                   f"{sz >> 32:#x} {sz & 0xffffffff:#x}>;\n\t\t\tno-map;\n\t\t}};\n"
                   for a, sz in resv) + nodes
    overlay = ("\n/ {\n\treserved-memory {\n\t\t#address-cells = <2>;\n"
               "\t\t#size-cells = <2>;\n\t\tranges;\n" + body + "\t};\n};\n")
    # The board's tree depends on -smp, -m and -cpu, not on the RAM file.
    key = [re.sub(r"mem-path=[^,]*", "", a) for a in machine]
    name = "%08x" % (zlib.crc32(("\0".join(key) + overlay).encode()) & 0xffffffff)
    out = BUILD / "dtb" / f"{name}.dtb"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        board = Path(tmp) / "board.dtb"
        ram = Path(tmp) / "ram"
        args = [a.replace(re.search(r"mem-path=[^,]*", a).group(0), f"mem-path={ram}")
                if "mem-path=" in a else a for a in machine]
        args = [a + f",dumpdtb={board}" if a.startswith("virt,") else a for a in args]
        subprocess.run(["qemu-system-aarch64", "-accel", "tcg", *args, "-nodefaults",
                        "-display", "none"], check=True, capture_output=True)
        dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", str(board)], check=True,
                             capture_output=True, text=True).stdout
        subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(out) + ".tmp", "-"],
                       input=dts + overlay, check=True, text=True)
    os.replace(str(out) + ".tmp", out)
    return out


def _size(mem):                                   # "1G" -> 1 << 30
    shift = {"K": 10, "M": 20, "G": 30}.get(mem[-1].upper())
    return int(mem[:-1]) << shift if shift else int(mem)


def run_qemu(kernel, initrd, ramfile, smp, append, timeout, mem="1G",
             kill_on=None, kill_delay=0.0, log_path=None, marks=(), tcg_single=True,
             extra=(), dt=""):
    """Boot `kernel` with `initrd` (path or Initramfs) and RAM backed by
    `ramfile` (RamFile or path) until QEMU exits (guest `poweroff -f`).

    The guest reboots in the same process after a panic (panic=1).  When
    `kill_on` first appears on the serial console, QEMU is SIGKILLed
    `kill_delay` s later (a power cut); after `timeout` s it is SIGKILLed
    and timed_out is set.  The serial output is streamed to `log_path`.
    `tcg_single` runs every vCPU in one host thread (-accel tcg,thread=single),
    unless the kernel wants them `parallel` (KCSAN's).
    `extra`: more QEMU arguments (a disk). `dt`: arm64, dts text of more
    nodes under /reserved-memory.  The timeout is multiplied by
    the kernel's `slowdown` (5 for a kernel built with the checkers).
    Returns .log (text, \\r\\n -> \\n), .rc, .killed, .timed_out, .boots
    (printk "Linux version" banners), .duration, .marks {string in `marks`:
    seconds after start when first seen}, .stderr, .cmd.
    """
    initrd = getattr(initrd, "path", initrd)
    ram_path = getattr(ramfile, "path", ramfile)
    timeout *= getattr(kernel, "slowdown", 1)
    if os.path.getsize(ram_path) != _size(mem):
        raise ValueError(f"{ram_path}: size differs from mem={mem}")
    # Multi-threaded TCG (a host thread per vCPU, 4 vCPUs on 2 host cores)
    # sometimes oopses early in boot, "Oops: int3" as the kernel patches a
    # static key with the other vCPUs running (in sched_clock_cpu,
    # run_timer_softirq): 6.12, 4 vCPUs, 2 of 200 boots; busybox powering
    # off at once took 5.3 s on average.  One thread runs one vCPU at a
    # time, so none runs stale translated code while another patches it:
    # 0 of 200 boots, 4.4 s (6.1: 0 of 25 either way, 6.6 s against 5.8 s).
    accel = "tcg,thread=single" if tcg_single and not getattr(kernel, "parallel", False) \
        else "tcg"
    backend = ["-object", f"memory-backend-file,id=mem,size={mem},mem-path={ram_path},share=on"]
    if getattr(kernel, "arch", "x86_64") == "arm64":
        append, resv = _memmaps(append)
        machine = [*ARM64_MACHINE, "-smp", str(smp), "-m", mem, *backend]
        cmd = ["qemu-system-aarch64", "-accel", accel, *machine,
               "-dtb", str(arm64_dtb(machine, resv, dt)), "-kernel", str(kernel.vmlinuz),
               "-initrd", str(initrd), "-append", f"console=ttyAMA0 panic=1 {append}".strip(),
               "-nodefaults", "-no-user-config", "-display", "none",
               "-serial", "stdio", "-monitor", "none", *extra]
    else:
        cmd = ["qemu-system-x86_64", "-accel", accel, "-smp", str(smp), "-m", mem, *backend,
               "-machine", "pc,memory-backend=mem", "-kernel", str(kernel.vmlinuz),
               "-initrd", str(initrd), "-append", f"console=ttyS0 panic=1 {append}".strip(),
               "-nodefaults", "-no-user-config", "-display", "none",
               "-serial", "stdio", "-monitor", "none", *extra]
    BUILD.mkdir(parents=True, exist_ok=True)
    lock = open(BUILD / ".qemu.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)          # one QEMU at a time (2 host cores)
    log = None
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        log = open(log_path, "wb")
        log.write(("# " + shlex.join(cmd) + "\n").encode())
    back = max([len(m) for m in marks] + [len(kill_on or "")]) + 1  # match across chunks
    buf, found, t_kill = bytearray(), {}, None
    killed = timed_out = False
    start = time.monotonic()
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err)
    try:
        while True:
            now = time.monotonic()
            if t_kill is not None and now >= t_kill and proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                killed, t_kill = True, None
            if now - start >= timeout and proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                timed_out = True
            wait = 0.5 if t_kill is None else max(0.0, min(0.5, t_kill - now))
            ready, _, _ = select.select([proc.stdout], [], [], wait)
            if not ready:
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            tail = max(0, len(buf) - back)
            buf += chunk
            if log:
                log.write(chunk)
                log.flush()
            now = time.monotonic() - start
            for m in marks:
                if m not in found and buf.find(m.encode(), tail) >= 0:
                    found[m] = now
            if kill_on and t_kill is None and not killed and buf.find(kill_on.encode(), tail) >= 0:
                t_kill = time.monotonic() + kill_delay
        rc = proc.wait()
        err.seek(0)
        stderr = err.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if log:
            log.close()
        err.close()
        lock.close()
    text = buf.decode(errors="replace").replace("\r\n", "\n")
    if rc == -signal.SIGBUS:        # a page of the RAM file could not be had
        st = os.statvfs(Path(ram_path).parent)
        print(f"     note: QEMU died of SIGBUS; {st.f_bavail * st.f_frsize / 2**30:.1f} GiB "
              f"free beside {ram_path}: is the disk full?", flush=True)
    return SimpleNamespace(log=text, rc=rc, killed=killed, timed_out=timed_out,
                           boots=len(BANNER.findall(text)), cmd=cmd, marks=found,
                           duration=time.monotonic() - start,
                           stderr=stderr.decode(errors="replace"))


def sections(log, name):
    """Texts between '=== BEGIN name ===' and '=== END name ===' lines, in order."""
    out, cur = [], None
    for line in log.splitlines():
        s = line.strip()
        if s == f"=== BEGIN {name} ===":
            cur = []
        elif s == f"=== END {name} ===" and cur is not None:
            out.append("\n".join(cur))
            cur = None
        elif cur is not None:
            cur.append(line)
    return out
