#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Smoke test of the QEMU harness, on 6.1 and 6.12 (smp 2).

Boot 1 loads ramoops (+ reed_solomon, from modules.dep), reads a word the host
seeded into a memmap-reserved range, writes a magic word there with devmem and
panics (sysrq c).  panic=1 reboots in the same QEMU process; boot 2 finds the
magic word and powers off.  The host then finds the magic word in the RAM file.

usage: smoke.py [6.1|6.12 ...]        (default: both)
"""
import sys
import time

import harness as h

RESV, RESV_SIZE = 0x30000000, 64 << 20          # memmap=64M$0x30000000
MAGIC, SEED = 0x52414D54, 0x5EED1234            # guest-written, host-written words
HEX = "0x{:08X}".format                         # how busybox devmem prints a word
APPEND = f"memmap={RESV_SIZE >> 20}M${RESV:#x}"  # a list arg to QEMU: no shell, no quoting

INIT = f"""
begin uname; uname -r; end uname
load_modules
begin lsmod; lsmod; end lsmod
v=$(devmem {RESV:#x} 32) || v=blocked
begin readback; echo $v; devmem {RESV + 4:#x} 32; end readback
if [ "$v" = "{HEX(MAGIC)}" ]; then
    echo "boot 2: magic survived the warm reboot"
elif [ "$v" = blocked ]; then
    echo "devmem is blocked, not crashing"
else
    devmem {RESV:#x} 32 {MAGIC:#x}
    echo "boot 1: magic written, crashing"
    echo c > /proc/sysrq-trigger
fi
"""


def smoke(kver, res):
    k = h.kernel(kver)
    work = h.BUILD / f"{kver}-smoke"
    rd = h.Initramfs(k, work, h.init_script(INIT), modules=["ramoops"])
    ram = h.RamFile(work / "guest.ram", 1 << 30)
    ram.write(RESV + 4, SEED.to_bytes(4, "little"))
    r = h.run_qemu(k, rd, ram, smp=2, append=APPEND, timeout=180,
                   log_path=h.BUILD / f"{kver}-smoke.log", marks=["=== BEGIN uname ==="])
    t = f"[{kver}]"
    err = f" stderr: {r.stderr.strip()}" if r.stderr.strip() else ""
    res.check(f"{t} QEMU exited by itself", r.rc == 0 and not r.timed_out and not r.killed,
              f"rc={r.rc} timed_out={r.timed_out}{err}")
    res.check(f"{t} 2 boots", r.boots == 2, f"boots={r.boots}")
    unames = h.sections(r.log, "uname")
    res.check(f"{t} uname -r is {k.release} on each boot",
              len(unames) == 2 and all(u.strip() == k.release for u in unames), unames)
    lsmod = h.sections(r.log, "lsmod")
    res.check(f"{t} ramoops and reed_solomon loaded, deps first",
              rd.modules == ["reed_solomon", "ramoops"] and lsmod
              and all(m in lsmod[0] for m in rd.modules), rd.modules)
    crash = r.log.find("sysrq: Trigger a crash")
    res.check(f"{t} panicked once, on purpose",
              crash > 0 and r.log.count("Kernel panic - not syncing") == 1)
    res.check(f"{t} no Oops/BUG before the crash",
              not any(s in r.log[:crash if crash >= 0 else None] for s in ("Oops", "BUG:")))
    rb = [s.split() for s in h.sections(r.log, "readback")]
    want = [HEX(SEED)]
    res.check(f"{t} devmem: guest reads the host's word, then its own after reboot",
              rb == [["0x00000000"] + want, [HEX(MAGIC)] + want], rb)
    res.check(f"{t} host sees the guest's word in the RAM file",
              ram.read(RESV, 4) == MAGIC.to_bytes(4, "little"), ram.read(RESV, 4).hex())
    boot = r.marks.get("=== BEGIN uname ===")
    print(f"     {kver}: first /init output after {boot:.1f} s, whole run {r.duration:.1f} s"
          if boot else f"     {kver}: no /init output", flush=True)


def main():
    res, t0 = h.Results(), time.monotonic()
    for kver in sys.argv[1:] or ["6.1", "6.12"]:
        smoke(kver, res)
    print(f"     total {time.monotonic() - t0:.1f} s")
    return 1 if res.summary() else 0


if __name__ == "__main__":
    sys.exit(main())
