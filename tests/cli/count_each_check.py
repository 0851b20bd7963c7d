#!/usr/bin/env python3
"""count_each_check.py - hay find --count-matches=each against a per-pattern
oracle on real data.

Usage: count_each_check.py HAY DATA_DIR

For a few files of DATA_DIR/text and DATA_DIR/logs, ten patterns (frequent
words, and short strings that overlap themselves and each other: "the",
"he", "e", "ee") are counted by `hay find --count-matches=each` (the file
mapped, and piped through standard input: the stream path), with and
without -i, and every pattern's count must equal Python's count of its
occurrences, overlapping ones included (bytes.find from every position).
The total (--count-matches) must be their sum.  Prints "N passed, M failed"
last; exits 1 on any failure, 77 when the data folder is missing.
"""
import collections
import os
import re
import subprocess
import sys

from clitest import check, finish, skip
import tempfile

ENV = dict(os.environ, LC_ALL="C")


def occurrences(text, pat):
    n, i = 0, text.find(pat)
    while i >= 0:
        n += 1
        i = text.find(pat, i + 1)
    return n


def escaped(p):
    """A pattern as --count-matches=each prints it."""
    return "".join("\\x%02x" % b if b < 0x20 or b == 0x7f or b == 0x5c else chr(b)
                   for b in p).encode("latin-1")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: count_each_check.py HAY DATA_DIR")
    hay, root = sys.argv[1], sys.argv[2]
    picks = ["text/sherlock.txt", "text/alice29.txt", "logs/apache_access.log",
             "logs/Linux_2k.log"]
    paths = [os.path.join(root, p) for p in picks if os.path.exists(os.path.join(root, p))]
    if not paths:
        skip("../shared/data not found (looked in %s)" % root)
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            text = open(path, "rb").read()
            common = collections.Counter(re.findall(rb"[A-Za-z]{4,}", text)).most_common(6)
            pats = [w for w, _ in common] + [b"the", b"he", b"e", b"ee"]
            pfile = os.path.join(tmp, "pats")
            with open(pfile, "wb") as f:
                f.write(b"\n".join(pats) + b"\n")
            name = os.path.basename(path)
            for icase in (False, True):
                hay_text = text.lower() if icase else text
                want = b"".join(b"%d\t%s\n" % (occurrences(hay_text, p.lower() if icase else p),
                                               escaped(p)) for p in pats)
                opts = ["-i"] if icase else []
                label = "%s%s" % (name, " -i" if icase else "")
                args = [hay, "find", "--count-matches=each"] + opts + ["-f", pfile]
                got = subprocess.run(args + [path], stdout=subprocess.PIPE, env=ENV).stdout
                check(label + " mapped", got == want, "\n%r\n%r" % (got[:300], want[:300]))
                with open(path, "rb") as f:
                    got = subprocess.run(args, stdin=f, stdout=subprocess.PIPE, env=ENV).stdout
                check(label + " stdin", got == want, "\n%r\n%r" % (got[:300], want[:300]))
                total = subprocess.run([hay, "find", "--count-matches"] + opts +
                                       ["-f", pfile, path], stdout=subprocess.PIPE,
                                       env=ENV).stdout
                wsum = sum(int(l.split(b"\t")[0]) for l in want.splitlines())
                check(label + " total", total == b"%d\n" % wsum, "%r vs %d" % (total, wsum))
    finish()


if __name__ == "__main__":
    main()
