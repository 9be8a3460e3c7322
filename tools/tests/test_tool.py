#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The ramtrail command on images the real writer made (tools/tests/mkimage.c
says what they hold and writes what decode must print), and on broken ones.

usage: test_tool.py BUILD_DIR     (holds ramtrail and mkimage)
"""
import json
import lzma
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
BIN = Path(sys.argv[1]) if len(sys.argv) > 1 else TOP / "build" / "tools"
TOOL = BIN / "ramtrail"
# ftrace's "trace" line: "%16s-%-7d [CPU] flags %5lu.%06lu: text"
LINE = re.compile(r"^(.{16})-(\d+|\?) *\[(\d+)\] (.{5}) +(\d+\.\d{6}): (.*)$")
RAM_OFFSET = 0x300000
UAPI = (TOP / "include/uapi/linux/ramtrail.h").read_text()
# The format version the tools read and write, from the one definition.
VERSION = int(re.search(r"#define RAMTRAIL_VERSION\s+(\d+)", UAPI)[1])
SAVED_MAGIC = int(re.search(r"#define RAMTRAIL_SAVED_MAGIC\s+(0x[0-9a-f]+)", UAPI)[1], 16)


def struct_offsets(name):
    """Field offsets of a struct of __le32, __le64 and char arrays in the
    uapi header (no padding: format_asserts.h checks the same), and its
    size as "size"."""
    body = re.search(rf"struct {name} {{(.*?)\n}};", UAPI, re.S)[1]
    off, at = {}, 0
    for typ, field, n in re.findall(r"(__le64|__le32|char) (\w+)(?:\[(\d+)\])?;", body):
        off[field] = at
        at += {"__le64": 8, "__le32": 4, "char": 1}[typ] * int(n or 1)
    return off, at


ENTRY, ENTRY_SIZE = struct_offsets("ramtrail_module_entry")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from check import Results  # noqa: E402
RESULTS = Results(ok_limit=0)
check = RESULTS.check


def run(*args):
    return subprocess.run([str(TOOL), *map(str, args)], capture_output=True,
                          text=True, errors="replace")


def usec(ns):
    us = (ns + 500) // 1000
    return f"{us // 1000000}.{us % 1000000:06d}"


def records(out):
    """decode output -> ["CPU TIME TEXT"], the form of expect.txt."""
    return [f"{int(m[3])} {m[5]} {m[6]}" for m in map(LINE.match, out.splitlines())
            if m]


def lines_of(out):
    """decode output -> its record lines, whole."""
    return [x for x in out.splitlines() if LINE.match(x)]


def report(dat, *opts):
    return subprocess.run(["trace-cmd", "report", *opts, str(dat)], capture_output=True,
                          text=True, errors="replace")


# A line of trace-cmd report: "comm-pid [cpu] time: event: text", and with
# -l "comm-pid cpu+flags time: event: text" (libtraceevent's columns).
REPORT = re.compile(r"^ *(\S.*?)-(-?\d+) +\[(\d+)\] +(\d+\.\d{6}): (\w+): +(.*)$")
REPORT_LAT = re.compile(r"^ *(\S.*?)-(-?\d+) +(\d)(.{3})\S* +(\d+\.\d{6}): (\w+): +(.*)$")


def kernel_event(text):
    """'sched_switch: a=1 ...' -> 'sched_switch' for the kernel's events."""
    m = re.match(r"(\w+): ", text)
    return m[1] if m and m[1] != "ramtrail_event" else None


def stats_json(path):
    """ramtrail stats --format json -> (rc, object or None, stderr)."""
    p = run("stats", path, "--format", "json")
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except ValueError as e:
        return p.returncode, None, f"{p.stderr} {e} {p.stdout[:300]}"


def stats_as_text(j):
    """The text stats, rebuilt from the JSON object: same facts, same keys."""
    span = lambda o: f"records {o['records']} first_ns {o['first_ns']} last_ns {o['last_ns']}"
    if j["source"] == "pstore":
        return "".join(f"{x}\n" for x in ["source pstore", f"nr_cpus {j['nr_cpus']}",
                                           span(j)] +
                       [f"cpu{c['cpu']} {span(c)}" for c in j["cpus"]])
    off = j["region_offset"]
    out = [f"region_offset {hex(off) if off else 0}", f"version {j['version']}"]
    if "header_error" in j:
        out += [f"{k} {j[k]}" for k in ("header_error", "saved_offset", "saved_size",
                                        "saved_refused")]
    else:
        kv = dict(j, release=j["release"] or "?", build=j["build"] or "?",
                  clock_reliable=int(j["clock_reliable"]))
        out += [f"{k} {kv[k]}" for k in (
            "boot_id", "release", "build", "machine", "state", "freeze_reason", "freeze_cpu",
            "clock_reliable", "clock_hz", "mode", "nr_cpus", "nr_blocks", "zone_offset",
            "zone_size", "saved_offset", "saved_size", "saved_refused")]
        out += [f"module {m['name'] or '-'} base {hex(m['base'])} size {m['size']}"
                f"{' gone' if m['gone'] else ''}{' init' if m['init'] else ''}"
                f"{' full' if m['full'] else ''}{' kernel' if m['kernel'] else ''}"
                for m in j["modules"]]
        z = j["zones"]
        out += [f"zones_{span(z)}", f"zones_span_ns {z['span_ns']}"]
        out += [f"cpu{c['cpu']} " + " ".join(f"{k} {c[k]}" for k in (
            "records", "corrupt_blocks", "sealed_blocks", "tail_sealed", "torn",
            "lost_words", "no_base", "lost_refs",
            "ts_backwards", "dropped", "freeze_pos", "first_ns", "last_ns", "newest_block"))
            for c in z["cpus"]]
    out += [f"saved boot {t['boot_id']} records {t['records']} damaged_chunks "
            f"{t['damaged_chunks']} damaged_records {t['damaged_records']} corrected_chunks "
            f"{t['corrected_chunks']} cpus {t['cpus']} "
            f"erased {int(t['erased'])} " + " ".join(f"{k} {t[k]}" for k in (
                "state", "freeze_reason", "dropped", "corrupt_blocks", "torn",
                "lost_words", "no_time", "skipped", "release")) for t in j["saved"]]
    return "".join(x + "\n" for x in out)


def saved_entry(boot, nr_records, erased=0, release="6.1.0-test", state=3, reason=1,
                cpu=1, skipped=0):
    """A struct ramtrail_saved_trace (include/uapi/linux/ramtrail.h) and its
    one chunk of function records, ip 0x40 at 1000 + i ns on CPU i % 2, as
    the module writes them into the saved area."""
    nonce = 0x1234
    ents = bytearray()
    for i in range(nr_records):
        if i == 0:      # CPU 0, a new pair: a new offset 0x40, no caller
            ents += bytes([0x10 | 0x08, 0, 0x02]) + struct.pack("<I", 0x40)
        else:           # CPU i % 2, 1 ns later, pair 0
            ents += bytes([(i % 2 + 1) << 4 | 0x04, 1, 0])
    head = struct.pack("<IQQII", len(ents), 0, 1000, nr_records, 0)
    crc = zlib.crc32(struct.pack("<QQ", boot, nonce) + ents + head)
    chunk = struct.pack("<I", crc) + head + ents
    chunk += bytes(-len(chunk) % 8)
    chunk += bytes(max(0, 512 - len(chunk)))       # one whole slot, no parity
    layout = "<QQQQQQIIIIIIQQQQQQIIQII64s64s"
    parity = bytes(32)  # RAMTRAIL_SAVED_HEAD_PARITY: none here, the header's checksum holds
    size = 16 + struct.calcsize(layout) + len(parity) + len(chunk)
    fields = struct.pack(layout, size, boot, nonce, nr_records,
                         0xffffffff81000000, 0xffffffff81001000, 2, state, reason,
                         cpu, 0, 0, 7, 0, 0, 0, 0, skipped,
                         len(chunk), 1, 1, 0, 0, release.encode(), b"#1 SMP")
    crc = zlib.crc32(struct.pack("<IIQ", SAVED_MAGIC, 0, 0) + fields)
    return struct.pack("<IIQ", SAVED_MAGIC, crc, erased) + fields + parity + chunk


def devices(ram, smap, expect):
    """A device has no end: read a window of it, never the whole."""
    p = subprocess.run(["timeout", "20", str(TOOL), "decode", "/dev/zero"],
                       capture_output=True, text=True)
    check("a device without --offset: refused at once, not read to no end",
          p.returncode == 1 and "--offset" in p.stderr, (p.returncode, p.stderr))
    p = subprocess.run(["timeout", "20", str(TOOL), "decode", "/dev/zero",
                        "--offset", "0x100000"], capture_output=True, text=True)
    check("a device with --offset: only its window is read (no region there)",
          p.returncode == 3 and "region at 0x100000" in p.stderr,
          (p.returncode, p.stderr))
    p = run("decode", "/dev/null", "--offset", "0x1000")
    check("a device that ends before --offset: nothing to read there",
          p.returncode == 3 and "nothing to read at 0x1000" in p.stderr, p.stderr)
    lo = subprocess.run(["losetup", "-f", "--show", "-r", str(ram)],
                        capture_output=True, text=True)
    if lo.returncode:
        RESULTS.skip("a region on a block device (losetup: "
                     f"{lo.stderr.strip() or 'none'})")
        return
    dev = lo.stdout.strip()
    try:
        p = run("decode", dev, "--offset", hex(RAM_OFFSET), "--system-map",
                smap, "--sym-offset")
        q = run("stats", dev, "--offset", hex(RAM_OFFSET), "--format", "json")
        offset = json.loads(q.stdout).get("region_offset") if q.returncode == 0 else None
        check("a region on a block device: read from its header's size, the "
              "records and the region's address those of the image",
              p.returncode == 0 and records(p.stdout) == expect and
              offset == RAM_OFFSET, (p.stderr, q.stderr, offset))
    finally:
        subprocess.run(["losetup", "-d", dev])


def fake_ko(path, name, text, init):
    """A minimal kernel module (ELF relocatable) named `name`: .text and
    .init.text of the sizes given, each with its functions at the offsets
    given; text and init are {size, [(offset, name)]}."""
    shstr = b"\0.text\0.init.text\0.modinfo\0.symtab\0.strtab\0.shstrtab\0"
    sname = lambda n: shstr.index(n.encode() + b"\0")
    strtab, syms = b"\0", [bytes(24)]
    for shndx, (_, funcs) in ((1, text), (2, init)):
        for off, fn in funcs:
            syms.append(struct.pack("<IBBHQQ", len(strtab), 0x12, 0, shndx, off, 0x10))
            strtab += fn.encode() + b"\0"
    modinfo = f"license=GPL\0name={name}\0".encode()
    body = [bytes(text[0]), bytes(init[0]), modinfo, b"".join(syms), strtab, shstr]
    off, blobs, where = 64, b"", []
    for b in body:
        off += (-off) % 16
        blobs += bytes((64 + len(blobs) + (-(64 + len(blobs))) % 16) - 64 - len(blobs))
        where.append(64 + len(blobs))
        blobs += b
        off = 64 + len(blobs)
    shoff = 64 + len(blobs) + (-(64 + len(blobs))) % 8
    pad = bytes(shoff - 64 - len(blobs))
    sh = [bytes(64)]
    # (name, type, flags, link, info, entsize) of sections 1..6
    kinds = [(".text", 1, 6, 0, 0, 0), (".init.text", 1, 6, 0, 0, 0),
             (".modinfo", 1, 2, 0, 0, 0), (".symtab", 2, 0, 5, 1, 24),
             (".strtab", 3, 0, 0, 0, 0), (".shstrtab", 3, 0, 0, 0, 0)]
    for (n, typ, flags, link, info, ent), at, b in zip(kinds, where, body):
        sh.append(struct.pack("<IIQQQQIIQQ", sname(n), typ, flags, 0, at, len(b),
                              link, info, 16, ent))
    ehdr = (b"\x7fELF\x02\x01\x01" + bytes(9) +
            struct.pack("<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64,
                        len(sh), 6))
    path.write_bytes(ehdr + blobs + pad + b"".join(sh))


def sym_hash(syms):
    """RAMTRAIL_MOD_SYMS's hash of [(offset, name)], written again here
    from its definition (CRC32 of the name, splitmix64's finaliser, a sum)."""
    m, h = (1 << 64) - 1, 0
    for off, name in syms:
        v = (((~zlib.crc32(name.encode())) & 0xffffffff) << 32) ^ off
        v ^= v >> 30
        v = v * 0xbf58476d1ce4e5b9 & m
        v ^= v >> 27
        v = v * 0x94d049bb133111eb & m
        v ^= v >> 31
        h = (h + v) & m
    return h


def kernel_entry(img):
    """(offset, funcs_hash) of the module table's kernel entry
    (RAMTRAIL_MOD_KERNEL, named vmlinux) in a region image."""
    at = img.index(b"vmlinux\0") - 32
    return at, struct.unpack_from("<Q", img, at + ENTRY["funcs_hash"])[0]


def map_moved(smap, name, by):
    """A System.map's text with symbol `name` `by` bytes further."""
    return re.sub(rf"^([0-9a-f]+)( T {name})$",
                  lambda m: f"{int(m[1], 16) + by:016x}{m[2]}", smap.read_text(), flags=re.M)


