#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: ramtrail against its anchors, each comparison inside one guest
boot (under QEMU TCG only ratios inside one boot mean anything).

  1. write cost per record: ramtrail_bench.ko (ramtrail's record path vs
     the kernel ring buffer, ring_buffer_benchmark's method), 1 CPU and all
     CPUs: a function entry, a sched_switch event, and a task switch (the
     task event it costs, then the event), each against a ring buffer event
     of the same payload size
  2. function-tracing overhead of two syscall workloads: off, ftrace's
     function tracer, ramtrail recording every function, ftrace's
     persistent instance (6.12 reserve_mem + trace_instance), and the
     floor: an ftrace_ops with an empty callback on every function
     (ramtrail_bench.ko floor_ops=1), ftrace's hook with nothing behind it,
     and the floor with the clock read that stamps each record
     (floor_ops=2)
  2b. event-tracing overhead of a ping-pong between two tasks on CPU 0
     (pingpong.c): off, ftrace's event tracing and ramtrail's events= of
     the same kernel events (EVENTS), the cost per event each adds and the
     buffer bytes per event each takes
  3. events kept per MiB after the workload and a panic, ramtrail against
     the persistent instance of the same size; and with tasks and events on
     (every function and EVENTS), ramtrail against ftrace's function tracer
     with the same events in a buffer of the same size (the second boot)
  4. recovery: what loading the module adds to boot with a full 64 MiB
     region; the userspace decoder's rate on that image against memcpy of
     it (also per byte of the zones it reads), and the userspace save of
     its zones (what the load does)
  5. the userspace core benchmark (tools/bench/bench_core)
  6. the trace-on-oops dump (dump_on_oops's code, asked for through
     debugfs) of the full region of 3b: time, records printed per CPU and
     blocks read, for several dump_lines

Writes build/bench/results.json and build/bench/bench.png, prints one
table. Asserts nothing.

usage: bench.py [--kver 6.12] [--smp 2] [--rounds 3] [--ev-rounds 9]
                [--pingpong 30000] (--help: all options)

--kver 6.12-arm64 runs it on QEMU's arm64 virt board, into build/bench-arm64.
"""
import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import time

import harness as h
import ramtrail_guest as rg

OUT = h.REPO / "build" / ("bench" if rg.ARCH == "x86_64" else f"bench-{rg.ARCH}")
CORE = h.REPO / "build" / "tools" / "bench_core"
BENCH_RESV = rg.RAM_BASE + 0x2c000000      # 16M for ramtrail_bench's zones
REGION = 64                                # MiB, for ramtrail and ftrace
# nokaslr: with the kernel's physical place random, reserve_mem= sometimes
# found its top-down spot taken in the second boot and placed the persistent
# instance elsewhere, which then had nothing to restore.
APPEND = (f"memmap=16M${BENCH_RESV:#x} reserve_mem={REGION}M:4096:trace "
          "trace_instance=boot_map^traceoff@trace nokaslr")
T = "/sys/kernel/tracing"
I = f"{T}/instances/boot_map"
PARAMS = f"mem_address={rg.RESV:#x} mem_size={REGION}M"
# The kernel events of 2b and 3, by the names ftrace's set_event and
# ramtrail's events= both take: every event ramtrail records.
EVENTS = ",".join((
    "sched:sched_switch", "sched:sched_wakeup", "sched:sched_waking",
    "sched:sched_wakeup_new", "irq:irq_handler_entry", "irq:irq_handler_exit",
    "irq:softirq_entry", "irq:softirq_exit", "irq:softirq_raise",
    "workqueue:workqueue_execute_start", "workqueue:workqueue_execute_end",
    "timer:timer_expire_entry", "timer:timer_expire_exit", "printk:console"))

# Shell helpers of both boots.
COMMON = r"""
mount -t tracefs nodev /sys/kernel/tracing
debugfs
EVENTS='{events}'
ft_events() {{ for e in $(echo $EVENTS | tr , ' '); do echo $e >> {T}/set_event; done; }}
# The events in ftrace's top-level buffer now, and the bytes they fill.
ft_count() {{
    awk '/^entries:/ {{ n += $2 }} /^bytes:/ {{ b += $2 }} END {{ print n + 0, b + 0 }}' \
        {T}/per_cpu/cpu*/stats
}}
# The valid records in ramtrail's zones now (stop recording first), and the
# bytes of the blocks up to each zone's newest (unwrapped zones).
rt_count() {{
    ramtrail stats {region} | awk '/^cpu[0-9]+ records / {{
        n += $3; for (i = 4; i < NF; i++) if ($i == "newest_block") b += ($(i + 1) + 1) * 4096 }}
        END {{ print n + 0, b + 0 }}'
}}
# fill_on/fill_off: a pipe of two dd's on every CPU, in a loop.
fill_on() {{
    pids=; c=0
    while [ $c -lt $NCPU ]; do
        taskset -c $c sh -c 'while :; do dd if=/dev/zero bs=1 count=2000 2>/dev/null | dd of=/dev/null bs=1 2>/dev/null; done' &
        pids="$pids $!"; c=$((c + 1))
    done
}}
fill_off() {{ kill $pids; wait; }}
# Fill for {fill} s, then on until every CPU's zone has lapped (up to 8
# times as long: a slow host writes less a second); print the laps.
fill_lapped() {{
    sleep {fill}; n=0
    while [ $n -lt 7 ] && grep -q ' laps=0 ' /sys/kernel/debug/ramtrail/cpus; do
        sleep {fill}; n=$((n + 1))
    done
    echo "FILLED $(( (n + 1) * {fill} )) s, $(grep -o 'laps=[0-9]*' /sys/kernel/debug/ramtrail/cpus | tr '\n' ' ')"
}}
"""

GUEST = r"""
insmod /lib/modules/ramtrail_bench.ko mem_address={bench_resv:#x} mem_size=0x1000000 ms={ms} reps={reps} 2>/dev/null
rmmod ramtrail_bench
dmesg | grep 'ramtrail_bench: RESULT'
# The top-level buffer gets the persistent instance's size.
cat {I}/buffer_size_kb > {T}/buffer_size_kb
echo "SIZE ftrace_kb_per_cpu $(cat {I}/buffer_size_kb)"
w_pipe() {{ dd if=/dev/zero bs=1 count={pipe} 2>/dev/null | dd of=/dev/null bs=1 2>/dev/null; }}
w_dd() {{ dd if=/dev/zero of=/dev/null bs=512 count={dd} 2>/dev/null; }}
timed() {{
    t0=$(cut -d' ' -f1 /proc/uptime); $2; t1=$(cut -d' ' -f1 /proc/uptime)
    echo "RUN $1 $2 $t0 $t1"
}}
on() {{
    case $1 in
    ftrace) echo function > {T}/current_tracer ;;
    ramtrail) insmod /lib/modules/ramtrail.ko {params} reset=1 'functions=*' ;;
    persistent) echo function > {I}/current_tracer; echo 1 > {I}/tracing_on ;;
    floor) insmod /lib/modules/ramtrail_bench.ko floor_ops=1 ;;
    clock) insmod /lib/modules/ramtrail_bench.ko floor_ops=2 ;;
    esac
}}
off() {{
    case $1 in
    ftrace) echo nop > {T}/current_tracer ;;
    ramtrail) rmmod ramtrail ;;
    persistent) echo 0 > {I}/tracing_on; echo nop > {I}/current_tracer ;;
    floor|clock) rmmod ramtrail_bench ;;
    esac
}}
r=0
while [ $r -lt {rounds} ]; do
    for m in off ftrace ramtrail persistent floor clock; do
        on $m; timed $m w_pipe; timed $m w_dd; off $m
    done
    r=$((r + 1))
