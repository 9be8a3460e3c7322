# SPDX-License-Identifier: GPL-2.0
"""Results of a test command, printed as every test of the project prints
them (the C tests with check.h): one line a check, "ok   NAME" or
"FAIL NAME" (": DETAIL" after it if there is one), and last the summary
"N passed, N failed" (", N skipped" after it if any) that
tools/run-checks.sh adds up.

  res = Results()
  res.check("decode: every record", got == want, f"{len(got)}/{len(want)}")
  sys.exit(1 if res.summary() else 0)
"""


class Results:
    """Named checks. A passed check's detail is put on its line, cut to
    ok_limit characters (0: left out); a failed check's is printed whole."""

    def __init__(self, ok_limit=200):
        self.passed = self.failed = self.skipped = 0
        self.ok_limit = ok_limit

    def check(self, name, cond, detail=""):
        """Count and print one check; returns whether it passed."""
        ok = bool(cond)
        self.passed, self.failed = self.passed + ok, self.failed + (not ok)
        detail = " ".join(str(detail).split())[:self.ok_limit] if ok else str(detail)
        print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}",
              flush=True)
        return ok

    def skip(self, name):
        """Count and print a check this machine cannot make, and why."""
        self.skipped += 1
        print(f"skip {name}", flush=True)

    def summary(self):
        """Print 'N passed, N failed[, N skipped]'; returns the number failed."""
        print(f"{self.passed} passed, {self.failed} failed" +
              (f", {self.skipped} skipped" if self.skipped else ""), flush=True)
        return self.failed
