#!/usr/bin/env python3
"""find_marks.py - `hay find` on a GPU backend takes its lines from the bitmap
of the bytes where matches end (hay_scan_marks) and -l/-L/-q from the first
match (hay_scan_first): programs/find/linecount.c find_select_by_marks.  Its
output and exit status must be `--backend cpu`'s.

Usage: find_marks.py HAY DATA_DIR BACKEND

BACKEND is cuda or opencl (skipped, 77, when `hay` cannot run it here).
Checks, for lines, -c, -l, -L, -q, -n, -c -i, -b -H, and -c, -l, -L over two
files (and -c -w, -x, -c -v, -m 5 -n, -o, which keep the list, once):
  - made-up inputs (no data needed): a dense pattern, a match ending at the
    last byte of a file without a final newline, empty lines, a file with
    no match, patterns of 1 to 40 bytes across slice edges, a NUL late in
    6 MB (output and binary-file note as the CPU's);
  - the Snort community and ET Open sets, and every 20th English word, over
    about 4 MB of DATA_DIR/text (skipped without the data);
each with the default slices and with slices of 64, 1000 and 4099 bytes
(env HAY_MARKS_SLICE), so that slice edges fall inside lines and matches.

Prints "N passed, M failed" last; exits 1 on any failure, 77 if nothing ran.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import check, finish, skip  # noqa: E402

TEXTS = ["sherlock.txt", "world192.txt", "bible.txt", "moby_dick.txt"]
TEXT_BYTES = 1 << 20
OPTIONS = [[], ["-c"], ["-l"], ["-L"], ["-q"], ["-n"], ["-c", "-i"], ["-b", "-H"]]
# The options that keep the list (-w, -x, -v, -m, -o): the same output on
# the GPU through it, default slices only.
LIST_OPTIONS = [["-c", "-w"], ["-x"], ["-c", "-v"], ["-m", "5", "-n"], ["-o"]]
SLICES = [None, "64", "1000", "4099"]


def run(argv, slice_=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GREP_COLOR")}
    env["LC_ALL"] = "C"
    env.pop("HAY_MARKS_SLICE", None)
    if slice_:
        env["HAY_MARKS_SLICE"] = slice_
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                       timeout=600)
    return p.returncode, p.stdout, p.stderr


def compare(hay, backend, label, args, files, slices=SLICES):
    for opts in OPTIONS + LIST_OPTIONS:
        want = run([hay, "find", "--backend", "cpu"] + opts + args + files)
        for sl in (slices if opts in OPTIONS else [None]):
            got = run([hay, "find", "--backend", backend] + opts + args + files, sl)
            what = "%s %s slice=%s" % (label, " ".join(opts) or "lines", sl or "default")
            check(what, got[:2] == want[:2],
                  "exit %d/%d, %d/%d bytes of output; stderr %r" %
                  (got[0], want[0], len(got[1]), len(want[1]), got[2][-300:]))
    # several files: names, counts and a file with no match
    if len(files) == 1:
        empty = files[0] + ".none"
        with open(empty, "wb") as f:
            f.write(b"nothing to see\n" * 100)
        for opts in (["-c"], ["-l"], ["-L"]):
            want = run([hay, "find", "--backend", "cpu"] + opts + args + files + [empty])
            got = run([hay, "find", "--backend", backend] + opts + args + files + [empty], "1000")
            check("%s %s two files" % (label, " ".join(opts)), got[:2] == want[:2],
                  "exit %d/%d" % (got[0], want[0]))


def made_up(hay, backend, tmp):
    text = os.path.join(tmp, "made.txt")
    lines = []
    for i in range(3000):
        k = i % 7
        if k == 0:
            lines.append(b"")
        elif k == 1:
            lines.append(b"x" * (i % 150) + b"needle" + b"y" * (i % 90))
        elif k == 2:
            lines.append(b"abcdefghij" * (i % 13))
        elif k == 3:
            lines.append(b"ne" + b"z" * (i % 70) + b"edle")
        else:
            lines.append(b"-" * (i % 200))
    with open(text, "wb") as f:
        f.write(b"\n".join(lines) + b"\nthe end holds a needle")   # no final newline
    pats = os.path.join(tmp, "made.pats")
    with open(pats, "wb") as f:
        f.write(b"needle\nj\nhij\nabcdefghijabcdefghijabcdefghijabcdefghij\nle\n")
    compare(hay, backend, "made-up", ["-f", pats], [text])
    compare(hay, backend, "made-up one pattern", ["-e", "edle"], [text])
    compare(hay, backend, "made-up dense", ["-e", "-"], [text], [None, "64"])


def late_nul(hay, backend, tmp):
    """A NUL three quarters into 6 MB (several threads, grep 3.8's late-NUL
    rule: lines up to it, then the binary-file note)."""
    text = os.path.join(tmp, "nul.txt")
    d = b"".join(b"line %d needle here\n" % i if i % 3 == 0 else b"plain %d\n" % i
                 for i in range(400000))
    cut = d.find(b"\n", len(d) * 3 // 4) + 1
    with open(text, "wb") as f:
        f.write(d[:cut] + b"bin\x00ary needle\n" + d[cut:])
    for opts in ([], ["-c"], ["-n"], ["-I"], ["-l"], ["-a", "-c"]):
        want = run([hay, "find", "--backend", "cpu"] + opts + ["needle", text])
        for sl in (None, "100000"):
            got = run([hay, "find", "--backend", backend] + opts + ["needle", text], sl)
            check("late NUL %s slice=%s" % (" ".join(opts) or "lines", sl or "default"),
                  got == want, "exit %d/%d, %d/%d bytes of output, stderr %r/%r" %
                  (got[0], want[0], len(got[1]), len(want[1]), got[2][-200:], want[2][-200:]))


def real(hay, backend, data, tmp):
    pdir = os.path.join(data, "patterns")
    sets = [os.path.join(pdir, s + ".txt") for s in ("snort-community", "et-open")]
    words = os.path.join(pdir, "english-words.txt")
    if not all(os.path.isfile(p) for p in sets + [words]) or \
            not os.path.isdir(os.path.join(data, "text")):
        print("real data: SKIP: no %s/patterns/{snort-community,et-open,english-words}.txt "
              "or text/ (../shared/data)" % data)
        return
    text = os.path.join(tmp, "text.txt")
    with open(text, "wb") as out:
        for name in TEXTS:
            with open(os.path.join(data, "text", name), "rb") as f:
                block = f.read(TEXT_BYTES)
            out.write(block[:block.rfind(b"\n") + 1])
    sample = os.path.join(tmp, "words.txt")
    with open(words, "rb") as f:
        w = f.read().split(b"\n")[::20]
    with open(sample, "wb") as f:
        f.write(b"".join(p + b"\n" for p in w if p))
    for pf in sets + [sample]:
        compare(hay, backend, os.path.basename(pf), ["-f", pf], [text],
                [None, "1000"] if pf != sample else SLICES)


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        sys.exit(2)
    hay, data, backend = sys.argv[1:]
    probe = run([hay, "find", "--backend", backend, "-c", "x", "/dev/null"])
    if probe[0] == 2:
        skip("--backend %s does not run here: %s" % (backend, probe[2].decode(errors="replace")
                                                     .strip()[:200]))
    with tempfile.TemporaryDirectory() as tmp:
        made_up(hay, backend, tmp)
        late_nul(hay, backend, tmp)
        real(hay, backend, data, tmp)
    finish()


if __name__ == "__main__":
    main()
