#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ramtrail installed as a Debian user installs it, in a real Debian guest.

The root filesystem is Debian bookworm with systemd (debian-rootfs.sh,
cached). Into a copy of it, as on a real machine, `apt-get install` puts
the two packages of `make deb` (chroot, host speed): DKMS builds the module
for both kernels, the hook puts it in their initramfs. `ramtrail setup` is
the only configuration step, as for a user: a QEMU run of its own boots
the guest once to run it (no GRUB here: --no-grub; it refuses without),
then the kernel argument it printed (memmap=) and the initramfs it made
(copied out of the disk) boot the guest. Three boots on one RAM file:
  1. ramtrail is loaded from the initramfs, before the root filesystem is
     mounted; the guest crashes (sysrq-c, warm reboot);
  2. systemd-pstore has archived boot 1's files to /var/lib/systemd/pstore
     and erased them; the installed command decodes the archive, modules
     named; the package's ramtrail-collect.service has written the crash's
     trace.dat and Perfetto trace and logged its crash record, which
     systemd-journal-upload sends to systemd-journal-remote on 127.0.0.1;
     the guest crashes again;
  3. the archive holds both crashes' files, boot 1's unchanged; both
     crashes collected, logged and sent, with one signature.

  test_debian.py [--kver 6.12]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from types import SimpleNamespace

import harness as h
import ramtrail_guest as rg

HERE = h.HERE
# Nothing of ramtrail: rt-test runs ramtrail setup (--size 2M, every
# function, sched_switch), which adds memmap= and the module's options.
APPEND = "root=/dev/vda rw loglevel=6 systemd.show_status=0"
# What ramtrail setup picks in QEMU's pc machine with -m 1G, 2 MiB:
# scripts/package/test-setup.sh checks the same pick on the same map.
SETUP_ARG = "memmap=2M$0x2fc00000"


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def chroot(root, script):
    """Run a shell script in the root filesystem, /proc /sys /dev mounted."""
    mounts = [("proc", root / "proc"), ("sysfs", root / "sys"), ("/dev", root / "dev")]
    done = []
    try:
        for src, dst in mounts:
            args = ["--bind", src] if src.startswith("/") else ["-t", src, src]
            if run(["mount", *args, str(dst)]).returncode == 0:
                done.append(dst)
        return run(["chroot", str(root), "sh", "-c", script],
                   env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
                        "DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C"})
    finally:
        for dst in reversed(done):
            run(["umount", "-l", str(dst)])


