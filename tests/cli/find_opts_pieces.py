#!/usr/bin/env python3
"""find_opts_pieces.py - grep's selection and context options on input that
comes in pieces (input.h), against GNU grep (LC_ALL=C grep -F).

Usage: find_opts_pieces.py HAY

A pipe whose writer stops for a while after a part of the input makes
`hay find` search it in several pieces, cut where the writer stopped (at the
last newline before).  For cut points before, on and after matching lines,
-v, -m, -A/-B/-C (group separators at the cut), -n, -b, -T, -c, -o, -w and
-x must print what grep prints from the whole input, and --count-matches
(with -v, -m, -A) count what grep -o | wc -l counts.  Then: -m ends the
search of an endless pipe; -A prints a line's trailing context as it comes
(before the pipe closes); several files with context and threads print
grep's separators between files.

Prints FAIL lines and "N passed, M failed" last; exits 1 on a failure and 77
(skip) when grep is missing.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import clitest

ENV = dict(os.environ, LC_ALL="C")
PAUSE = 0.1

# Lines 1..60: "key" on lines 3, 4, 10, 20-22, 31, 40, 41, 59; "keys" and
# "monkey" (not words) on 12 and 50; an empty line at 25.
LINES = []
for i in range(1, 61):
    if i in (3, 4, 10, 20, 21, 22, 31, 40, 41, 59):
        LINES.append("line %d key here" % i)
    elif i == 12:
        LINES.append("line 12 keys")
    elif i == 50:
        LINES.append("monkey 50")
    elif i == 25:
        LINES.append("")
    else:
        LINES.append("line %d plain" % i)
DATA = ("\n".join(LINES) + "\n").encode()

OPTIONS = [
    ["-v", "-n"], ["-m", "3", "-n"], ["-m", "2", "-A", "2"], ["-m", "4", "-A", "3", "-n"],
    ["-A", "1", "-n"], ["-A", "2"], ["-A", "0"], ["-B", "1", "-n"], ["-C", "2", "-b"],
    ["-C", "1", "--group-separator=::"], ["-A", "1", "--no-group-separator"],
    ["-v", "-A", "1", "-n"], ["-v", "-m", "5", "-A", "2", "-n"], ["-v", "-c"],
    ["-m", "5", "-c"], ["-n", "-T"], ["-o", "-w", "-b"], ["-w", "-n"], ["-x", "-c"],
    ["-v", "-b"], ["-v"], ["-m", "1", "-v", "-n"],
]


def cut_points():
    """Offsets just before, inside and after some lines, matching or not."""
    starts = [0]
    for line in LINES:
        starts.append(starts[-1] + len(line) + 1)
    points = []
    for n in (4, 5, 11, 21, 22, 41):
        points += [starts[n - 1], starts[n - 1] + 2]
    return points


def hay_pieces(hay, args, cut):
    """hay find ARGS on a pipe that pauses after DATA[:cut]."""
    p = subprocess.Popen([hay, "find"] + args, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)

    def feed():
        try:
            p.stdin.write(DATA[:cut])
            p.stdin.flush()
            time.sleep(PAUSE)
            p.stdin.write(DATA[cut:])
            p.stdin.close()
        except (BrokenPipeError, ValueError):
            pass

    t = threading.Thread(target=feed)
    t.start()
    timer = threading.Timer(60, p.kill)
    timer.start()
    out = p.stdout.read()
    p.wait()
    timer.cancel()
    t.join()
    return p.returncode, out


def grep_whole(args):
    p = subprocess.run(["grep", "-F"] + args, input=DATA, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=ENV, timeout=60)
    return p.returncode, p.stdout


def check_pieces(hay):
    for args in OPTIONS:
        want = grep_whole(args + ["-e", "key"])
        for cut in cut_points():
            got = hay_pieces(hay, args + ["-e", "key"], cut)
            clitest.check("%s cut at %d" % (" ".join(args), cut), got == want,
                          "hay %r, grep %r" % (got, want))


def check_count_matches(hay):
    """--count-matches counts every piece, whatever -v and -m say."""
    p = subprocess.run(["grep", "-F", "-o", "key"], input=DATA, stdout=subprocess.PIPE,
                       env=ENV, timeout=60)
    want = (0, b"%d\n" % p.stdout.count(b"\n"))
    for args in (["-m", "0"], ["-m", "1"], ["-v"], ["-A", "1"]):
        for cut in cut_points()[::4]:
            got = hay_pieces(hay, ["--count-matches"] + args + ["key"], cut)
            clitest.check("--count-matches %s cut at %d" % (" ".join(args), cut), got == want,
                          "hay %r, grep -o | wc -l %r" % (got, want))


def check_endless(hay):
    """-m stops reading: `yes | hay find -m2 -A1` ends (grep does too)."""
    for args in (["-m", "2", "-A", "1", "y"], ["-m", "1", "-v", "x"], ["-m", "1", "-c", "y"]):
        y = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
        try:
            p = subprocess.run([hay, "find"] + args, stdin=y.stdout, stdout=subprocess.PIPE,
                               env=ENV, timeout=20)
            ok, detail = p.returncode == 0, p.stdout[:100]
        except subprocess.TimeoutExpired:
            ok, detail = False, "still reading after 20 s"
        y.kill()
        y.wait()
        clitest.check("endless pipe %s" % " ".join(args), ok, repr(detail))


def check_live_context(hay):
    """-A1: a match and its trailing line are printed before the pipe closes."""
    p = subprocess.Popen([hay, "find", "--line-buffered", "-A", "1", "key"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV)
    p.stdin.write(b"a key\nafter\n")
    p.stdin.flush()
    got = []
    timer = threading.Timer(10, p.kill)
    timer.start()
    while len(got) < 2:
        line = p.stdout.readline()
        if not line:
            break
        got.append(line)
    timer.cancel()
    try:
        p.stdin.close()
    except BrokenPipeError:
        pass
    p.wait()
    clitest.check("-A1 prints as lines come", got == [b"a key\n", b"after\n"], repr(got))


def check_files(hay):
    """Context over several files (and threads): separators between files."""
    d = tempfile.mkdtemp()
    try:
        names = []
        for k in range(4):
            name = os.path.join(d, "f%d.txt" % k)
            with open(name, "wb") as f:
                f.write(DATA if k % 2 == 0 else b"no match\n")
            names.append(name)
        for args in (["-C", "1"], ["-A", "1", "-n"], ["-m", "1", "-B", "1"]):
            want = grep_whole(args + ["key"] + names)
            got = subprocess.run([hay, "find", "--threads", "4"] + args + ["key"] + names,
                                 stdout=subprocess.PIPE, env=ENV, timeout=60)
            clitest.check("files %s" % " ".join(args),
                          (got.returncode, got.stdout) == want,
                          "hay %r, grep %r" % (got.stdout[:300], want[1][:300]))
    finally:
        shutil.rmtree(d)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: find_opts_pieces.py HAY")
    if not shutil.which("grep") or not shutil.which("yes"):
        clitest.skip("grep or yes is missing")
    hay = sys.argv[1]
    check_pieces(hay)
    check_count_matches(hay)
    check_endless(hay)
    check_live_context(hay)
    check_files(hay)
    clitest.finish()


if __name__ == "__main__":
    main()
