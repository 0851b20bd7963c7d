"""haystacks.py - the search suite's data (bench/lib/search.py): the
sources, the deterministic haystack generator (cached under bench/work/),
the pattern lists of a benchmark, and the oracle that counts matches and
matching lines without any engine (Python 3 standard library only)."""

import hashlib
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))      # bench/lib

GEN_VERSION = 1          # bump when the generator's output changes
COPY_BLOCK = 1 << 24


class BenchError(Exception):
    """A condition that must stop the run with a message."""


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def loud(msg):
    bar = "!" * 78
    log("%s\n!!! %s\n%s" % (bar, msg, bar))


# --------------------------------------------------------------------------
# Data: sources, haystack generation, the oracle
# --------------------------------------------------------------------------

def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(COPY_BLOCK), b""):
            h.update(block)
    return h.hexdigest()


def read_segment(data_dir, name):
    """A source file as one segment: its bytes, ending with a newline, so
    that no match and no line spans two segments (patterns hold no newline)."""
    with open(os.path.join(data_dir, name), "rb") as f:
        b = f.read()
    return b if b.endswith(b"\n") else b + b"\n"


def fill_bytes(hdef):
    """A "fill" haystack: `unit` repeated to `bytes` bytes (the worst cases
    of one-pattern engines: a run of one byte, a short period)."""
    unit = hdef["unit"].encode()
    n = hdef["bytes"]
    return (unit * (n // len(unit) + 1))[:n]


def layout(hdef, seglen):
    """The haystack as a list of (round, times): a round is a list of
    (source, nbytes) pieces written one after the other, `times` times.
    seglen maps a source name to its segment length."""
    files = hdef["files"]
    whole = [(f, seglen[f]) for f in files]
    if hdef["kind"] == "fill":
        return [([("=fill", hdef["bytes"])], 1)]
    if hdef["kind"] == "repeat":
        return [(whole, hdef["times"])]
    if hdef["kind"] != "cycle":
        raise BenchError("unknown haystack kind %r" % hdef["kind"])
    target = hdef["bytes"]
    round_len = sum(n for _, n in whole)
    rounds = target // round_len
    out = [(whole, rounds)] if rounds else []
    left, tail = target - rounds * round_len, []
    for f, n in whole:
        if left == 0:
            break
        tail.append((f, min(n, left)))   # a short piece is cut at a line end
        left -= min(n, left)
    if tail:
        out.append((tail, 1))
    return out


def cut_piece(seg, nbytes):
    """The first nbytes of a segment, cut back to its last newline; the
    caller pads with newlines to nbytes."""
    if nbytes >= len(seg):
        return seg
    head = seg[:nbytes]
    k = head.rfind(b"\n")
    return head[:k + 1] if k >= 0 else b""


def haystack_plan(hdef, data_dir):
    segs = {f: read_segment(data_dir, f) for f in hdef["files"]}
    if hdef["kind"] == "fill":
        segs["=fill"] = fill_bytes(hdef)
    return segs, layout(hdef, {f: len(sg) for f, sg in segs.items()})


def generate(hid, hdef, data_dir, work):
    """Writes the haystack to work/data/<hid>.txt unless a valid copy is
    cached there; returns (path, size)."""
    out_dir = os.path.join(work, "data")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, hid + ".txt")
    stamp_path = path + ".json"
    stamp = {"generator": GEN_VERSION, "def": hdef,
             "sources": {f: sha256_file(os.path.join(data_dir, f)) for f in hdef["files"]}}
    try:
        with open(stamp_path) as f:
            old = json.load(f)
        if (old.get("stamp") == stamp and os.path.getsize(path) == old.get("bytes")
                and os.path.getmtime(path) <= old.get("written", 0) + 1):
            return path, old["bytes"]
    except (OSError, ValueError):
        pass
    segs, rounds = haystack_plan(hdef, data_dir)
    t0 = time.time()
    tmp = path + ".tmp"
    size = 0
    with open(tmp, "wb") as f:
        for pieces, times in rounds:
            block = b"".join(cut_piece(segs[src], n).ljust(n, b"\n") for src, n in pieces)
            for _ in range(times):
                f.write(block)
                size += len(block)
    os.replace(tmp, path)
    with open(stamp_path, "w") as f:
        json.dump({"stamp": stamp, "bytes": size, "written": os.path.getmtime(path)}, f)
    log("generated %s: %d bytes in %.1f s" % (path, size, time.time() - t0))
    return path, size


def count_overlapping(data, pat):
    n, i = 0, data.find(pat)
    while i >= 0:
        n += 1
        i = data.find(pat, i + 1)
    return n


def count_overlapping_kmp(data, pat):
    """The same count in linear time (Knuth-Morris-Pratt), for the fill
    haystacks where find() from every match is quadratic."""
    fail, q = [0] * (len(pat) + 1), 0
    for i in range(1, len(pat)):
        while q and pat[i] != pat[q]:
            q = fail[q]
        q += pat[i] == pat[q]
        fail[i + 1] = q
    n = q = 0
    for c in data:
        while q and c != pat[q]:
            q = fail[q]
        if c == pat[q]:
            q += 1
            if q == len(pat):
                n += 1
                q = fail[q]
    return n


def oracle_piece(piece, pats, caseless, lines=True, periodic=False):
    """All occurrences (overlapping, per pattern), matching lines (0 when
    lines is false: the slow part for large sets) and newline bytes (the
    count of the memread ceiling engine)."""
    newlines = piece.count(b"\n")
    if caseless:
        piece = piece.lower()
        pats = [p.lower() for p in pats]
    count = count_overlapping_kmp if periodic else count_overlapping
    matches = sum(count(piece, p) for p in pats)
    if not lines:
        return matches, 0, newlines
    if len(pats) == 1:
        p = pats[0]
        lines = sum(1 for line in piece.split(b"\n") if p in line)
    else:
        lines = sum(1 for line in piece.split(b"\n") if any(p in line for p in pats))
    return matches, lines, newlines


def oracle(hdef, data_dir, pats, caseless, lines=True):
    segs, rounds = haystack_plan(hdef, data_dir)
    if hdef["kind"] == "fill":
        m, l, nl = oracle_piece(segs["=fill"], pats, caseless, lines, periodic=True)
        return {"matches": m, "lines": l, "newlines": nl}
    if any(b"\n" in p for p in pats):
        # Such a pattern may span two segments: count on the whole haystack.
        data = b"".join(b"".join(cut_piece(segs[src], n).ljust(n, b"\n")
                                 for src, n in pieces) * times
                        for pieces, times in rounds)
        m, l, nl = oracle_piece(data, pats, caseless, lines)
        return {"matches": m, "lines": l, "newlines": nl}
    memo = {}
    matches = lines = newlines = 0
    for pieces, times in rounds:
        for src, nbytes in pieces:
            key = (src, nbytes)
            if key not in memo:
                cut = cut_piece(segs[src], nbytes)
                m, l, nl = oracle_piece(cut, pats, caseless, lines)
                memo[key] = (m, l, nl + nbytes - len(cut))   # the padding is newlines
            matches += memo[key][0] * times
            lines += memo[key][1] * times
            newlines += memo[key][2] * times
    return {"matches": matches, "lines": lines, "newlines": newlines}


# --------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------

def bench_patterns(b, data_dir):
    if "patterns_select" in b:
        if b["patterns_select"] != "snort1000":
            raise BenchError("%s: unknown patterns_select %r" % (b["id"], b["patterns_select"]))
        sys.path.insert(0, HERE)
        import snort_select
        return snort_select.select(data_dir)
    if "patterns_file" in b:
        with open(os.path.join(data_dir, b["patterns_file"]), "rb") as f:
            text = f.read()
        lines = text.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        if b.get("patterns_as_is"):   # the lines as grep -f and hay find -f read them
            return lines
        return [decode_escapes(l) for l in lines]
    if "pattern_repeat" in b:   # {"unit": "ab", "times": 2048}: one long pattern
        r = b["pattern_repeat"]
        return [r["unit"].encode("utf-8") * r["times"]]
    return [p.encode("utf-8") for p in b["patterns"]]


def decode_escapes(line):
    return re.sub(rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), line)


def encode_escapes(p):
    return b"".join(bytes([c]) if 0x20 <= c < 0x7f and c != 0x5c else b"\\x%02x" % c
                    for c in p)
