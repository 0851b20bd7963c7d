#!/usr/bin/env python3
"""serve.py - the database search as a whole command, in one process against
the client of a resident server (`hay db serve` + `hay align --server`,
issue 16's 400 GCUPS row): wall time from process start to exit, GCUPS =
cells / wall time (Python 3 standard library only).

Workload: bench/defs.json parts.align.db (31 queries x the E. coli proteome,
5.98e10 cells, built with `hay db build`), top 50.  A server is started once
on BACKEND with -j N; then, in interleaved rounds:
  one process   hay align --backend B -j N --top 50 [--score-only] Q DB
  client        hay align --server SOCK --backend B -j N --top 50 [--score-only] Q DB
each with --score-only and with alignments.  Every run's output must equal
the first one-process output of its mode (md5); a difference marks the row
FAIL and the exit status 1.  The cells come from one --stats run.

Usage: python3 bench/run.py serve [--hay build/hay] [--data DIR]
       [--backend cpu|cuda] [--threads N] [--runs 7] [--warmup 1] [--out DIR]
"""
import argparse
import csv
import hashlib
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def wall(cmd):
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    s = time.perf_counter() - t
    if p.returncode != 0:
        sys.stderr.write(p.stderr.decode(errors="replace"))
        raise SystemExit("serve: exit %d: %s" % (p.returncode, " ".join(cmd)))
    return s, hashlib.md5(p.stdout).hexdigest()


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--hay", default=os.path.join(ROOT, "build/hay"))
    ap.add_argument("--data", default=os.path.join(ROOT, "../shared/data"))
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/work/serve"))
    a = ap.parse_args(argv)
    with open(os.path.join(ROOT, "bench/defs.json")) as f:
        db = json.load(f)["parts"]["align"]["db"]
    bio = os.path.join(a.data, "bio")
    q, t = os.path.join(bio, db["queries"]), os.path.join(bio, db["targets"])
    if not os.path.exists(q) or not os.path.exists(t):
        print("serve: no data at %s: skipped" % a.data)
        return 0
    os.makedirs(a.out, exist_ok=True)
    hdb = os.path.join(a.out, "ecoli.hdb")
    if not os.path.exists(hdb):
        subprocess.run([a.hay, "db", "build", "--protein", t, hdb], check=True,
                       stdout=subprocess.DEVNULL)
    sock = os.path.join(a.out, "serve.sock")
    common = ["--backend", a.backend, "-j", str(a.threads), "--top", str(db["top"])]
    p = subprocess.run([a.hay, "align", "--stats", "--score-only"] + common + [q, hdb],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    cells = int(re.search(rb"cells=(\d+)", p.stderr).group(1))
    log = open(os.path.join(a.out, "server.log"), "wb")
    t0 = time.perf_counter()
    srv = subprocess.Popen([a.hay, "db", "serve", hdb, "--socket", sock, "--backend",
                            a.backend, "-j", str(a.threads), "--quiet"],
                           stdout=subprocess.DEVNULL, stderr=log)
    rows, failed = [], False
    try:
        while not os.path.exists(sock):
            if srv.poll() is not None or time.perf_counter() - t0 > 120:
                raise SystemExit("serve: the server did not start (see %s)" % log.name)
            time.sleep(0.01)
        ready = time.perf_counter() - t0
        print("server ready in %.3f s (start, upload; paid once)" % ready, flush=True)
        engines = []
        for mode, flag in (("score-only", ["--score-only"]), ("alignments", [])):
            one = [a.hay, "align"] + common + flag + [q, hdb]
            cli = [a.hay, "align", "--server", sock] + common + flag + [q, hdb]
            engines += [(mode, "one process", one), (mode, "client", cli)]
        times = {(m, e): [] for m, e, _ in engines}
        sums = {}
        for r in range(a.warmup + a.runs):
            for m, e, cmd in engines:
                s, h = wall(cmd)
                sums.setdefault(m, h)
                failed |= h != sums[m]
                if h != sums[m]:
                    print("FAIL %s %s: output differs" % (m, e), flush=True)
                if r >= a.warmup:
                    times[(m, e)].append(s)
    finally:
        if srv.poll() is None:
            srv.send_signal(signal.SIGTERM)
            srv.wait(timeout=60)
    for m, e, cmd in engines:
        ts = times[(m, e)]
        med = statistics.median(ts)
        rows.append(dict(mode=m, engine=e, backend=a.backend, threads=a.threads, cells=cells,
                         median_s=med, min_s=min(ts), max_s=max(ts),
                         gcups=cells / med * 1e-9, runs=len(ts),
                         check="FAIL" if failed else "ok", command=" ".join(cmd)))
        print("%-11s %-12s %s -j %d: median %.4f s (%.4f-%.4f) %8.1f GCUPS %s" % (
            m, e, a.backend, a.threads, med, min(ts), max(ts), rows[-1]["gcups"],
            rows[-1]["check"]), flush=True)
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
