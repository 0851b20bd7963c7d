#!/usr/bin/env python3
"""find_lines_check.py - hay find's line modes against GNU grep (and
ripgrep where installed), on inputs made here.

Usage: find_lines_check.py HAY

  counts   -c and -n (lines found around matches, the rest of a selected
           line skipped; -c counted in parts on several threads) against
           grep -c and grep -n on a 6 MB file whose lines hold up to
           hundreds of matches, one of them 3 MB long (it crosses the parts
           of the threads), with -w, -x, -i, 1 to 3 threads
  color    --color=always against grep --color=always (its default colours)
           on lines of 4,095 to 9,000 matches (parts of 4,096), with -n, -H
           and two patterns, and with -m, context and -v (the selection),
           as -o; and on one 8 MB line of 'a' under an address space limit
           of 100 MB (24 bytes a match kept were 192 MB: the line is
           written in parts as the matches come), also with -m1 and -C1
  every    the matches of -w, -x and --match-mode all (all occurrences,
           decided in parts once no earlier-starting one can come): -o
           and --color=always against grep on lines of up to 20,000
           overlapping and adjacent candidates, with -m, context, -n, -b;
           and on one 8 MB line of 'a a ...' under the 100 MB limit (-w,
           all, -v --color, which keeps no match, --count-matches -w: 24
           bytes a match kept were 96 MB), against outputs built here;
           --json keeps a record a line
  words    --count-matches with -w or -x against ripgrep's --count-matches
           (patterns of word bytes only: ripgrep 13 differs from its own
           later -w on patterns that begin or end with other bytes); skipped
           without rg
Prints "N passed, M failed" last; exits 1 on any failure, 77 if nothing ran.
"""
import hashlib
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile

from clitest import check, finish

ENV = {k: v for k, v in os.environ.items() if not k.startswith("GREP_COLOR")}
ENV["LC_ALL"] = "C"
C_MATCH, C_END = b"\33[01;31m\33[K", b"\33[m\33[K"


def run(argv, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, **kw)


def make_text(path):
    """6 MB: short lines, lines dense with 'the', words glued to other
    words (-w), a 3 MB line, lines that are only a pattern (-x)."""
    rnd = random.Random(7)
    words = [b"the", b"then", b"other", b"The", b"cat", b"a", b"the_", b"xthe", b"and"]
    lines = []
    size = 0
    while size < 6_000_000:
        k = rnd.random()
        if k < 0.05:
            line = b" ".join([b"the"] * rnd.randint(17, 400))
        elif k < 0.1:
            line = rnd.choice([b"the", b"cat", b"THE", b""])
        elif k < 0.1002 and size > 1_500_000 and not any(len(x) > 1_000_000 for x in lines):
            line = b"the other " * 300_000
        else:
            line = b" ".join(rnd.choice(words) for _ in range(rnd.randint(1, 30)))
        lines.append(line)
        size += len(line) + 1
    data = b"\n".join(lines) + b"\n"
    with open(path, "wb") as f:
        f.write(data)


def part_counts(hay, path):
    pats = [["-e", "the"], ["-e", "the", "-e", "cat", "-e", "then"]]
    for opts in ([], ["-w"], ["-x"], ["-i"], ["-w", "-i"]):
        for p in pats:
            want = run(["grep", "-F", "-c"] + opts + p + [path]).stdout
            want_n = hashlib.sha1(run(["grep", "-F", "-n"] + opts + p + [path]).stdout).digest()
            for t in ("1", "2", "3"):
                got = run([hay, "find", "--threads", t, "-c"] + opts + p + [path]).stdout
                check("counts -c %s %s threads %s" % (opts, p, t), got == want,
                      "hay %r grep %r" % (got, want))
                out = run([hay, "find", "--threads", t, "-n"] + opts + p + [path]).stdout
                check("counts -n %s %s threads %s" % (opts, p, t),
                      hashlib.sha1(out).digest() == want_n, "outputs differ")


