#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ramtrail export --format perfetto, parsed back with Perfetto's own message
definitions (perfetto_trace_pb2 of the pinned perfetto package, in a venv
tools/tests/perfetto-venv.sh makes) and compared with decode --format json
of the same trace: every packet valid and on the one sequence, the system
info first, the names interned before any event, each record an event of
its CPU with decode's time, task and name, the tasks named as decode names
them, sched_switch's fields as decode's text gives them.

usage: test_perfetto.py [BUILD_DIR]   (holds ramtrail and mkimage)
       test_perfetto.py BUILD_DIR TRACE.pftrace TRACE.json
                                      compare one export with its JSON
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
VENV = TOP / "build" / "venv-perfetto"
if os.environ.get("RT_PERFETTO_VENV") != "1":
    py = subprocess.run([str(TOP / "tools/tests/perfetto-venv.sh"), str(VENV)],
                        capture_output=True, text=True)
    if py.returncode:
        print(f"FAIL perfetto: the venv of Perfetto's messages: {py.stderr.strip()[-400:]}")
        print("0 passed, 1 failed")
        sys.exit(1)
    os.environ["RT_PERFETTO_VENV"] = "1"
    os.execv(py.stdout.strip(), [py.stdout.strip(), *sys.argv])

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check import Results  # noqa: E402
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb  # noqa: E402

BIN = Path(sys.argv[1]) if len(sys.argv) > 1 else TOP / "build" / "tools"
RES = Results()
UNKNOWN = 0x7fffffff          # perfetto.c's thread of unknown tasks
SWITCH = re.compile(r"prev_comm=(.*) prev_pid=(\d+) prev_prio=(-?\d+) prev_state=(\S+) "
                    r"==> next_comm=(.*) next_pid=(\d+) next_prio=(-?\d+)$")
STATE = {"R": 0, "R+": 256, "S": 1, "D": 2, "T": 4, "t": 8, "X": 16, "Z": 32, "P": 64,
         "I": 128}


def state_bits(s):
    """sched_switch's prev_state as decode prints it -> the raw value."""
    if s == "R+":
        return 256
    return sum(STATE[x] for x in s.split("|"))


def from_json(path):
    """decode --format json -> ({cpu: [(ns, tid, name, text)]}, {tid: comm})."""
    ev = json.loads(Path(path).read_text())["traceEvents"]
    recs = collections.defaultdict(list)
    names = {}
    for e in ev:
        if e.get("ph") == "M" and e["name"] == "thread_name" and e["pid"] not in (-1, 0):
            names[e["tid"]] = e["args"]["name"]
        if e.get("ph") != "i":
            continue
        tid = UNKNOWN if e["pid"] == -1 else e["tid"]
        recs[e["args"]["cpu"]].append((round(e["ts"] * 1000), tid, e["name"],
                                       e["args"].get("text")))
    return recs, names


def from_perfetto(path, res, what):
    """The export -> ({cpu: [(ns, pid, name, event)]}, {tid: name}), checking
    the packets' order and sequence as it goes."""
    t = pb.Trace()
    try:
        t.ParseFromString(Path(path).read_bytes())
    except Exception as e:      # noqa: BLE001 - any parse error fails the check
        res.check(f"{what}: parses as Perfetto's Trace", False, e)
        return None, None
    kinds = [p.WhichOneof("data") or ("interned" if p.HasField("interned_data") else None)
             for p in t.packet]
    first_ev = kinds.index("ftrace_events") if "ftrace_events" in kinds else len(kinds)
    syms = {s.iid: s.str.decode() for p in t.packet if p.HasField("interned_data")
            for s in p.interned_data.kernel_symbols}
    cleared = [i for i, p in enumerate(t.packet) if p.sequence_flags & 1]
    res.check(f"{what}: every packet valid, on sequence 1; system info first, then "
              "the task tree and the interned names (the sequence cleared there), "
              "before any event",
              t.packet and all(p.trusted_packet_sequence_id == 1 for p in t.packet) and
              kinds[0] == "system_info" and t.packet[0].system_info.utsname.sysname == "Linux"
              and "process_tree" in kinds[:first_ev] and "interned" in kinds[:first_ev] and
              cleared and cleared[0] == kinds.index("interned") and syms,
              (kinds[:4], len(t.packet), cleared[:2]))
    names = {th.tid: th.name for p in t.packet if p.HasField("process_tree")
             for th in p.process_tree.threads}
    procs = {pr.pid: list(pr.cmdline) for p in t.packet if p.HasField("process_tree")
             for pr in p.process_tree.processes}
    recs = collections.defaultdict(list)
    bad = []
    for p in t.packet:
        if not p.HasField("ftrace_events"):
            continue
        b = p.ftrace_events
        if not b.HasField("cpu"):
            bad.append("bundle without cpu")
        evs = list(b.event)
        i = 0
        while i < len(evs):
            e = evs[i]
            kind = e.WhichOneof("event")
            if kind == "funcgraph_entry":
                x = evs[i + 1] if i + 1 < len(evs) else None
                if not x or x.WhichOneof("event") != "funcgraph_exit" or \
                   (x.timestamp, x.pid, x.funcgraph_exit.func) != \
                   (e.timestamp, e.pid, e.funcgraph_entry.func) or \
                   e.funcgraph_entry.func not in syms:
                    bad.append(("entry without its exit or name", str(e)[:80]))
                name = syms.get(e.funcgraph_entry.func, "?")
                i += 2
            else:
                if kind == "print":
                    m = re.match(r"I\|\d+\|(event \d+) ", e.print.buf)
                    name = m[1] if m else "print"
                elif kind in ("workqueue_execute_start", "workqueue_execute_end") and \
                        getattr(e, kind).function not in syms:
                    bad.append(("workqueue function not interned", str(e)[:80]))
                    name = kind
                else:
                    name = kind
                i += 1
            if not e.HasField("pid"):
                bad.append("event without pid")
            recs[b.cpu].append((e.timestamp, e.pid, name, e))
    res.check(f"{what}: each function an entry and its exit at one time, named by an "
              "interned symbol; every bundle with its CPU, every event with its pid",
              not bad, bad[:3])
    return recs, (names, procs)


