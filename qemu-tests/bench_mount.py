#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-mount: pstore mounts of a full saved trace on a machine
short of memory, this tree's module (and another revision's, BASE=REV).

One boot a module: the guest (512 MiB by default) restores make bench's
region image (build/bench/region.img: 64 MiB of zones frozen by a panic)
into a memmap= range, loads the module, which saves the zones, then
mounts pstore, reads and removes every file, unmounts, and again until a
mount shows nothing. For each mount: its time (the guest's /proc/uptime
around mount), the parts and files it showed, the function records of
its ftrace files, and MemAvailable before the mount, once mounted and
once its files are removed and pstore unmounted. Under QEMU TCG only
the ratio of two modules' times in the same run means anything. A
benchmark: it asserts nothing.

usage: bench_mount.py [--base REV] [--kver 6.12] [--smp 2] [--mem 512M]
                      [--image build/bench/region.img]
"""
import argparse
import re
import sys

import harness as h
import ramtrail_guest as rg
from bench_load import IMAGE, base_module, read_image

# Below the top of a 512 MiB guest's RAM, as memmap= wants it.
RESV = 0x18000000
BODY = r"""
mem() { awk '/^MemAvailable:/ {print $2}' /proc/meminfo; }
insmod /lib/modules/rt.ko mem_address=%(resv)#x mem_size=%(size)dM
echo "INSMOD rc=$?"
dmesg | grep -E 'saved boot' | sed 's/^/KLOG /'
mkdir -p /sys/fs/pstore
r=0
while [ $r -lt 16 ]; do
    a0=$(mem)
    t0=$(cut -d' ' -f1 /proc/uptime)
    mount -t pstore pstore /sys/fs/pstore
    t1=$(cut -d' ' -f1 /proc/uptime)
    a1=$(mem)
    parts=$(ls /sys/fs/pstore | grep -c '^ftrace-ramtrail-')
    files=$(ls /sys/fs/pstore | grep -c -e '^ftrace-ramtrail-' -e '^console-ramtrail-')
    recs=$(cat /sys/fs/pstore/ftrace-ramtrail-* 2>/dev/null | wc -l)
    rm -f /sys/fs/pstore/*-ramtrail-*
    umount /sys/fs/pstore
    echo "MOUNT $r $t0 $t1 $parts $files $recs $a0 $a1 $(mem)"
    [ "$files" = 0 ] && break
    r=$((r + 1))
done
dmesg | grep -cE 'Out of memory|oom-kill|Oops:|BUG:' | sed 's/^/BAD /'
"""
MOUNT = re.compile(r"^MOUNT (\d+) ([\d.]+) ([\d.]+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$",
                   re.M)


def one_boot(k, ko, image, a, which):
    """The mounts of one boot: [(s, parts, files, records, avail before,
    mounted, after MiB)], or None."""
    work = h.BUILD / "bench-mount" / which
    body = BODY % {"resv": RESV, "size": rg.RESV_SIZE >> 20}
    rd = h.Initramfs(k, work, h.init_script(body), files={"lib/modules/rt.ko": ko})
    ram = h.RamFile(work / "guest.ram", h._size(a.mem))
    ram.write(RESV, image)
    log = h.BUILD / f"bench-mount-{which}.log"
    r = h.run_qemu(k, rd, ram, smp=a.smp, timeout=1800, mem=a.mem,
                   append=f"memmap={rg.RESV_SIZE >> 20}M${RESV:#x}", log_path=log)
    mounts = [(float(m[3]) - float(m[2]), int(m[4]), int(m[5]), int(m[6]),
               int(m[7]) / 1024, int(m[8]) / 1024, int(m[9]) / 1024)
              for m in MOUNT.finditer(r.log)]
    saved = re.search(r"saved boot \d+: (\d+) records", r.log)
    bad = re.search(r"^BAD (\d+)", r.log, re.M)
    if "INSMOD rc=0" not in r.log or not mounts:
        print(f"{which}: no mount measured (see {log})")
        return None
    print(f"\n{which}: {saved[1] if saved else '?'} records saved; "
          f"{bad[1] if bad else '?'} log lines of OOM or oops")
    print("| mount | s | parts | files | function records | MemAvailable MiB "
          "before / mounted / after |\n|---|---|---|---|---|---|")
    for i, x in enumerate(mounts):
        print(f"| {i} | {x[0]:.1f} | {x[1]} | {x[2]} | {x[3]} | "
              f"{x[4]:.0f} / {x[5]:.0f} / {x[6]:.0f} |")
    print(f"| all | {sum(x[0] for x in mounts):.1f} | {sum(x[1] for x in mounts)} | "
          f"{sum(x[2] for x in mounts)} | {sum(x[3] for x in mounts)} | |")
    return mounts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", help="a revision to compare with")
    ap.add_argument("--kver", default="6.12")
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--mem", default="512M")
    ap.add_argument("--image", default=IMAGE)
    a = ap.parse_args()
    image = read_image(a.image, "bench_mount")
    if RESV + rg.RESV_SIZE > h._size(a.mem):
        sys.exit(f"bench_mount: --mem {a.mem} does not reach {RESV + rg.RESV_SIZE:#x}")
    k = h.kernel(a.kver)
    kos = {"tree": rg.build_all(a.kver)}
    if a.base:
        kos["base"] = base_module(a.base, a.kver)
    print(f"pstore mounts, {a.kver}, {a.smp} CPUs, {a.mem} of RAM, TCG")
    got = {w: one_boot(k, ko, image, a, w) for w, ko in kos.items()}
    h.drop_rams(False)
    if a.base and got["tree"] and got["base"]:
        t, b = (sum(x[0] for x in got[w]) for w in ("tree", "base"))
        print(f"\nall mounts, this tree / {a.base}: {t:.1f} / {b:.1f} s = {t / b:.2f}")
    print("Under TCG only the ratio of two modules in the same run means anything.")


if __name__ == "__main__":
    main()
