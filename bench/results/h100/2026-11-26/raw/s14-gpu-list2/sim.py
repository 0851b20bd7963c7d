#!/usr/bin/env python3
"""Round trips of an overflowing CUDA list: session 13's halving against the
counted parts (src/cuda/overflow.c), for the GPU tests' tiny-cap cases.
Per-end match counts from random text like the tests' (dense set over "aab")."""
import random, sys
sys.setrecursionlimit(100000)
import os
PARTS, SPREAD, MIN_CHUNK = int(os.environ.get("PARTS", 512)), int(os.environ.get("SPREAD", 4)), 65536

def ends(text, pats):
    at = [0] * (len(text) + 1)
    for p in pats:
        L = len(p)
        i = text.find(p)
        while i >= 0:
            at[i + L] += 1
            i = text.find(p, i + 1)
    return at

class Cost:
    def __init__(s): s.syncs = s.launches = s.host = s.lists = 0

def old(at, pre, x, y, cap, c, top_n=None):
    n = pre[y] - pre[x] if top_n is None else top_n
    if top_n is None:
        c.launches += 1; c.syncs += 1        # rerun's count
    if n <= cap:
        if top_n is None:
            c.launches += 1; c.syncs += 1; c.lists += 1   # sort + copy, finish_out
        return
    if y - x > 1:
        mid = x + (y - x) // 2
        old(at, pre, x, mid, cap, c); old(at, pre, mid, y, cap, c)
        return
    c.syncs += 1; c.host += 1                # memcpy back + host walk

def new(at, pre, x, y, n, cap, c):
    pend = [None]
    def flush():
        p = pend[0]
        if p and p[0] == 'L': c.launches += 2; c.syncs += 1; c.lists += 1
        elif p and p[0] == 'H': c.host += 1
        pend[0] = None
    def add(lo, hi, m):
        p = pend[0]
        if m == 0: return
        if m > cap and hi - lo == 1:
            if p and p[0] == 'H' and p[2] == lo: p[2] = hi; return
            flush(); pend[0] = ['H', lo, hi, 0]; return
        if m > cap: plan(lo, hi, m); return
        if p and p[0] == 'L' and p[3] + m <= cap: p[2] = hi; p[3] += m; return
        flush(); pend[0] = ['L', lo, hi, m]
    def plan(x, y, n):
        w = y - x
        k = min((n // cap + 1) * SPREAD, w)
        wp, r = divmod(w, k)
        for i0 in range(0, k, PARTS):
            np_ = min(PARTS, k - i0)
            b = [x + i * wp + min(i, r) for i in range(i0, i0 + np_ + 1)]
            c.launches += np_; c.syncs += 1
            for j in range(np_):
                add(b[j], b[j + 1], pre[b[j + 1]] - pre[b[j]])
    add(x, y, n); flush()

def scan(at, chunk, cap, which):
    pre = [0]
    for v in at[1:]: pre.append(pre[-1] + v)
    L = len(at) - 1
    c = Cost(); pieces = 0; over = 0
    gs = 0
    while gs < L:
        ge = min(L, gs + chunk); pieces += 1
        n = pre[ge] - pre[gs]
        c.launches += 1; c.syncs += 1        # the piece's kernel and count (pipelined)
        if n > cap:
            over += 1
            fit = int((ge - gs) * cap * 0.75 / n); fit -= fit % MIN_CHUNK
            fit = max(fit, MIN_CHUNK)
            if which == 'old':
                if fit < chunk: chunk = max(fit, MIN_CHUNK) if fit >= MIN_CHUNK else MIN_CHUNK
                old(at, pre, gs, ge, cap, c, top_n=n)
            else:
                if fit < chunk: chunk = fit
                new(at, pre, gs, ge, n, cap, c)
        else:
            c.lists += 1
        gs = ge
    return pieces, over, c

DENSE = ["a", "ab", "aa", "ba", "a", "aab", "abba"]
MANY = ["a", "ab", "aa", "ba", "a", "aab"]
rnd = random.Random(7)
def text(n): return "".join(rnd.choice("aab") for _ in range(n))
cases = [
    ("gpu_list dense chunk=64K,result_cap=1000", DENSE, (1 << 20) + 77, 65536, 1000),
    ("gpu_list dense chunk=1M,result_cap=5000", DENSE, (1 << 20) + 77, 1 << 20, 5000),
    ("gpu_list dense chunk=1M,result_cap=200000", DENSE, (1 << 20) + 77, 1 << 20, 200000),
    ("gpu_list tiny result_cap=1 (3000 B)", DENSE, 3000, 65536, 1),
    ("gpu_list tiny result_cap=3 (3000 B)", DENSE, 3000, 65536, 3),
    ("gpu_list stop chunk=64K,result_cap=100 (1 MiB)", DENSE, 1 << 20, 65536, 100),
    ("gpu many_matches result_cap=1024,chunk=3M (8 MiB)", MANY, 8 << 20, 3 << 20, 1024),
]
only = sys.argv[1:]
for name, pats, L, chunk, cap in cases:
    if only and not any(o in name for o in only): continue
    at = ends(text(L), pats)
    for which in ("old", "new"):
        p, o, c = scan(at, chunk, cap, which)
        print(f"{name:52s} {which}: {sum(at)} matches, {p} pieces ({o} overflowed), "
              f"{c.syncs} round trips, {c.launches} launches, {c.lists} lists, {c.host} host walks")
