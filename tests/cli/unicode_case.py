#!/usr/bin/env python3
"""unicode_case.py - hay find -i on UTF-8 text against grep -F -i in the
C.UTF-8 locale, on real data.

Usage: unicode_case.py HAY DATA_DIR

For every file of DATA_DIR/text holding words beyond ASCII, patterns are
picked from the file itself: its four most frequent such words and its two
most frequent of 10 letters or more (these have more case variants than are
expanded: the verified fallback), each as it occurs, in capitals and with a
capital first letter (Python's upper(), where it keeps the length; words
with letters whose folding grep and Unicode's simple folding disagree on,
ß, ẞ, ı, İ, ſ and the Kelvin sign, are not picked), and all of them at once
with -f; also, where there are as many, its 300 most frequent words of 8
letters or more with -f (the limit of case variants a pattern shrinks with
the number of patterns).  For each, `hay find` and `grep -F` run with
-i -c, -i -n and -i -o (the lists: -i -c, -i -o -n or -i -o -b), and their
outputs and exit statuses must be identical; --count-matches must
count what grep -o prints (for words that cannot overlap themselves).
-i -c must also differ from ASCII-only folding (--no-unicode) for at least
one pattern per file with cased letters beyond ASCII, or the check could
not fail.
Prints "N passed, M failed" last; exits 1 on any failure, 77 when the data
folder or the C.UTF-8 locale is missing.
"""
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

from clitest import check, finish, skip

ENV = dict(os.environ, LC_ALL="C.UTF-8")
DISAGREE = set("ßẞıİſ\u212a")


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    return p.returncode, p.stdout


def compare(hay, label, args):
    h, g = run([hay, "find"] + args), run(["grep", "-F"] + args)
    check(label, h == g, "\n     exit status: hay %d, grep %d; output sizes: hay %d, grep %d"
          % (h[0], g[0], len(h[1]), len(g[1])))


def patterns(path):
    """The words to search for, and a list of 300 words of 8 letters or
    more (one in three in capitals)."""
    text = open(path, encoding="utf-8", errors="ignore").read()
    words = collections.Counter(w for w in re.findall(r"\w{3,}", text)
                                if any(ord(c) > 127 for c in w) and not DISAGREE & set(w))
    long = collections.Counter({w: n for w, n in words.items() if len(w) >= 10})
    forms = []
    for w, _ in words.most_common(4) + long.most_common(2):
        for form in (w, w.upper(), w[0].upper() + w[1:]):
            if len(form) == len(w) and form not in forms:
                forms.append(form)
    many = [w for w, _ in collections.Counter(
        {w: n for w, n in words.items() if len(w) >= 8}).most_common(300)]
    many = [w.upper() if i % 3 == 0 and len(w.upper()) == len(w) else w
            for i, w in enumerate(many)]
    return forms, many


def self_overlaps(w):
    """Whether w's occurrences may overlap (then grep -o counts fewer)."""
    w = w.lower()
    return any(w[:k] == w[-k:] for k in range(1, len(w)))


def cased_beyond_ascii(w):
    return any(ord(c) > 127 and c.lower() != c.upper() for c in w)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: unicode_case.py HAY DATA_DIR")
    hay, root = sys.argv[1], sys.argv[2]
    files = sorted(glob.glob(os.path.join(root, "text", "*.txt")))
    if not files:
        skip("../shared/data not found (looked in %s)" % root)
    locales = subprocess.run(["locale", "-a"], stdout=subprocess.PIPE).stdout.decode().lower()
    if not re.search(r"^c\.utf-?8$", locales, re.M):
        skip("no C.UTF-8 locale")
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            name = os.path.basename(path)
            forms, many = patterns(path)
            if not forms:
                continue
            differs = False
            for w in forms:
                for opt in ("-c", "-n", "-o"):
                    compare(hay, "%s -i %s '%s'" % (name, opt, w), ["-i", opt, "-e", w, path])
                if not self_overlaps(w):
                    want = b"%d\n" % run(["grep", "-F", "-i", "-o", "-e", w, path])[1].count(b"\n")
                    got = run([hay, "find", "-i", "--count-matches", "-e", w, path])[1]
                    check("%s -i --count-matches '%s'" % (name, w), got == want,
                          "%r, grep -o: %r" % (got, want))
                if cased_beyond_ascii(w):
                    differs |= (run([hay, "find", "-i", "-c", "-e", w, path]) !=
                                run([hay, "find", "--no-unicode", "-i", "-c", "-e", w, path]))
            pats = os.path.join(tmp, "words")
            with open(pats, "w", encoding="utf-8") as f:
                f.write("\n".join(forms) + "\n")
            compare(hay, name + " -i -c -f words", ["-i", "-c", "-f", pats, path])
            compare(hay, name + " -i -o -n -f words", ["-i", "-o", "-n", "-f", pats, path])
            if len(many) == 300:   # a smaller limit of variants a pattern
                with open(pats, "w", encoding="utf-8") as f:
                    f.write("\n".join(many) + "\n")
                compare(hay, name + " -i -c -f 300 words", ["-i", "-c", "-f", pats, path])
                compare(hay, name + " -i -o -b -f 300 words",
                        ["-i", "-o", "-b", "-f", pats, path])
            if any(cased_beyond_ascii(w) for w in forms):
                check(name + ": Unicode -i differs from --no-unicode", differs,
                      "for every cased word (the check cannot fail)")
    finish()


if __name__ == "__main__":
    main()
