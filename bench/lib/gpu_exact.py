"""gpu_exact.py - helpers for the parts that run the one-pattern CUDA engines
through bench/cuda_exact_bench.cu (parts poster, bm and gpu of bench/run.py).

cuda_exact_bench prints one CSV line per engine and pattern
(engine,params,m,count,kernel_ms,e2e_ms,pipe_ms,kernel_GBps,e2e_GBps,pipe_GBps);
gpu_bench() runs it and returns those lines as dicts, appending its raw
output to OUT/raw.csv.  A bad exit is a failed check (FAILS, read by the
runner).
"""
import os
import subprocess
import sys

PLANT = b"METU"
FAILS = []


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        log("CHECK FAILED: " + msg)


def gpu_bench(args, argv):
    """Runs cuda_exact_bench; returns (rows, init_ms) with rows as dicts."""
    cmd = [os.path.join(args.build, "cuda_exact_bench")] + argv
    log("$ " + " ".join(cmd))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.decode()
    if p.returncode != 0:
        check(False, "cuda_exact_bench exit %d: %s" % (p.returncode, p.stderr.decode()[-500:]))
    rows, init = [], None
    head = None
    for line in out.splitlines():
        if line.startswith("# cuda_init_ms="):
            init = float(line.split("=")[1])
            continue
        f = line.split(",")
        if f[0] == "engine":
            head = f
            continue
        if head is None and f[0] != "read-ceiling":
            continue
        keys = head or ["engine", "params", "m", "count", "kernel_ms", "e2e_ms", "pipe_ms",
                        "kernel_GBps", "e2e_GBps", "pipe_GBps"]
        rows.append(dict(zip(keys, f)))
        rows[-1]["params"] = rows[-1].get("params", "").replace(";", ",")
    with open(os.path.join(args.out, "raw.csv"), "a") as fp:
        fp.write("# " + " ".join(cmd) + "\n" + out)
    return rows, init


def plant(book, token=PLANT):
    """The book with token + b' ' inserted at 10 evenly spread line starts
    (the poster's tables: "METU" found exactly 10 times)."""
    out, last = [], 0
    for i in range(10):
        at = book.index(b"\n", (i * len(book)) // 10 + 1) + 1
        out.append(book[last:at])
        out.append(token + b" ")
        last = at
    out.append(book[last:])
    return b"".join(out)


def clean_offset(path, want, n=50):
    """The first offset at or after `want` where n printable bytes follow
    (the Boyer-Moore figures take their patterns from there)."""
    with open(path, "rb") as f:
        f.seek(want)
        buf = f.read(1 << 16)
    for i in range(len(buf) - n):
        piece = buf[i:i + n]
        if all(32 <= c < 127 for c in piece):
            return want + i
    raise RuntimeError("no clean 50-byte piece")