def compare(pf, js, res, what, switches=True):
    """The export of one trace against its decode --format json; with
    `switches`, the trace has sched_switch events to compare."""
    got, tasks = from_perfetto(pf, res, what)
    if got is None:
        return
    want, want_names = from_json(js)
    res.check(f"{what}: the CPUs and each CPU's count of records as decode's",
              sorted(got) == sorted(want) and
              all(len(got[c]) == len(want[c]) for c in want),
              ({c: len(v) for c, v in got.items()}, {c: len(v) for c, v in want.items()}))
    diff = [(c, g[:3], w[:3]) for c in want for g, w in zip(got.get(c, []), want[c])
            if g[:3] != w[:3]]
    res.check(f"{what}: each record at decode's time (ns), of decode's task, with "
              "decode's name (function, event, print for a marker)",
              sum(len(v) for v in want.values()) > 0 and not diff, diff[:3])
    names, procs = tasks
    res.check(f"{what}: the task tree names every thread as decode does, each "
              "process with its comm as cmdline",
              {t: n for t, n in names.items() if t != UNKNOWN} == want_names and
              all(len(c) == 1 for c in procs.values()),
              (sorted(names.items())[:4], sorted(want_names.items())[:4]))
    sw = [(g[3].sched_switch, w[3]) for c in want for g, w in zip(got.get(c, []), want[c])
          if w[2] == "sched_switch"]
    wrong = []
    for s, text in sw:
        m = SWITCH.match(text or "")
        if not m or (s.prev_comm, s.prev_pid, s.prev_prio, s.prev_state, s.next_comm,
                     s.next_pid, s.next_prio) != (m[1], int(m[2]), int(m[3]),
                                                  state_bits(m[4]), m[5], int(m[6]),
                                                  int(m[7])):
            wrong.append((str(s)[:120], text))
    if switches:
        res.check(f"{what}: sched_switch's fields as decode's text gives them (comms, "
                  "pids, prio, raw prev_state)", sw and not wrong, (len(sw), wrong[:2]))
    marks = [(g[3].print.buf, w[3]) for c in want for g, w in zip(got.get(c, []), want[c])
             if w[2] == "print"]
    res.check(f"{what}: markers as systrace instants of their process, their text "
              "as decode's ('|' as '/', control bytes raw)",
              all(re.sub(r"[\x00-\x1f\x7f]", "?", b) ==
                  f"I|{b.split('|')[1]}|" + (t or "").replace("|", "/") for b, t in marks),
              marks[:2])


def main():
    if len(sys.argv) == 4:
        compare(sys.argv[2], sys.argv[3], RES, Path(sys.argv[2]).name)
        return 1 if RES.summary() else 0
    work = Path(tempfile.mkdtemp(prefix="ramtrail-perfetto-"))
    subprocess.run([str(BIN / "mkimage"), str(work)], check=True, capture_output=True)
    # A region's zones named by a System.map (bundles of about 256 events:
    # functions and events mixed across their ends), a saved trace
    # unnamed, 20000 functions on one CPU and nothing else.
    cases = [("region.img", ["--system-map", str(work / "System.map-test")]),
             ("saved-ecc.img", ["--boot", "7"]),
             ("many.img", ["--system-map", str(work / "System.map-many")])]
    for img, extra in cases:
        args = [str(work / img), *extra]
        pf, js = work / f"{img}.pftrace", work / f"{img}.json"
        p = subprocess.run([str(BIN / "ramtrail"), "export", *args, "--format", "perfetto",
                            "-o", str(pf)], capture_output=True, text=True)
        q = subprocess.run([str(BIN / "ramtrail"), "export", *args, "--format", "json",
                            "-o", str(js)], capture_output=True, text=True)
        if RES.check(f"{img}: export --format perfetto and json succeed",
                     p.returncode == 0 and q.returncode == 0, p.stderr + q.stderr):
            compare(pf, js, RES, img, switches=img != "many.img")
    return 1 if RES.summary() else 0


if __name__ == "__main__":
    sys.exit(main())