done
# 2b. Events: qemu-tests/pingpong.c, two tasks answering each other's every
# byte: a wakeup and a task switch per byte. On CPU 0 only: two busy vCPUs
# on this 2-core host make the times jump with the host's other load.
w_pingpong() {{ echo "PINGPONG $r $1 $(taskset -c 0 pingpong {pingpong})"; }}
ev_on() {{
    case $1 in
    ftrace) echo > {T}/trace; ft_events ;;
    ramtrail) insmod /lib/modules/ramtrail.ko {params} reset=1 functions= events=$EVENTS ;;
    esac
}}
# Stop, print "EVENTS round mode n bytes": the events recorded from ev_on
# on, and the bytes of buffer they fill.
ev_off() {{
    case $1 in
    ftrace) echo > {T}/set_event; echo "EVENTS $r $1 $(ft_count)" ;;
    ramtrail) echo 0 > /sys/module/ramtrail/parameters/enabled
        echo "EVENTS $r $1 $(rt_count)"; rmmod ramtrail ;;
    esac
}}
r=0
while [ $r -lt {ev_rounds} ]; do
    case $((r % 3)) in      # each goes first in turn
    0) modes="off ftrace ramtrail" ;;
    1) modes="ftrace ramtrail off" ;;
    2) modes="ramtrail off ftrace" ;;
    esac
    for m in $modes; do
        ev_on $m; w_pingpong $m; ev_off $m
    done
    r=$((r + 1))
