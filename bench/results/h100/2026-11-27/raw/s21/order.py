#!/usr/bin/env python3
"""Does a `hay find` that runs right after a --backend cuda process run slower?
For each case: rounds of [cuda, X, Y] with (X, Y) = (cpu, auto) and (auto, cpu) alternating;
medians of each backend by what ran just before it."""
import os, statistics, subprocess, sys, time
hay, data = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 21
files = ["alice29.txt", "bible.txt", "moby_dick.txt", "opensubtitles-en-sampled.txt",
         "opensubtitles-ru-sampled.txt", "opensubtitles-zh-sampled.txt", "sherlock.txt",
         "war_and_peace.txt", "world192.txt"]
os.makedirs("/dev/shm/o", exist_ok=True)
def prefix(n):
    p = "/dev/shm/o/p%d.txt" % n
    if not os.path.exists(p):
        buf = bytearray()
        while len(buf) < n:
            for f in files:
                buf += open(os.path.join(data, "text", f), "rb").read()
                if len(buf) >= n: break
        open(p, "wb").write(buf[:n])
    return p
cases = [("literal", ["-e", "Sherlock Holmes"], "--count-matches", 1 << 20),
         ("literal", ["-e", "Sherlock Holmes"], "--count-matches", 64 << 20),
         ("etopen", ["-f", os.path.join(data, "patterns/et-open.txt")], "-c", 1 << 20)]
for name, pats, out, n in cases:
    path = prefix(n)
    cmd = lambda b: [hay, "find", "--backend", b, out] + pats + [path]
    res = {}
    def run(b, prev):
        t = time.perf_counter()
        r = subprocess.run(cmd(b), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        e = time.perf_counter() - t
        res.setdefault((b, prev), []).append(e)
        return r.stdout.strip()
    outs = {b: run(b, "warm") for b in ("cpu", "cuda", "auto")}
    for r in range(rounds):
        order = ["cuda", "cpu", "auto"] if r % 2 == 0 else ["cuda", "auto", "cpu"]
        if r % 3 == 2:
            order = ["cpu", "auto", "cuda"]   # neither right after cuda... (cpu after previous round's last)
        prev = "round"
        for b in order:
            run(b, prev); prev = b
    print("%s %s %d MiB: counts %s" % (name, out, n >> 20, {b: o[-20:] for b, o in outs.items()}))
    for k in sorted(res):
        if k[1] == "warm": continue
        v = res[k]
        print("   %-5s after %-6s n=%2d median %.4f s  min %.4f" % (k[0], k[1], len(v), statistics.median(v), min(v)))
    sys.stdout.flush()