def prepare(res, work):
    """The root filesystem with the packages installed, as an ext4 image:
    (image, its /boot copied out) or None."""
    p = run([str(HERE / "debian-rootfs.sh")])
    if not res.check("Debian bookworm root filesystem (mmdebstrap, cached)",
                     p.returncode == 0, p.stderr[-1500:]):
        return None
    tar = p.stdout.strip().splitlines()[-1]
    root = work / "root"
    if root.exists():
        run(["rm", "-rf", str(root)])
    root.mkdir(parents=True)
    run(["tar", "-xf", tar, "-C", str(root)], check=True)
    # The guest is amd64: its packages only.
    p = run([str(h.REPO / "scripts/package/mkdeb.sh"), str(root / "tmp/debs")],
            env=dict(os.environ, DEB_ARCHS="amd64"))
    if not res.check("make deb", p.returncode == 0, p.stderr[-800:]):
        return None
    p = chroot(root, "apt-get install -y -q /tmp/debs/*.deb 2>&1; echo rc=$?; "
               "useradd -M -G adm rtadm && echo user=ok")
    (work / "apt-install.log").write_text(p.stdout + p.stderr)
    res.check("apt-get install ./ramtrail-dkms_*.deb ./ramtrail-tools_*.deb; a user "
              "rtadm in group adm", "rc=0" in p.stdout and "user=ok" in p.stdout,
              p.stdout[-2000:])
    kernels = sorted(x.name for x in (root / "lib/modules").iterdir())
    p = chroot(root, "dkms status ramtrail")
    inst = re.findall(r"^ramtrail/[^,]+, (\S+), x86_64: installed", p.stdout, re.M)
    res.check("DKMS built and installed ramtrail for every kernel",
              len(kernels) == 2 and sorted(inst) == kernels, (kernels, p.stdout))
    p = chroot(root, "for k in /lib/modules/*; do k=${k##*/}; echo \"== $k\"; "
               "lsinitramfs /boot/initrd.img-$k | grep -E 'ramtrail'; done")
    got = p.stdout.split("== ")[1:]
    res.check("each kernel's initramfs holds ramtrail.ko and its init-top script",
              len(got) == 2 and all("ramtrail.ko" in g and "scripts/init-top/ramtrail" in g
                                    for g in got), p.stdout)
    # The test steps, a service after systemd-pstore; no getty on the console.
    (root / "var/lib/rt-test").mkdir(parents=True, exist_ok=True)
    shutil.copy(HERE / "debian/rt-test", root / "usr/local/sbin/rt-test")
    os.chmod(root / "usr/local/sbin/rt-test", 0o755)
    shutil.copy(HERE / "debian/rt-test.service", root / "etc/systemd/system/")
    wants = root / "etc/systemd/system/multi-user.target.wants"
    wants.mkdir(parents=True, exist_ok=True)
    os.symlink("/etc/systemd/system/rt-test.service", wants / "rt-test.service")
    os.symlink("/dev/null", root / "etc/systemd/system/serial-getty@ttyS0.service")
    # A fleet's log shipping, on the loopback address: journal-upload sends
    # this machine's journal to journal-remote (plain HTTP, no certificates).
    d = root / "etc/systemd/system/systemd-journal-remote.service.d"
    d.mkdir(parents=True, exist_ok=True)
    (d / "http.conf").write_text("[Service]\nExecStart=\nExecStart=/lib/systemd/systemd-journal-remote "
                                 "--listen-http=-3 --output=/var/log/journal/remote/\n")
    d = root / "etc/systemd/journal-upload.conf.d"
    d.mkdir(parents=True, exist_ok=True)
    (d / "loopback.conf").write_text("[Upload]\nURL=http://127.0.0.1:19532\n")
    p = chroot(root, "systemctl enable systemd-journal-remote.socket "
               "systemd-journal-upload.service 2>&1; echo rc=$?")
    res.check("journal-remote (HTTP on 127.0.0.1:19532) and journal-upload enabled",
              "rc=0" in p.stdout, p.stdout[-500:])
    shutil.rmtree(root / "tmp/debs")
    img = work / "root.ext4"
    img.unlink(missing_ok=True)
    p = run(["mkfs.ext4", "-q", "-F", "-L", "root", "-d", str(root), str(img), "4G"])
    if not res.check("ext4 image of the root filesystem", p.returncode == 0, p.stderr):
        return None
    # QEMU boots the kernels and initramfs from outside the image: keep
    # those, not the 1.2 GB tree.
    boot = work / "boot"
    shutil.rmtree(boot, ignore_errors=True)
    shutil.copytree(root / "boot", boot)
    run(["rm", "-rf", str(root)])
    return img, boot


def sec(log, name, boot):
    s = h.sections(log, name)
    return s[boot] if boot < len(s) else ""


def check_journal(res, t, adm, ranges):
    """What rtadm (group adm) reads in the journal, and the files
    systemd-pstore logged there, hold no address of the running kernel or
    its modules (rt-test's journal_adm and ranges)."""
    num = lambda key: [int(x) for x in re.findall(rf"^{key} (\d+)", adm, re.M)]
    logged = [(n, int(a), int(b)) for n, a, b in
              re.findall(r"^file (\S+) (\d+) logged (\d+)$", adm, re.M)]
    whole = [n for n, size, got in logged if 0 < size <= got]
    res.check(f"{t}: rtadm, in group adm, reads the trace's files in the journal "
              "(systemd-pstore logged them), the crash path named",
              re.search(r"groups=.*\(adm\)", adm) and whole and
              num("named") and num("named")[0] > 0,
              f"{len(whole)} of {len(logged)} logged whole, not: "
              f"{[x for x in logged if x[0] not in whole][:4]} {adm[:300]}")
    syms = {}
    for line in ranges.splitlines():
        f = line.split()
        if len(f) >= 3:
            syms.setdefault(f[2], int(f[0], 16))
    mods = [int(x.split()[0], 16) for x in ranges.splitlines() if x.rstrip().endswith("]")]
    spans = ([(syms["_text"], syms["_end"])] if {"_text", "_end"} <= syms.keys() else []) + \
        ([(min(mods), max(mods) + (1 << 20))] if mods else [])
    words = [int(w, 16) for w in re.findall(r"^word (?:0x)?([0-9a-f]+)$", adm, re.M)]
    leak = [f"{w:x}" for w in words if any(a <= w < e for a, e in spans)]
    res.check(f"{t}: no address of the running kernel or its modules in what rtadm "
              f"reads or in the files logged ({len(words)} kernel-looking values checked against "
              f"{len(spans)} ranges)", len(spans) == 2 and num("messages") and
              not leak, (leak[:4], spans))


