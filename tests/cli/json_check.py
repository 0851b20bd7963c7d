#!/usr/bin/env python3
"""json_check.py - hay find --json against grep -F on real data.

Usage: json_check.py HAY DATA_DIR

For a few files of DATA_DIR/text and DATA_DIR/logs and patterns picked from
them (the most frequent word, the same with -i, ten words at once with -f),
the --json output must:
  - parse line by line (json.loads, and `python3 -m json.tool --json-lines`),
    with begin/match/end records per file and one summary last;
  - give, from its match records, exactly `grep -F -b -n`'s lines
    (line_number:absolute_offset:line) and, from their submatches, exactly
    `grep -F -o -b -n`'s matches;
  - count in its end and summary records what grep -c, grep -l and
    hay --count-matches count.
Also a file name and a line that are not UTF-8 come as {"bytes": base64}.
Prints "N passed, M failed" last; exits 1 on any failure, 77 when the data
folder is missing.
"""
import base64
import collections
import json
import os
import re
import subprocess
import sys

from clitest import check, finish, skip
import tempfile

ENV = dict(os.environ, LC_ALL="C")


def run(args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=ENV).stdout


def data(d):
    return d["text"].encode() if "text" in d else base64.b64decode(d["bytes"])


def records(label, out):
    """The records of out; checks that each line parses alone and all
    together with json.tool."""
    lines = out.split(b"\n")
    check(label + " ends with a newline", lines[-1] == b"")
    recs = []
    for line in lines[:-1]:
        try:
            recs.append(json.loads(line))
        except ValueError as e:
            check(label + " parses", False, "%s: %r" % (e, line[:200]))
            return []
    tool = subprocess.run([sys.executable, "-m", "json.tool", "--json-lines"],
                          input=out, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    check(label + " json.tool", tool.returncode == 0, tool.stderr[:200])
    last = recs and recs[-1].get("type") == "summary"
    check(label + " summary last", last)
    return recs if last else []


def by_file(label, recs):
    """{path: (begin, [match], end)}, checking the record order."""
    files = collections.OrderedDict()
    cur = None
    bad = []
    for r in recs[:-1]:
        t, d = r.get("type"), r.get("data", {})
        path = data(d["path"]) if "path" in d else None
        if t == "begin":
            if cur is not None or path in files:
                bad.append("begin twice")
            cur = path
            files[path] = [r, [], None]
        elif cur != path or t not in ("match", "end"):
            bad.append("%s record outside its file" % t)
        elif t == "match":
            files[path][1].append(d)
        else:
            files[path][2] = d
            cur = None
    check(label + " record order", not bad and cur is None, "; ".join(bad[:3]))
    return files


def check_lines(label, path, args):
    out = run([HAY, "find", "--json"] + args + [path])
    recs = records(label, out)
    if not recs:
        return
    files = by_file(label, recs)
    matches = files[path.encode()][1] if path.encode() in files else []
    mine = b"".join(b"%d:%d:%s" % (m["line_number"], m["absolute_offset"], data(m["lines"]))
                    for m in matches)
    if mine and not mine.endswith(b"\n"):
        mine += b"\n"
    grep = run(["grep", "-F", "-b", "-n"] + args + [path])
    check(label + " lines = grep -b -n", mine == grep,
          "(%d vs %d bytes)" % (len(mine), len(grep)))
    subs = b"".join(b"%d:%d:%s\n" % (m["line_number"], m["absolute_offset"] + s["start"],
                                      data(s["match"]))
                    for m in matches for s in m["submatches"])
    grep_o = run(["grep", "-F", "-o", "-b", "-n"] + args + [path])
    check(label + " submatches = grep -o -b -n", subs == grep_o,
          "(%d vs %d bytes)" % (len(subs), len(grep_o)))
    for m in matches:
        line = data(m["lines"])
        for s in m["submatches"]:
            if line[s["start"]:s["end"]] != data(s["match"]):
                check(label + " submatch bytes", False, repr(s))
    nmatch = sum(len(m["submatches"]) for m in matches)
    if matches:
        stats = files[path.encode()][2]["stats"]
        check(label + " end stats", stats["matched_lines"] == len(matches) and
              stats["matches"] == nmatch, repr(stats))
    summ = recs[-1]["data"]["stats"]
    check(label + " summary stats", summ["matched_lines"] == len(matches) and
          summ["matches"] == nmatch and summ["searches"] == 1 and
          summ["bytes_searched"] == os.path.getsize(path), repr(summ))


def check_counts(label, paths, args):
    out = run([HAY, "find", "--json", "-c"] + args + paths)
    files = by_file(label + " -c", records(label + " -c", out))
    grep = run(["grep", "-F", "-c", "-H"] + args + paths).decode("latin-1").splitlines()
    want = {p.encode("latin-1"): int(n) for p, n in (l.rsplit(":", 1) for l in grep)}
    got = {p: f[2]["stats"]["matched_lines"] for p, f in files.items()}
    check(label + " -c = grep -c", got == want, "%r vs %r" % (got, want))

    out = run([HAY, "find", "--json", "-l"] + args + paths)
    files = by_file(label + " -l", records(label + " -l", out))
    want = run(["grep", "-F", "-l"] + args + paths).split(b"\n")[:-1]
    check(label + " -l = grep -l", list(files) == want, "%r vs %r" % (list(files), want))

    out = run([HAY, "find", "--json", "--count-matches", "-H"] + args + paths)
    recs = records(label + " --count-matches", out)
    files = by_file(label + " --count-matches", recs)
    plain = run([HAY, "find", "--count-matches", "-H"] + args + paths).decode("latin-1")
    want = {p.encode("latin-1"): int(n)
            for p, n in (l.rsplit(":", 1) for l in plain.splitlines())}
    got = {p: f[2]["stats"]["matches"] for p, f in files.items()}
    check(label + " --count-matches", got == want, "%r vs %r" % (got, want))
    check(label + " --count-matches summary",
          recs and recs[-1]["data"]["stats"]["matches"] == sum(want.values()))

    out = run([HAY, "find", "--json", "-q"] + args + paths)
    check(label + " -q prints nothing", out == b"")


def check_not_utf8(tmp):
    name = os.path.join(tmp.encode(), b"name-\xff.txt")
    with open(name, "wb") as f:
        f.write(b"plain needle\nbad \xfe\xff needle\n")
    out = subprocess.run([HAY, "find", "--json", "needle", name], stdout=subprocess.PIPE,
                         env=ENV).stdout
    recs = records("not UTF-8", out)
    if not recs:
        return
    check("not UTF-8: path as bytes",
          recs[0]["data"]["path"] == {"bytes": base64.b64encode(name).decode()},
          repr(recs[0]))
    lines = [data(r["data"]["lines"]) for r in recs if r["type"] == "match"]
    kinds = [sorted(r["data"]["lines"]) for r in recs if r["type"] == "match"]
    check("not UTF-8: lines", lines == [b"plain needle\n", b"bad \xfe\xff needle\n"] and
          kinds == [["text"], ["bytes"]], repr(kinds))


def words(path, k):
    text = open(path, "rb").read().decode("latin-1")
    common = collections.Counter(re.findall(r"[A-Za-z]{5,}", text)).most_common(k)
    return [w for w, _ in common]


def main():
    global HAY
    if len(sys.argv) != 3:
        sys.exit("usage: json_check.py HAY DATA_DIR")
    HAY, root = sys.argv[1], sys.argv[2]
    picks = ["text/sherlock.txt", "text/opensubtitles-ru-sampled.txt",
             "text/world192.txt", "logs/apache_access.log", "logs/OpenSSH_2k.log"]
    paths = [os.path.join(root, p) for p in picks if os.path.exists(os.path.join(root, p))]
    if not paths:
        skip("../shared/data not found (looked in %s)" % root)
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            name = os.path.basename(path)
            ws = words(path, 10)
            if not ws:
                continue
            check_lines("%s '%s'" % (name, ws[0]), path, ["-e", ws[0]])
            check_lines("%s -i '%s'" % (name, ws[0]), path, ["-i", "-e", ws[0]])
            pats = os.path.join(tmp, "pats")
            with open(pats, "w") as f:
                f.write("\n".join(ws) + "\n")
            check_lines("%s -f 10 words" % name, path, ["-f", pats])
            check_counts("%s '%s'" % (name, ws[1]), paths, ["-e", ws[1]])
        check_not_utf8(tmp)
    finish()


if __name__ == "__main__":
    main()