done
echo > {T}/trace
# 3. Capacity: both record every function through the same workload, then panic.
insmod /lib/modules/ramtrail.ko {params} reset=1 'functions=*'
echo function > {I}/current_tracer; echo 1 > {I}/tracing_on
fill_on
fill_lapped
echo c > /proc/sysrq-trigger
"""

READ = r"""
t0=$(cut -d' ' -f1 /proc/uptime)
insmod /lib/modules/ramtrail.ko {params}
t1=$(cut -d' ' -f1 /proc/uptime)
echo "LOAD $t0 $t1"
status
for f in {I}/per_cpu/cpu*/stats; do grep -E '^entries' $f; done
echo "RESTORED $(dmesg | grep -c 'Ring buffer meta .* is from previous boot')"
rmmod ramtrail
# 3. With tasks and events on: every function and EVENTS, ramtrail in its
# region (read on the host after power-off), ftrace in its top-level buffer
# sized like the persistent instance.
insmod /lib/modules/ramtrail.ko {params} reset=1 'functions=*' events=$EVENTS
fill_on; fill_lapped
echo 0 > /sys/module/ramtrail/parameters/enabled
fill_off
# 6. The trace-on-oops dump of this full region, asked for through debugfs
# (the crash's dump is the same code): its time and the blocks it read.
sed 's/^/CPUS /' /sys/kernel/debug/ramtrail/cpus
for n in {dump_lines}; do
    echo $n > /sys/module/ramtrail/parameters/dump_lines
    echo 1 > /sys/kernel/debug/ramtrail/dump
done
rmmod ramtrail
cat {I}/buffer_size_kb > {T}/buffer_size_kb
echo function > {T}/current_tracer; ft_events
fill_on; sleep {fill}
echo 0 > {T}/tracing_on
fill_off
echo "DENSE ftrace $(ft_count)"
echo nop > {T}/current_tracer; echo > {T}/set_event
"""


READ_MARK = "bench_boot=read"
# dump_lines of the dumps in 6.
DUMP_LINES = (64, 1024, 16384)


def pingpong():
    """The event workload, static for the guest: build/bench/pingpong-ARCH."""
    out = OUT / f"pingpong-{rg.ARCH}"
    subprocess.run([rg.GUEST_CC, "-static", "-O2", "-Wall", "-o", str(out),
                    str(h.REPO / "qemu-tests" / "pingpong.c")], check=True)
    return out


def guest_bench(k, ko, bko, a, single=False):
    """Returns both boots' serial logs, the number of boots, the guest;
    with single, QEMU runs every vCPU on one host thread."""
    g = rg.Guest(k, ko, "bench", a.smp, "", modules=[bko])
    common = COMMON.format(T=T, events=EVENTS, region=rg.REGION, fill=a.fill)
    body = GUEST.format(bench_resv=BENCH_RESV, ms=a.ms, reps=a.reps, I=I, T=T,
                        pipe=a.pipe, dd=a.dd, params=PARAMS, rounds=a.rounds,
                        fill=a.fill, pingpong=a.pingpong, ev_rounds=a.ev_rounds)
    read = READ.format(params=PARAMS, I=I, T=T, fill=a.fill,
                       dump_lines=" ".join(map(str, DUMP_LINES)))
    # One guest, two boots: measure and panic, then read back. The second
    # boot is told so on its command line: ftrace's "from previous boot"
    # message, which told it before, did not always come, and each boot
    # without it ran the whole benchmark again.
    g.rd = h.Initramfs(k, g.work, h.init_script(rg.GUEST + common + f"""