CRASH_ID = "5160ece0466c4b9bb1358cb46880f020"


def json_lines(text):
    """The JSON objects of `journalctl -o json`, one a line."""
    out = []
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def check_collect(res, t, log, i, boot, rel, cpu, signatures):
    """What ramtrail-collect.service made of the archive at boot `boot`
    (section index i): a folder a crash with trace.dat and the Perfetto
    trace, one journal entry a crash (every field, no address), the same
    entries at journal-remote, sent by journal-upload."""
    text = sec(log, "collected", i)
    dirs = {m[0]: [int(x) for x in m[1:]] for m in
            re.findall(r"^dir (\S+) (\d+) (\d+) (\d+)\s*$", text, re.M)}
    local = [e for e in json_lines(text) if e.get("MESSAGE_ID") == CRASH_ID]
    res.check(f"{t}: ramtrail-collect.service ran after systemd-pstore, succeeded",
              "Result=success" in text and "ExecMainStatus=0" in text, text[:300])
    boots = sorted(int(e.get("RAMTRAIL_BOOT", 0)) for e in local)
    res.check(f"{t}: the journal lists every crash so far, one entry each "
              "(journalctl MESSAGE_ID=... -o json)", boots == list(range(1, boot)), boots)
    e = next((x for x in local if x.get("RAMTRAIL_BOOT") == str(boot - 1)), {})
    fn = e.get("RAMTRAIL_FUNCTIONS", "").split()
    # Every function is traced: panic(), where recording froze, is the
    # newest; the crash function and the printk of its message before.
    res.check(f"{t}: boot {boot - 1}'s crash entry: release, build, frozen by the crash on "
              "its CPU, in rt-test, 8 functions from panic back to sysrq_handle_crash "
              "and before, counts",
              e.get("RAMTRAIL_RELEASE") == rel and e.get("RAMTRAIL_BUILD", "").startswith("#")
              and e.get("RAMTRAIL_STATE") == "frozen" and
              e.get("RAMTRAIL_REASON") in ("panic", "oops") and
              e.get("RAMTRAIL_CPU") == str(cpu) and e.get("RAMTRAIL_TASK") == "rt-test" and
              e.get("RAMTRAIL_PID", "").isdigit() and len(fn) == 8 and
              fn[0] == "panic" and "sysrq_handle_crash" in fn[1:6] and
              re.fullmatch(r"[0-9a-f]{16}", e.get("RAMTRAIL_SIGNATURE", "")) and
              int(e.get("RAMTRAIL_RECORDS", 0)) > 1000 and e.get("RAMTRAIL_LOST") == "0" and
              e.get("PRIORITY") == "2" and e.get("SYSLOG_IDENTIFIER") == "ramtrail",
              {k: v for k, v in e.items() if not k.startswith("_")})
    tr = e.get("RAMTRAIL_TRACE", "")
    res.check(f"{t}: trace.dat and the Perfetto trace written under /var/lib/ramtrail/"
              "TRACE/, their paths in the entry",
              tr in dirs and dirs[tr][0] > 4096 and dirs[tr][1] > 4096 and
              e.get("RAMTRAIL_TRACE_DAT") == f"/var/lib/ramtrail/{tr}/trace.dat" and
              e.get("RAMTRAIL_PERFETTO") == f"/var/lib/ramtrail/{tr}/trace.pftrace",
              (tr, dirs))
    user = json.dumps([{k: v for k, v in x.items() if not k.startswith("_")} for x in local])
    res.check(f"{t}: no kernel address in the crash entries",
              local and not re.search(r"\b(0x)?ffff[0-9a-f]{12}\b", user), user[:300])
    remote = sec(log, "remote", i)
    fields = lambda x: {k: v for k, v in x.items() if k == "MESSAGE" or
                        k.startswith("RAMTRAIL_") or k == "MESSAGE_ID"}
    # journal-upload may send an entry again after a crash (its cursor
    # not saved): the same entry twice is one.
    got = sorted({json.dumps(fields(x), sort_keys=True): fields(x)
                  for x in json_lines(remote)}.values(),
                 key=lambda x: int(x.get("RAMTRAIL_BOOT", 0)))
    want = sorted((fields(x) for x in local), key=lambda x: int(x.get("RAMTRAIL_BOOT", 0)))
    res.check(f"{t}: journal-upload carried every crash entry to journal-remote on "
              "127.0.0.1, every field", want and got == want,
              (remote.splitlines()[:1], len(got), len(want)))
    if e.get("RAMTRAIL_SIGNATURE"):
        signatures.append(e["RAMTRAIL_SIGNATURE"])


