#!/usr/bin/env python3
"""tools/run_tests.py (`make test`) on a throw-away ctest project.

Tests: `ok` passes; `flaky` fails its first run and passes its second;
`flaky_hang` does the same but is labelled hang_sensitive; `broken` always
fails. The retry must turn `flaky` into a pass that is named as such, must
never run `flaky_hang` again (so it fails the run), must leave `broken`
failed, and the last line must count the first run's tests; CTEST_ARGS
after `--` narrow the first run.
"""
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
# A test that fails the first time it runs in this build directory.
FLAKY = 'if [ -e {0}.ran ]; then echo second run; exit 0; fi; touch {0}.ran; echo first run; exit 1'
PROJECT = """cmake_minimum_required(VERSION 3.16)
project(run_tests_selftest NONE)
enable_testing()
add_test(NAME ok COMMAND sh -c "exit 0")
add_test(NAME flaky COMMAND sh -c "%s")
add_test(NAME flaky_hang COMMAND sh -c "%s")
set_tests_properties(flaky_hang PROPERTIES LABELS "conformance;hang_sensitive")
add_test(NAME broken COMMAND sh -c "exit 1")
""" % (FLAKY.format("flaky"), FLAKY.format("flaky_hang"))
failures = []


def check(what, ok, out):
    print("%s: %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        failures.append(what)
        print("    | " + out.replace("\n", "\n    | "))


def run_tests(build, *ctest_args):
    for marker in build.glob("*.ran"):
        marker.unlink()
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "run_tests.py"), str(build), "-j", "2",
                        "--timeout", "60"] + (["--"] + list(ctest_args) if ctest_args else []),
                       capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


def listed(out, title):
    """The test names listed under the report heading that starts with title."""
    m = re.search(r"^== make test: %s[^\n]*\n((?:   \S+\n)*)" % re.escape(title), out, re.M)
    return m.group(1).split() if m else []


def retry_part(out):
    """What the retry printed: from its announcement to the report."""
    start = out.find("run once more:")
    return out[start:out.find("== make test: passed only", start)] if start >= 0 else ""


def main():
    with tempfile.TemporaryDirectory() as tmp:
        src, build = pathlib.Path(tmp) / "src", pathlib.Path(tmp) / "build"
        src.mkdir()
        (src / "CMakeLists.txt").write_text(PROJECT)
        subprocess.run(["cmake", "-S", str(src), "-B", str(build)], check=True, capture_output=True)

        code, out = run_tests(build, "-E", "flaky_hang|broken")
        check("a flaky pass: exit 0", code == 0, out)
        check("the flaky test is named", listed(out, "passed only on a retry") == ["flaky"], out)
        check("the last line counts the first run's tests",
              out.rstrip().splitlines()[-1] == "make test: 2 passed, 0 failed", out)
        check("ctest's own summary is there", "100% tests passed, 0 tests failed out of 1" in out, out)

        code, out = run_tests(build)
        check("a failure in the end: exit 8", code == 8, out)
        check("the flaky test passed on its retry", listed(out, "passed only on a retry") == ["flaky"], out)
        check("the hang_sensitive test is not retried",
              listed(out, "failed, labelled hang_sensitive") == ["flaky_hang"]
              and "flaky_hang" not in retry_part(out), out)
        check("the broken test failed twice", listed(out, "failed twice") == ["broken"], out)
        check("the last line", out.rstrip().splitlines()[-1] == "make test: 2 passed, 2 failed", out)

        code, out = run_tests(build, "-R", "^ok$")
        check("no failure: exit 0, no retry", code == 0 and "run once more" not in out
              and "no test passed only on a retry" in out
              and out.rstrip().splitlines()[-1] == "make test: 1 passed, 0 failed", out)

    print("test_run_tests: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