if grep -q {READ_MARK} /proc/cmdline; then
{read}
else
{body}
fi
"""), files={"bin/ramtrail": rg.STATIC, "bin/pingpong": pingpong()},
                       modules=[ko, bko])
    # Power off at the panic (after ramtrail froze), keep the region image
    # for the userspace decoder, then boot again on the same RAM to read.
    # A host thread per vCPU (the harness runs all in one by default): the
    # all-CPU numbers need the CPUs to run in parallel, as they always did.
    r1 = g.run(append=APPEND, timeout=1800, kill_on="Kernel panic - not syncing",
               kill_delay=1.0, log_path=h.BUILD / f"{g.name}-record.log", tcg_single=single)
    (OUT / "region.img").write_bytes(g.ram.read(rg.RESV, REGION << 20))
    if "Oops: int3" in r1.log:
        return r1.log, r1.boots, g
    # The read boot patches text too (ftrace's tracer after ramtrail's
    # rmmod) and may hit the same TCG oops; it then stops at the panic
    # (a reboot would run it again on a region it already read) and runs
    # again on the RAM the record boot left, both regions as they were.
    snap = g.ram.path.with_suffix(".after-record")
    shutil.copyfile(g.ram.path, snap)
    for attempt in range(3):
        r2 = g.run(append=f"{APPEND} {READ_MARK}", timeout=900,
                   kill_on="Kernel panic - not syncing", kill_delay=1.0,
                   log_path=h.BUILD / f"{g.name}-read.log", tcg_single=single)
        if "Oops: int3" not in r2.log:
            break
        print(f"note: read boot attempt {attempt + 1}: the guest hit QEMU TCG's int3 "
              "oops in text patching (not ramtrail's); reading again from the "
              "record boot's RAM", flush=True)
        shutil.copyfile(snap, g.ram.path)
    snap.unlink()
    (OUT / "region-events.img").write_bytes(g.ram.read(rg.RESV, REGION << 20))
    return r1.log + r2.log, r1.boots + r2.boots, g


def parse(log):
    res = {"write": {}, "write_bytes": {}, "overhead": {}, "events": {},
           "capacity": {}, "dense": {}, "recovery": {}}
    # The console and the dmesg grep print each line: count it once.
    seen = set()
    for m in re.finditer(r"\[\s*([\d.]+)\] ramtrail_bench: RESULT (\w+) cpus=(\d+) "
                         r"rep=\d+ ns=([\d.]+) events=\d+(?: bytes=([\d.]+))?", log):
        if m[0] in seen:
            continue
        seen.add(m[0])
        key = f"{m[2]} cpus={m[3]}"
        res["write"].setdefault(key, []).append(float(m[4]))
        if m[5]:
            res["write_bytes"].setdefault(key, []).append(float(m[5]))
    for m in re.finditer(r"^RUN (\w+) (\w+) ([\d.]+) ([\d.]+)$", log, re.M):
        res["overhead"].setdefault(f"{m[2][2:]} {m[1]}", []).append(
            float(m[4]) - float(m[3]))
    # 2b: per round, each mode's time and what it recorded.
    for m in re.finditer(r"^PINGPONG (\d+) (\w+) ([\d.]+)$", log, re.M):
        res["events"].setdefault(m[1], {}).setdefault(m[2], {})["s"] = float(m[3])
        res["overhead"].setdefault(f"pingpong {m[2]}", []).append(float(m[3]))
    for m in re.finditer(r"^EVENTS (\d+) (\w+) (\d+) (\d+)$", log, re.M):
        res["events"].setdefault(m[1], {}).setdefault(m[2], {}).update(
            n=int(m[3]), bytes=int(m[4]))
    st = rg.parse_status("\n".join(h.sections(log, "status")[-1:]))
    if st.get("previous_trace") == "saved":
        res["capacity"]["ramtrail_saved"] = st["previous_records"]
        res["capacity"]["ramtrail_zones"] = st["previous_records"] + st["previous_skipped"]
    ent = re.findall(r"^entries: (\d+)$", log, re.M)
    m = re.search(r"^RESTORED (\d+)$", log, re.M)
    if ent and m and int(m[1]):
        res["capacity"]["ftrace_persistent"] = sum(int(e) for e in ent)
    m = re.search(r"^DENSE ftrace (\d+) (\d+)$", log, re.M)
    if m:
        res["dense"]["ftrace"], res["dense"]["ftrace_bytes"] = int(m[1]), int(m[2])
    # The fills of 3 and 3b: how long, and each zone's laps at their end.
    res["filled"] = re.findall(r"^FILLED (.*\S)\s*$", log, re.M)
    m = re.search(r"^LOAD ([\d.]+) ([\d.]+)$", log, re.M)
    if m:
        res["recovery"]["load_s"] = float(m[2]) - float(m[1])
    # 6: the dumps, in the order of DUMP_LINES, and the zones' laps then.
    ends = [rg.DUMP_END.search(line) for line in log.splitlines()]
    res["dump"] = [dict(lines=n, records=int(m[1]), cpus=int(m[2]), blocks=int(m[3]),
                        total_blocks=int(m[4]), us=int(m[5]))
                   for n, m in zip(DUMP_LINES, (m for m in ends if m))]
    res["dump_laps"] = [int(x) for x in re.findall(r"^CPUS cpu: \d+ .*laps=(\d+)", log, re.M)]
    return res


def census(image):
    """What a region image's zones hold (bench_core --image): {key: number}."""
    out = subprocess.run([str(CORE), "--image", str(image), "--offset", "0",
                          "--size", str(REGION << 20)], capture_output=True, text=True).stdout
    m = re.search(r"^census (.*)$", out, re.M)
    return {k: float(v) for k, v in (f.split("=") for f in m[1].split())} if m else {}


