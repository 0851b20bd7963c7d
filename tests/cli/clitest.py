"""clitest.py - what the Python checks of tests/cli share: counting checks,
the closing "N passed, M failed" line and exit status, skipping (77)."""
import sys

passed = failed = 0


def check(label, ok, detail=""):
    """Counts one check; a failed one is printed with its detail."""
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(("FAIL %s %s" % (label, detail))[:600])


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def finish():
    """Prints the totals and exits: 1 on any failure, 77 if nothing ran."""
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0 if passed else 77)
