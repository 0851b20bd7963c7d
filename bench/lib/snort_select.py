#!/usr/bin/env python3
"""snort_select.py - the pattern set of the PFAC paper's setup
(pfac-opencl-mobile-energy.txt: 1,000 Snort patterns of at most 128 bytes),
chosen deterministically from the data folder's Snort community literals.

The selection: the distinct patterns of patterns/snort-community.txt (\\xHH
escapes decoded) that are 1..128 bytes long, in file order, then 1,000 of
them evenly spaced (the i-th pick is candidate floor(i * count / 1000)), so
that short and long, printable and binary patterns keep their proportions.

  python3 bench/snort_select.py [DATA_DIR] > snort-1000.txt   (escaped, one per line)

bench/run.py imports select() for benchmarks with "patterns_select": "snort1000".
"""
import os
import re
import sys

COUNT = 1000
MAX_LEN = 128


def decode(line):
    return re.sub(rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), line)


def select(data_dir):
    with open(os.path.join(data_dir, "patterns", "snort-community.txt"), "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    seen, cand = set(), []
    for line in lines:
        p = decode(line)
        if 1 <= len(p) <= MAX_LEN and p not in seen:
            seen.add(p)
            cand.append(p)
    if len(cand) < COUNT:
        raise ValueError("only %d Snort patterns of at most %d bytes" % (len(cand), MAX_LEN))
    return [cand[i * len(cand) // COUNT] for i in range(COUNT)]


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    data = argv[1] if len(argv) > 1 else os.path.join(here, "..", "..", "shared", "data")
    out = sys.stdout.buffer
    for p in select(data):
        out.write(b"".join(bytes([c]) if 0x20 <= c < 0x7f and c != 0x5c else b"\\x%02x" % c
                           for c in p) + b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