def med(v):
    return statistics.median(v) if v else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kver", default="6.12")
    # 4 vCPUs on this 2-core host hit "Oops: int3" in ftrace's text
    # patching under TCG (also seen without ramtrail loaded): 2 by default.
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--ms", type=int, default=500)
    ap.add_argument("--pipe", type=int, default=50000)
    ap.add_argument("--dd", type=int, default=100000)
    ap.add_argument("--fill", type=int, default=8)
    ap.add_argument("--pingpong", type=int, default=30000,
                    help="round trips in the event workload (on CPU 0)")
    ap.add_argument("--ev-rounds", type=int, default=9)
    a = ap.parse_args()
    err = rg.use_arch([a.kver])
    if err:
        ap.error(err)
    OUT.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    k = h.kernel(a.kver)
    rg.build_tools()                    # the guest's command (arm64's too)
    ko = rg.build_all(a.kver)
    bko = str(h.REPO / "build" / f"module-{a.kver}" / "ramtrail_bench.ko")
    for attempt in range(3):
        # QEMU's multi-threaded TCG sometimes oopses ("int3") while the
        # kernel patches its text, with or without ramtrail: run again,
        # the last time on one host thread, which does not (6.12.95 hit
        # it in all of three multi-threaded runs).
        single = attempt == 2
        log, boots, g = guest_bench(k, ko, bko, a, single)
        if "Oops: int3" not in log:
            break
        print(f"note: attempt {attempt + 1}: the guest hit QEMU TCG's int3 oops in "
              "text patching (not ramtrail's); running again"
              f"{' (this time on one host thread)' if attempt == 1 else ''}", flush=True)
    if single:
        print("note: this run's vCPUs shared one host thread: the cpus=2 rows of "
              "table 1 did not run in parallel", flush=True)
    res = parse(log)
    oops = log.count("Oops")
    if oops:
        print(f"WARNING: the guest oopsed {oops} time(s) before the intended "
              "panic; results are incomplete (see the guest logs)")
    res["meta"] = {"kernel": k.release, "smp": a.smp, "rounds": a.rounds,
                   "incomplete": bool(oops), "single_thread": single,
                   "ev_rounds": a.ev_rounds, "reps": a.reps, "boots": boots, "date": time.strftime("%Y-%m-%d"),
                   "host_cpu": open("/proc/cpuinfo").read().split("model name")[1]
                   .split("\n")[0].split(":", 1)[1].strip()}
    # 3: what the zones held, from the images of both boots; 4: the
    # decoder on the guest's RAM image, on this machine. Not from the
    # images of a run that oopsed: they hold what it reached, no more.
    res["census"] = {"functions": census(OUT / "region.img"),
                     "events": census(OUT / "region-events.img")} if not oops else {}
    out = subprocess.run([str(CORE), "--image", str(OUT / "region.img"), "--offset",
                          "0", "--size", str(REGION << 20)],
                         capture_output=True, text=True).stdout if not oops else ""
    m = re.search(r"decode \+ merge.*?\|\s+(\d+) MB/s.*\n.*memcpy.*?\|\s+(\d+) MB/s", out)
    if m:
        res["recovery"]["decode_mb_s"], res["recovery"]["memcpy_mb_s"] = int(m[1]), int(m[2])
    m = re.search(r"decode \+ merge, per zone byte \|\s+(\d+) MB/s", out)
    if m:
        res["recovery"]["decode_zone_mb_s"] = int(m[1])
    m = re.search(r"save of the image's zones.*?\|\s+([\d.]+) ms \| (\d+) records, ([\d.]+) ns", out)
    if m:
        res["recovery"]["save_ms"], res["recovery"]["save_ns"] = float(m[1]), float(m[3])
    # 5: the core writer in userspace.
    res["core"] = subprocess.run([str(CORE)], capture_output=True, text=True).stdout
    report(res)             # adds the summaries it computes
    (OUT / "results.json").write_text(json.dumps(res, indent=1))
    plot(res)
    print(f"\nraw numbers: {OUT / 'results.json'}; plot: {OUT / 'bench.png'}; "
          f"guest logs: {h.BUILD / (g.name + '-record.log')}, -read.log; {time.monotonic() - t0:.0f} s")
    return 0


