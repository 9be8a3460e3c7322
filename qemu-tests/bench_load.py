#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-load: the module's load with a full region, this tree's
module against another revision's, on the same region image.

Each boot restores the image (make bench's build/bench/region.img: 64 MiB
of zones frozen by a panic, nothing saved yet) into the guest's RAM and
loads one of the two modules, which saves the zones. The two alternate
boot by boot. What each load took comes from the guest's own clocks:
insmod's wall time (/proc/uptime around it), and from the kernel log's
timestamps the save (the module's first message to its "saved boot"
line) and the rest (to pstore's registration). Under QEMU TCG only the
ratio of the two, measured in alternating boots, means anything. A
benchmark: it asserts nothing.

usage: bench_load.py --base REV [--kver 6.12] [--smp 2] [--rounds 3]
                     [--image build/bench/region.img]
"""
import argparse
import re
import shutil
import statistics
import subprocess
import sys

import harness as h
import ramtrail_guest as rg

BODY = r"""
m=$(sed -n 's/.*rt_ko=\([a-z]*\).*/\1/p' /proc/cmdline)
t0=$(cut -d' ' -f1 /proc/uptime)
insmod /lib/modules/rt-$m.ko {params}
t1=$(cut -d' ' -f1 /proc/uptime)
echo "LOAD $m $t0 $t1"
dmesg | grep -E 'ramtrail: (loading out-of-tree|module verification)|saved boot|Registered ramtrail' | sed 's/^/KLOG /'
"""
# A kernel log line's timestamp.
STAMP = re.compile(r"^KLOG \[\s*([\d.]+)\]", re.M)


# The region image make bench leaves: 64 MiB of zones frozen by a panic.
IMAGE = str(h.REPO / "build" / "bench" / "region.img")


def read_image(path, who):
    """The region image at `path`, or exit, as `who`, saying how to make it."""
    try:
        image = open(path, "rb").read()
    except OSError as e:
        sys.exit(f"{who}: {e}: run make bench first, it leaves the image")
    if len(image) != rg.RESV_SIZE:
        sys.exit(f"{who}: {path}: {len(image)} bytes, not {rg.RESV_SIZE}")
    return image


def base_module(rev, kver):
    """ramtrail.ko built from revision `rev` in a worktree of its own, which
    is removed once the module is copied out."""
    src, ko = h.BUILD / "bench-load" / "base", h.BUILD / "bench-load" / "base.ko"
    git = ["git", "-C", str(h.REPO), "worktree"]
    subprocess.run([*git, "remove", "--force", str(src)], capture_output=True)
    subprocess.run([*git, "add", "--detach", str(src), rev], check=True, capture_output=True)
    try:
        built = subprocess.run([str(src / "scripts/build-module.sh"), kver], check=True,
                               capture_output=True, text=True).stdout.split()[-1]
        shutil.copyfile(built, ko)
    finally:
        subprocess.run([*git, "remove", "--force", str(src)], capture_output=True)
    return str(ko)


def one_boot(k, rd, image, smp, which, work):
    """(insmod s, save s, rest s, records saved) of one boot, or None."""
    ram = h.RamFile(work / "guest.ram", 1 << 30)
    ram.write(rg.RESV, image)
    r = h.run_qemu(k, rd, ram, smp=smp, timeout=600,
                   append=f"{rg.MEMMAP} rt_ko={which}",
                   log_path=h.BUILD / f"bench-load-{which}.log")
    m = re.search(rf"^LOAD {which} ([\d.]+) ([\d.]+)$", r.log, re.M)
    stamps = [float(s) for s in STAMP.findall(r.log)]
    saved = re.search(r"saved boot \d+: (\d+) records", r.log)
    if not m or not saved or len(stamps) < 3:
        print(f"{which}: no load measured (see {h.BUILD}/bench-load-{which}.log)")
        return None
    # The first stamp is the module's first message, as its init starts.
    return (float(m[2]) - float(m[1]), stamps[-2] - stamps[0],
            stamps[-1] - stamps[-2], int(saved[1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="the revision to compare with")
    ap.add_argument("--kver", default="6.12")
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--image", default=IMAGE)
    a = ap.parse_args()
    image = read_image(a.image, "bench_load")
    k = h.kernel(a.kver)
    kos = {"base": base_module(a.base, a.kver), "tree": rg.build_all(a.kver)}
    work = h.BUILD / "bench-load"
    params = rg.PARAMS
    rd = h.Initramfs(k, work, h.init_script(BODY.format(params=params)),
                     files={f"lib/modules/rt-{w}.ko": ko for w, ko in kos.items()})
    res = {w: [] for w in kos}
    for r in range(a.rounds):
        for which in (("base", "tree") if r % 2 == 0 else ("tree", "base")):
            got = one_boot(k, rd, image, a.smp, which, work)
            if got:
                res[which].append(got)
                print(f"round {r + 1} {which}: insmod {got[0]:.2f} s, save "
                      f"{got[1]:.2f} s, then {got[2]:.2f} s, {got[3]} records saved",
                      flush=True)
    h.drop_rams(False)
    print(f"\n| module load, {a.kver}, {a.smp} CPUs, TCG, median of {a.rounds} | "
          "insmod s | save s | after the save s |\n|---|---|---|---|")
    med = {}
    for w in kos:
        if not res[w]:
            continue
        med[w] = [statistics.median(x[i] for x in res[w]) for i in range(3)]
        name = a.base if w == "base" else "this tree"
        print(f"| {name} | {med[w][0]:.2f} | {med[w][1]:.2f} | {med[w][2]:.2f} |")
    if len(med) == 2:
        print(f"| this tree / {a.base} | {med['tree'][0] / med['base'][0]:.2f} | "
              f"{med['tree'][1] / med['base'][1]:.2f} | |")
    print("Under TCG only the ratio of alternating boots means anything.")


if __name__ == "__main__":
    main()