def setup(res, t, k, kern, boot, disk, ram, work, smp):
    """Boot 0, a QEMU run of its own: ramtrail setup in the guest (rt-test,
    until /etc/modprobe.d/ramtrail-setup.conf exists). Returns the kernel
    argument it printed and the initramfs it made, copied out of the
    disk, or None."""
    rel = k.release
    r = h.run_qemu(kern, boot / f"initrd.img-{rel}", ram, smp=smp, append=APPEND,
                   timeout=900, log_path=h.BUILD / f"{k.kver}-smp{smp}-debian-setup.log",
                   extra=["-drive", f"file={disk},if=virtio,format=raw"])
    print(f"     {t} setup: {r.duration:.0f} s in QEMU", flush=True)
    log = r.log
    nogrub = sec(log, "setup-grub", 0)
    res.check(f"{t} setup: without GRUB, ramtrail setup refuses (status 5) and says "
              "--no-grub", "rc=5" in nogrub and "--no-grub" in nogrub, nogrub[-500:])
    out = sec(log, "setup", 0)
    arg = re.findall(r"^kernel argument: (memmap=\S+)$", out, re.M)
    if not res.check(f"{t} setup: ramtrail setup --no-grub --size 2M: {SETUP_ARG} (the top "
                     "of RAM under the initramfs's 256 MiB), the options written, the "
                     "initramfs updated; one boot, power off",
                     r.rc == 0 and r.boots == 1 and "rc=0" in out and arg == [SETUP_ARG] and
                     "options ramtrail mem_address=0x2fc00000 mem_size=2M functions=* "
                     "events=sched:sched_switch" in sec(log, "setup-conf", 0),
                     (rg.brief(r), out[-1500:])):
        return None
    initrd = work / f"initrd.img-{rel}.setup"
    initrd.unlink(missing_ok=True)
    p = run(["debugfs", "-R", f"dump /boot/initrd.img-{rel} {initrd}", str(disk)])
    if not res.check(f"{t} setup: its initramfs copied out of the disk (debugfs)",
                     p.returncode == 0 and initrd.exists() and initrd.stat().st_size > 1 << 20,
                     p.stderr[-300:]):
        return None
    return arg[0], initrd


