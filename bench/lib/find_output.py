"""find_output.py - benchmarks of `hay find`'s line outputs under grep's
options (-v, -w, -x, -C/-A/-B NUM), beside GNU grep and ripgrep given the
same options; part of the search suite (bench/lib/search.py).

A benchmark with "find_args" (e.g. ["-C2"]) runs every engine's whole output
through `wc -l`: the count checked on every run is the number of lines
printed (group separators included), which expect() computes from the
generated haystack with the oracle below.  The output goes to a pipe, not to
/dev/null: GNU grep stops at the first match when its output is /dev/null.
With -c the count each engine prints is checked against the lines selected
(no pipe: the whole command is timed).

Standard library only.
"""
import os
import re
import shlex
import subprocess

import peers

WORD_BYTE = rb"[A-Za-z0-9_]"


def parse_args(find_args):
    """The options the oracle knows: -v, -w, -x, -c, -C/-A/-B NUM (one word)."""
    o = {"invert": False, "word": False, "line": False, "before": 0, "after": 0,
         "context": False, "count": False}
    for a in find_args:
        m = re.fullmatch(r"-([ABC])(\d+)", a)
        if a in ("-v", "-w", "-x", "-c"):
            o[{"-v": "invert", "-w": "word", "-x": "line", "-c": "count"}[a]] = True
        elif m:
            n = int(m.group(2))
            if m.group(1) in "BC":
                o["before"] = n
            if m.group(1) in "AC":
                o["after"] = n
            o["context"] = True
        else:
            raise ValueError("find_args: the oracle does not know %r" % a)
    return o


def line_test(pats, o):
    """A function telling whether a line (bytes, no newline) matches."""
    alt = b"|".join(re.escape(p) for p in sorted(pats, key=len, reverse=True))
    if o["line"]:
        s = set(pats)
        return lambda line: line in s
    if o["word"]:
        rx = re.compile(rb"(?<!" + WORD_BYTE + rb")(?:" + alt + rb")(?!" + WORD_BYTE + rb")")
        return lambda line: rx.search(line) is not None
    if len(pats) == 1:
        p = pats[0]
        return lambda line: p in line
    rx = re.compile(alt)
    return lambda line: rx.search(line) is not None


def expect(path, pats, find_args):
    """Counts over the haystack at path: lines printed ("output"), lines
    selected ("lines"), occurrences of the patterns ("matches", for the
    report) and newlines."""
    o = parse_args(find_args)
    test = line_test(pats, o)
    printed = seps = selected = matches = newlines = 0
    last = -1             # index of the last line printed
    after_left = 0
    used = False
    with open(path, "rb") as f:
        for i, raw in enumerate(f):
            newlines += raw.endswith(b"\n")
            line = raw[:-1] if raw.endswith(b"\n") else raw
            for p in pats:
                matches += line.count(p)
            sel = test(line) != o["invert"]
            if sel:
                selected += 1
                start = max(i - o["before"], last + 1)
                if o["context"] and used and start != last + 1:
                    seps += 1
                printed += i - start + 1
                last, after_left, used = i, o["after"], True
            elif after_left:
                printed += 1
                last = i
                after_left -= 1
    return {"output": printed + seps, "lines": selected, "matches": matches,
            "newlines": newlines}


def grep_expect(path, pats, find_args, work, name):
    """The counts of expect() but "matches", from LC_ALL=C grep -F: for sets
    of thousands of patterns (snort, et-open), which Python's regular
    expressions would take hours over 1 GiB with.  GNU grep is an
    independent implementation (tests/cli/grep_compare.sh checks hay
    against it)."""
    patdir = os.path.join(work, "patterns")
    os.makedirs(patdir, exist_ok=True)
    pf = os.path.join(patdir, name + ".grep.txt")
    with open(pf, "wb") as f:
        f.write(b"".join(p + b"\n" for p in pats))
    env = dict(os.environ, LC_ALL="C")
    args = [a for a in find_args if a != "-c"]

    def lines_out(extra):   # (as wc -l counts them: the output may be large)
        p = subprocess.Popen(["grep", "-F"] + args + extra + ["-f", pf, path], env=env,
                             stdout=subprocess.PIPE)
        n = sum(block.count(b"\n") for block in iter(lambda: p.stdout.read(1 << 24), b""))
        p.stdout.close()
        if p.wait() > 1:
            raise ValueError("grep failed (%d) on %s" % (p.returncode, path))
        return n

    p = subprocess.run(["grep", "-F", "-c"] + args + ["-f", pf, path], env=env,
                       stdout=subprocess.PIPE, check=False)
    if p.returncode > 1:
        raise ValueError("grep -c failed (%d) on %s" % (p.returncode, path))
    selected = int(p.stdout.split()[0])
    printed = lines_out([])
    with open(path, "rb") as f:
        newlines = sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 24), b""))
    return {"output": printed, "lines": selected, "newlines": newlines}


def kind(find_args):
    """What an engine's count means: lines selected (-c), else lines printed."""
    return "lines" if parse_args(find_args)["count"] else "output"


def command(e, tools, pats, patfiles, b, path):
    """Sets e.cmd: the engine with the benchmark's find_args, through wc -l
    (with -c: as it is)."""
    args = list(b["find_args"])
    caseless = bool(b.get("caseless"))
    env = dict(os.environ)
    if e.tool == "hay":
        cmd = [tools["hay"], "find", "--backend", getattr(e, "backend", "cpu"), "--algo", e.algo,
               "--threads", str(e.threads)]
        if e.threads > 1:
            cmd += ["--schedule", e.schedule]
        cmd += args + peers.pattern_args(pats, patfiles, caseless, True)
    elif e.tool == "grep":
        cmd = [tools["grep"].path, "-F"] + args + peers.pattern_args(pats, patfiles, caseless,
                                                                    False)
        env = dict(tools["grep"].env, LC_ALL="C")
    elif e.tool == "rg":
        cmd = [tools["rg"].path, "--no-config", "-F"] + args + \
            peers.pattern_args(pats, patfiles, caseless, False)
        env = dict(tools["rg"].env)
    else:
        raise ValueError("%s: find_args benchmarks take hay, grep and rg only" % e.label)
    e.kind = kind(args)
    if e.kind == "lines":
        e.cmd = [str(c) for c in cmd + [path]]
    else:
        e.cmd = ["sh", "-c", " ".join(shlex.quote(str(c)) for c in cmd + [path]) + " | wc -l"]
    e.env = env
    e.stats_cmd = None