def report(res):
    m = res["meta"]
    print(f"\nramtrail bench: {m['kernel']}, QEMU TCG, {m['smp']} CPUs, one guest boot "
          f"(+1 to read back), host {m['host_cpu']}, {m['date']}")
    if m.get("incomplete"):
        print("INCOMPLETE: the guest oopsed before the intended panic in every attempt: "
              "what follows the oops (capacity, the region image's census and decode) "
              "is not measured")
    print("Under TCG only ratios inside one boot mean anything: absolute times are "
          "TCG's, not hardware's.\nMedians of "
          f"{m['reps']} reps (write cost), {m['rounds']} rounds (function workloads) and "
          f"{m.get('ev_rounds', '?')} rounds (event workload).\n")
    w = {key: med(v) for key, v in res["write"].items()}
    wb = {key: med(v) for key, v in res.get("write_bytes", {}).items()}
    print("| 1. write cost per record (TCG: only the ratio means anything) | ns/record "
          "| zone bytes/record | ramtrail / ring buffer |")
    print("|---|---|---|---|")
    clock = "rdtsc" if rg.ARCH == "x86_64" else "CNTVCT_EL0"
    rows = (("ramtrail", "ringbuf", "function entry + caller, 16 B", "goal <= 0.2",
             "same payload"),
            ("ramtrail_event", "ringbuf_event", "sched_switch event, 20 B", "", "same payload"),
            ("ramtrail_switch", "ringbuf_switch",
             "task switch: task event + sched_switch event, 44 B", "", "same payload"),
            ("clock", "ringbuf_clock", f"its clock read alone ({clock}), no record", "",
             "its clock read alone (trace_clock_local)"))
    for cpus in sorted({key.split()[1] for key in w}):
        for rt_k, rb_k, what, goal, rb_what in rows:
            rt, rb = w.get(f"{rt_k} {cpus}"), w.get(f"{rb_k} {cpus}")
            if rt is None or rb is None:
                continue
            b = wb.get(f"{rt_k} {cpus}", float("nan"))
            print(f"| ramtrail, {what}, {cpus} | {rt:.1f} | "
                  f"{'-' if rt_k == 'clock' else f'{b:.1f}'} | "
                  f"{rt / rb:.2f}{f' ({goal})' if goal else ''} |")
            print(f"| kernel ring buffer, {rb_what}, {cpus} | {rb:.1f} | | |")
        ev, sw = w.get(f"ramtrail_event {cpus}"), w.get(f"ramtrail_switch {cpus}")
        if ev and sw:
            print(f"| ramtrail, what a task switch adds (task event, slow path), {cpus} "
                  f"| {sw - ev:.1f} | | |")
    # How each scales: its time per record on every CPU at once over one CPU's.
    counts = sorted({key.split()[1] for key in w}, key=lambda c: int(c.split("=")[1]))
    if len(counts) > 1:
        print(f"\n| per record, {counts[-1]} / cpus=1 | ramtrail | ring buffer |")
        print("|---|---|---|")
        for rt_k, rb_k, what, _, _ in rows:
            r = [w.get(f"{k} {counts[-1]}", float("nan")) / w.get(f"{k} cpus=1", float("nan"))
                 for k in (rt_k, rb_k)]
            goal = " (goal <= 1.1)" if rt_k == "ramtrail" else ""
            print(f"| {what} | {r[0]:.2f}{goal} | {r[1]:.2f} |")
    o = {key: med(v) for key, v in res["overhead"].items()}
    print("\n| 2. workload | tracing | median s | x off | ramtrail overhead / this one's |")
    print("|---|---|---|---|---|")
    goals = {"ftrace": "goal <= 0.2", "persistent": "", "floor": "", "clock": "goal <= 1.5"}
    names = {"floor": "floor: empty ftrace callback",
             "clock": "floor + the clock read (" + ("rdtsc" if rg.ARCH == "x86_64" else
                                                    "CNTVCT_EL0") + "; a helper call under TCG)"}
    for wl in ("pipe", "dd"):
        base = o.get(f"{wl} off", float("nan"))
        rt_over = o.get(f"{wl} ramtrail", float("nan")) - base
        for mode in ("off", "ftrace", "ramtrail", "persistent", "floor", "clock"):
            v = o.get(f"{wl} {mode}", float("nan"))
            goal = f" ({goals[mode]})" if goals.get(mode) else ""
            rel = "" if mode in ("off", "ramtrail") else \
                f"{rt_over / (v - base):.2f}{goal}" if v > base else ""
            name = names.get(mode, mode)
            print(f"| {wl} | {name} | {v:.2f} | {v / base:.2f} | {rel} |")
    event_report(res)
    c = res["capacity"]
    print(f"\n| 3. events kept after a panic, {REGION} MiB region | events | per MiB |")
    print("|---|---|---|")
    for key, name in (("ramtrail_saved", "ramtrail, recovered into pstore"),
                      ("ramtrail_zones", "ramtrail, valid in the zones at the crash"),
                      ("ftrace_persistent", "ftrace persistent instance")):
        if key in c:
            print(f"| {name} | {c[key]} | {c[key] / REGION:.0f} |")
    if "ftrace_persistent" not in c:
        print("| ftrace persistent instance: not restored in the second boot | | |")
    if c.get("ftrace_persistent") and "ramtrail_saved" in c:
        print(f"| ratio recovered/ftrace | | {c['ramtrail_saved'] / c['ftrace_persistent']:.2f} (goal >= 2) |")
    filled = res.get("filled") or []
    if filled:
        # A zone that never lapped holds all it was given, not what fits.
        full = "laps=0" not in filled[0]
        print(f"| filled for {filled[0]}{'' if full else '; NOT FULL: a zone never lapped, the counts are not capacities'} | | |")
    cf = res.get("census", {}).get("functions", {})
    if cf.get("records"):
        print(f"| of those in the zones: task events (not records) | {cf['task_events']:.0f} | "
              f"zone bytes/record {cf['zone_bytes'] / cf['records']:.1f} |")
    print("| bytes per record: ramtrail function 8 (with its caller 16, 8 when the pair repeats), event 8 + 8 per 4 B "
          "of payload, task event 56; ramoops 24, ftrace function 28.1 | | |")
    ce, d = res.get("census", {}).get("events", {}), res.get("dense", {})
    print(f"\n| 3b. tasks and events on: every function + the events, {REGION} MiB | "
          "records | per MiB | buffer bytes per record | events among them |")
    print("|---|---|---|---|---|")
    if ce.get("records"):
        print(f"| ramtrail, valid in the zones | {ce['records']:.0f} | "
              f"{ce['records'] / REGION:.0f} | {ce['zone_bytes'] / ce['records']:.1f} | "
              f"{ce['events']:.0f} (sched {ce['sched']:.0f}, irq {ce['irq']:.0f}); "
              f"and {ce['task_events']:.0f} task events |")
    if len(filled) > 1:
        print(f"| ramtrail filled for {filled[1]} | | | | |")
    if d.get("ftrace"):
        print(f"| ftrace, function tracer + the events, top-level buffer of the "
              f"persistent instance's size | {d['ftrace']} | {d['ftrace'] / REGION:.0f} | "
              f"{d['ftrace_bytes'] / d['ftrace']:.1f} | |")
    if ce.get("records") and d.get("ftrace"):
        print(f"| ratio ramtrail/ftrace | | {ce['records'] / d['ftrace']:.2f} | | |")
    rc = res["recovery"]
    print("\n| 4. recovery | value |\n|---|---|")
    if "load_s" in rc:
        print(f"| module load with a full {REGION} MiB region ({res['meta']['smp']} CPUs, TCG) | {rc['load_s']:.2f} s |")
    if "decode_mb_s" in rc:
        print(f"| userspace decode + merge of that image, this machine | {rc['decode_mb_s']} MB/s |")
        print(f"| memcpy of the same size | {rc['memcpy_mb_s']} MB/s |")
        print(f"| decode / memcpy | {rc['decode_mb_s'] / rc['memcpy_mb_s']:.2f} (goal >= 0.25) |")
    if "decode_zone_mb_s" in rc:
        print(f"| the same per zone byte read (the saved area not counted) | "
              f"{rc['decode_zone_mb_s']} MB/s, "
              f"{rc['decode_zone_mb_s'] / rc['memcpy_mb_s']:.2f} of memcpy |")
    if "save_ms" in rc:
        print(f"| userspace save of that image's zones (the load's work), this machine | "
              f"{rc['save_ms']:.1f} ms, {rc['save_ns']:.1f} ns a record |")
    print("\n5. core writer, userspace:\n" + res["core"])
    laps = res.get("dump_laps") or [0]
    print(f"\n| 6. trace-on-oops dump of the full {REGION} MiB region (zones lapped "
          f"{min(laps)} to {max(laps)} times), to the serial console (TCG) | records "
          "per CPU | blocks read of the zones' | ms |")
    print("|---|---|---|---|")
    for d in res.get("dump", []):
        print(f"| dump_lines={d['lines']} | {d['records'] / max(d['cpus'], 1):.0f} | "
              f"{d['blocks']} of {d['total_blocks']} | {d['us'] / 1000:.1f} |")
    if not res.get("dump"):
        print("| no dump found in the guest log | | | |")