def as_limited(hay):
    """A preexec_fn putting hay under a 100 MB address-space limit (none
    under AddressSanitizer, which reserves terabytes)."""
    with open(hay, "rb") as f:
        asan = b"__asan_init" in f.read()
    if asan:
        print("SKIP the address-space limits: hay is built with AddressSanitizer")

    def limit():
        if not asan:
            resource.setrlimit(resource.RLIMIT_AS, (100 << 20, 100 << 20))
    return limit


def digest_of(argv, preexec_fn):
    """hay's exit status, the SHA-1 of its output (read as it comes), the
    end of its standard error."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                         preexec_fn=preexec_fn)
    h = hashlib.sha1()
    while True:
        b = p.stdout.read(1 << 20)
        if not b:
            break
        h.update(b)
    err = p.stderr.read()
    p.wait()
    return p.returncode, h.digest(), err[-200:]


def part_color(hay, tmp):
    small = os.path.join(tmp, "color.txt")
    with open(small, "wb") as f:
        for n in (1, 4095, 4096, 4097, 9000):
            f.write(b"x" + b"a" * n + b"y\n")
        f.write(b"ab" * 5000 + b"\nno match\n" + b"abba" * 4100 + b"\n")
    for opts in ([], ["-n"], ["-H", "-n"], ["-e", "ab", "-e", "b"], ["-e", "ba", "-e", "abb"]):
        p = [] if "-e" in opts else ["-e", "a"]
        want = run(["grep", "-F", "--color=always"] + opts + p + [small]).stdout
        got = run([hay, "find", "--color=always"] + opts + p + [small]).stdout
        check("color %s against grep" % opts, got == want,
              "%d bytes vs grep's %d" % (len(got), len(want)))
    # Lines in parts through the selection (-m, context): a part is not a
    # line of its own (-o -m1 printed 4,096 of a line's matches, -o -C1
    # separators between parts).
    for out in (["--color=always"], ["-o"], ["-o", "-n", "-b"]):
        for opts in (["-m4"], ["-C1"], ["-m4", "-A1"], ["-n", "-m5", "-B1"], ["-v", "-C1"],
                     ["-m3", "-c"]):
            want = run(["grep", "-F"] + out + opts + ["a", small]).stdout
            got = run([hay, "find"] + out + opts + ["a", small]).stdout
            check("selection %s %s against grep" % (out, opts), got == want,
                  "%d bytes vs grep's %d" % (len(got), len(want)))

    big = os.path.join(tmp, "a8m.txt")
    n = 8 << 20
    with open(big, "wb") as f:
        f.write(b"a" * n)

    limit = as_limited(hay)
    want = hashlib.sha1()
    unit = C_MATCH + b"a" + C_END
    for _ in range(n // 4096):
        want.update(unit * 4096)
    want.update(b"\n")
    for opts in ([], ["-m1"], ["-C1"]):   # straight to the printer; through the selection
        rc, got, err = digest_of([hay, "find", "--threads", "1", "--color=always"] + opts +
                                 ["a", big], limit)
        check("color %s: one 8 MB line of matches in 100 MB of address space" % opts,
              rc == 0, "exit %d: %r" % (rc, err))
        check("color %s: its output" % opts, got == want.digest(),
              "differs from grep's colours")


def part_every(hay, tmp):
    small = os.path.join(tmp, "every.txt")
    rnd = random.Random(11)
    words = [b"a", b"ab", b"ba", b"aba", b"a_b", b"xa", b"a-b", b"b", b"", b"ab ba"]
    with open(small, "wb") as f:
        for n in (1, 3, 40, 4095, 4097, 9000, 20000, 7000):
            f.write(rnd.choice([b" ", b"", b"-"]).join(rnd.choice(words) for _ in range(n)))
            f.write(b"\n")
        f.write(b"a\nab\n" + b"a " * 9000 + b"a\n" + b"xa " * 5000 + b"a")   # no last newline
    pats = (["-e", "a"], ["-e", "a", "-e", "ab", "-e", "ba"], ["-e", "ab ba a", "-e", "b", "-e", "a"],
            ["-e", "aba", "-e", "ab", "-e", "a_b"])
    for out in (["-o"], ["--color=always"], ["-o", "-n", "-b"]):
        for opts in (["-w"], ["-x"], ["-w", "-m3"], ["-w", "-C1"], ["-w", "-n", "-m2", "-A1"],
                     ["-w", "-v", "-C1"]):
            if "-o" in out and "-v" in opts:
                continue   # grep -o -v -C prints the context lines' matches; hay does not
            for p in pats:
                want = run(["grep", "-F"] + out + opts + p + [small]).stdout
                got = run([hay, "find"] + out + opts + p + [small]).stdout
                check("every %s %s %s against grep" % (out, opts, p), got == want,
                      "%d bytes vs grep's %d" % (len(got), len(want)))

    # --json: one record a line, its matches whole (not in parts)
    for opts in (["-o", "-w"], ["-w"], ["-o", "--match-mode", "all"]):
        want = run(["grep", "-F", "-c", "-w" if "-w" in opts else "-F", "a", small]).stdout
        out = run([hay, "find", "--json"] + opts + ["a", small]).stdout
        got = b"%d\n" % out.count(b'{"type":"match"')
        check("every --json %s: a record a line" % opts, got == want, "%r vs %r" % (got, want))

    big = os.path.join(tmp, "aw8m.txt")
    n = 4 << 20
    with open(big, "wb") as f:
        f.write(b"a " * n + b"\n")
    limit = as_limited(hay)
    colored = C_MATCH + b"a" + C_END + b" "
    only = hashlib.sha1(b"a\n" * n).digest()
    line = hashlib.sha1(colored * n + b"\n").digest()
    # --match-mode all with "a a": at each 'a' that match, then 'a'; the
    # colour of their union, from where the last one stopped.
    pair = hashlib.sha1(b"a a\na\n" * (n - 1) + b"a\n").digest()
    pair_c = hashlib.sha1(C_MATCH + b"a a" + C_END + (C_MATCH + b" a" + C_END) * (n - 2) +
                          b" \n").digest()
    cases = ((["-o", "-w"], only), (["--color=always", "-w"], line),
             (["-o", "-w", "-m1"], only), (["--color=always", "-w", "-C1"], line),
             (["-o", "--match-mode", "all"], only), (["--color=always", "--match-mode", "all"], line),
             (["-o", "--match-mode", "all", "-e", "a a"], pair),
             (["--color=always", "--match-mode", "all", "-e", "a a"], pair_c),
             (["--color=always", "-v"], hashlib.sha1(b"").digest()),
             (["--count-matches", "-w"], hashlib.sha1(b"%d\n" % n).digest()),
             (["--count-matches", "-w", "--match-mode", "leftmost-first"],
              hashlib.sha1(b"%d\n" % n).digest()))
    for opts, want in cases:
        rc, got, err = digest_of([hay, "find", "--threads", "1"] + opts + ["-e", "a", big], limit)
        check("every %s: one 8 MB line of 'a a ...' in 100 MB of address space" % opts,
              rc == (1 if "-v" in opts else 0), "exit %d: %r" % (rc, err))
        check("every %s: its output" % opts, got == want, "differs from the one built here")


def part_words(hay, path):
    rg = shutil.which("rg")
    if not rg:
        print("SKIP words: ripgrep (rg) is not installed")
        return
    for opt in ("-w", "-x"):
        for p in (["-e", "the"], ["-e", "the", "-e", "then", "-e", "the_"], ["-e", "cat"],
                  ["-i", "-e", "the"]):
            want = run([rg, "--no-config", "-F", "--count-matches", opt] + p + [path]).stdout
            got = run([hay, "find", "--count-matches", opt] + p + [path]).stdout
            check("words --count-matches %s %s" % (opt, p), got == (want or b"0\n"),
                  "hay %r rg %r" % (got, want))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: find_lines_check.py HAY")
    hay = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        text = os.path.join(tmp, "text.txt")
        make_text(text)
        part_counts(hay, text)
        part_color(hay, tmp)
        part_every(hay, tmp)
        part_words(hay, text)
    finish()


if __name__ == "__main__":
    main()