def build_checks(work, region, smap, expect):
    """The kernel entry's hash, computed again here from its definition over
    the map (each of RAMTRAIL_KERNEL_FUNCS by name and place from panic);
    a map of another build of the same release is refused."""
    hdr = (Path(__file__).parents[2] / "include/uapi/linux/ramtrail.h").read_text()
    funcs = re.findall(r'"(\w+)"', hdr.split("#define RAMTRAIL_KERNEL_FUNCS {")[1]
                       .split("}")[0])
    addr = {n: int(a, 16) for a, t, n in
            (line.split() for line in smap.read_text().splitlines()) if t in "TW"}
    img = region.read_bytes()
    _, h = kernel_entry(img)
    check("build: the kernel entry's hash is its definition's over the traced map",
          len(funcs) > 16 and h == sym_hash([(addr[f] - addr["panic"], f) for f in funcs]),
          (len(funcs), hex(h)))
    for name, moved in ((funcs[-1], 0x10), (funcs[len(funcs) // 2], -0x40)):
        other = work / f"map-moved-{name}"
        other.write_text(map_moved(smap, name, moved))
        p = run("decode", region, "--system-map", other)
        check(f"build: a map of another build of the release, {name} {moved:+#x} "
              "bytes from panic, is refused (exit 4)",
              p.returncode == 4 and not records(p.stdout) and
              "another build" in p.stderr, f"rc={p.returncode} {p.stderr}")
    less = work / "map-less"
    less.write_text(re.sub(rf"^.* T {funcs[0]}\n", "", smap.read_text(), flags=re.M))
    p = run("decode", region, "--system-map", less)
    check(f"build: a map without {funcs[0]} cannot be checked: refused (exit 4)",
          p.returncode == 4 and f"has no {funcs[0]}" in p.stderr, f"rc={p.returncode} {p.stderr}")
    # A static of an exported function's name is another function.
    local = work / "map-local"
    local.write_text(smap.read_text().replace(f" T {funcs[1]}\n", f" t {funcs[1]}\n"))
    p = run("decode", region, "--system-map", local)
    check(f"build: a local {funcs[1]} is not the exported one: refused (exit 4)",
          p.returncode == 4 and f"has no {funcs[1]}" in p.stderr, f"rc={p.returncode} {p.stderr}")
    bad = bytearray(img)
    at, _ = kernel_entry(img)
    bad[at + 16] ^= 1
    damaged = work / "region-kernel-damaged.img"
    damaged.write_bytes(bad)
    p = run("decode", damaged, "--system-map", smap)
    check("build: a damaged kernel entry leaves the build unknown: refused (exit 4)",
          p.returncode == 4 and "damaged" in p.stderr, f"rc={p.returncode} {p.stderr}")
    # The kernel flag cleared: no longer a kernel entry, and a damaged one.
    struct.pack_into("<I", bad, at + 24, 0)
    bad[at + 16] ^= 1
    damaged.write_bytes(bad)
    p = run("decode", damaged, "--system-map", smap, "--sym-offset")
    check("build: a kernel entry with its flag cleared is damaged, names nothing; "
          "the map names the kernel as for a trace before 0.15",
          p.returncode == 0 and records(p.stdout) == expect, p.stderr)


def with_syms_hash(region, name, value):
    """The image with module entry `name`'s funcs_hash `value`, its
    checksum made again."""
    img = bytearray(region.read_bytes())
    at = img.index(name.encode() + b"\0") - 32     # the entry's name is at +32
    struct.pack_into("<Q", img, at + ENTRY["funcs_hash"], value)
    flags = struct.unpack_from("<I", img, at + 24)[0]
    struct.pack_into("<II", img, at + 24, 0, 0)
    crc = zlib.crc32(bytes(img[at:at + ENTRY_SIZE]))
    struct.pack_into("<II", img, at + 24, flags, crc)
    return img


def init_text_names(work, region, smap, expect):
    """Names from .ko files where a module's init text, once ended, was
    taken by a later module (mkimage: rt_inita's init, then rt_initb)."""
    ko = work / "ko"
    ko.mkdir()
    fake_ko(ko / "rt_inita.ko", "rt_inita", (0, []), (0x200, [(0, "rt_inita_init")]))
    fake_ko(ko / "rt_initb.ko", "rt_initb", (0x800, [(0, "rt_initb_poke"),
                                                     (0x40, "rt_initb_two")]), (0, []))

    def named(e):
        e = re.sub(r"\[rt_inita\]\.init\+0x([0-9a-f]+)$",
                   lambda m: f"rt_inita_init+0x{int(m[1], 16):x}/0x1000 [rt_inita]", e)
        return re.sub(r"\[rt_initb\]\+0x([0-9a-f]+)$", lambda m: (
            f"rt_initb_poke+0x{int(m[1], 16):x}/0x40 [rt_initb]" if int(m[1], 16) < 0x40
            else f"rt_initb_two+0x{int(m[1], 16) - 0x40:x}/0xfc0 [rt_initb]"), e)
    want = [named(e) for e in expect]
    p = run("decode", region, "--system-map", smap, "--modules", ko, "--sym-offset")
    got = records(p.stdout)
    inits = [x for x in want if "rt_init" in x]
    check("symbols: a caller in a module's init text and one in the module loaded "
          "there after it ended, each named from its own .ko",
          p.returncode == 0 and got == want and
          any("rt_inita_init" in x for x in inits) and
          any("rt_initb_" in x for x in inits),
          f"rc={p.returncode} {p.stderr} "
          f"{next(((a, b) for a, b in zip(got, want) if a != b), len(got))}")
    p = run("kallsyms", region, "--system-map", smap, "--modules", ko)
    mods = re.findall(r"^([0-9a-f]+) [tT] (\S+)\t\[(\w+)\]$", p.stdout, re.M)
    check("kallsyms: the later module's functions, not the init text it took",
          p.returncode == 0 and sorted(n for _, n, _ in mods) ==
          ["rt_initb_poke", "rt_initb_two"], (p.returncode, p.stderr, mods))
    # The table keeps the hash of the traced build's functions: the .ko of
    # that build names, another (a function moved by 8 bytes) does not.
    traced = [(0, "rt_initb_poke"), (0x40, "rt_initb_two")]
    other = ko.parent / "ko-other"
    other.mkdir()
    shutil.copy(ko / "rt_inita.ko", other)
    fake_ko(other / "rt_initb.ko", "rt_initb", (0x800, [(0, "rt_initb_poke"),
                                                        (0x48, "rt_initb_two")]), (0, []))
    hashed = work / "syms-hash.img"
    hashed.write_bytes(with_syms_hash(region, "rt_initb", sym_hash(traced)))
    p = run("decode", hashed, "--system-map", smap, "--modules", ko, "--sym-offset")
    q = run("decode", hashed, "--system-map", smap, "--modules", other, "--sym-offset")
    got = records(q.stdout)
    check("symbols: the .ko of the traced build names its module, another build "
          "of the same sizes names nothing there, and says why",
          p.returncode == 0 and records(p.stdout) == want and not p.stderr and
          q.returncode == 0 and "another build" in q.stderr and
          got == [w if "rt_inita_init" in w else e for w, e in zip(want, expect)] and
          sym_hash(traced) != sym_hash([(0, "rt_initb_poke"), (0x48, "rt_initb_two")]),
          (p.returncode, p.stderr, q.returncode, q.stderr,
           next(((a, b) for a, b in zip(got, expect) if a != b and "rt_inita" not in b),
                None)))
    # A damaged entry: its module named nowhere, and nothing guessed there.
    img = bytearray(region.read_bytes())
    at = img.index(b"rt_initb\0") - 32     # the entry's name is at +32
    img[at + 16] ^= 1                        # core_size, under the checksum
    bad = work / "damaged-entry.img"
    bad.write_bytes(img)
    p = run("decode", bad, "--system-map", smap, "--modules", ko, "--sym-offset")
    got = records(p.stdout)
    after = [g for g, e in zip(got, expect) if "[rt_initb]" in e]
    before = [g for g, w in zip(got, want) if "rt_inita_init" in w]
    k = run("kallsyms", bad, "--system-map", smap, "--modules", ko)
    check("symbols: a damaged module entry names nothing, in decode or kallsyms",
          p.returncode == 0 and len(got) == len(expect) and after and
          all(re.search(r"<-0xffffffffc020[0-9a-f]{4}$", g) for g in after) and
          before == [w for w in want if "rt_inita_init" in w] and
          "rt_initb" not in k.stdout,
          (p.returncode, after[:2], before[:1], k.stdout.count("rt_initb")))


TEST_ECC = 16   # parity bytes a codeword of the tests' saved traces (testlib.h)


def codeword_bytes(size, ecc, n):
    """Offsets in a chunk slot of size bytes of n data bytes of one
    codeword, the first past the chunk's header (the format interleaves the
    codewords: data byte i is in codeword i % codewords)."""
    data = size - -(-size // 255) * ecc
    nr = -(-data // (255 - ecc))
    return [nr * 8 + i * nr for i in range(n)]


def bit_errors(work):
    """A saved trace made by the real saver (mkimage: saved-ecc.img, boot 7):
    bytes changed in a chunk slot are corrected by its parity, said, and
    the records read as written; more than the parity corrects in one
    codeword loses that chunk, said as damaged."""
    clean = (work / "saved-ecc.img").read_bytes()
    rc, j, err = stats_json(work / "saved-ecc.img")
    t = (j or {}).get("saved", [{}])[0]
    want = run("decode", work / "saved-ecc.img", "--boot", 7)
    # Its one slot, cut after its chunk (the trace never wrapped).
    slot = j["saved_offset"] + t.get("slots_offset", 0) if j else 0
    size = t.get("offset", 0) + t.get("bytes", 0) - t.get("slots_offset", 0)
    check("saved-ecc.img: one trace of boot 7, its records decoded",
          rc == 0 and t.get("boot_id") == 7 and t.get("corrected_chunks") == 0 and
          want.returncode == 0 and len(records(want.stdout)) == t.get("records"),
          (rc, err, t))
    few = bytearray(clean)
    for at in (4, 100, 1000, 5000):           # header, entries, further on
        few[slot + at] ^= 0x21
    (work / "saved-flips.img").write_bytes(few)
    p = run("decode", work / "saved-flips.img", "--boot", 7)
    rc, j2, err = stats_json(work / "saved-flips.img")
    t2 = (j2 or {}).get("saved", [{}])[0]
    check("saved trace, 4 bytes changed: corrected, said, every record as written",
          p.returncode == 0 and p.stdout == want.stdout and
          "4 bytes in 1 chunks had changed, corrected by their parity" in p.stderr and
          t2.get("corrected_chunks") == 1 and t2.get("damaged_chunks") == 0,
          (p.returncode, p.stderr, t2))
    head = bytearray(clean)
    start = j["saved_offset"] + t.get("offset", 0)
    for at in (1, 30, 200, 300):        # its magic, boot_id, release, parity
        head[start + at] ^= 0x81
    (work / "saved-head.img").write_bytes(head)
    p = run("decode", work / "saved-head.img", "--boot", 7)
    check("saved trace, 4 bytes of its header changed: corrected, said, every "
          "record as written",
          p.returncode == 0 and p.stdout == want.stdout and
          "boot 7's saved trace: its header had changed, corrected by its parity"
          in p.stderr, (p.returncode, p.stderr))
    many = bytearray(clean)
    for at in codeword_bytes(size, t["ecc"], TEST_ECC // 2 + 1):
        many[slot + at] ^= 0xff                 # one codeword, one too many
    (work / "saved-burst.img").write_bytes(many)
    p = run("decode", work / "saved-burst.img", "--boot", 7)
    check("saved trace, a codeword with more wrong bytes than its parity "
          "corrects: its chunk is lost and said, no record shown changed",
          p.returncode == 0 and not records(p.stdout) and
          "1 saved chunks were damaged" in p.stderr and "corrected" not in p.stderr,
          (p.returncode, p.stderr))


class Image:
    """The images mkimage wrote and what the tests take from them."""

    def __init__(self, work):
        self.work = work
        self.region = work / "region.img"
        self.ram = work / "ram.img"
        self.smap = work / "System.map-test"
        self.expect = (work / "expect.txt").read_text().splitlines()
        self.names = {line.split()[2] for line in self.smap.read_text().splitlines()}
        self.blob = self.region.read_bytes()


def ftrace_lines(img):
    """decode's lines of the region, each matched by LINE."""
    p = run("decode", img.region, "--system-map", img.smap, "--sym-offset")
    return p, lines_of(p.stdout)


def pstore_lines(expect):
    """The function records of @expect as pstore's ftrace file prints them."""
    lines = []
    for e in expect:
        cpu, ts, text = e.split(None, 2)
        m = re.match(r"f(\d+)\+0x0/0x40 <-f(\d+)\+0x(\w+)/0x40$", text)
        if m:
            ns = int(ts.replace(".", "")) * 1000
            ip = 0xffffffff81000000 + 0x40 * int(m[1])
            parent = 0xffffffff81000000 + 0x40 * int(m[2]) + int(m[3], 16)
            lines.append(f"CPU:{cpu} ts:{ns} {ip:x}  {parent:x}  "
                         f"f{m[1]} <- f{m[2]}+0x{m[3]}/0x40")
    return lines


def torn_image(img):
    """The region with its boot header torn by a reset (the nonce, at 128,
    is per boot)."""
    torn = img.work / "torn.img"
    torn.write_bytes(img.blob[:128] + bytes([img.blob[128] ^ 1]) + img.blob[129:])
    return torn


def test_decode(img):
    """Decoding and symbols: every record, named across KASLR; kallsyms."""
    work, region, ram, smap = img.work, img.region, img.ram, img.smap
    expect, names = img.expect, img.names
    p = run("decode", region, "--system-map", smap, "--sym-offset")
    got = records(p.stdout)
    check("decode: every record, in order, named across KASLR, events with data",
          p.returncode == 0 and got == expect,
          f"rc={p.returncode} {p.stderr} {len(got)}/{len(expect)} "
          f"{next((a, b) for a, b in zip(got + [''], expect + [''] ) if a != b)}"
          if got != expect else p.stderr)
    p2 = run("decode", ram, "--system-map", smap, "--sym-offset")
    check("decode: finds the region inside a RAM image by itself",
          p2.returncode == 0 and records(p2.stdout) == expect, p2.stderr)
    p3 = run("decode", ram, "--offset", hex(RAM_OFFSET), "--system-map", smap,
             "--sym-offset")
    check("decode: --offset gives the same records", p3.returncode == 0 and
          records(p3.stdout) == expect, p3.stderr)
    p = run("decode", region, "--system-map", smap)
    plain = [re.sub(r"\+0x[0-9a-f]+/0x[0-9a-f]+", "", e) for e in expect]
    check("decode: without --sym-offset, names as ftrace prints them",
          records(p.stdout) == plain, records(p.stdout)[:3])
    p = run("decode", region)
    used = {w.lstrip("<-") for line in records(p.stdout) for w in line.split()[2:]}
    check("decode: without symbols, addresses only, never a name",
          p.returncode == 0 and len(records(p.stdout)) == len(expect)
          and not (used & names), sorted(used & names)[:5])
    p = run("decode", region, "--system-map", smap, "--sym-offset", "--boot", 1)
    check("decode: --boot names the zones' boot", records(p.stdout) == expect,
          p.stderr)
    # kallsyms: the System.map moved by one slide, the one decode names by.
    p = run("kallsyms", region, "--system-map", smap)
    listed = [x.split() for x in p.stdout.splitlines()]
    where = {n: int(a, 16) for a, _, n in listed}
    # Functions, as the traced boot's kallsyms lists them ("_etext" ends them).
    mapped = [x.split() for x in smap.read_text().splitlines()
              if x.split()[1] in "tT" and not x.endswith(" _etext")]
    slides = {where.get(n, 0) - int(a, 16) for a, _, n in mapped}
    raw = records(run("decode", region).stdout)
    named = [(int(w.removeprefix("<-"), 16), re.match(r"(?:<-)?(\w+)\+(0x[0-9a-f]+)/", v))
             for r, e in zip(raw, expect)
             if re.fullmatch(r"0x[0-9a-f]+( <-0x[0-9a-f]+)?", r.split(" ", 2)[2])
             for w, v in zip(r.split()[2:], e.split()[2:])]
    check("kallsyms: every System.map symbol, moved by the boot's KASLR slide",
          p.returncode == 0 and len(listed) == len(mapped) and
          sorted((n, t) for _, t, n in listed) == sorted((n, t) for _, t, n in mapped)
          and len(slides) == 1 and 0 not in slides and
          [int(a, 16) for a, _, _ in listed] == sorted(int(a, 16) for a, _, _ in listed),
          f"rc={p.returncode} {p.stderr} {len(listed)}/{len(mapped)} slides {slides}")
    check("kallsyms: each decoded address is its name's listed address + offset",
          len(raw) == len(expect) and len(named) > 100 and
          all(m and w == where[m[1]] + int(m[2], 16) for w, m in named),
          next(((hex(w), m and m[0]) for w, m in named
                if not m or w != where[m[1]] + int(m[2], 16)), None))
    p = run("kallsyms", region)
    check("kallsyms: without symbols, exit 1 and says what it needs",
          p.returncode == 1 and not p.stdout and "--system-map" in p.stderr,
          f"rc={p.returncode} {p.stderr}")
    # 40000 names, more than the tool keeps: slots are taken over, never
    # given to another address.
    many = (work / "expect-many.txt").read_text().splitlines()
    p = run("decode", work / "many.img", "--system-map", work / "System.map-many",
            "--sym-offset")
    got = records(p.stdout)
    check("decode: 20000 functions and their 20000 callers, each named as itself",
          p.returncode == 0 and got == many,
          f"rc={p.returncode} {p.stderr} {len(got)}/{len(many)} "
          f"{next(((a, b) for a, b in zip(got + [''], many + ['']) if a != b), None)}")


def test_text_and_symbols(img):
    """Tasks, contexts and the kernel's events as ftrace prints them; which
    symbol files name a trace."""
    work, region, smap, expect = img.work, img.region, img.smap, img.expect
    ftrace = (work / "expect-ftrace.txt").read_text().splitlines()
    p = run("decode", region, "--system-map", smap, "--sym-offset")
    got = lines_of(p.stdout)
    check("decode: every record's task, CPU, flags, time and text as ftrace prints them",
          p.returncode == 0 and got == ftrace,
          next(((a, b) for a, b in zip(got + [""], ftrace + [""]) if a != b), len(got)))
    parsed = [LINE.match(x) for x in got]
    after = []
    for i, m in enumerate(parsed):
        sw = re.search(r"sched_switch: .*next_comm=(\S+) next_pid=(\d+)", m[6])
        nxt = next((n for n in parsed[i + 1:] if n[3] == m[3]), None)
        if sw and nxt:
            after.append((sw[1], sw[2], nxt[1].strip(), nxt[2]))
    check("decode: after a sched_switch the CPU's records belong to its next task",
          len(after) >= 4 and all(a[:2] == a[2:] for a in after), after)
    flags = {m[4] for m in parsed}
    check("decode: flags column: X for functions, d/N for events, h/s/z for contexts",
          {"X....", "X.s..", "X.h..", "X.z..", "d....", "dNh..", "dN...", "..s..",
           "d.h..", "....."} <= flags and
          all(m[4][2] == "h" for m in parsed if m[6].startswith("irq_handler")), flags)
    kinds = {kernel_event(m[6]) for m in parsed} - {None}
    check("decode: every kind of kernel event is printed with its kernel's text",
          kinds == {"sched_switch", "sched_wakeup", "sched_waking", "sched_wakeup_new",
                    "irq_handler_entry", "irq_handler_exit", "softirq_entry",
                    "softirq_exit", "softirq_raise", "workqueue_execute_start",
                    "workqueue_execute_end", "timer_expire_entry", "timer_expire_exit",
                    "console", "tracing_mark_write"}, sorted(kinds))
    stranger = [m[6] for m in parsed if "pid=99 " in m[6]]
    check("decode: a task the trace never names prints as <...>, as ftrace does",
          stranger and all("comm=<...> pid=99 " in x for x in stranger), stranger[:2])

    shifted = work / "System.map-shifted"
    shifted.write_text(re.sub(r"^([0-9a-f]+)", lambda m: f"{int(m[1], 16) + 0x1000:016x}",
                              smap.read_text(), flags=re.M))
    p = run("decode", region, "--system-map", shifted)
    check("symbols: a System.map not of the traced kernel is refused (exit 4)",
          p.returncode == 4 and not records(p.stdout) and "does not match" in p.stderr,
          f"rc={p.returncode} {p.stderr}")
    other = work / "System.map-9.9.9-other"
    shutil.copy(smap, other)
    p = run("decode", region, "--system-map", other)
    check("symbols: a System.map of another release is refused (exit 4)",
          p.returncode == 4 and "does not match" in p.stderr, f"rc={p.returncode} {p.stderr}")
    init_text_names(work, region, smap, expect)
    build_checks(work, region, smap, expect)
    kallsyms = work / "kallsyms"
    kallsyms.write_text(smap.read_text() + "ffffffffc0200120 t modfunc\t[rt_fake]\n")
    p = run("decode", region, "--system-map", kallsyms, "--sym-offset")
    check("symbols: /proc/kallsyms form accepted, its module lines ignored",
          p.returncode == 0 and records(p.stdout) == expect, p.stderr)


def test_export(img):
    """Exports: trace.dat as trace-cmd reports it, and Chrome JSON."""
    work, region, smap, expect = img.work, img.region, img.smap, img.expect
    parsed = [LINE.match(x) for x in ftrace_lines(img)[1]]
    dat = work / "trace.dat"
    p = run("export", region, "--system-map", smap, "-o", dat)
    rep = report(dat)
    funcs = re.findall(r"\[(\d+)\] +(\d+\.\d{6}): function: +(\S+)", rep.stdout)
    events = [(c, ts, i, n, d.replace(" ", "")) for c, ts, i, n, d in re.findall(
        r"\[(\d+)\] +(\d+\.\d{6}): event: +id=(\d+) len=(\d+) data=([0-9a-f ]*)$",
        rep.stdout, re.M)]
    want_f = [(str(int(e.split()[0])), e.split()[1], e.split()[2].split("+")[0])
              for e in expect if not re.match(r"\S+ \S+ \w+: ", e) and "[rt_fake]" not in e]
    got_f = [(str(int(c)), ts, n) for c, ts, n in funcs if n.startswith("f")]
    want_e = [re.search(r"id=(\d+) len=(\d+) data=(\w*)", e).groups() for e in expect
              if "ramtrail_event" in e]
    check("export: trace-cmd report lists every function with CPU, time and name",
          p.returncode == 0 and rep.returncode == 0 and got_f == want_f,
          f"rc={p.returncode}/{rep.returncode} {p.stderr} {rep.stderr[:300]} "
          f"{len(got_f)}/{len(want_f)} {got_f[:2]} {want_f[:2]}")
    check("export: trace-cmd report shows every event's id and data",
          [e[2:] for e in events] == want_e and len(events) == len(want_e),
          f"{len(events)}/{len(want_e)} {events[:2]} {want_e[:2]}")
    rows = [REPORT.match(x) for x in rep.stdout.splitlines()]
    rows = [m for m in rows if m]
    check("export: report's CPUs and event total match decode",
          re.search(r"^cpus=3$", rep.stdout, re.M) and len(rows) == len(expect),
          f"{len(rows)}/{len(expect)}")
    got_t = [(m[1].strip(), m[2], int(m[3]), m[4]) for m in rows]
    want_t = [(m[1].strip(), m[2], int(m[3]), m[5]) for m in parsed]
    check("export: trace-cmd report gives every record decode's task name, pid and CPU",
          got_t == want_t, next(((a, b) for a, b in zip(got_t, want_t) if a != b), None))
    # The kernel's formats: fields parsed (-R), print fmt as the kernel's (-N).
    raw = [REPORT.match(x) for x in report(dat, "-R").stdout.splitlines()]
    raw = [dict(re.findall(r"(\w+)=(\S+)", m[6])) for m in raw if m and m[5] == "sched_switch"]
    state = {"R": "0", "R+": "256", "S": "1", "D": "2", "I": "128", "S|D": "3"}
    want = []
    for m in parsed:
        if m[6].startswith("sched_switch: "):
            w = dict(re.findall(r"(\w+)=(\S+)", m[6]))
            w["prev_state"] = state[w["prev_state"]]
            want.append(w)
    check("export: trace-cmd report -R parses sched_switch's fields (comms, pids, prio, state)",
          len(raw) == len(want) >= 4 and raw == want, (raw[:2], want[:2]))
    noplug = [REPORT.match(x) for x in report(dat, "-N").stdout.splitlines()]
    hexp = lambda t: re.sub(r"0x([0-9a-f]+)", lambda h: h[1].rjust(16, "0"), t)
    # ftrace's print event: "print: tracing_mark_write: text", its bytes
    # raw (decode prints a control byte as '?')
    got_k = [re.sub(r"[\x00-\x1f\x7f]", "?", m[6]) if m[5] == "print" else
             f"{m[5]}: {hexp(m[6])}" for m in noplug if m and m[5] not in ("function", "event")]
    want_k = [m[6] for m in parsed if kernel_event(m[6])]
    check("export: every kernel event prints as decode prints it (its kernel's print fmt)",
          len(want_k) > 50 and got_k == want_k,
          next(((a, b) for a, b in zip(got_k + [""], want_k + [""]) if a != b), None))
    lat = [REPORT_LAT.match(x) for x in report(dat, "-l").stdout.splitlines()]
    got_l = [m[4] for m in lat if m]
    want_l = [m[4][:3].replace("z", "h") for m in parsed]
    check("export: common_flags give report decode's irqs-off, need-resched and context",
          got_l == want_l, next(((i, a, b) for i, (a, b) in enumerate(zip(got_l, want_l))
                                 if a != b), len(got_l)))

    js = work / "trace.json"
    p = run("export", region, "--format=json", "--system-map", smap, "-o", js)
    try:
        ev = json.loads(js.read_text())["traceEvents"]
    except (ValueError, KeyError, OSError) as e:
        ev = []
        p.stderr += str(e)
    inst = [e for e in ev if e.get("ph") == "i"]
    ok = len(inst) == len(expect) and all(
        e["args"]["cpu"] == int(x.split()[0]) and usec(round(e["ts"] * 1000)) == x.split()[1]
        for e, x in zip(inst, expect))
    check("export json: one event per record, its CPU, time in us",
          p.returncode == 0 and ok, f"rc={p.returncode} {p.stderr} {len(inst)}")
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
               if e.get("name") == "thread_name"}
    check("export json: each record on its task's track (pid, tid), tracks named by comm",
          len(inst) == len(parsed) and
          all(e["tid"] == int(m[2]) and threads.get((e["pid"], e["tid"])) == m[1].strip()
              for e, m in zip(inst, parsed)), sorted(threads.items())[:8])
    # Kernel events: decode's text after "name: " (a marker's after
    # "tracing_mark_write: "); others: their id and bytes.
    want_j = [(f"event {u[1]}", "data", u[3]) if u else
              ("print" if k == "tracing_mark_write" else k, "text", x.split(": ", 1)[1])
              for x, k, u in ((m[6], kernel_event(m[6]),
                               re.search(r"^ramtrail_event: id=(\d+) len=(\d+) data=(\w*)$", m[6]))
                              for m in parsed) if k or u]
    got_j = [(e["name"], *next((f, e["args"][f]) for f in ("data", "text") if f in e["args"]))
             for e in inst if e["cat"] == "event"]
    check("export json: kernel events' name and text as decode prints them, others' "
          "id and data in hex", len(got_j) == len(want_j) > 50 and got_j == want_j,
          next(((a, b) for a, b in zip(got_j + [None], want_j + [None]) if a != b), None))


def test_stats(img):
    """Statistics: per-CPU records, header facts, module table, time span."""
    ram, expect = img.ram, img.expect
    p = run("stats", ram)
    kv = dict(line.split(None, 1) for line in p.stdout.splitlines() if " " in line)
    per_cpu = [int(kv.get(f"cpu{c}", "records 0").split()[1]) for c in range(3)]
    check("stats: per-CPU records add up to what was written",
          p.returncode == 0 and sum(per_cpu) == len(expect) and
          per_cpu == [sum(1 for e in expect if e.startswith(f"{c} ")) for c in range(3)],
          f"{per_cpu} {p.stderr}")
    check("stats: format version, state, clock, region position reported",
          kv.get("version") == str(VERSION) and kv.get("state") == "recording" and
          kv.get("clock_reliable") == "0" and kv.get("region_offset") == hex(RAM_OFFSET),
          kv)
    mods = [line for line in p.stdout.splitlines() if line.startswith("module ")]
    check("stats: the module table, its first entry the kernel's build (at panic, "
          "no size), its last the one of a full table (no name, the module area)",
          len(mods) == 5 and mods[-1].startswith("module - base 0xffffffffc0200000 ") and
          mods[-1].endswith(" full") and not any(m.endswith(" full") for m in mods[:4]) and
          mods[0] == "module vmlinux base 0xffffffff82e01000 size 0 kernel" and
          not any(m.endswith(" kernel") for m in mods[1:]), mods)
    first, last = expect[0].split()[1], expect[-1].split()[1]
    span = kv.get("zones_records", "").split()
    check("stats: time span of the trace",
          len(span) == 5 and f"{int(span[2]) / 1e9:.6f}" == first and
          f"{int(span[4]) / 1e9:.6f}" == last, span)


def test_pstore_saved_trace(img):
    """pstore's form of a saved trace: decoded and exported with its names."""
    work, region, expect = img.work, img.region, img.expect
    pst = work / "ftrace-ramtrail-0"
    dat = work / "trace.dat"
    lines = pstore_lines(expect)
    pst.write_text("\n".join(lines) + "\n")
    p = run("decode", pst, "--sym-offset")
    want = [f"{x.split()[0].split(':')[1]} " for x in lines]
    got = records(p.stdout)
    check("pstore file: decoded with the names pstore printed",
          p.returncode == 0 and len(got) == len(lines) and
          all(g.startswith(w) and g.endswith(x.split("  ")[-1].replace(" <- ", " <-"))
              for g, w, x in zip(got, want, lines)),
          f"rc={p.returncode} {p.stderr} {got[:2]} {lines[:2]}")
    check("pstore file: its records' task is unknown: \"<unknown>-?\", flags X....",
          all(x.startswith("       <unknown>-?       [") and LINE.match(x)[4] == "X...."
              for x in lines_of(p.stdout)) and len(lines_of(p.stdout)) == len(lines),
          lines_of(p.stdout)[:2])
    half = len(lines) // 2
    (work / "ftrace-ramtrail-1").write_text("\n".join(lines[:half]))   # no last newline
    (work / "ftrace-ramtrail-2").write_text("\n".join(lines[half:]) + "\n")
    p2 = run("decode", work / "ftrace-ramtrail-1", work / "ftrace-ramtrail-2",
             "--sym-offset")
    check("pstore files: the parts of one trace decode as the whole",
          p2.returncode == 0 and records(p2.stdout) == got, f"{p2.stderr}")
    p2 = run("decode", pst, "--sym-offset", "--system-map", work / "none",
             "--modules", work / "none")
    check("pstore file: --system-map and --modules ignored, as it says, not read",
          p2.returncode == 0 and records(p2.stdout) == got and "ignored" in p2.stderr,
          (p2.returncode, p2.stderr))
    p2 = run("decode", work / "ftrace-ramtrail-1", region)
    check("pstore files: anything but pstore files together is refused (exit 1)",
          p2.returncode == 1 and "pstore files only" in p2.stderr, p2.stderr)
    p = run("export", pst, "-o", dat)
    rep = subprocess.run(["trace-cmd", "report", str(dat)], capture_output=True,
                         text=True, errors="replace")
    names_seen = re.findall(r"function: +(\S+)", rep.stdout)
    check("pstore file: exported trace.dat keeps pstore's names",
          p.returncode == 0 and names_seen == [x.split("  ")[-1].split(" <- ")[0]
                                               for x in lines], names_seen[:3])


def test_pstore_files(img):
    """ramtrail's pstore files: offsets in the ftrace file, names in the
    text files of its part beside it."""
    work = img.work
    dat = work / "trace.dat"
    lines = pstore_lines(img.expect)
    # text files of its part beside it (console-ramtrail-(N * 100) and up).
    ofs = work / "pstore-offsets"
    ofs.mkdir(exist_ok=True)
    base = 0xffffffff80000000
    flines, text, want = [], [], []
    for i, x in enumerate(lines):
        cpu, ts, ip, parent, func, caller = re.match(
            r"CPU:(\d+) ts:(\d+) (\w+)  (\w+)  (\S+) <- (\S+)$", x).groups()
        ip, parent = int(ip, 16) - base, int(parent, 16) - base
        flines.append(f"CPU:{cpu} ts:{ts} {ip:08x}  {parent:08x}  {ip:#x} <- {parent:#x}")
        us = (int(ts) + 500) // 1000
        stamp = f"{us // 1000000:5d}.{us % 1000000:06d}"
        caller = caller.split("+")[0]
        line = f"{'sh':>16}-{100 + i:<7d} [{int(cpu):03d}] X.... {stamp}: {func} <-{caller}"
        # an event between function records
        event = (f"{'sh':>16}-{100 + i:<7d} [{int(cpu):03d}] d.... {stamp}: "
                 "sched_switch: prev_comm=sh prev_pid=1 ==> next_comm=x next_pid=2")
        text.append([line, event] if i % 3 == 0 else [line])
        want.append(f"{func} <-{caller}")
    half = len(flines) // 2
    offsets = [f"{x.split()[4]} <-{x.split()[6]}" for x in flines]

    def part(n, recs, texts):
        """Part n: its ftrace file and its text in two files."""
        (ofs / f"ftrace-ramtrail-{n}").write_text("\n".join(recs) + "\n")
        tx = [y for x in texts for y in x]
        for i, chunk in enumerate((tx[:len(tx) // 2], tx[len(tx) // 2:])):
            (ofs / f"console-ramtrail-{n * 100 + i}").write_text("\n".join(chunk) + "\n")

    def names(*files):
        p = run("decode", *(ofs / f for f in files))
        return p.returncode, [x.split(" ", 2)[2] for x in records(p.stdout)]

    part(3, flines[:half], text[:half])
    part(4, flines[half:], text[half:])
    rc, got = names("ftrace-ramtrail-4")
    check("pstore file of offsets: named from its part's text files beside it",
          lines and rc == 0 and got == want[half:] and got != offsets[half:],
          (got[:2], want[half:][:2]))
    (ofs / "console-ramtrail-300").unlink()
    rc, got = names("ftrace-ramtrail-3", "ftrace-ramtrail-4")
    check("pstore files of offsets: each part named from its own text, one without "
          "its first text file keeps its offsets",
          rc == 0 and got == offsets[:half] + want[half:], got[:2])
    part(3, flines[:half], text[:half])
    rc, got = names("ftrace-ramtrail-3", "ftrace-ramtrail-4")
    check("pstore files of offsets: every part named", rc == 0 and got == want, got[:2])
    p = run("export", ofs / "ftrace-ramtrail-3", ofs / "ftrace-ramtrail-4", "-o", dat)
    rep = subprocess.run(["trace-cmd", "report", str(dat)], capture_output=True,
                         text=True, errors="replace")
    names_seen = re.findall(r"function: +(\S+)", rep.stdout)
    check("pstore files of offsets: exported trace.dat names them",
          p.returncode == 0 and names_seen == [w.split(" <-")[0] for w in want],
          names_seen[:3])
    # The text line of the part's second record on another CPU: a text that
    # is not the file's names nothing from there on.
    bad = [list(x) for x in text[:half]]
    bad[1][0] = re.sub(r"\[(\d+)\]", lambda m: f"[{int(m[1]) + 1:03d}]", bad[1][0],
                       count=1)
    part(3, flines[:half], bad)
    rc, got = names("ftrace-ramtrail-3")
    check("pstore file of offsets: a text that does not match names nothing wrong",
          rc == 0 and got == want[:1] + offsets[1:half], got[:3])

    # Broken inputs: a clean error or a partial result with counts


def fnv1a(names):
    """ramtrail crash's signature of the names, newest first."""
    h = 0xcbf29ce484222325
    for b in "".join(n + "\n" for n in names).encode():
        h = ((h ^ b) * 0x100000001b3) % (1 << 64)
    return f"{h:016x}"


def trace_line(boot=5, part=1, parts=2, nonce=0x1234abcd, file=1):
    """The "# trace:" line of file `file` of a part's text (file None: as
    a module before 0.23 wrote it, in the first file only)."""
    return (f"# trace: nonce {nonce:016x} boot {boot} part {part} of {parts}"
            f"{'' if file is None else f' file {file}'}\n")


def crash_header(boot=5, part=1, parts=2, state="frozen by oops on CPU 1", nonce=0x1234abcd,
                 release="6.12.0-test", file=1):
    """The lines the module begins a part's text with (ramtrail_text_header())."""
    return (f"# ramtrail: boot {boot} ({release}), saved trace, 2 CPUs, {state}\n"
            "# build: #1 SMP PREEMPT_DYNAMIC Debian 6.12.0-1 (2026-01-01)\n" +
            trace_line(boot, part, parts, nonce, file) +
            "# records: 4000, lost 7, damaged blocks 1, torn 2, without time 0, left out 3\n")


def test_pstore_text_of_another_trace(img):
    """A part's text in several files, each after the first beginning with
    the trace's line and its number: a file an archive kept from an older
    trace, whose name the newer one did not take, is not read, nor any
    after it; a part a module before 0.23 wrote (no such lines) is read
    whole, as it was."""
    work = img.work / "pstore-stale"
    work.mkdir(exist_ok=True)
    rows = [(i % 2, 1000 + i * 10, "sh", 100, ".", f"func_{i}") for i in range(30)]
    stale = [f"{'old':>16}-{77:<7d} [000] X.... {0:5d}.{5000 + k:06d}: stale_{k} <-caller\n"
             for k in range(5)] + [
        f"{'old':>16}-{77:<7d} [000] d.... {0:5d}.005009: sched_switch: prev_comm=old "
        "prev_pid=77 prev_prio=120 prev_state=S ==> next_comm=sh next_pid=100 next_prio=120\n"]

    def archive(second, third, file=1):
        """Part 3 in files 300 (the header and 15 records), 301 (15 more,
        after `second`) and 302 (another trace's, after `third`)."""
        write_crash_part(work, 3, crash_header(part=1, parts=1, file=file), rows)
        text = (work / "console-ramtrail-300").read_text().splitlines(True)
        (work / "console-ramtrail-300").write_text("".join(text[:4 + 15]))
        (work / "console-ramtrail-301").write_text(second + "".join(text[4 + 15:]))
        (work / "console-ramtrail-302").write_text(third + "".join(stale))
        got = {}
        for name in ("ftrace-ramtrail-3", "console-ramtrail-300"):
            d = run("decode", work / name)
            got[name] = (d.returncode, [m[6].split(" <-")[0] for m in
                                        map(LINE.match, lines_of(d.stdout)) if m], d.stderr)
        return got, run("crash", work / "ftrace-ramtrail-3")

    ours = [f"func_{i}" for i in range(30)]
    for third, what in ((trace_line(parts=1, nonce=0x99, file=3), "another trace's line"),
                        (trace_line(parts=1, file=2), "its line with another number"),
                        ("", "no line")):
        got, c = archive(trace_line(parts=1, file=2), third)
        check(f"pstore text: a third file with {what} is not read (decode of the "
              "ftrace file and of the text alone; crash), and said",
              all(rc == 0 and funcs == ours and "console-ramtrail-302: not read" in err
                  for rc, funcs, err in got.values()) and
              c.returncode == 0 and "stale" not in c.stdout and
              "console-ramtrail-302: not read" in c.stderr,
              {k: (v[0], v[1][-3:], v[2]) for k, v in got.items()})
    # Read, the third file gives the ftrace file's reader its event (its
    # function lines are past the ftrace file's records), the text's reader
    # everything.
    ev = stale[-1].split(": ", 1)[1].rstrip("\n")
    whole = {"ftrace-ramtrail-3": ours + [ev],
             "console-ramtrail-300": ours + [f"stale_{k}" for k in range(5)] + [ev]}
    got, c = archive(trace_line(parts=1, file=2), trace_line(parts=1, file=3))
    check("pstore text: the part's three files, each beginning with its line, are read "
          "in order",
          all(got[k][0] == 0 and got[k][1] == whole[k] and not got[k][2] for k in got),
          {k: (v[0], v[1][-3:], v[2]) for k, v in got.items()})
    got, c = archive(trace_line(parts=1, nonce=0x99, file=2), "")
    check("pstore text: a second file of another trace: neither it nor the third is "
          "read (the ftrace file's records it would name keep their offsets)",
          all(rc == 0 and funcs[:15] == ours[:15] and len(funcs) == (30 if k[0] == "f" else 15)
              and not any(x.startswith(("func_", "stale", "sched")) for x in funcs[15:])
              and "console-ramtrail-301: not read" in err
              for k, (rc, funcs, err) in got.items()),
          {k: (v[0], v[1][-3:], v[2]) for k, v in got.items()})
    got, c = archive("", "", file=None)
    check("pstore text of a module before 0.23 (no file numbers): its files are read whole",
          all(got[k][0] == 0 and got[k][1] == whole[k] and not got[k][2] for k in got),
          {k: (v[0], v[1][-3:], v[2]) for k, v in got.items()})


def test_crash_record(img):
    """ramtrail crash: the journal fields of a trace from its pstore files,
    from the header of its text and the last records of the CPU that froze."""
    work = img.work / "pstore-crash"
    work.mkdir(exist_ok=True)
    recs = []
    # CPU 0 and CPU 1 alternate; CPU 1's last records: its task, an
    # interrupt (pid 0), its task again up to the crash.
    for i in range(40):
        cpu = i % 2
        irq = cpu == 1 and 30 <= i < 36
        comm, pid = ("sh", 100) if cpu == 0 else ("<idle>", 0) if irq else ("rtcrash", 321)
        func = "ext4_crash [ext4]" if i == 39 else f"func_{i}"
        recs.append((cpu, 1000 + i * 10, comm, pid, "h" if irq else ".", func))

    write_crash_part(work, 2048, crash_header(part=1), recs[:20])
    write_crash_part(work, 2049, crash_header(part=2), recs[20:])
    files = [work / "ftrace-ramtrail-2048", work / "ftrace-ramtrail-2049"]
    p = run("crash", *files)
    f = dict(x.split("=", 1) for x in p.stdout.splitlines() if "=" in x)
    task = [r[5] for r in recs if r[0] == 1 and r[4] == "."][::-1]
    want = [x.replace(" ", "") for x in task[:8]]
    check("crash: journal fields from the text's header: boot, kernel, how it ended, counts",
          p.returncode == 0 and f.get("RAMTRAIL_BOOT") == "5" and
          f.get("RAMTRAIL_RELEASE") == "6.12.0-test" and
          f.get("RAMTRAIL_BUILD", "").startswith("#1 SMP") and
          f.get("RAMTRAIL_STATE") == "frozen" and f.get("RAMTRAIL_REASON") == "oops" and
          f.get("RAMTRAIL_TRACE") == "000000001234abcd-5" and
          (f.get("RAMTRAIL_RECORDS"), f.get("RAMTRAIL_LOST"), f.get("RAMTRAIL_DAMAGED_BLOCKS"),
           f.get("RAMTRAIL_TORN"), f.get("RAMTRAIL_LEFT_OUT")) == ("4000", "7", "1", "2", "3") and
          (f.get("RAMTRAIL_PARTS"), f.get("RAMTRAIL_PARTS_READ")) == ("2", "2") and
          f.get("MESSAGE_ID") == "5160ece0466c4b9bb1358cb46880f020" and
          f.get("PRIORITY") == "2", (p.returncode, p.stderr, f))
    check("crash: the crashing CPU's task and its last functions in the crash's context "
          "(the interrupt between left out), newest first, one word each",
          f.get("RAMTRAIL_CPU") == "1" and f.get("RAMTRAIL_TASK") == "rtcrash" and
          f.get("RAMTRAIL_PID") == "321" and f.get("RAMTRAIL_CONTEXT") == "task" and
          f.get("RAMTRAIL_FUNCTIONS", "").split() == want and want[0] == "ext4_crash[ext4]",
          (f.get("RAMTRAIL_FUNCTIONS"), want))
    check("crash: the signature is FNV-1a of the names, in MESSAGE too",
          f.get("RAMTRAIL_SIGNATURE") == fnv1a(want) and fnv1a(want) in f.get("MESSAGE", "")
          and "rtcrash[321]: ext4_crash[ext4] <- " in f.get("MESSAGE", ""),
          (f.get("RAMTRAIL_SIGNATURE"), f.get("MESSAGE")))
    check("crash: no address in any field (the pstore file's values are offsets)",
          not re.search(r"ffff|0x", p.stdout), p.stdout)
    p3 = run("crash", *files, "--functions", "3")
    f3 = dict(x.split("=", 1) for x in p3.stdout.splitlines() if "=" in x)
    check("crash --functions 3: three names, their own signature",
          f3.get("RAMTRAIL_FUNCTIONS", "").split() == want[:3] and
          f3.get("RAMTRAIL_SIGNATURE") == fnv1a(want[:3]), f3.get("RAMTRAIL_FUNCTIONS"))
    bad = [run("crash", *files, "--functions", v).returncode for v in ("0", "65", "x")]
    check("crash --functions 0, 65, x: refused (exit 1)", bad == [1, 1, 1], bad)
    # A power cut: no freeze CPU; the CPU that recorded last.
    write_crash_part(work, 2048, crash_header(part=1, state="recording"), recs[:20])
    write_crash_part(work, 2049, crash_header(part=2, state="recording"), recs[20:39])
    p = run("crash", *files)
    f = dict(x.split("=", 1) for x in p.stdout.splitlines() if "=" in x)
    check("crash: a trace that ended while recording: the other message id, the CPU "
          "that recorded last",
          p.returncode == 0 and f.get("MESSAGE_ID") == "b6f8b111439746f19ea8b76324f9b5e8"
          and f.get("RAMTRAIL_STATE") == "recording" and f.get("RAMTRAIL_CPU") == "0" and
          f.get("RAMTRAIL_TASK") == "sh" and f.get("PRIORITY") == "5" and
          "ended while recording" in f.get("MESSAGE", ""), f)
    for other in (dict(boot=6), dict(nonce=7), dict(state="frozen by panic on CPU 1")):
        write_crash_part(work, 2049, crash_header(part=2, **other), recs[20:])
        p = run("crash", *files)
        check(f"crash: parts of two traces given together ({other}): refused (exit 1)",
              p.returncode == 1 and "different traces" in p.stderr and not p.stdout, p.stderr)
    write_crash_part(work, 2049, "", recs[20:])
    p = run("crash", files[1])
    check("crash: text without the header: exit 3, says why",
          p.returncode == 3 and "no header" in p.stderr and not p.stdout, p.stderr)
    write_crash_part(work, 2048, crash_header(part=1), recs[:20])
    write_crash_part(work, 2049, crash_header(part=2), recs[20:])
    p = run("decode", *files)
    check("decode of pstore files: the origin line from the header",
          p.returncode == 0 and "# ramtrail: boot 5 (6.12.0-test), pstore files, 2 CPUs, "
          "frozen by oops on CPU 1" in p.stdout, p.stdout[:300])
    write_crash_part(work, 2048, crash_header(part=1, release="6.12\x1b[2J-x"), recs[:20])
    write_crash_part(work, 2049, crash_header(part=2, release="6.12\x1b[2J-x"), recs[20:])
    p2, p3 = run("decode", *files), run("crash", *files)
    check("pstore files: a release with an escape byte prints it as '?' (decode, crash)",
          "boot 5 (6.12?[2J-x)" in p2.stdout and "\x1b" not in p2.stdout + p3.stdout and
          "RAMTRAIL_RELEASE=6.12?[2J-x\n" in p3.stdout, (p2.stdout[:200], p3.stdout[:300]))
    got = [(m[1].strip(), m[2], m[4]) for m in map(LINE.match, lines_of(p.stdout)) if m]
    want = [(comm, str(pid), f"X.{ctx}..") for _, _, comm, pid, ctx, _ in recs]
    check("decode of pstore files: each record's task and context from the text",
          got == want, (got[:3], want[:3]))
    p = run("crash", img.region)
    check("crash: a region image is refused (exit 3): pstore files only",
          p.returncode == 3 and "ftrace-ramtrail" in p.stderr and not p.stdout, p.stderr)


CRASH_ID, ENDED_ID = "5160ece0466c4b9bb1358cb46880f020", "b6f8b111439746f19ea8b76324f9b5e8"
TRUSTED = {"_SYSTEMD_UNIT": "ramtrail-collect.service", "_UID": "0", "_TRANSPORT": "journal"}
FLEET_T0 = 1767225600 * 10**6        # 2026-01-01T00:00:00Z, microseconds


def fleet_records(work):
    """Three crash records that ramtrail crash prints of synthetic pstore
    archives: an oops, a panic in other functions, a hang; as dicts."""
    work.mkdir(exist_ok=True)
    out = []
    for state, last in (("frozen by oops on CPU 1", "ext4_crash [ext4]"),
                        ("frozen by panic on CPU 1", "panic")):
        rows = [(i % 2, 1000 + i * 10, "sh" if i % 2 == 0 else "rtcrash",
                 100 if i % 2 == 0 else 321, ".", f"{state[10:14]}_{i}") for i in range(20)]
        rows.append((1, 1300, "rtcrash", 321, ".", last))
        write_crash_part(work, 3, crash_header(part=1, parts=1, state=state), rows)
        p = run("crash", work / "ftrace-ramtrail-3")
        out.append(dict(x.split("=", 1) for x in p.stdout.splitlines()))
    write_crash_part(work, 3, crash_header(part=1, parts=1, state="recording"),
                     hang_rows(1, 2)[0])
    p = run("crash", work / "ftrace-ramtrail-3")
    out.append(dict(x.split("=", 1) for x in p.stdout.splitlines()))
    return out


def fleet_lines(recs, n, seed=1, machines=5):
    """n journal entries of the records (journalctl -o json lines) from a
    fleet of machines on two releases over ten days, each its own trace;
    and what ramtrail fleet must make of them: {(kind, signature): group}."""
    rnd = random.Random(seed)
    lines, groups = [], {}
    for i in range(n):
        rec = recs[rnd.choice((0, 0, 0, 1, 2))]
        m = rnd.randrange(machines)
        t = FLEET_T0 + rnd.randrange(10 * 86400) * 10**6 + i
        release = ("6.1.0-test", "6.12.0-test")[m % 2]
        e = dict(rec, **TRUSTED, _MACHINE_ID=f"{m:032x}", _HOSTNAME=f"host{m}",
                 __REALTIME_TIMESTAMP=str(t), RAMTRAIL_RELEASE=release,
                 RAMTRAIL_TRACE=f"{i:016x}-1", _BOOT_ID=f"{i:032x}")
        lines.append(json.dumps(e))
        kind = rec["RAMTRAIL_KIND"]
        sig = rec.get("RAMTRAIL_HANG_SIGNATURE", rec["RAMTRAIL_SIGNATURE"])
        g = groups.setdefault((kind, sig), dict(count=0, machines={}, releases=set(),
                                                first=t, last=t))
        g["count"] += 1
        g["machines"][f"{m:032x}"] = f"host{m}"
        g["releases"].add(release)
        g["first"], g["last"] = min(g["first"], t), max(g["last"], t)
    return lines, groups


def fleet_forged(rec):
    """Entries of ramtrail's message id that the fleet must not trust."""
    base = dict(rec, **TRUSTED, _MACHINE_ID="f" * 32, _HOSTNAME="evil",
                __REALTIME_TIMESTAMP=str(FLEET_T0))
    return [json.dumps(dict(base, **change)) for change in (
        {"_UID": "1000"}, {"_SYSTEMD_UNIT": "user@1000.service"}, {"_TRANSPORT": "stdout"},
        {"_UID": ["0", "0"]}, {"_UID": None}, {"_UID": [48]} and {"_UID": "0\u0000"},
        {"_TRANSPORT": "journal "})] + [
        json.dumps({k: v for k, v in base.items() if k != "_UID"})]


def iso(usec):
    import datetime
    return datetime.datetime.fromtimestamp(usec // 10**6, datetime.timezone.utc) \
        .strftime("%Y-%m-%dT%H:%M:%SZ")


def fleet_order(groups):
    kinds = ["crash", "hang", "stop"]
    return sorted(groups.items(), key=lambda kv: (-kv[1]["count"], -kv[1]["last"],
                                                   kinds.index(kv[0][0]), kv[0][1]))


def fleet_functions(recs):
    """What a group shows of its functions, by (kind, signature)."""
    out = {}
    for r in recs:
        cpus = sorted((int(k[12:-10]), v) for k, v in r.items()
                      if re.fullmatch(r"RAMTRAIL_CPU\d+_FUNCTIONS", k))
        shown, done = [], set()
        for c, v in cpus:
            if c in done:
                continue
            same = [d for d, w in cpus if d > c and w == v and d not in done]
            done.update(same)
            shown.append(f"cpu{','.join(map(str, [c] + same))}: {v}")
        key = (r["RAMTRAIL_KIND"], r.get("RAMTRAIL_HANG_SIGNATURE", r["RAMTRAIL_SIGNATURE"]))
        out[key] = "; ".join(shown) if shown else r["RAMTRAIL_FUNCTIONS"]
    return out


def fleet_text(groups, funcs, ignored, new_since=None):
    """ramtrail fleet's text table of the groups."""
    nign = sum(ignored.values())
    head = (f"ramtrail fleet: records {sum(g['count'] for g in groups.values())}, "
            f"groups {len(groups)}, machines "
            f"{len(set().union(*(g['machines'] for g in groups.values())))}; ignored {nign}")
    if nign:
        head += ": " + ", ".join(f"{v} {k}" for k, v in ignored.items() if v)
    out = [head, f"{'COUNT':>8} {'MACHINES':>8} {'KIND':<5} {'SIGNATURE':<16} "
           f"{'FIRST SEEN (UTC)':<20} " + ("LAST SEEN (UTC)      NEW" if new_since
                                           else "LAST SEEN (UTC)")]
    for (kind, sig), g in fleet_order(groups):
        new = " new" if new_since is not None and g["first"] >= new_since else ""
        out.append(f"{g['count']:>8} {len(g['machines']):>8} {kind:<5} {sig} "
                   f"{iso(g['first']):<20} {iso(g['last'])}{new}")
        f = funcs[(kind, sig)]
        out.append("        functions: " + (f if len(f) <= 160 else f[:157] + "..."))
        out.append("        releases: " + " ".join(sorted(g["releases"])))
        out.append("        machines: " + " ".join(sorted(g["machines"].values())))
    return "\n".join(out) + "\n"


IGNORED = ("malformed", "not_ramtrail", "untrusted", "incomplete", "duplicate", "over_limit")


def test_fleet(img):
    """ramtrail fleet on a simulated fleet's journal: the records of the
    real ramtrail crash (two crashes, a hang) from five machines on two
    releases, with forged, foreign, duplicate and malformed lines among
    them; grouped by kind and signature, exactly, in text, JSON and CSV."""
    work = img.work / "fleet"
    recs = fleet_records(work)
    lines, groups = fleet_lines(recs, 3000)
    forged = fleet_forged(recs[0])
    foreign = [json.dumps(dict(recs[0], MESSAGE_ID="0" * 32, **TRUSTED)), "{}",
               json.dumps({"MESSAGE": "hi", "_UID": "0"})]
    malformed = ['{"MESSAGE_ID": "' + CRASH_ID + '"', "not json", '{"a":1}x',
                 '{"a":"\\q"}', '{"a":"\x01"}', '{"a":[1,' * 40, '{"a":"' + "x" * (2 << 20) + '"}',
                 '{"a":"\\ud800"}', "\x1b[2J\xff"]
    dup = lines[7]
    incomplete = [json.dumps(dict(recs[0], **TRUSTED, _MACHINE_ID="e" * 32,
                                  __REALTIME_TIMESTAMP=str(FLEET_T0), RAMTRAIL_SIGNATURE=v))
                  for v in ("xyz", None, "0123456789ABCDEF")] + [
        json.dumps(dict(recs[0], **TRUSTED, _MACHINE_ID="e" * 32))]
    mixed = lines[:1000] + forged + lines[1000:2000] + foreign + malformed + [dup] + \
        incomplete + lines[2000:]
    ignored = dict(zip(IGNORED, (len(malformed), len(foreign), len(forged), len(incomplete),
                                 1, 0)))
    src = work / "journal.json"
    src.write_text("\n".join(mixed))          # the last line without its newline
    funcs = fleet_functions(recs)
    kinds = sorted(k for k, _ in groups)
    check("fleet: test data: two crash groups and a hang group, from the real ramtrail crash",
          kinds == ["crash", "crash", "hang"] and len(fleet_functions(recs)) == 3, groups.keys())

    p = run("fleet", src)
    want = fleet_text(groups, funcs, ignored)
    check("fleet --format text: the groups, most first: count, machines, kind, signature, "
          "first and last seen, functions, releases, machines; what was ignored, by reason",
          p.returncode == 0 and p.stdout == want,
          (p.returncode, p.stderr, p.stdout[:1500], want[:1500]))
    check("fleet: the ignored entries said on standard error",
          "fleet: %d entries ignored: %d malformed 3 not_ramtrail %d untrusted 4 incomplete "
          "1 duplicate" % (sum(ignored.values()), len(malformed), len(forged)) in p.stderr,
          p.stderr)
    new_since = FLEET_T0 + 86400 * 10**6 // 2
    newest = max(g["first"] for g in groups.values())
    j = run("fleet", src, "--format", "json", "--new-since", str(newest // 10**6))
    got = json.loads(j.stdout) if j.returncode == 0 else {}
    want_groups = [dict(kind=k, signature=s, count=g["count"],
                        new=g["first"] >= newest // 10**6 * 10**6,
                        first_seen=iso(g["first"]), last_seen=iso(g["last"]),
                        first_seen_usec=g["first"], last_seen_usec=g["last"],
                        functions=funcs[(k, s)], releases=sorted(g["releases"]),
                        machines=[dict(machine_id=m, hostname=h) for m, h in
                                  sorted(g["machines"].items(), key=lambda x: x[1])])
                   for (k, s), g in fleet_order(groups)]
    check("fleet --format json: every group exactly, the newest-first-seen one new",
          got.get("groups") == want_groups and got.get("records") == 3000 and
          got.get("machines") == 5 and got.get("ignored") == ignored and
          got.get("new_since") == iso(newest // 10**6 * 10**6) and
          [g["new"] for g in got["groups"]].count(True) == 1,
          (j.stderr, {k: v for k, v in got.items() if k != "groups"}, got.get("groups", [])[:1],
           want_groups[:1]))
    c = run("fleet", src, "--format", "csv", "--new-since", iso(new_since)[:-1])
    rows = [",".join(["count", "machines", "kind", "signature", "first_seen", "last_seen",
                      "new", "functions", "releases", "hosts"])]
    for (k, s), g in fleet_order(groups):
        rows.append(f"{g['count']},{len(g['machines'])},{k},{s},{iso(g['first'])},"
                    f"{iso(g['last'])},{'new' if g['first'] >= new_since else ''},"
                    f"\"{funcs[(k, s)]}\",\"{' '.join(sorted(g['releases']))}\","
                    f"\"{' '.join(sorted(g['machines'].values()))}\"")
    check("fleet --format csv --new-since ISO: the same groups, none new after a day's start",
          c.returncode == 0 and c.stdout == "\n".join(rows) + "\n" and
          "Z,new," not in c.stdout, (c.stderr, c.stdout[:600], rows[:2]))
    t = run("fleet", src, "--new-since", "2026-01-01")
    check("fleet --new-since 2026-01-01: every group new (the NEW column)",
          t.returncode == 0 and t.stdout == fleet_text(groups, funcs, ignored, FLEET_T0),
          t.stdout[:600])
    a = run("fleet", src, "--trust-any", "--format", "json")
    ga = json.loads(a.stdout) if a.returncode == 0 else {}
    check("fleet --trust-any: the forged entries counted (one trace of a sixth machine, "
          "the others its duplicates), none untrusted",
          ga.get("records") == 3001 and ga.get("machines") == 6 and
          ga["ignored"]["untrusted"] == 0 and ga["ignored"]["duplicate"] == len(forged),
          (ga.get("records"), ga.get("ignored")))


def test_fleet_hostile_strings(img):
    """ramtrail fleet prints no control byte of any field: a host name with
    an escape, one given as bytes, a release with a newline; a value too
    long is cut, a list of many machines too."""
    work = img.work / "fleet"
    recs = fleet_records(work)
    base = dict(recs[0], **TRUSTED, __REALTIME_TIMESTAMP=str(FLEET_T0))
    lines = [json.dumps(dict(base, _MACHINE_ID="a" * 32, _HOSTNAME="ev\x1b[2Jil\x9b",
                             RAMTRAIL_FUNCTIONS="f\"" * 5000, RAMTRAIL_TRACE="1")),
             json.dumps(dict(base, _MACHINE_ID="b" * 32, _HOSTNAME=list(b"by\x1b\x00tes"),
                             RAMTRAIL_RELEASE="6.1\n-x\u202e", RAMTRAIL_TRACE="2")),
             json.dumps(dict(base, _MACHINE_ID="c" * 32, _HOSTNAME="=cmd|x",
                             RAMTRAIL_TRACE="3"))]
    lines += [json.dumps(dict(base, _MACHINE_ID=f"{m:032x}", _HOSTNAME=f"machine-{m:04d}",
                              RAMTRAIL_TRACE=str(m + 10))) for m in range(100)]
    src = work / "hostile.json"
    src.write_text("\n".join(lines) + "\n")
    outs = {f: run("fleet", src, "--format", f) for f in ("text", "json", "csv")}
    bad = {f: re.findall(r"[^\x20-\x7e\n]", p.stdout) for f, p in outs.items()}
    check("fleet: no control or non-ASCII byte in any output, the hosts' '?' instead",
          all(p.returncode == 0 for p in outs.values()) and not any(bad.values()) and
          "ev?[2Jil?" in outs["text"].stdout and "by??tes" in outs["json"].stdout and
          '"6.1?-x?"' in outs["json"].stdout, (bad, outs["text"].stdout[:800]))
    text = outs["text"].stdout.splitlines()
    check("fleet text: a line at most 200 characters, a long list cut with how many more",
          max(map(len, text)) <= 200 and any(re.search(r" \.\.\. \(\d+ more\)$", x)
                                             for x in text), max(map(len, text)))
    g = json.loads(outs["json"].stdout)["groups"][0]
    check("fleet json: a function list longer than 2048 bytes cut to them; every machine "
          "listed", len(g["functions"]) == 2048 and len(g["machines"]) == 103, len(g["functions"]))
    check("fleet csv: a cell a spreadsheet would run as a formula begins with '",
          "'=cmd|x" in outs["csv"].stdout and '""' in outs["csv"].stdout,
          outs["csv"].stdout[-300:])


def test_fleet_journalctl(img):
    """ramtrail fleet without a file runs journalctl -o json for the two
    message ids, on the local journal or --directory's files (a fake
    journalctl on PATH that records its arguments); a journalctl that
    fails is said; the options refused."""
    work = img.work / "fleet"
    recs = fleet_records(work)
    lines, groups = fleet_lines(recs, 50, seed=2)
    (work / "entries.json").write_text("\n".join(lines) + "\n")
    fake = work / "bin"
    fake.mkdir(exist_ok=True)
    (fake / "journalctl").write_text(f"""#!/bin/sh
printf '%s\\n' "$@" > {work}/argv
cat {work}/entries.json
exit $(cat {work}/exit 2>/dev/null || echo 0)
""")
    (fake / "journalctl").chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}")

    def fleet(*args):
        return subprocess.run([str(TOOL), "fleet", *args], capture_output=True, text=True,
                              env=env)
    ids = [f"MESSAGE_ID={CRASH_ID}", "+", f"MESSAGE_ID={ENDED_ID}"]
    want = fleet_text(groups, fleet_functions(recs), dict.fromkeys(IGNORED, 0))
    p = fleet()
    argv = (work / "argv").read_text().splitlines()
    check("fleet: journalctl --output=json for both message ids, its entries grouped",
          p.returncode == 0 and argv == ["--output=json", "--no-pager"] + ids and
          p.stdout == want, (argv, p.stderr, p.stdout[:300]))
    p = fleet("--directory", "/var/log/journal/remote")
    argv = (work / "argv").read_text().splitlines()
    check("fleet --directory DIR: journalctl --directory=DIR",
          p.returncode == 0 and argv == ["--output=json", "--no-pager",
                                         "--directory=/var/log/journal/remote"] + ids
          and p.stdout == want, argv)
    (work / "exit").write_text("1")
    p = fleet()
    (work / "exit").unlink()
    check("fleet: journalctl failed: exit 2, said, what it printed reported",
          p.returncode == 2 and "journalctl failed (exit 1)" in p.stderr and p.stdout == want,
          (p.returncode, p.stderr))
    if shutil.which("journalctl"):
        empty = work / "no-journal"
        empty.mkdir(exist_ok=True)
        p = run("fleet", "--directory", empty)
        check("fleet --directory of no journal file (the real journalctl): no group, exit 0",
              p.returncode == 0 and "records 0, groups 0, machines 0; ignored 0" in p.stdout,
              (p.returncode, p.stderr))
    else:
        RESULTS.skip("fleet --directory with the real journalctl: none here")
    src = work / "entries.json"
    bad = [run("fleet", *args).returncode for args in (
        (src, "--directory", work), (src, src), (src, "--format", "tracedat"),
        (src, "--new-since", "2026-13-01"), (src, "--new-since", "2026-02-30"),
        (src, "--new-since", "yesterday"),
        (src, "--functions", "3"), ("crash", src, "--trust-any"))]
    check("fleet: a file and --directory, two files, another format, a bad time, another "
          "command's option, fleet's option to another command: exit 1", bad == [1] * 8, bad)
    p = run("fleet", work / "none.json")
    check("fleet: an input that cannot be read: exit 2, said",
          p.returncode == 2 and "none.json" in p.stderr and not p.stdout, p.stderr)


class Collector:
    """ramtrail-collect (the unit's script) run by hand on an archive and an
    output folder of its own, PATH giving it the command built and a logger
    that appends each entry to a file (it fails while logger-fails exists,
    sleeps a second while logger-slow does)."""

    SCRIPT = TOP / "scripts/package/ramtrail-collect"

    def __init__(self, work):
        shutil.rmtree(work, ignore_errors=True)
        self.work, self.log = work, work / "logged"
        self.arch, self.out, fake = work / "pstore", work / "out", work / "bin"
        for d in (self.arch, fake):
            d.mkdir(parents=True)
        (fake / "logger").write_text(f"""#!/bin/sh
[ -e {work}/logger-fails ] && exit 1
[ -e {work}/logger-slow ] && sleep 1
case "$1" in --journald=*) cat "${{1#--journald=}}" >>{self.log}; echo == >>{self.log} ;; *) exit 2 ;; esac
""")
        (fake / "logger").chmod(0o755)
        self.env = dict(os.environ, PATH=f"{fake}:{BIN.resolve()}:{os.environ['PATH']}")

    def start(self):
        return subprocess.Popen([str(self.SCRIPT), str(self.arch), str(self.out)],
                                env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True,
                                preexec_fn=lambda: os.umask(0o022))

    def run(self, timeout=60):
        """A run, as its (returncode, stderr); returncode None: it did not
        end within timeout seconds (killed, with what it started)."""
        p = self.start()
        try:
            _, err = p.communicate(timeout=timeout)
            return p.returncode, err
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            p.communicate()
            return None, "timed out"

    def entries(self):
        """The entries logged so far, as dicts of their fields."""
        if not self.log.exists():
            return []
        return [dict(x.split("=", 1) for x in e.strip().splitlines())
                for e in self.log.read_text().split("==\n") if e.strip()]

    def part(self, n, src, m, header):
        """Archived part n: part m of the trace in src (test_crash_record's),
        its first text file beginning with header (none: "")."""
        shutil.copy(src / f"ftrace-ramtrail-{m}", self.arch / f"ftrace-ramtrail-{n}")
        body = (src / f"console-ramtrail-{m * 100}").read_text().split("\n", 4)[4]
        (self.arch / f"console-ramtrail-{n * 100}").write_text(header + body)


def write_crash_part(work, part, header, rows):
    """Part N of a trace: its ftrace file (offsets) and its text, as the
    module makes them; rows are (cpu, usec, comm, pid, ctx, func)."""
    (work / f"ftrace-ramtrail-{part}").write_text("".join(
        f"CPU:{c} ts:{us * 1000} {0x1000 + k:08x}  {0x2000:08x}  {0x1000 + k:#x} <- 0x2000\n"
        for k, (c, us, *_) in enumerate(rows)))
    (work / f"console-ramtrail-{part * 100}").write_text(header + "".join(
        f"{comm:>16}-{pid:<7d} [{c:03d}] X.{ctx}.. {us // 1000000:5d}.{us % 1000000:06d}: "
        f"{func} <-caller_{k}\n" for k, (c, us, comm, pid, ctx, func) in enumerate(rows)))


def hang_signature(lists):
    """ramtrail crash's hang signature of each CPU's names, newest first."""
    texts = sorted({"".join(n + "\n" for n in names) for names in lists if names})
    h = 0xcbf29ce484222325
    for b in "".join(t + "\n" for t in texts).encode():
        h = ((h ^ b) * 0x100000001b3) % (1 << 64)
    return f"{h:016x}"


def hang_rows(stuck_cpu, cpus, stuck="spin_lock_stuck", irq=True):
    """A trace of cpus CPUs that ended while recording: stuck_cpu loops in
    a lock, with a timer interrupt last (irq); the others idle. Rows are
    write_crash_part()'s; returns them and each CPU's expected names."""
    rows, want = [], {}
    for i in range(12):
        for cpu in range(cpus):
            us = 1000 + i * 100 + cpu
            if cpu == stuck_cpu:
                tick = irq and i >= 10
                func = f"tick_{i}" if tick else stuck if i % 2 else "do_work [rtmod]"
                rows.append((cpu, us, "worker", 77, "h" if tick else ".", func))
            else:
                rows.append((cpu, us, "<idle>", 0, ".", ("default_idle", "cpuidle_enter",
                                                         "do_idle")[i % 3]))
    for cpu in range(cpus):
        mine = [r for r in rows if r[0] == cpu]
        ctx = mine[-1][4]
        want[cpu] = [r[5].replace(" ", "") for r in mine if r[4] == ctx][::-1][:8]
    return rows, want


def test_crash_hang_signature(img):
    """ramtrail crash of a trace that ended while recording (a watchdog's
    reset, a power cut, a hang): kind hang, each CPU's last functions in
    the context of its last record, and a hang signature of the distinct
    lists that neither the hung CPU's number nor the idle CPUs' count
    change. A frozen crash's fields stay as they were."""
    work = img.work / "pstore-hang"
    work.mkdir(exist_ok=True)

    def crash(rows, state="recording", functions=None):
        write_crash_part(work, 3, crash_header(part=1, parts=1, state=state), rows)
        p = run("crash", work / "ftrace-ramtrail-3", *(["--functions", functions]
                                                       if functions else []))
        return p, dict(x.split("=", 1) for x in p.stdout.splitlines() if "=" in x)

    rows, want = hang_rows(1, 2)
    p, f = crash(rows)
    cpus = {k: v.split() for k, v in f.items() if re.fullmatch(r"RAMTRAIL_CPU\d+_FUNCTIONS", k)}
    check("crash, ended while recording: kind hang, each CPU's last functions in the "
          "context of its last record (the hung CPU's timer interrupt), newest first",
          p.returncode == 0 and f.get("RAMTRAIL_KIND") == "hang" and
          cpus == {"RAMTRAIL_CPU0_FUNCTIONS": want[0], "RAMTRAIL_CPU1_FUNCTIONS": want[1]} and
          want[1][0] == "tick_11" and len(want[0]) == 8, (p.stderr, cpus, want))
    sig = f.get("RAMTRAIL_HANG_SIGNATURE")
    check("crash: the hang signature is FNV-1a of the CPUs' distinct lists in byte order, "
          "in MESSAGE too; the crash signature is the last CPU's as before",
          sig == hang_signature(want.values()) and f"hang signature {sig}" in f["MESSAGE"] and
          f.get("RAMTRAIL_SIGNATURE") == fnv1a(want[1]), (sig, f.get("MESSAGE")))
    p3, f3 = crash(rows, functions="3")
    check("crash --functions 3 of a hang: three names a CPU, their own signature",
          f3.get("RAMTRAIL_CPU0_FUNCTIONS", "").split() == want[0][:3] and
          f3.get("RAMTRAIL_HANG_SIGNATURE") == hang_signature(w[:3] for w in want.values()),
          f3)
    moved, _ = hang_rows(3, 4)
    task, _ = hang_rows(1, 2, irq=False)
    other, _ = hang_rows(1, 2, stuck="mutex_stuck", irq=False)
    sigs = [crash(r)[1].get("RAMTRAIL_HANG_SIGNATURE") for r in (moved, task, other)]
    check("crash: the same hang on CPU 3 of 4 signs the same; in another function, "
          "another signature", sigs[0] == sig and None not in sigs and
          len({sig, sigs[1], sigs[2]}) == 3, (sig, sigs))
    kinds = {}
    for state in ("frozen by oops on CPU 1", "frozen by user on CPU 1", "stopped"):
        p, f = crash(rows, state=state)
        kinds[state] = (f.get("RAMTRAIL_KIND"),
                        any(k.startswith("RAMTRAIL_CPU0") or k == "RAMTRAIL_HANG_SIGNATURE"
                            for k in f))
    check("crash: a frozen crash is kind crash, a freeze by the user and an unload kind "
          "stop, none with the hang's fields",
          list(kinds.values()) == [("crash", False), ("stop", False), ("stop", False)], kinds)


def test_crash_ends_at_the_freezing_entry(img):
    """A panic is recorded by the tracer's callback just before the freeze's
    callback on the same call: an interrupt that comes between them records
    its entry and exit glue (irq_enter_rcu(), idle_cpu()) in task context
    after panic(). The crash's functions begin at panic() all the same, and
    its signature is the one without the interrupt."""
    work = img.work / "pstore-freeze-entry"
    work.mkdir(exist_ok=True)
    base = [(i % 2, 1000 + i * 10, "sh" if i % 2 == 0 else "rtcrash",
             100 if i % 2 == 0 else 321, ".", f"func_{i}") for i in range(20)]
    base.append((1, 1300, "rtcrash", 321, ".", "panic"))
    late = [(1, 1310, "rtcrash", 321, ".", "irq_enter_rcu"),
            (0, 1315, "sh", 100, ".", "func_99"),
            (1, 1320, "rtcrash", 321, ".", "idle_cpu")]
    got = {}
    for name, rows in (("alone", base), ("interrupted", base + late)):
        for state in ("frozen by panic on CPU 1", "frozen by user on CPU 1"):
            for f in work.iterdir():
                f.unlink()
            write_crash_part(work, 3, crash_header(part=1, parts=1, state=state), rows)
            p = run("crash", work / "ftrace-ramtrail-3")
            got[name, state] = dict(x.split("=", 1) for x in p.stdout.splitlines() if "=" in x)
    a = got["alone", "frozen by panic on CPU 1"]
    b = got["interrupted", "frozen by panic on CPU 1"]
    u = got["interrupted", "frozen by user on CPU 1"]
    check("crash: a panic's functions begin at panic(), an interrupt after it left out "
          "(the same signature); a user's freeze keeps every record",
          a.get("RAMTRAIL_FUNCTIONS", "").split()[:2] == ["panic", "func_19"] and
          b.get("RAMTRAIL_FUNCTIONS") == a.get("RAMTRAIL_FUNCTIONS") and
          b.get("RAMTRAIL_SIGNATURE") == a.get("RAMTRAIL_SIGNATURE") and
          u.get("RAMTRAIL_FUNCTIONS", "").split()[:3] == ["idle_cpu", "irq_enter_rcu", "panic"],
          (a.get("RAMTRAIL_FUNCTIONS"), b.get("RAMTRAIL_FUNCTIONS"), u.get("RAMTRAIL_FUNCTIONS")))


def test_crash_leaves_out_an_interrupts_glue(img):
    """An interrupt's entry and exit glue runs in the task's context
    (irq_enter_rcu() called from its vector, handle_softirqs() and
    idle_cpu() from irq_exit_rcu()): between the task's last functions it
    must change neither the crash's functions nor its signature."""
    work = img.work / "pstore-irq-glue"
    work.mkdir(exist_ok=True)
    task = [(1, 1000 + i * 10, "rtcrash", 321, ".", f"func_{i}") for i in range(12)]

    def rows(irq):
        out = [(c, us, comm, pid, ctx, f) for c, us, comm, pid, ctx, f in task[:9]]
        if irq:
            out += [(1, 1095, "rtcrash", 321, ".", "irq_enter_rcu"),
                    (1, 1096, "rtcrash", 321, "h", "timer_fn"),
                    (1, 1097, "rtcrash", 321, "h", "irq_exit_rcu"),
                    (1, 1098, "rtcrash", 321, ".", "handle_softirqs"),
                    (1, 1099, "rtcrash", 321, "s", "run_timers"),
                    (1, 1100, "rtcrash", 321, ".", "idle_cpu")]
        return out + task[9:] + [(1, 2000, "rtcrash", 321, ".", "panic")]

    callers = {"irq_enter_rcu": "sysvec_apic_timer_interrupt", "handle_softirqs": "irq_exit_rcu",
               "idle_cpu": "irq_exit_rcu"}
    got = []
    for irq in (False, True):
        for f in work.iterdir():
            f.unlink()
        write_crash_part(work, 3, crash_header(part=1, parts=1,
                                               state="frozen by panic on CPU 1"), rows(irq))
        text = work / "console-ramtrail-300"
        text.write_text("".join(
            re.sub(r": (\w+) <-caller_\d+$", lambda m: f": {m[1]} <-{callers[m[1]]}"
                   if m[1] in callers else m[0], line) + "\n"
            for line in text.read_text().splitlines()))
        p = run("crash", work / "ftrace-ramtrail-3")
        got.append(dict(x.split("=", 1) for x in p.stdout.splitlines() if "=" in x))
    check("crash: an interrupt's glue in task context (called from a vector or from "
          "irq_exit_rcu) leaves the functions and the signature as they were",
          got[0].get("RAMTRAIL_FUNCTIONS", "").split()[:3] == ["panic", "func_11", "func_10"]
          and got[1].get("RAMTRAIL_FUNCTIONS") == got[0].get("RAMTRAIL_FUNCTIONS") and
          got[1].get("RAMTRAIL_SIGNATURE") == got[0].get("RAMTRAIL_SIGNATURE"),
          (got[0].get("RAMTRAIL_FUNCTIONS"), got[1].get("RAMTRAIL_FUNCTIONS")))


def test_pstore_hostile_comms(img):
    """A comm is any 15 bytes a task gives itself (prctl(PR_SET_NAME)):
    spaces, '[', '-', digits, ':'. The text's columns are read by their
    places, so the task, CPU, names and signature are those of a plain
    comm; a line that cannot be read is counted and said."""
    work = img.work / "pstore-comms"
    work.mkdir(exist_ok=True)

    def archive(comm):
        rows = [(i % 2, 1000 + i * 10, "sh" if i % 2 == 0 else comm,
                 100 if i % 2 == 0 else 321, ".", f"func_{i}") for i in range(24)]
        write_crash_part(work, 7, crash_header(part=1, parts=1), rows)
        files = [work / "ftrace-ramtrail-7"]
        p, d = run("crash", *files), run("decode", *files)
        f = dict(x.split("=", 1) for x in p.stdout.splitlines() if "=" in x)
        tasks = [(m[1].lstrip(" "), m[2], m[3], m[6].split(" <-")[0])
                 for m in map(LINE.match, lines_of(d.stdout)) if m]
        return p, d, f, tasks

    p0, d0, plain, plain_tasks = archive("rtcrash")
    check("pstore text, plain comm: the crash's task, functions by name, nothing unreadable",
          p0.returncode == 0 and plain.get("RAMTRAIL_TASK") == "rtcrash" and
          plain.get("RAMTRAIL_FUNCTIONS", "").split()[:2] == ["func_23", "func_21"] and
          plain.get("RAMTRAIL_UNREADABLE") == "0" and "cannot be read" not in p0.stderr,
          (p0.stderr, plain))
    for comm in ("x [y", "a-1 [002] d..1.", "abcdefghijklmno", "kw:0-12 [7]: 3",
                 "-1 [001] X.... ", "9"):
        p, d, f, tasks = archive(comm)
        same = {k: v for k, v in f.items() if k not in ("RAMTRAIL_TASK", "MESSAGE")}
        want = {k: v for k, v in plain.items() if k not in ("RAMTRAIL_TASK", "MESSAGE")}
        check(f"pstore text, comm {comm!r}: crash names the same task, pid, CPU, "
              "functions and signature as for a plain comm",
              p.returncode == 0 and f.get("RAMTRAIL_TASK") == comm.lstrip(" ") and
              same == want and f.get("MESSAGE") ==
              plain.get("MESSAGE", "").replace("rtcrash[", f"{comm.lstrip(' ')}["),
              (p.stderr, f.get("RAMTRAIL_TASK"), f.get("RAMTRAIL_FUNCTIONS")))
        check(f"pstore text, comm {comm!r}: decode gives every record its task, pid, CPU "
              "and function name",
              d.returncode == 0 and "cannot be read" not in d.stderr and
              tasks == [(comm.lstrip(" ") if t[0] == "rtcrash" else t[0],) + t[1:]
                        for t in plain_tasks] and len(tasks) == 24,
              (d.stderr, tasks[:2]))
    text = work / "console-ramtrail-700"
    lines = text.read_text().splitlines(True)
    text.write_text("".join(lines[:6] + ["not a record\n", "   sh-1 [000] X.... 1.0: f\n"] +
                            lines[6:]))
    p = run("crash", work / "ftrace-ramtrail-7")
    f = dict(x.split("=", 1) for x in p.stdout.splitlines() if "=" in x)
    check("pstore text: lines that cannot be read are counted, said on stderr and in "
          "RAMTRAIL_UNREADABLE; the records around them kept",
          p.returncode == 0 and f.get("RAMTRAIL_UNREADABLE") == "2" and
          "2 lines of the text files" in p.stderr and "cannot be read" in p.stderr and
          f.get("RAMTRAIL_SIGNATURE") == plain.get("RAMTRAIL_SIGNATURE"), (p.stderr, f))


def test_pstore_control_bytes(img):
    """A forged text's comm with an escape, the 8-bit CSI (0x9b) and a
    byte 0x80-0x9f reaches no output as such: decode, crash, trace.dat's
    cmdlines, JSON and Perfetto all print '?' for each."""
    work = img.work / "pstore-ctl"
    work.mkdir(exist_ok=True)
    rows = [(i % 2, 1000 + i * 10, "sh" if i % 2 == 0 else "rtcrash",
             100 if i % 2 == 0 else 321, ".", f"func_{i}") for i in range(12)]
    write_crash_part(work, 7, crash_header(part=1, parts=1), rows)
    text = work / "console-ramtrail-700"
    text.write_bytes(text.read_bytes().replace(b"rtcrash", b"r\x1b[2J\x9b\x85"))
    outs = {}
    for name, args in (("decode", ["decode"]), ("crash", ["crash"]),
                       ("json", ["export", "--format", "json"]),
                       ("dat", ["export"]), ("perfetto", ["export", "--format", "perfetto"])):
        out = work / f"out.{name}"
        p = subprocess.run([str(TOOL), *args, str(work / "ftrace-ramtrail-7"), "-o", str(out)],
                           capture_output=True)
        outs[name] = out.read_bytes() if p.returncode == 0 and out.exists() else None
    # Perfetto's protobuf holds any byte in its numbers: the comm's, there.
    bad = {k: v is None or any(b in (v if k != "perfetto" else v.replace(b"r?[2J??", b""))
                               for b in ((b"r\x1b[2J", b"r?[2J\x9b") if k == "perfetto" else
                                         (b"\x1b", b"\x9b", b"\x85", b"\\u001b", b"\\u009b")))
           or (k == "perfetto" and b"r?[2J??" not in v)
           for k, v in outs.items()}
    check("pstore text: a comm's escape, 0x9b and 0x85 reach no output (decode, crash, "
          "JSON, trace.dat, Perfetto)", not any(bad.values()), bad)
    check("pstore text: that comm prints with '?' for them (decode, crash, trace.dat's "
          "cmdlines \"321 r?[2J??\")",
          outs["decode"] and b"r?[2J??-321 " in outs["decode"] and
          outs["crash"] and b"RAMTRAIL_TASK=r?[2J??\n" in outs["crash"] and
          outs["dat"] and b"321 r?[2J??\n" in outs["dat"],
          {k: (v or b"")[:0] for k, v in outs.items()})


def text_line(comm, pid, cpu, flags, us, what):
    """A line of the module's text (ramtrail_text_record())."""
    return f"{comm:>16}-{pid:<7d} [{cpu:03d}] {flags} {us // 1000000:5d}.{us % 1000000:06d}: {what}"


# Events as the module's text prints them, one of each kind (TP_printk()).
PSTORE_EVENTS = [
    (0, "d....", "sched_switch: prev_comm=sh prev_pid=100 prev_prio=120 prev_state=S "
     "==> next_comm=x [y next_pid=200 next_prio=120"),
    (0, ".....", "tracing_mark_write: hello world"),
    (1, "d.h..", "irq_handler_entry: irq=5 name=eth0"),
    (1, "d.h..", "irq_handler_exit: irq=5 ret=handled"),
    (1, "..s..", "softirq_entry: vec=3 [action=NET_RX]"),
    (1, ".N...", "workqueue_execute_start: work struct 00000000deadbeef: function vmstat_update"),
    (1, ".....", "timer_expire_entry: timer=00000000cafe0000 function=process_timeout [mod] "
     "now=4294 baseclk=4295"),
    (1, ".....", "sched_waking: comm=kworker/1:0 pid=30 prio=120 target_cpu=001"),
    (1, ".....", "sched_switch: prev_comm=x [y prev_pid=200 prev_prio=120 prev_state=R+ "
     "==> next_comm=swapper/1 next_pid=0 next_prio=120"),
    (0, ".....", "ramtrail_event: id=300 len=3 data=0a0b0c"),
    (1, ".....", "console: Kernel panic - not syncing: test"),
]


def test_pstore_events(img):
    """Events reach pstore only in the text: an archive of text files
    alone (a trace without function records has no ftrace file) decodes,
    exports and gives a crash record, and with functions the events come
    between them where the text has them."""
    work = img.work / "pstore-events"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    rows = [text_line("x [y" if i else "sh", 200 if i else 100, cpu, fl, 1000 + 10 * i, what)
            for i, (cpu, fl, what) in enumerate(PSTORE_EVENTS)]
    (work / "console-ramtrail-500").write_text(crash_header(part=1, parts=1) +
                                               "\n".join(rows) + "\n")
    text = work / "console-ramtrail-500"
    p = run("decode", text)
    check("pstore text alone, events only: decode prints each event as the text has it, "
          "task, CPU, flags and fields",
          p.returncode == 0 and lines_of(p.stdout) == rows and "cannot be read" not in p.stderr,
          (p.returncode, p.stderr, lines_of(p.stdout)[:2]))
    p = run("crash", text)
    f = dict(x.split("=", 1) for x in p.stdout.splitlines() if "=" in x)
    check("pstore text alone, events only: a crash record, the task of the CPU's last "
          "event, no function, nothing unreadable",
          p.returncode == 0 and f.get("RAMTRAIL_CPU") == "1" and
          f.get("RAMTRAIL_TASK") == "x [y" and f.get("RAMTRAIL_FUNCTIONS") == "" and
          f.get("RAMTRAIL_UNREADABLE") == "0", (p.returncode, p.stderr, f))
    dat = work / "trace.dat"
    p = run("export", text, "-o", dat)
    rep = [m for m in map(REPORT.match, report(dat).stdout.splitlines()) if m]
    got = [(m[1].strip(), m[2], m[5], m[6].strip()) for m in rep]
    check("pstore text alone: trace.dat holds sched_switch as the kernel's event (its "
          "comms, pids, state), the others as theirs or as text",
          p.returncode == 0 and len(got) == len(rows) and
          got[0] == ("sh", "100", "sched_switch", "sh:100 [120] S ==> x [y:200 [120]") and
          # libtraceevent's plugin prints preempted (R+) as R
          got[8][:3] == ("x [y", "200", "sched_switch") and
          re.fullmatch(r"x \[y:200 \[120\] R\+? ==> swapper/1:0 \[120\]", got[8][3]) and got[2][2:] == ("irq_handler_entry", "irq=5 name=eth0") and
          got[7][2:] == ("sched_waking", "comm=kworker/1:0 pid=30 prio=120 target_cpu=001") and
          got[5][2:] == ("text", PSTORE_EVENTS[5][2]) and
          got[10][2:] == ("console", "Kernel panic - not syncing: test"),
          (p.stderr, got[:3]))
    pf, js = work / "trace.pftrace", work / "trace.json"
    p2 = run("export", text, "--format", "perfetto", "-o", pf)
    p3 = run("export", text, "--format", "json", "-o", js)
    names = [e["name"] for e in json.loads(js.read_text())["traceEvents"]
             if e.get("ph") == "i"] if p3.returncode == 0 else []
    check("pstore text alone: Perfetto and JSON exports hold every event",
          p2.returncode == 0 and "11 records written" in p2.stderr and
          b"kworker/1:0" in pf.read_bytes() and p3.returncode == 0 and
          names == [re.match(r"(\w+): ", w)[1] if not w.startswith(("tracing_mark_write",
                                                                   "ramtrail_event"))
                    else "print" if w.startswith("tracing") else "event 300"
                    for _, _, w in PSTORE_EVENTS],
          (p2.stderr, p3.stderr, names))
    # Functions and events: the ftrace file and its text, events between.
    fn = [(i % 2, 2000 + 10 * i, "sh" if i % 2 == 0 else "x [y", 100 if i % 2 == 0 else 200,
           ".", f"func_{i}") for i in range(8)]
    write_crash_part(work, 6, crash_header(part=1, parts=1), fn)
    funcs_only = run("crash", work / "ftrace-ramtrail-6")
    plain = run("decode", work / "ftrace-ramtrail-6")
    flines = (work / "console-ramtrail-600").read_text().splitlines()
    mixed, k = flines[:4], 0
    for i, x in enumerate(flines[4:]):
        us = 2000 + 10 * i
        cpu, fl, what = PSTORE_EVENTS[k % len(PSTORE_EVENTS)]
        mixed += [x, text_line("sh" if cpu == 0 else "x [y", 100 if cpu == 0 else 200,
                               i % 2, fl, us, what)]
        k += 1
    (work / "console-ramtrail-600").write_text("\n".join(mixed) + "\n")
    p = run("decode", work / "ftrace-ramtrail-6")
    c = run("crash", work / "ftrace-ramtrail-6")
    sig = lambda q: re.search(r"RAMTRAIL_SIGNATURE=(\w+)", q.stdout)
    check("pstore files, functions and events: decode gives the text's records in its "
          "order, functions named, events between them",
          p.returncode == 0 and lines_of(p.stdout) == mixed[4:] and
          [x for x in lines_of(p.stdout) if "func_" in x] == lines_of(plain.stdout),
          (p.stderr, lines_of(p.stdout)[:3], mixed[4:7]))
    check("pstore files, functions and events: the crash's functions and signature are "
          "those of the functions alone",
          c.returncode == 0 and sig(c) and sig(funcs_only) and
          sig(c)[1] == sig(funcs_only)[1] and "RAMTRAIL_FUNCTIONS=func_7 func_5" in c.stdout,
          (c.stderr, c.stdout[-400:]))


def test_collect(img):
    """ramtrail-collect (the unit's script) on an archive of two traces:
    each one's trace.dat, Perfetto trace and journal entry once; a failed
    logger leaves the entry to the next run."""
    c = Collector(img.work / "collect")
    work, arch, out = c.work, c.arch, c.out
    src = img.work / "pstore-crash"
    for f in src.iterdir():               # boot 5's trace: files 2048, 2049
        shutil.copy(f, arch / f.name)
    # boot 1's trace, one part: the first of boot 5's, renamed
    c.part(0, src, 2048, crash_header(boot=1, parts=1, nonce=0x99))
    (arch / "dmesg-ramtrail-3").write_text("Oops\n")
    rc, err = c.run()
    entries = c.entries()
    dirs = sorted(x.name for x in out.iterdir() if x.is_dir() and x.name[0] != ".") \
        if out.exists() else []
    want = ["0000000000000099-1", "000000001234abcd-5"]
    check("ramtrail-collect: one journal entry a trace, in its own folder",
          rc == 0 and dirs == want and
          [e.get("RAMTRAIL_TRACE") for e in entries] == want, (rc, err, dirs))
    ok = all((out / d / "crash.journal").exists() and
             (out / d / "trace.dat").read_bytes()[:10] == b"\x17\x08Dtracing" and
             (out / d / "trace.pftrace").stat().st_size > 100 for d in want)
    e = entries[-1] if entries else {}
    check("ramtrail-collect: trace.dat and the Perfetto trace written, their paths and "
          "the archived files in the entry",
          ok and e.get("RAMTRAIL_TRACE_DAT") == f"{out}/{want[1]}/trace.dat" and
          e.get("RAMTRAIL_PERFETTO") == f"{out}/{want[1]}/trace.pftrace" and
          e.get("RAMTRAIL_FILES") == f"{arch}/ftrace-ramtrail-2048 {arch}/ftrace-ramtrail-2049"
          and e.get("RAMTRAIL_SIGNATURE"), e)
    rc, _ = c.run()
    n = len(c.entries())
    check("ramtrail-collect: a second run logs nothing again", rc == 0 and n == 2, n)
    shutil.rmtree(out / want[0])
    (work / "logger-fails").write_text("")
    rc, err = c.run()
    check("ramtrail-collect: the journal refuses: exit 1, the entry kept for the next run",
          rc == 1 and (out / want[0] / "crash.journal.new").exists() and
          not (out / want[0] / "crash.journal").exists(), rc)
    (work / "logger-fails").unlink()
    rc, _ = c.run()
    n = len(c.entries())
    check("ramtrail-collect: the next run logs it", rc == 0 and n == 3 and
          (out / want[0] / "crash.journal").exists(), (rc, n))
    # Two runs at once, the journal slow: each trace still logged once.
    for d in want:
        shutil.rmtree(out / d)
    (work / "logger-slow").write_text("")
    runs = [c.start() for _ in range(2)]
    rcs = [x.wait() for x in runs]
    n = len(c.entries())
    check("ramtrail-collect: two runs at once log each trace once", rcs == [0, 0] and n == 5,
          (rcs, n))
    # A trace of events alone: its text, no ftrace file.
    (work / "logger-slow").unlink()
    (arch / "console-ramtrail-307200").write_text(
        crash_header(boot=4, parts=1, nonce=0x77) +
        text_line("sh", 100, 1, "d....", 5000, PSTORE_EVENTS[0][2]) + "\n")
    rc, err = c.run()
    d = out / "0000000000000077-4"
    check("ramtrail-collect: a trace of events alone (no ftrace file) is collected, its "
          "text file in the entry",
          rc == 0 and (d / "crash.journal").exists() and
          (d / "trace.dat").read_bytes()[:10] == b"\x17\x08Dtracing" and
          f"RAMTRAIL_FILES={arch}/console-ramtrail-307200\n" in c.log.read_text(),
          (rc, err))


def test_collect_groups_parts_by_their_header(img):
    """A region formatted again numbers its boots from 1 again, and
    systemd-pstore replaces an archived file by a new one of the same
    name: the new trace is collected alone, the old one's part left out."""
    c = Collector(img.work / "collect-reformat")
    src = img.work / "pstore-crash"
    old, new = "000000001234abcd-5", "0000000000005678-5"
    c.part(2048, src, 2048, crash_header(part=1, parts=2))
    c.part(2049, src, 2049, crash_header(part=2, parts=2))
    rc1, _ = c.run()
    c.part(2048, src, 2048, crash_header(part=1, parts=1, nonce=0x5678))
    rc2, err = c.run()
    e = c.entries()
    check("ramtrail-collect: a reformatted region's trace, archived over an old one's "
          "file of its number, collected alone; the old one not again",
          (rc1, rc2) == (0, 0) and [x.get("RAMTRAIL_TRACE") for x in e] == [old, new] and
          e[1].get("RAMTRAIL_FILES") == f"{c.arch}/ftrace-ramtrail-2048" and
          e[1].get("RAMTRAIL_PARTS_READ") == "1" and
          (c.out / new / "crash.journal").exists(), (rc1, rc2, err, e[1:]))


def test_collect_records_what_never_collects(img):
    """A part without a header (a module before 0.22) and a trace the
    command refuses are said once and recorded, not tried at every boot;
    the other traces are collected."""
    c = Collector(img.work / "collect-never")
    src = img.work / "pstore-crash"
    c.part(0, src, 2048, "")                                  # before 0.22
    c.part(2048, src, 2048, crash_header(part=1, parts=2))
    c.part(2049, src, 2049, crash_header(part=2, parts=2))
    c.part(3072, src, 2048, crash_header(boot=4, part=1, parts=2, nonce=0x77))
    c.part(3073, src, 2049, crash_header(boot=4, part=2, parts=2, nonce=0x77,
                                         state="recording"))  # not one trace
    runs = [c.run() for _ in range(3)]
    e = c.entries()
    failed = c.out / "0000000000000077-4" / "failed"
    check("ramtrail-collect: a part without a header: exit 1 once, said, listed in "
          "no-header; the other trace collected",
          runs[0][0] == 1 and "ftrace-ramtrail-0: no header" in runs[0][1] and
          [x.get("RAMTRAIL_TRACE") for x in e] == ["000000001234abcd-5"] and
          (c.out / "no-header").read_text().startswith("ftrace-ramtrail-0 "),
          (runs[0], e))
    check("ramtrail-collect: a trace the command refuses: said with the command's "
          "error, which its failed note keeps",
          "0000000000000077-4: cannot be collected" in runs[0][1] and
          "different traces" in runs[0][1] and failed.exists() and
          "different traces" in failed.read_text() and
          f"RAMTRAIL_FILES={c.arch}/ftrace-ramtrail-3072 {c.arch}/ftrace-ramtrail-3073\n"
          in failed.read_text(), (runs[0][1], failed.exists()))
    check("ramtrail-collect: neither tried again: later runs exit 0, say nothing, log "
          "nothing", runs[1:] == [(0, ""), (0, "")] and len(c.entries()) == 1, runs[1:])
    c.part(3073, src, 2049, crash_header(boot=4, part=2, parts=2, nonce=0x77))
    rc, err = c.run()
    check("ramtrail-collect: a refused trace whose files changed is tried again",
          rc == 0 and [x.get("RAMTRAIL_TRACE") for x in c.entries()][1:] ==
          ["0000000000000077-4"] and not failed.exists(), (rc, err))


def test_collect_reports_export_errors(img):
    """An export that fails is said with the command's own message, fails
    the run and is tried again at the next one."""
    c = Collector(img.work / "collect-export")
    src = img.work / "pstore-crash"
    c.part(2048, src, 2048, crash_header(part=1, parts=2))
    c.part(2049, src, 2049, crash_header(part=2, parts=2))
    dat = c.out / "000000001234abcd-5" / "trace.dat"
    dat.mkdir(parents=True)                 # not writable as a file
    rc, err = c.run()
    check("ramtrail-collect: an export error: exit 1, the command's message naming the "
          "file on stderr, nothing logged",
          rc == 1 and f"{dat}" in err and "ramtrail export" not in err.split(str(dat))[0]
          and "tried again" in err and not c.entries() and ".staged" not in err,
          (rc, err))
    dat.rmdir()
    rc, err = c.run()
    check("ramtrail-collect: the next run collects it", rc == 0 and len(c.entries()) == 1,
          (rc, err))


def test_collect_skips_what_is_not_a_file(img):
    """A FIFO, a device or a symlink of a pstore name is skipped with a
    message, never opened (a FIFO would block the unit), and the trace is
    collected from its regular files."""
    c = Collector(img.work / "collect-fifo")
    src = img.work / "pstore-crash"
    c.part(2048, src, 2048, crash_header(part=1, parts=2))
    c.part(2049, src, 2049, crash_header(part=2, parts=2))
    os.mkfifo(c.arch / "console-ramtrail-204801")            # beside part 2048's text
    (c.arch / "console-ramtrail-204901").symlink_to("/dev/zero")
    (c.arch / "ftrace-ramtrail-3072").symlink_to(c.arch / "ftrace-ramtrail-2048")
    rc, err = c.run(timeout=20)
    e = c.entries()
    check("ramtrail-collect: a FIFO and symlinks beside pstore files: skipped and said, "
          "the run not blocked, the trace collected from the files",
          rc == 0 and all(f"{c.arch}/{n}: not a regular file, skipped" in err
                          for n in ("console-ramtrail-204801", "console-ramtrail-204901",
                                    "ftrace-ramtrail-3072")) and
          len(e) == 1 and e[0].get("RAMTRAIL_FILES") ==
          f"{c.arch}/ftrace-ramtrail-2048 {c.arch}/ftrace-ramtrail-2049", (rc, err, e))


def test_collect_writes_for_root_only(img):
    """What ramtrail-collect writes is its owner's only, even run by hand
    with umask 022: folders 0700, files 0600."""
    c = Collector(img.work / "collect-modes")
    src = img.work / "pstore-crash"
    c.part(0, src, 2048, "")
    c.part(2048, src, 2048, crash_header(part=1, parts=2))
    c.part(2049, src, 2049, crash_header(part=2, parts=2))
    rc, _ = c.run()
    d = c.out / "000000001234abcd-5"
    modes = {str(p.relative_to(c.work)): oct(p.stat().st_mode & 0o777)
             for p in [c.out, d, *d.iterdir(), *c.out.glob(".*"), *c.out.glob("no-header")]}
    want = {"out": "0o700", "out/000000001234abcd-5": "0o700"}
    check("ramtrail-collect: folders 0700, files 0600 (trace.dat, trace.pftrace, "
          "crash.journal, no-header, .lock)",
          rc == 1 and len(modes) == 7 and
          all(v == want.get(k, "0o600") for k, v in modes.items()), modes)


def test_collect_unit_is_sandboxed(img):
    """ramtrail-collect.service: its files root's only, the system read-only
    but for its state folder, no network, no privilege to gain."""
    unit = (TOP / "scripts/package/ramtrail-collect.service").read_text()
    got = {}
    for line in unit.splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            got.setdefault(k, []).append(v)
    want = dict(UMask="0077", StateDirectory="ramtrail", StateDirectoryMode="0700",
                ProtectSystem="strict", ProtectHome="yes", PrivateTmp="yes",
                PrivateNetwork="yes", NoNewPrivileges="yes", ProtectKernelTunables="yes",
                ProtectKernelModules="yes", ProtectControlGroups="yes",
                RestrictAddressFamilies="AF_UNIX")
    bad = {k: got.get(k) for k, v in want.items() if got.get(k) != [v]}
    check("ramtrail-collect.service: UMask=0077, StateDirectoryMode=0700, sandboxed "
          "(ProtectSystem=strict, no network but AF_UNIX, NoNewPrivileges ...)",
          not bad, bad)
    check("ramtrail-collect.service: a start timeout and a memory bound",
          len(got.get("TimeoutStartSec", [])) == 1 and len(got.get("MemoryMax", [])) == 1,
          (got.get("TimeoutStartSec"), got.get("MemoryMax")))


def test_broken_inputs(img):
    """Broken inputs: a clean error or a partial result with counts."""
    work, blob = img.work, img.blob
    cases = {
        "missing file": (work / "nope", 2, "No such file"),
        "empty file": (b"", 3, "no ramtrail region"),
        "foreign file": (bytes(random.Random(1).randrange(256) for _ in range(1 << 16)),
                         3, "no ramtrail region"),
        "truncated region": (blob[:len(blob) // 2], 3, "truncated"),
        "damaged header": (blob[:40] + bytes([blob[40] ^ 1]) + blob[41:], 3,
                           "checksum"),
        "directory": (work, 2, "Is a directory"),
    }
    for name, (data, rc, msg) in cases.items():
        path = data if isinstance(data, Path) else work / "case.img"
        if not isinstance(data, Path):
            path.write_bytes(data)
        results = [run(cmd, path, *extra) for cmd, *extra in
                   (("decode",), ("stats",), ("export", "-o", work / "x.dat"))]
        check(f"broken input: {name}: exit {rc} and says why, for every command",
              all(r.returncode == rc and msg in r.stderr and not records(r.stdout)
                  for r in results),
              [(r.returncode, r.stderr.strip()) for r in results])

    # A boot header torn by a reset (nonce, offset 128, is per boot): the
    # zones are not read, what outlives the boot is still listed.
    torn = torn_image(img)
    p, s = run("decode", torn), run("stats", torn)
    check("torn boot header: zones refused with the reason, region still listed",
          p.returncode == 3 and "boot header: region header checksum mismatch" in p.stderr
          and not records(p.stdout) and s.returncode == 0 and
          "header_error region header checksum mismatch" in s.stdout and
          not re.search(r"^cpu0 ", s.stdout, re.M),
          (p.returncode, p.stderr, s.returncode, s.stdout[:300]))

    # A per-boot field out of bounds under a valid checksum (clock_hz, at
    # 152, below the least; the checksum at 16 covers 512 bytes, itself and
    # the state as 0): the reason names the field.
    absurd = bytearray(blob)
    struct.pack_into("<Q", absurd, 152, 1)
    struct.pack_into("<I", absurd, 16, zlib.crc32(bytes(absurd[:16]) + bytes(8) +
                                                  bytes(absurd[24:512])))
    (work / "absurd.img").write_bytes(absurd)
    p, s = run("decode", work / "absurd.img"), run("stats", work / "absurd.img")
    why = "region header field out of bounds: clock_hz"
    check("a header field out of bounds: named, not called the geometry",
          p.returncode == 3 and f"boot header: {why}" in p.stderr and
          f"header_error {why}" in s.stdout and "geometry" not in p.stderr + s.stdout,
          (p.returncode, p.stderr, s.stdout[:300]))

    # The traced machine (at 84) is arm64, whose KASLR is known (a 64 KiB
    # granule, of which the image's delta is a multiple): its System.map
    # names the records as on x86-64. No other machine passes the
    # header's checks.
    named = run("decode", img.ram, "--system-map", img.smap)
    arm = bytearray(blob)
    struct.pack_into("<I", arm, 84, 183)
    struct.pack_into("<I", arm, 16, zlib.crc32(bytes(arm[:16]) + bytes(8) +
                                               bytes(arm[24:512])))
    (work / "arm64.img").write_bytes(arm)
    p = run("decode", work / "arm64.img", "--system-map", img.smap)
    s = run("stats", work / "arm64.img")
    check("an arm64 image: its System.map names the records as x86-64's; "
          "stats names the machine",
          p.returncode == 0 and records(p.stdout) == records(named.stdout) and
          records(p.stdout) and "machine aarch64\n" in s.stdout,
          (p.returncode, p.stderr, named.returncode))


def test_stats_json(img):
    """The same facts as one JSON object."""
    region, ram, expect = img.region, img.ram, img.expect
    per_cpu = [sum(1 for e in expect if e.startswith(f"{c} ")) for c in range(3)]
    for name, path in (("RAM image", ram), ("bare region", region)):
        p = run("stats", path)
        rc, j, err = stats_json(path)
        check(f"stats --format json: {name}: one object, the text's facts under its keys",
              rc == 0 and j is not None and stats_as_text(j) == p.stdout,
              f"rc={rc} {err} {[x for x in zip((stats_as_text(j) if j else '').splitlines(), p.stdout.splitlines()) if x[0] != x[1]][:3]}")
    check("stats --format json: header, zones and their per-CPU records",
          j and j["source"] == "region" and j["version"] == VERSION and j["boot_id"] == 1 and
          j["machine"] == "x86_64" and
          j["state"] == "recording" and j["freeze_reason"] == "none" and
          j["nr_cpus"] == 3 and j["clock_reliable"] is False and j["saved"] == [] and
          [m["name"] for m in j["modules"][:2]] == ["vmlinux", "rt_fake"] and
          j["modules"][0]["kernel"] is True and j["modules"][1]["kernel"] is False and
          [c["records"] for c in j["zones"]["cpus"]] == per_cpu and
          j["zones"]["records"] == len(expect), j)


def test_saved_traces(img):
    """Saved traces of earlier boots, as the module leaves them."""
    work, region, blob = img.work, img.region, img.blob
    torn = torn_image(img)
    # Saved traces of earlier boots, as the module leaves them: boot 5's
    # erased, boot 7's shown (its pstore file is ftrace-ramtrail-6144: a
    # boot's files are numbered from (boot - 1) * 1024).
    saved = bytearray(blob)
    area = stats_json(region)[1]["saved_offset"]
    first, second = saved_entry(5, 3, erased=1, state=4, reason=0), \
        saved_entry(7, 20, release='6.12 "q"\\', skipped=9)
    saved[area:area + len(first)] = first
    saved[area + 1024:area + 1024 + len(second)] = second
    (work / "saved.img").write_bytes(saved)
    p = run("stats", work / "saved.img")
    rc, js, err = stats_json(work / "saved.img")
    check("stats --format json: saved traces: the text's facts under its keys",
          rc == 0 and js is not None and stats_as_text(js) == p.stdout,
          f"rc={rc} {err} {p.stdout[-400:]}")
    want = [dict(boot_id=5, records=3, erased=True, erased_mask=1, state="stopped",
                 freeze_reason="none", skipped=0, release="6.1.0-test", first_file=4 * 1024,
                 files=1),
            dict(boot_id=7, records=20, erased=False, erased_mask=0, state="frozen",
                 freeze_reason="panic", freeze_cpu=1, skipped=9, release='6.12 "q"\\',
                 build="#1 SMP", first_file=6 * 1024, files=1)]
    got = js["saved"] if js else []
    check("stats --format json: saved traces with boot, state, reason, erased mask, "
          "pstore files, strings escaped",
          len(got) == 2 and all(all(g.get(k) == v for k, v in w.items())
                                for g, w in zip(got, want)), got)
    # A saved trace reads back whole; a byte changed in its chunk loses
    # that chunk's records, and the command says so.
    p = run("decode", work / "saved.img", "--boot", 7)
    check("decode --boot: a saved trace's records", p.returncode == 0 and
          len(records(p.stdout)) == 20 and "damaged" not in p.stderr,
          (p.returncode, p.stderr))
    saved[area + 1024 + 320 + 32 + 10] ^= 0x40      # in its chunk's entries
    (work / "saved-bad.img").write_bytes(saved)
    p = run("decode", work / "saved-bad.img", "--boot", 7)
    check("decode --boot: a damaged chunk is said and its records not shown",
          p.returncode == 0 and not records(p.stdout) and
          "1 saved chunks were damaged" in p.stderr, (p.returncode, p.stderr))
    # A forged release cannot start lines of its own or drive a terminal.
    forged = bytearray(blob)
    e = saved_entry(9, 4, release="6.1\n  x-1 [000] X....  1.0: panic\x1b[2J")
    forged[area:area + len(e)] = e
    (work / "forged.img").write_bytes(forged)
    p, s = run("decode", work / "forged.img", "--boot", 9), run("stats", work / "forged.img")
    check("a forged release is printed on its own line, control bytes as '?'",
          p.returncode == 0 and len(records(p.stdout)) == 4 and
          "boot 9 (6.1?  x-1 [000] X....  1.0: panic?[2J)" in p.stdout and
          "\x1b" not in p.stdout + s.stdout and
          "release 6.1?  x-1 [000] X....  1.0: panic?[2J\n" in s.stdout,
          (p.stdout[:300], s.stdout[-300:]))
    # Two traces of one boot (not a writer's doing) still get names of
    # their own: the second starts after the first.
    dup = bytearray(blob)
    for i, (boot, n) in enumerate(((5, 3), (5, 4), (6, 5))):
        e = saved_entry(boot, n)
        dup[area + 1024 * i:area + 1024 * i + len(e)] = e
    (work / "dup.img").write_bytes(dup)
    rc, js, err = stats_json(work / "dup.img")
    files = sorted((x["boot_id"], x["first_file"], x["records"]) for x in (js or {}).get("saved", []))
    check("saved traces: files named from their boot, (boot - 1) * 1024, never twice",
          rc == 0 and [f[:2] for f in files] in ([(5, 4096), (5, 4097), (6, 5120)],) and
          sorted(f[2] for f in files[:2]) == [3, 4], (rc, err, files))
    rc, j, err = stats_json(torn)
    check("stats --format json: damaged header: the error, the layout, the saved list",
          rc == 0 and j and j["header_error"] == "region header checksum mismatch" and
          "zones" not in j and "boot_id" not in j and j["saved"] == [] and
          stats_as_text(j) == run("stats", torn).stdout, (rc, err, j))
    p = run("stats", region, "--format", "ftrace")
    check("stats --format: text or json only (exit 1)", p.returncode == 1,
          (p.returncode, p.stderr))


def test_damaged_zone_and_usage(img):
    """A damaged zone: a partial result; command lines refused with exit 1."""
    work, region, ram, smap = img.work, img.region, img.ram, img.smap
    expect, blob = img.expect, img.blob
    damaged = bytearray(blob)
    zone = int(re.search(r"^zone_offset (\d+)", run("stats", region).stdout, re.M)[1])
    rnd = random.Random(2)
    for i in range(64, 64 + 256):                   # first block of zone 0
        damaged[zone + i] = rnd.randrange(256)
    (work / "damaged.img").write_bytes(damaged)
    p = run("decode", work / "damaged.img", "--system-map", smap, "--sym-offset")
    s = run("stats", work / "damaged.img")
    got = records(p.stdout)
    it = iter(expect)
    check("damaged zone: partial result, in order, only records that were written",
          p.returncode == 0 and 0 < len(got) < len(expect) and all(g in it for g in got),
          f"rc={p.returncode} {len(got)}/{len(expect)}")
    check("damaged zone: decode and stats say what was dropped",
          "dropped" in p.stderr and re.search(r"^cpu0 .*corrupt_blocks [1-9]", s.stdout, re.M),
          p.stderr + s.stdout)

    usage = {
        "no arguments": [],
        "unknown command": ["frobnicate", region],
        "unknown option": ["decode", region, "--frob"],
        "bad --offset": ["decode", region, "--offset", "12Q"],
        "export without -o": ["export", region],
        "format of another command": ["decode", region, "--format", "tracedat"],
        "two images": ["decode", region, ram],
    }
    for name, args in usage.items():
        p = run(*args)
        check(f"usage: {name}: exit 1 with a message", p.returncode == 1 and
              "ramtrail:" in p.stderr, f"rc={p.returncode} {p.stderr}")
    p = run("decode", ram, "--offset", "0x10000000")
    check("offset past the end: exit 3", p.returncode == 3 and "past the end" in p.stderr,
          p.stderr)
    p = run("decode", region, "--boot", 5)
    check("a boot the region does not hold: exit 3", p.returncode == 3 and
          "boot 5" in p.stderr, p.stderr)
    p = run("export", region, "-o", work / "no" / "such" / "dir")
    check("unwritable output: exit 2", p.returncode == 2, p.stderr)


def test_refused_before_io(img):
    """Command lines that must be refused before anything is read or written."""
    work, region, ram, smap = img.work, img.region, img.ram, img.smap
    expect, blob = img.expect, img.blob
    victim = work / "victim.img"
    victim.write_bytes(blob)
    for cmd in (("decode",), ("export",), ("stats",)):
        p = run(*cmd, victim, "-o", victim)
        check(f"{cmd[0]} -o naming its input: refused, the image untouched",
              p.returncode == 1 and "output is an input" in p.stderr and
              victim.read_bytes() == blob, (p.returncode, p.stderr))
    p = run("decode", region, "--system-map", smap, "-o", smap)
    check("-o naming the System.map: refused", p.returncode == 1 and
          smap.stat().st_size > 0, (p.returncode, p.stderr))
    bad_numbers = (("--size", "1 "), ("--size", " 1"), ("--offset", " -8"),
                   ("--offset", "-8"), ("--offset", "12"), ("--size", "1x"),
                   ("--offset", "0x"), ("--boot", "1 "))
    results = [run("decode", region, o, v) for o, v in bad_numbers]
    check("numbers: blanks, signs, junk and an offset off 8 bytes are refused",
          all(r.returncode == 1 and f"bad {o}" in r.stderr
              for r, (o, _) in zip(results, bad_numbers)),
          [(o, v, r.returncode, r.stderr.strip())
           for r, (o, v) in zip(results, bad_numbers) if r.returncode != 1])
    p, q = run("decode", region, "--boot", "01"), run("decode", region, "--boot", "1")
    check("numbers: a leading 0 is decimal, not octal", p.returncode == 0 and
          records(p.stdout) == records(q.stdout) and records(q.stdout), p.stderr)
    p = run("decode", region, "--size", "0x4000000", "--offset", "0")
    q = run("decode", region, "--size", "64m")
    check("numbers: hex and a lower-case unit", p.returncode == 0 and
          q.returncode == 0 and records(p.stdout) == records(q.stdout) == records(
              run("decode", region).stdout), (p.stderr, q.stderr))
    p, q = run("decode", region, "--size", "4K"), run("decode", region, "--size", "100")
    check("--size smaller than the region: --size is named, not the image",
          p.returncode == q.returncode == 3 and "more than --size 4096" in p.stderr
          and "--size 100 is less than a region header" in q.stderr, (p.stderr, q.stderr))
    for args in (("--frob",), ("-x",), ("--frob=1",)):
        p = run("decode", region, *args)
        check(f"unknown option {args[0]} last: said to be unknown",
              p.returncode == 1 and "unknown option" in p.stderr, p.stderr)
    devices(ram, smap, expect)
    bit_errors(work)
    out = work / "stats.txt"
    p = run("stats", region, "-o", out)
    check("stats -o FILE: written there, not to standard output",
          p.returncode == 0 and not p.stdout and out.exists() and
          out.read_text() == run("stats", region).stdout, p.stderr)
    if os.path.exists("/dev/full"):
        for cmd in ("stats", "decode", "kallsyms"):
            extra = ("--system-map", smap) if cmd == "kallsyms" else ()
            with open("/dev/full", "w") as full:
                r = subprocess.run([str(TOOL), cmd, str(region), *map(str, extra)],
                                   stdout=full, stderr=subprocess.PIPE, text=True)
            check(f"{cmd} to a full device: exit 2 and the reason",
                  r.returncode == 2 and "No space left" in r.stderr, r.stderr)
    zeros = work / "kallsyms-user"
    zeros.write_text("".join(f"0000000000000000 {x.split()[1]} {x.split()[2]}\n"
                             for x in smap.read_text().splitlines()))
    p = run("decode", region, "--system-map", zeros)
    check("a /proc/kallsyms read without root: exit 4, says to read it as root",
          p.returncode == 4 and "as root" in p.stderr, p.stderr)


def test_help_and_man(img):
    """--help and the manual agree."""
    p = run("--help")
    man = (TOP / "Documentation" / "ramtrail" / "ramtrail.1").read_text()
    opts = set(re.findall(r"(--[a-z-]+)", p.stdout))
    cmds = set(re.findall(r"ramtrail (\w+) IMAGE", p.stdout))
    man_opts = set(re.findall(r"\\-\\-([a-z\\-]+)", man))
    man_opts = {"--" + o.replace("\\-", "-") for o in man_opts}
    check("--help: every option and command is in the man page",
          p.returncode == 0 and opts and cmds and opts <= man_opts and
          all(f".B {c}" in man or f"B {c}" in man for c in cmds),
          f"missing {sorted(opts - man_opts)} cmds {cmds}")
    check("man page: documents the exit codes the tool uses",
          all(f".B {n}" in man for n in range(5)), "exit codes 0..4")


def test_format7(img):
    """Images of the format before this one (tools/tests/data/format7):
    every command prints what the command of that format printed, byte for
    byte (stats adds the machine), module names and the .ko's refusals
    included."""
    data = TOP / "tools/tests/data/format7"
    d = img.work / "format7"
    d.mkdir()
    for f in data.glob("*.img.xz"):
        (d / f.name[:-3]).write_bytes(lzma.decompress(f.read_bytes()))
    shutil.copy(data / "System.map-test", d)
    (d / "ko").mkdir()
    fake_ko(d / "ko/rt_inita.ko", "rt_inita", (0, []), (0x200, [(0, "rt_inita_init")]))
    fake_ko(d / "ko/rt_initb.ko", "rt_initb", (0x800, [(0, "rt_initb_poke"),
                                                       (0x40, "rt_initb_two")]), (0, []))
    cases = json.loads(lzma.decompress((data / "expect.json.xz").read_bytes()))
    differ = []
    for c in cases:
        out = d / "out.dat"
        out.unlink(missing_ok=True)
        p = run(*(a.replace("{dir}", str(d)) for a in c["args"]))
        got = p.stdout.replace(str(d), "{dir}")
        if c["args"][0] == "stats":
            got = "".join(line for line in got.splitlines(True)
                          if not line.startswith("machine "))
            got = got.replace(',"machine":"x86_64"', "")
        written = out.read_bytes().hex() if out.exists() else None
        if (p.returncode, got, p.stderr.replace(str(d), "{dir}"), written) != \
           (c["rc"], c["stdout"], c["stderr"], c["file"]):
            differ.append(" ".join(c["args"]))
    names = sum(" rt_initb_poke" in c["stdout"] for c in cases)
    check(f"format 7: {len(cases)} commands on {len(list(data.glob('*.img.xz')))} "
          "images print what format 7's command printed",
          len(cases) > 50 and names and not differ, differ[:3])


def main():
    work = Path(tempfile.mkdtemp(prefix="ramtrail-tool-"))
    subprocess.run([str(BIN / "mkimage"), str(work)], check=True)
    img = Image(work)
    for test in (test_decode, test_text_and_symbols, test_export, test_stats,
                 test_pstore_saved_trace, test_pstore_files, test_pstore_text_of_another_trace,
                 test_crash_record,
                 test_crash_ends_at_the_freezing_entry, test_crash_leaves_out_an_interrupts_glue, test_crash_hang_signature,
                 test_pstore_hostile_comms, test_pstore_control_bytes, test_pstore_events,
                 test_collect, test_collect_groups_parts_by_their_header,
                 test_collect_records_what_never_collects, test_collect_reports_export_errors,
                 test_collect_skips_what_is_not_a_file, test_collect_writes_for_root_only,
                 test_collect_unit_is_sandboxed, test_broken_inputs,
                 test_stats_json, test_saved_traces, test_damaged_zone_and_usage,
                 test_refused_before_io, test_help_and_man, test_format7, test_fleet,
                 test_fleet_hostile_strings, test_fleet_journalctl):
        test(img)
    shutil.rmtree(work, ignore_errors=True)
    return 1 if RESULTS.summary() else 0


if __name__ == "__main__":
    sys.exit(main())