def event_report(res):
    """2b: overheads against "off" of the same round, medians over rounds."""
    rounds = [r for r in res.get("events", {}).values()
              if all("s" in r.get(m, {}) for m in ("off", "ftrace", "ramtrail"))]
    print("\n| 2b. event workload: pingpong, CPU 0 (TCG: only ratios mean anything) "
          "| median s | x off | events recorded | ns per event (TCG) | buffer bytes per event |")
    print("|---|---|---|---|---|---|")
    if not rounds:
        print("| no complete round | | | | | |")
        return
    base = med([r["off"]["s"] for r in rounds])
    over = {}
    for mode in ("off", "ftrace", "ramtrail"):
        s = med([r[mode]["s"] for r in rounds])
        over[mode] = med([r[mode]["s"] - r["off"]["s"] for r in rounds])
        n = med([r[mode]["n"] for r in rounds if "n" in r[mode]])
        b = med([r[mode]["bytes"] / r[mode]["n"] for r in rounds if r[mode].get("n")])
        per = f"{over[mode] / n * 1e9:.0f}" if mode != "off" and n == n else ""
        print(f"| {mode} | {s:.2f} | {s / base:.3f} | {'' if n != n else f'{n:.0f}'} | "
              f"{per} | {'' if b != b else f'{b:.1f}'} |")
    ratios = [(r["ramtrail"]["s"] - r["off"]["s"]) / (r["ftrace"]["s"] - r["off"]["s"])
              for r in rounds if r["ftrace"]["s"] > r["off"]["s"]]
    bpe = {m: med([r[m]["bytes"] / r[m]["n"] for r in rounds if r[m].get("n")])
           for m in ("ftrace", "ramtrail")}
    print(f"| ramtrail / ftrace: overhead {med(ratios):.2f} (median of {len(ratios)} "
          f"rounds' ratios; ratio of the medians {over['ramtrail'] / over['ftrace'] if over['ftrace'] > 0 else float('nan'):.2f}), "
          f"bytes per event {bpe['ramtrail'] / bpe['ftrace']:.2f} | | | | | |")
    print(f"| events: {EVENTS}; ramtrail's bytes include its task events | | | | | |")
    res["events_summary"] = {"overhead_ratio": med(ratios), "overhead_s": over,
                             "bytes_per_event": bpe}


