"""The pass/fail tally the end-to-end harness tests share (test_harness_run,
test_sweep_run): check() counts a condition and prints what failed, with the
tail of its detail."""


class Tally:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, cond, what, detail=""):
        if cond:
            self.passed += 1
            return
        self.failed += 1
        detail = str(detail)[-3000:].replace("\n", "\n  ") if detail else ""
        print("FAIL: %s%s" % (what, "\n  " + detail if detail else ""))

    def ok(self):
        """No failure, and something was checked."""
        return self.failed == 0 and self.passed > 0