def scenario(res, k, img, boot, work, smp=2):
    t = f"[{k.kver} smp{smp} debian]"
    disk = work / f"disk-{k.kver}.ext4"
    run(["cp", "--sparse=always", str(img), str(disk)], check=True)   # each kernel its own
    rel = k.release
    kern = SimpleNamespace(vmlinuz=str(boot / f"vmlinuz-{rel}"))
    ram = h.RamFile(work / f"guest-{k.kver}.ram", 1 << 30)
    got = setup(res, t, k, kern, boot, disk, ram, work, smp)
    if not got:
        disk.unlink()
        return
    arg, initrd = got
    r = h.run_qemu(kern, initrd, ram, smp=smp, append=f"{APPEND} {arg}",
                   timeout=900, log_path=h.BUILD / f"{k.kver}-smp{smp}-debian.log",
                   extra=["-drive", f"file={disk},if=virtio,format=raw"])
    disk.unlink()
    initrd.unlink()
    print(f"     {t} {r.duration:.0f} s in QEMU", flush=True)
    log = r.log
    res.check(f"{t} three boots (two crashes), power off", r.rc == 0 and r.boots == 3 and
              not r.timed_out, rg.brief(r))
    # boot 1: from the initramfs, before the root filesystem is mounted
    mods = sec(log, "modules", 0).split()
    klog = sec(log, "klog", 0)
    at = lambda s: min([i for i, x in enumerate(klog.splitlines()) if s in x] or [10**6])
    res.check(f"{t} boot 1: ramtrail loaded, {rel}", "ramtrail" in mods and
              sec(log, "uname", 0).strip() == rel, (sec(log, "uname", 0), mods[:8]))
    res.check(f"{t} boot 1: ramtrail loaded from the initramfs, before the root "
              "filesystem was mounted", at("ramtrail: boot") < at("EXT4-fs (vda)") < 10**6,
              klog)
    unit = sec(log, "pstore-unit", 0)
    res.check(f"{t} systemd-pstore is enabled (Debian's default)",
              unit.split("\n")[0].strip() in ("enabled", "static"), unit)
    # boot 2: systemd-pstore archived boot 1's files and erased them
    # the names of the files archived, as boot i + 1 lists them ("SIZE PATH")
    archived = lambda i: sorted(os.path.basename(p.split()[-1])
                                for p in sec(log, "archive", i).splitlines() if p)
    names2 = archived(1)
    res.check(f"{t} boot 2: systemd-pstore archived ftrace, console and dmesg files",
              any(n.startswith("ftrace-ramtrail-") for n in names2) and
              any(n.startswith("console-ramtrail-") for n in names2) and
              any(n.startswith("dmesg-ramtrail-") for n in names2), names2)
    sysfs = sec(log, "sysfs", 1).split()
    res.check(f"{t} boot 2: and erased them from /sys/fs/pstore",
              not [n for n in sysfs if "ramtrail" in n], sysfs)
    st = rg.parse_status(sec(log, "status", 1))
    res.check(f"{t} boot 2: the region holds no trace shown any more (erase freed it)",
              st.get("trace") == [] and "boot_id" in st, sec(log, "status", 1))
    enabled = sec(log, "collect-unit", 0).split()
    res.check(f"{t} the package enabled ramtrail-collect.service; journal-upload and "
              "journal-remote's socket enabled", enabled == ["enabled"] * 3, enabled)
    signatures = []
    # Sections printed from boot 2 on: index 0 is boot 2's, 1 boot 3's.
    for i, boot in ((0, 2), (1, 3)):
        b = f"boot {boot}: boot {boot - 1}'s archived trace"
        first, after = rg.first_file(boot - 1), rg.first_file(boot)
        parts = [n for n in archived(boot - 1) if n.startswith("ftrace-ramtrail-") and
                 first <= int(n.rsplit("-", 1)[1]) < after]
        res.check(f"{t} {b}: in several parts (ftrace files), all given to the command",
                  len(parts) >= 2, parts)
        count = sec(log, "decode-count", i).split()
        tail = rg.parse_text(sec(log, "decode-tail", i))
        res.check(f"{t} {b}: the installed command decodes it",
                  count[:1] == ["rc=0"] and len(count) == 2 and int(count[1]) > 1000 and
                  tail, count)
        crash = [x for x in tail if x[5].startswith("sysrq_handle_crash")]
        res.check(f"{t} {b}: ends on the crash path",
                  crash and tail[-1][2] == crash[-1][2], tail[-3:])
        mod = [x for x in rg.parse_text(sec(log, "ext4", i))
               if re.match(r"ext4_[\w.]+( \[ext4\])? <-", x[5])]
        res.check(f"{t} {b}: functions of ext4 (a module loaded from the initramfs, "
                  "after ramtrail) named", len(mod) == 20, mod[:3])
        exp = sec(log, "export", i).split()
        res.check(f"{t} {b}: ramtrail export writes trace.dat",
                  exp[-2:-1] == ["rc=0"] and int(exp[-1]) > 4096, exp)
        check_journal(res, f"{t} boot {boot}", sec(log, "journal-adm", i),
                      sec(log, "ranges", i))
        check_collect(res, f"{t} boot {boot}", log, i, boot, rel,
                      tail[-1][2] if tail else None, signatures)
    res.check(f"{t} the two crashes (the same sysrq path) have one signature",
              len(signatures) == 2 and signatures[0] == signatures[1], signatures)
    # boot 3: nothing archived earlier lost, nothing twice
    md5_2 = dict(reversed(x.split()) for x in sec(log, "md5", 1).splitlines() if x)
    md5_3 = dict(reversed(x.split()) for x in sec(log, "md5", 2).splitlines() if x)
    lost = [p for p in md5_2 if md5_3.get(p) != md5_2[p]]
    res.check(f"{t} boot 3: boot 1's archived files are still there, unchanged",
              md5_2 and not lost, lost)
    new = [p for p in md5_3 if p not in md5_2 and "ftrace-ramtrail" in p]
    res.check(f"{t} boot 3: boot 2's trace archived beside them", new, sorted(md5_3))
    dup = [v for v in set(md5_3.values()) if list(md5_3.values()).count(v) > 1]
    res.check(f"{t} boot 3: no file archived twice", not dup, dup)
    rg.no_oops(res, t, log)
    h.drop_rams(res.failed > 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kver", default="6.12")
    a = ap.parse_args()
    res = h.Results()
    work = h.BUILD / "debian"
    work.mkdir(parents=True, exist_ok=True)
    got = prepare(res, work)
    if got:
        for kver in a.kver.split(","):
            scenario(res, h.kernel(kver), *got, work)
        if not res.failed:
            got[0].unlink()                  # the image: 1.3 GB of disk
    return 1 if res.summary() else 0


if __name__ == "__main__":
    sys.exit(main())
