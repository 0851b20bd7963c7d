#!/usr/bin/env python3
"""find_opts_nul.py - grep 3.8's late-NUL rule (search.c) with grep's
selection and context options, against GNU grep (LC_ALL=C grep -F).

Usage: find_opts_nul.py HAY

grep decides per read buffer, hay per line (search.c), so the generated
inputs keep every line that either prints far from the NUL byte (past the
first 32 KiB): the stretch before it holds no line that is printed.  Then
-v (the NUL on a matching line, which is not printed), -A/-C (no group
separator before a line held back), -I with -c, -l, -L and -v, and the
binary note on standard error must be grep's.

Prints FAIL lines and "N passed, M failed" last; exits 1 on a failure and 77
(skip) when grep is missing.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import clitest

ENV = dict(os.environ, LC_ALL="C")


def lines(fmt, a, b):
    return b"".join((fmt % i).encode() + b"\n" for i in range(a, b))


# -v: plain lines (selected) first, a long stretch of matching lines (not
# selected), the NUL on a matching line, then plain lines again.
INVERT = (lines("plain %d", 0, 2000) + lines("key %d", 0, 40000) + b"nul\0 key\n" +
          lines("plain after %d", 0, 100))
# Context: groups of key lines first, a long stretch of plain lines, the
# NUL on a plain line, then a key line (selected after the NUL).
GROUPS = (lines("key %d\nplain\nplain\nplain", 0, 300) + lines("plain %d", 0, 40000) +
          b"nul\0 here\n" + lines("plain again %d", 0, 5) + b"key after\n" +
          lines("plain end %d", 0, 5))

# Files above 4 MiB are scanned on several threads, which look for the NUL
# part by part beside the scan (binary.h).  Lines printed all along for 6
# MiB, then a stretch of lines not printed (grep decides per read buffer),
# the NUL at a chunk boundary or inside a chunk, more lines not printed,
# and lines that would print after it.  For -v the roles swap.
def big(nul_at, printed=b"key", other=b"plain"):
    head = lines(printed.decode() + " %07d", 0, (6 << 20) // (len(printed) + 9))
    head += lines(other.decode() + " %07d", 0, 40000)
    pad = nul_at - len(head)
    assert pad > 0
    filler = lines(other.decode() + " %07d", 0, pad // 20)
    filler += other + b"x" * (pad - len(filler) - len(other) - 1) + b"\n"
    data = (head + filler + b"\0 " + other + b"\n" + lines(other.decode() + " %d", 0, 30000) +
            lines(printed.decode() + " after %d", 0, 1000))
    assert data.index(b"\0") == nul_at
    return data


BIG_EDGE = big(7 << 20)
BIG_MID = big((7 << 20) + 12345)
BIG_INVERT = big((7 << 20) + 777, b"plain", b"key")
# Key lines on both sides, close to the NUL: no grep oracle (grep decides
# per buffer), hay on one thread (no look beside the scan) instead.
NEAR = lines("key %07d", 0, (6 << 20) // 12) + b"key \0 nul\n" + lines("key %07d", 0, 1000)

CASES = [
    ("big-edge", BIG_EDGE, []),
    ("big-edge-n", BIG_EDGE, ["-n"]),
    ("big-mid-C2", BIG_MID, ["-C", "2"]),
    ("big-mid-v", BIG_INVERT, ["-v"]),
    ("big-mid-chunks", BIG_MID, ["-n"], ["--chunk-size=65536"]),
    ("invert", INVERT, ["-v"]),
    ("invert-n", INVERT, ["-v", "-n"]),
    ("invert-A1", INVERT, ["-v", "-A", "1"]),
    ("invert-I", INVERT, ["-v", "-I"]),
    ("invert-I-c", INVERT, ["-v", "-I", "-c"]),
    ("groups-A1", GROUPS, ["-A", "1"]),
    ("groups-C1-n", GROUPS, ["-C", "1", "-n"]),
    ("groups-B2", GROUPS, ["-B", "2"]),
    ("groups-I", GROUPS, ["-I"]),
    ("groups-I-c", GROUPS, ["-I", "-c"]),
    ("groups-I-L", GROUPS, ["-I", "-L"]),
    ("groups-I-l", GROUPS, ["-I", "-l"]),
    ("groups-c", GROUPS, ["-c"]),
    ("groups-m1000", GROUPS, ["-m", "1000", "-n"]),
]


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr.replace(b"grep: ", b"hay: ")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: find_opts_nul.py HAY")
    if not shutil.which("grep"):
        clitest.skip("grep is missing")
    hay = sys.argv[1]
    d = tempfile.mkdtemp()
    try:
        for label, data, args, *own in CASES:
            name = os.path.join(d, label)
            with open(name, "wb") as f:
                f.write(data)
            want = run(["grep", "-F"] + args + ["key", name])
            for threads in ("2", "3"):
                got = run([hay, "find", "--threads=" + threads] + args + (own[0] if own else []) +
                          ["key", name])
                clitest.check("%s threads %s" % (label, threads), got == want,
                              "hay %r, grep %r" % ((got[0], got[1][-200:], got[2]),
                                                   (want[0], want[1][-200:], want[2])))
        name = os.path.join(d, "near")
        with open(name, "wb") as f:
            f.write(NEAR)
        for args in ([], ["-n"], ["-C1"], ["--chunk-size=100000"]):
            want = run([hay, "find", "--threads=1"] + args + ["key", name])
            got = run([hay, "find", "--threads=2"] + args + ["key", name])
            clitest.check("near %s" % " ".join(args), got == want and b"binary" in want[2],
                          "2 threads %r, 1 thread %r" % ((got[0], got[1][-200:], got[2]),
                                                         (want[0], want[1][-200:], want[2])))
    finally:
        shutil.rmtree(d)
    clitest.finish()


if __name__ == "__main__":
    main()
