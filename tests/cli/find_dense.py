#!/usr/bin/env python3
"""find_dense.py - `hay find` with dense literal sets (IDS signatures: dozens
of matches on most lines) against LC_ALL=C grep -F, and lines dense with
matches that must not make a line output slow.

Usage: find_dense.py HAY DATA_DIR [PART]

Parts (all by default):
  sets    the Snort community and ET Open sets of DATA_DIR/patterns, whole
          and a sample of every 40th, over about 5 MB of DATA_DIR/text (a
          piece big enough for the scan's threads): hay's output and exit
          status must be grep -F's for lines, -c, -n, -l, -o, -w, -v, -x and
          a few combinations (-w on the sample only: GNU grep -w takes
          minutes with the whole sets), on 1 and 2 threads; skipped (77)
          without the data.
  dense   made-up inputs (no data needed): a 1 MiB line of 'a' with the
          pattern 'a' (lines, -c, -n, -o, --count-matches, colour), and
          200,000 lines of twenty 'a' with 'a' and a pattern of 8,000 bytes
          that never occurs (lines, -c, -n, -l, -w, -v, -C1).  Every command must end
          within DENSE_LIMIT seconds: a scan that stopped on a selected line
          only after the longest pattern's length (the leftmost modes'
          filter) or a batch of matches, and scanned it all again from the
          next line, took 20 s and more here; the fix takes hundredths.
          HAY_DENSE_LIMIT overrides the 10 s (a sanitizer build: 120).

Prints "N passed, M failed" last; exits 1 on any failure, 77 if nothing ran.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import check, finish, skip  # noqa: E402

ENV = {k: v for k, v in os.environ.items() if not k.startswith("GREP_COLOR")}
ENV["LC_ALL"] = "C"
TEXTS = ["sherlock.txt", "world192.txt", "opensubtitles-en-sampled.txt", "bible.txt",
         "moby_dick.txt"]
TEXT_BYTES = 1 << 20   # from each
SETS = ["snort-community", "et-open"]
OPTIONS = [[], ["-c"], ["-n"], ["-l"], ["-o"], ["-w"], ["-v"], ["-x"], ["-c", "-w"],
           ["-n", "-w"], ["-o", "-w"], ["-c", "-v"], ["-c", "-i"], ["-o", "-b"],
           ["--color=always"], ["-m", "1000", "-n"], ["-v", "-n"], ["-C2", "-n"],
           ["-v", "-m", "2000"], ["-A1", "-c"]]
DENSE_LIMIT = int(os.environ.get("HAY_DENSE_LIMIT", "10"))


def run(argv, timeout=None):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def make_text(data, path):
    with open(path, "wb") as out:
        for name in TEXTS:
            with open(os.path.join(data, "text", name), "rb") as f:
                block = f.read(TEXT_BYTES)
            cut = block.rfind(b"\n") + 1   # whole lines
            out.write(block[:cut])


def part_sets(hay, data, tmp):
    pats = [os.path.join(data, "patterns", s + ".txt") for s in SETS]
    if not all(os.path.isfile(p) for p in pats) or not os.path.isdir(os.path.join(data, "text")):
        print("sets: SKIP: no %s/patterns/{%s}.txt or text/ (../shared/data)"
              % (data, ",".join(SETS)))
        return False
    text = os.path.join(tmp, "text.txt")
    make_text(data, text)
    files = list(pats)
    with open(pats[1], "rb") as f:
        sample = f.read().split(b"\n")[::40]
    files.append(os.path.join(tmp, "et-open-sample.txt"))
    with open(files[-1], "wb") as f:
        f.write(b"".join(p + b"\n" for p in sample if p))
    for pf in files:
        for opts in OPTIONS:
            if "-w" in opts and pf != files[-1]:
                continue   # GNU grep -w takes minutes with thousands of patterns
            g = run(["grep", "-F"] + opts + ["-f", pf, text])
            for threads in ("1", "2"):
                h = run([hay, "find", "--threads", threads] + opts + ["-f", pf, text])
                label = "sets %s %s t%s" % (os.path.basename(pf), " ".join(opts), threads)
                check(label, h[:2] == g[:2],
                      "status %d vs grep %d, %d vs %d bytes of output; %s"
                      % (h[0], g[0], len(h[1]), len(g[1]), h[2][:200]))
    return True


def timed(label, argv, want, status=0):
    """argv must print `want` (bytes, or a function of the output), exit
    with `status` and end within DENSE_LIMIT seconds."""
    try:
        rc, out, err = run(argv, timeout=DENSE_LIMIT)
    except subprocess.TimeoutExpired:
        check(label, False, "took more than %d s" % DENSE_LIMIT)
        return
    ok = want(out) if callable(want) else out == want
    check(label, rc == status and ok, "status %d, output %r..., %s" % (rc, out[:80], err[:200]))


def part_dense(hay, tmp):
    line = os.path.join(tmp, "line.txt")
    n = 1 << 20
    with open(line, "wb") as f:
        f.write(b"a" * n + b"\n")
    whole = b"a" * n + b"\n"
    for t in ("1", "2"):
        base = [hay, "find", "--threads", t]
        timed("1 MiB line t%s" % t, base + ["a", line], whole)
        timed("1 MiB line -c t%s" % t, base + ["-c", "a", line], b"1\n")
        timed("1 MiB line -n t%s" % t, base + ["-n", "a", line], b"1:" + whole)
        timed("1 MiB line -o t%s" % t, base + ["-o", "a", line], b"a\n" * n)
        timed("1 MiB line --count-matches t%s" % t, base + ["--count-matches", "a", line],
              b"%d\n" % n)
        timed("1 MiB line colour t%s" % t, base + ["--color=always", "a", line],
              lambda out: out.count(b"\33[01;31m\33[Ka\33[m\33[K") == n)

    short = os.path.join(tmp, "short.txt")
    nlines = 200000
    with open(short, "wb") as f:
        f.write((b"a" * 20 + b"\n") * nlines)
    pf = os.path.join(tmp, "long.txt")
    with open(pf, "wb") as f:
        f.write(b"a\n" + b"b" * 8000 + b"\n")
    text = (b"a" * 20 + b"\n") * nlines
    for t in ("1", "2"):
        base = [hay, "find", "--threads", t, "-f", pf]
        timed("short lines t%s" % t, base + [short], text)
        timed("short lines -c t%s" % t, base + ["-c", short], b"%d\n" % nlines)
        timed("short lines -n t%s" % t, base + ["-n", short],
              b"".join(b"%d:%s\n" % (i + 1, b"a" * 20) for i in range(nlines)))
        timed("short lines -l t%s" % t, base + ["-l", short], short.encode() + b"\n")
        timed("short lines -w t%s" % t, base + ["-w", short], b"", status=1)
        timed("short lines -v t%s" % t, base + ["-v", short], b"", status=1)
        timed("short lines -C1 t%s" % t, base + ["-C1", short], text)
    return True


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    hay, data = sys.argv[1], sys.argv[2]
    part = sys.argv[3] if len(sys.argv) == 4 else None
    with tempfile.TemporaryDirectory(prefix="hay-dense.") as tmp:
        ran = False
        if part in (None, "dense"):
            ran |= part_dense(hay, tmp)
        if part in (None, "sets"):
            ran |= part_sets(hay, data, tmp)
        if not ran:
            skip("nothing ran")
    finish()


if __name__ == "__main__":
    main()
