#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How fast ramtrail fleet groups a fleet's crash records: N journal
entries (journalctl -o json lines) of the real ramtrail crash's records
(test_tool.py's fleet_lines(): two crashes and a hang, five machines, two
releases), read from a file, best of 3 runs. A measurement, not a test:
it prints one line.

usage: bench_fleet.py BUILD_DIR [N]     (default N: 100000)
"""
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import test_tool  # noqa: E402  (BUILD_DIR from sys.argv[1])


def main():
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    with tempfile.TemporaryDirectory(prefix="ramtrail-fleet-bench-") as d:
        work = Path(d)
        lines, groups = test_tool.fleet_lines(test_tool.fleet_records(work / "pstore"), n)
        src = work / "journal.json"
        src.write_text("\n".join(lines) + "\n")
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            p = subprocess.run([str(test_tool.TOOL), "fleet", str(src), "--format", "json"],
                               capture_output=True, text=True)
            t = time.perf_counter() - t0
            if p.returncode or f'"records":{n},' not in p.stdout:
                sys.exit(f"ramtrail fleet failed: {p.returncode} {p.stderr[:300]}")
            best = t if best is None else min(best, t)
        mb = src.stat().st_size / 2**20
        print(f"ramtrail fleet: {n} records ({mb:.0f} MiB of journalctl -o json, "
              f"{len(groups)} groups) in {best:.3f} s: {n / best:,.0f} records/s, "
              f"{mb / best:.0f} MiB/s")


if __name__ == "__main__":
    main()