def plot(res):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: no plot (apt-get install python3-matplotlib)")
        return
    fig, ax = plt.subplots(1, 4, figsize=(18, 4.5))
    w = {key: med(v) for key, v in res["write"].items()}
    ax[0].bar(list(w), list(w.values()), color=["C0" if "ramtrail" in x else "C1" for x in w])
    ax[0].set_title("write cost, ns/record (TCG)")
    ax[0].tick_params(axis="x", rotation=60, labelsize=7)
    o = {key: med(v) for key, v in res["overhead"].items()}
    for i, wl in enumerate(("pipe", "dd")):
        base = o.get(f"{wl} off", 1)
        modes = ("ftrace", "ramtrail", "persistent", "floor", "clock")
        ax[1].bar([x + i * 0.4 for x in range(5)], [o.get(f"{wl} {m}", 0) / base for m in modes],
                  width=0.4, label=wl)
    ax[1].set_xticks(range(5), ("ftrace", "ramtrail", "persistent", "empty callback",
                                "+ clock read"), rotation=20)
    ax[1].set_title("function tracing: workload time / off")
    ax[1].legend()
    base = o.get("pingpong off", 1)
    ax[2].bar(("ftrace events", "ramtrail events="),
              [o.get(f"pingpong {m}", 0) / base for m in ("ftrace", "ramtrail")],
              color=["C1", "C0"])
    ax[2].set_title("event tracing: ping-pong time / off")
    c = dict(res["capacity"])
    ce, d = res.get("census", {}).get("events", {}), res.get("dense", {})
    if ce.get("records"):
        c["ramtrail_zones, +events"] = ce["records"]
    if d.get("ftrace"):
        c["ftrace, +events"] = d["ftrace"]
    ax[3].bar(list(c), [v / REGION for v in c.values()])
    ax[3].set_title(f"records kept per MiB ({REGION} MiB)")
    ax[3].tick_params(axis="x", rotation=30, labelsize=7)
    fig.tight_layout()
    fig.savefig(OUT / "bench.png", dpi=80)


if __name__ == "__main__":
    sys.exit(main())
