#!/usr/bin/env python3
"""cuda_exact.py - the one-pattern GPU benchmarks (issue 4), on a machine with a GPU.

  python3 bench/cuda_exact.py --build BUILD --data DATA --out OUT \\
      [--rg RG] [--lib LIBDIR] [--hs-bench HS] [--grep GREP] [--runs N] \\
      [--parts tables,bm,big,split] [--work DIR]

BUILD holds `hay` and `cuda_exact_bench` (CMake build with CUDA); DATA is the
data folder (text/ inside).  Parts:

  tables  the poster's Tables 1 and 2 on text/sherlock.txt with "METU"
          planted 10 times (at line starts, evenly spread): "METU" and
          "Holmes" over the book and its 20x concatenation; rows GNU grep,
          ripgrep, hay on the CPU, and the three poster kernels, bm-gpu and
          gpu-fast (end to end from pinned memory with the match list read
          back, and kernel only)
  bm      the Boyer-Moore paper's throughput against pattern length 5..50
          on the 1 GiB corpus of bench/defs.json: hay bm on the CPU (serial,
          16 threads static, 16 threads dynamic), bm-gpu without (cascade=1)
          and with (cascade=64) algorithmic cascading, gpu-fast; every
          cascade degree and the paper's (blocks per SM, threads) pairs
  big     1 GiB, one literal ("Sherlock Holmes"): gpu-fast kernel-only
          (resident) and end to end with pinned copies (one copy, and
          pipelined pieces on two streams), the read ceiling, Hyperscan with
          16 threads and hay on 16 CPU threads in the same run
  split   (not in the default parts) backend auto's split of one input between
          CPU threads and the GPU against the CPU alone, the GPU alone from
          the page cache (`hay find --backend cuda`, staging, registered
          input, smaller pieces) and Hyperscan-16T: one literal and
          snort-community over the 1 GiB corpus, one-shot and warm

Every row's count is checked (all rows of a case must agree, and the tables'
planted token must be found exactly 10 / 200 times).  Writes OUT/cuda_exact.md
and the raw CSV files; prints the markdown.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as benchrun  # noqa: E402  (the haystack generator and stats parser)

PLANT = b"METU"
FAILS = []


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        log("CHECK FAILED: " + msg)


def timed(cmd, runs, env=None, warmup=1):
    """Median wall seconds of a command, its last stdout and stderr."""
    ts, out = [], None
    for i in range(warmup + runs):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        t = time.perf_counter() - t0
        if p.returncode not in (0, 1):
            raise RuntimeError("%s: exit %d: %s" % (cmd, p.returncode, p.stderr.decode()[-300:]))
        if i >= warmup:
            ts.append(t)
        out = p
    return statistics.median(ts), out.stdout.decode(), out.stderr.decode()


def scan_seconds(stderr):
    st = benchrun.parse_stats(stderr)
    try:
        return float(st["scan"]["seconds"])
    except (KeyError, ValueError):
        return None


def last_int(s):
    return int(s.strip().splitlines()[-1].rsplit(":", 1)[-1])


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


def fnum(x, spec="%.3f"):
    try:
        return spec % float(x)
    except (TypeError, ValueError):
        return "-"


def plant(book):
    """The book with PLANT + b' ' inserted at 10 evenly spread line starts."""
    out, last = [], 0
    for i in range(10):
        at = book.index(b"\n", (i * len(book)) // 10 + 1) + 1
        out.append(book[last:at])
        out.append(PLANT + b" ")
        last = at
    out.append(book[last:])
    return b"".join(out)


def part_tables(args, md):
    book = open(os.path.join(args.data, "text", "sherlock.txt"), "rb").read()
    planted = plant(book)
    f1 = os.path.join(args.work, "sherlock-metu.txt")
    f20 = os.path.join(args.work, "sherlock-metu-x20.txt")
    open(f1, "wb").write(planted)
    open(f20, "wb").write(planted * 20)
    env = dict(os.environ)
    if args.lib:
        env["LD_LIBRARY_PATH"] = args.lib + ":" + env.get("LD_LIBRARY_PATH", "")
    hay = os.path.join(args.build, "hay")
    engines = ["brute-global", "brute-reg", "brute-first", "bm-gpu", "gpu-fast"]
    for tab, path, mult in (("Table 1: the book", f1, 1), ("Table 2: the book x20", f20, 20)):
        size = os.path.getsize(path)
        md.append("\n### %s (`%s`, %d bytes)\n" % (tab, os.path.basename(path), size))
        md.append("Times in ms, median of %d runs after 1 warm-up. CPU tools: the whole "
                  "command (process start to exit). GPU: **e2e** = pinned host buffer -> device "
                  "copy, kernel, count and match list back (what the poster timed); **kernel** "
                  "= the kernel alone, text resident. Counts: occurrences (grep: lines).\n"
                  % args.runs)
        cols = [("METU", 10 * mult), ("Holmes", None)]
        res = {}
        init = None
        for word, expect in cols:
            r = {}
            t, so, _ = timed([args.grep, "-c", word, path], args.runs)
            r["GNU grep -c"] = (t * 1e3, None, last_int(so))
            if args.rg:
                t, so, _ = timed([args.rg, "--count-matches", word, path], args.runs, env=env)
                r["ripgrep --count-matches"] = (t * 1e3, None, last_int(so))
            t, so, se = timed([hay, "find", "--backend", "cpu", "--count-matches", "-e", word,
                               path], args.runs)
            r["hay find (CPU, auto)"] = (t * 1e3, None, last_int(so))
            argv = ["--file", path, "--pattern", word, "--list", "--e2e",
                    "--runs", str(args.runs)]
            for e in engines:
                argv += ["--engine", e]
            rows, init = gpu_bench(args, argv)
            for row in rows:
                r["GPU " + row["engine"]] = (float(row["e2e_ms"]), float(row["kernel_ms"]),
                                             int(row["count"]))
            counts = {k: v[2] for k, v in r.items() if not k.startswith("GNU")}
            check(len(set(counts.values())) == 1, "%s %s: counts differ %s" % (tab, word, counts))
            if expect is not None:
                check(all(c == expect for c in counts.values()),
                      "%s %s: want %d, got %s" % (tab, word, expect, counts))
            res[word] = r
        md.append("| | " + " | ".join('"%s" (%d found) e2e / kernel' %
                                        (w, res[w]["GPU gpu-fast"][2]) for w, _ in cols) + " |")
        md.append("|---|" + "---|" * len(cols))
        for k in res["METU"]:
            cells = []
            for w, _ in cols:
                e, kern, _ = res[w][k]
                cells.append(fnum(e) + (" / " + fnum(kern, "%.4f") if kern is not None else ""))
            md.append("| %s | %s |" % (k, " | ".join(cells)))
        if init is not None:
            md.append("\nFirst CUDA call in the bench process (context creation, the poster's "
                      "second limitation): %.0f ms; not in the GPU rows above." % init)


def corpus(args):
    defs = json.load(open(os.path.join(HERE, "defs.json")))
    path, size = benchrun.generate("corpus1g", defs["haystacks"]["corpus1g"], args.data,
                                   args.work)
    return path, size


def clean_offset(path, want, n=50):
    with open(path, "rb") as f:
        f.seek(want)
        buf = f.read(1 << 16)
    for i in range(len(buf) - n):
        piece = buf[i:i + n]
        if all(32 <= c < 127 for c in piece):
            return want + i
    raise RuntimeError("no clean 50-byte piece")


def part_bm(args, md):
    path, size = corpus(args)
    off = clean_offset(path, 123456789)
    lens = list(range(5, 55, 5))
    with open(path, "rb") as f:
        f.seek(off)
        text = f.read(50)
    md.append("\n### Boyer-Moore: throughput against pattern length (1 GiB corpus)\n")
    md.append("Patterns: the first 5, 10, ..., 50 bytes at offset %d of corpus1g (%r...). "
              "GPU: kernel only, text resident, median of %d runs; CPU: `hay find --algo bm "
              "--count-matches --stats`, the scan phase, median of 3. Gbps = 8 * bytes / s / 1e9, "
              "the paper's unit; GB/s beside it.\n" % (off, text[:20].decode(), args.runs))
    base = ["--file", path, "--pat-at", str(off), "--lens", ",".join(map(str, lens)),
            "--runs", str(args.runs)]
    eng = ["bm-gpu:cascade=1", "bm-gpu:cascade=64", "gpu-fast", "gpu-fast:filter=3"]
    argv = list(base)
    for e in eng:
        argv += ["--engine", e]
    rows, _ = gpu_bench(args, argv)
    gpu = {}
    for r in rows:
        if r["engine"] == "read-ceiling":
            continue
        gpu[(r["engine"] + (":" + r["params"] if r["params"] else ""), int(r["m"]))] = r
    hay = os.path.join(args.build, "hay")
    cpu = {}
    cpu_cfg = [("CPU bm serial (1T)", ["--threads", "1"]),
               ("CPU bm 16T static", ["--threads", "16", "--schedule", "static"]),
               ("CPU bm 16T dynamic", ["--threads", "16", "--schedule", "dynamic"])]
    if not args.no_cpu_bm:
        for name, extra in cpu_cfg:
            for m in lens:
                pat = text[:m].decode()
                ts = []
                cnt = None
                for _ in range(4):
                    p = subprocess.run([hay, "find", "--backend", "cpu", "--algo", "bm",
                                        "--count-matches", "--stats"] + extra + ["-e", pat, path],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                    s = scan_seconds(p.stderr.decode())
                    if s is not None:
                        ts.append(s)
                    cnt = last_int(p.stdout.decode())
                cpu[(name, m)] = (statistics.median(ts[1:]), cnt)
    names = [n for n, _ in cpu_cfg if not args.no_cpu_bm] + eng
    md.append("| m | " + " | ".join(names) + " |")
    md.append("|---|" + "---|" * len(names))
    for m in lens:
        cells, counts = [], set()
        for n in names:
            if n in eng:
                r = gpu[(n, m)]
                secs = float(r["kernel_ms"]) / 1e3
                counts.add(int(r["count"]))
            else:
                secs, c = cpu[(n, m)]
                counts.add(c)
            cells.append("%.0f Gbps (%.1f GB/s)" % (8 * size / secs / 1e9, size / secs / 1e9))
        check(len(counts) == 1, "bm m=%d: counts differ %s" % (m, counts))
        md.append("| %d | %s |" % (m, " | ".join(cells)))

    # Every cascade degree (Fig. 19) and the (blocks per SM, threads) pairs (Table 8).
    argv = ["--file", path, "--pat-at", str(off), "--lens", "10,50", "--runs", str(args.runs)]
    degs = [1, 2, 4, 8, 16, 32, 64]
    pairs = [(16, 128), (8, 256), (4, 512), (2, 1024)]
    for d in degs:
        argv += ["--engine", "bm-gpu:cascade=%d" % d]
    for b, t in pairs:
        for d in (1, 64):
            argv += ["--engine", "bm-gpu:blocks_per_sm=%d,threads=%d,cascade=%d" % (b, t, d)]
    rows, _ = gpu_bench(args, argv)
    by = {(r["params"], int(r["m"])): r for r in rows if r["engine"] == "bm-gpu"}
    md.append("\nbm-gpu against the cascade degree (defaults blocks_per_sm=16, threads=128), "
              "kernel only, GB/s:\n")
    md.append("| m | " + " | ".join("cascade %d" % d for d in degs) + " |")
    md.append("|---|" + "---|" * len(degs))
    for m in (10, 50):
        md.append("| %d | %s |" % (m, " | ".join(fnum(by[("cascade=%d" % d, m)]["kernel_GBps"],
                                                         "%.0f") for d in degs)))
    md.append("\nbm-gpu with the paper's (blocks per SM, threads per block) pairs, GB/s "
              "(cascade 1 / cascade 64):\n")
    md.append("| m | " + " | ".join("(%d, %d)" % p for p in pairs) + " |")
    md.append("|---|" + "---|" * len(pairs))
    for m in (10, 50):
        cells = []
        for b, t in pairs:
            a1 = by[("blocks_per_sm=%d,threads=%d,cascade=1" % (b, t), m)]["kernel_GBps"]
            a64 = by[("blocks_per_sm=%d,threads=%d,cascade=64" % (b, t), m)]["kernel_GBps"]
            cells.append("%s / %s" % (fnum(a1, "%.0f"), fnum(a64, "%.0f")))
        md.append("| %d | %s |" % (m, " | ".join(cells)))


def part_big(args, md):
    path, size = corpus(args)
    pat = "Sherlock Holmes"
    md.append("\n### 1 GiB, one literal (%r), corpus1g\n" % pat)
    md.append("Median of %d runs after 1 warm-up. GPU **kernel**: text resident, one launch, "
              "count only (events); **e2e**: pinned host buffer -> device in one copy, kernel, "
              "count back (host clock); **pipe**: the same in 64 MiB pieces (look-back m-1) on "
              "two streams. Hyperscan and hay CPU: the scan phase (`stats:` line) and the whole "
              "command (wall).\n" % args.runs)
    argv = ["--file", path, "--pattern", pat, "--ceiling", "--e2e", "--pipeline",
            str(64 << 20), "--runs", str(args.runs)]
    for e in args.big_engines.split():
        argv += ["--engine", e]
    rows, _ = gpu_bench(args, argv)
    argv = ["--file", path, "--pattern", pat, "--list", "--runs", str(args.runs),
            "--engine", args.big_engines.split()[0]]
    lrows, _ = gpu_bench(args, argv)
    argv = ["--file", path, "--pattern", pat.lower(), "--ci", "--runs", str(args.runs)]
    for e in args.big_engines.split()[:2]:
        argv += ["--engine", e]
    crows, _ = gpu_bench(args, argv)
    md.append("| engine | count | kernel ms | kernel GB/s | e2e ms | e2e GB/s | pipe ms | pipe GB/s |")
    md.append("|---|---|---|---|---|---|---|---|")
    counts = set()
    for r in rows:
        name = r["engine"] + (" " + r["params"] if r.get("params") else "")
        if r["engine"] == "read-ceiling":
            md.append("| read ceiling (16-byte loads, no matching) | - | %s | %s | | | | |" %
                      (fnum(r["kernel_ms"], "%.4f"), fnum(r["kernel_GBps"], "%.0f")))
            continue
        counts.add(int(r["count"]))
        md.append("| GPU %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, r["count"], fnum(r["kernel_ms"], "%.4f"), fnum(r["kernel_GBps"], "%.0f"),
            fnum(r["e2e_ms"]), fnum(r["e2e_GBps"], "%.1f"), fnum(r["pipe_ms"]),
            fnum(r["pipe_GBps"], "%.1f")))
    for r in lrows:
        if r["engine"] != "read-ceiling":
            counts.add(int(r["count"]))
            md.append("| GPU %s, with the match list | %s | %s | %s | | | | |" % (
                r["engine"], r["count"], fnum(r["kernel_ms"], "%.4f"),
                fnum(r["kernel_GBps"], "%.0f")))
    for r in crows:
        if r["engine"] != "read-ceiling":
            md.append("| GPU %s, caseless %r | %s | %s | %s | | | | |" % (
                r["engine"] + (" " + r["params"] if r.get("params") else ""), pat.lower(), r["count"], fnum(r["kernel_ms"], "%.4f"),
                fnum(r["kernel_GBps"], "%.0f")))
    if args.hs_bench:
        t, so, se = timed([args.hs_bench, "--threads", "16", "-e", pat, path], args.runs)
        ts = []
        for _ in range(args.runs):
            p = subprocess.run([args.hs_bench, "--threads", "16", "-e", pat, path],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            ts.append(scan_seconds(p.stderr.decode()))
        s = statistics.median(ts)
        counts.add(last_int(so))
        md.append("| Hyperscan 16T (hs_bench) | %d | scan %.2f | %.1f | wall %.2f | %.1f | | |" %
                  (last_int(so), s * 1e3, size / s / 1e9, t * 1e3, size / t / 1e9))
    hay = os.path.join(args.build, "hay")
    cmd = [hay, "find", "--backend", "cpu", "--count-matches", "--threads", "16", "-e", pat, path]
    t, so, _ = timed(cmd, args.runs)
    ts = []
    for _ in range(args.runs):
        p = subprocess.run(cmd[:2] + ["--stats"] + cmd[2:], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        ts.append(scan_seconds(p.stderr.decode()))
    s = statistics.median(ts)
    counts.add(last_int(so))
    md.append("| hay find CPU 16T (auto) | %d | scan %.2f | %.1f | wall %.2f | %.1f | | |" %
              (last_int(so), s * 1e3, size / s / 1e9, t * 1e3, size / t / 1e9))
    check(counts == {42955}, "1 GiB counts %s, want 42955" % counts)


def stat_line(stderr, prefix):
    """The key=value pairs of the first 'stats: PREFIX ...' line."""
    for line in stderr.splitlines():
        if line.startswith("stats: " + prefix):
            return {k: v.strip('"') for k, v in benchrun.STAT_RE.findall(line[6:])}
    return {}


def hay_scan_runs(args, argv, files, runs):
    """Runs `hay find --stats --count-matches ARGV FILES` runs times (after a
    warm-up); returns (median scan seconds, median wall seconds, last stderr,
    counts of the last run)."""
    hay = os.path.join(args.build, "hay")
    cmd = [hay, "find", "--stats", "--count-matches"] + argv + files
    scans, walls, err, out = [], [], "", ""
    for i in range(runs + 1):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        t = time.perf_counter() - t0
        if p.returncode not in (0, 1):
            raise RuntimeError("%s: exit %d: %s" % (cmd, p.returncode, p.stderr.decode()[-300:]))
        err, out = p.stderr.decode(), p.stdout.decode()
        if i:
            scans.append(scan_seconds(err))
            walls.append(t)
    counts = [int(l.rsplit(":", 1)[-1]) for l in out.strip().splitlines()]
    return statistics.median(scans), statistics.median(walls), err, counts


def part_split(args, md):
    """Backend auto's split (CPU threads + GPU on one input) against the CPU
    alone, the GPU alone (--backend cuda, from the page cache) and
    Hyperscan-16T, one literal and snort-community, 1 GiB."""
    path, size = corpus(args)
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL)   # into the page cache
    reps = args.split_reps
    md.append("\n### Backend auto's split and the GPU from the page cache, 1 GiB\n")
    md.append("`hay find --count-matches --stats` on the file (read into the page cache "
              "first), median of %d runs after 1 warm-up. **one-shot**: one file per "
              "command, so the scan phase includes the first scan's costs in the process "
              "(pinned staging buffers; for split, the GPU's start-up on its own thread, "
              "which the scan waits for). **warm**: the same file named %d times in "
              "one command, (scan(%d files) - scan(1 file)) / %d: a scan in a process whose "
              "GPU state is already made. GB/s = 10^9 bytes/s. The split columns (warm scans, "
              "from the same differences): the bytes each side searched per scan and its own "
              "rate (bytes / the seconds it spent searching).\n"
              % (args.runs, reps + 1, reps + 1, reps))
    sets = [("one literal %r" % "Sherlock Holmes", ["-e", "Sherlock Holmes"], 42955)]
    snort = os.path.join(args.data, "patterns", "snort-community.txt")
    if os.path.exists(snort):
        sets.append(("snort-community (4,550)", ["--escapes", "-f", snort], None))
    cpu16 = ["--backend", "cpu", "--threads", "16"]
    cuda = ["--backend", "cuda"]
    split = lambda t, extra="": ["--backend", "auto", "--threads", str(t), "--params",
                                 "split=on" + extra]
    configs = [
        ("CPU 16T", cpu16, True),
        ("GPU (cuda, defaults: pinned staging, 3 x 64 MiB, 16 copy threads)", cuda, True),
        ("GPU (cuda, chunk=16M,streams=4)", cuda + ["--params", "chunk=16M,streams=4"], False),
        ("auto split=on (CPU side capped at 11T, GPU copies with 4 threads)", split(16), True),
        ("auto split=on, CPU 8T", split(8), False),
        ("auto split=on, CPU 4T", split(4), True),
        ("auto (default: no split), 16T", ["--backend", "auto", "--threads", "16"], True),
    ]
    for extra in (args.gpu_params.split("|") if args.gpu_params else []):
        configs.append(("GPU (cuda, %s)" % extra, cuda + ["--params", extra], False))
    if args.split_configs:
        keep = args.split_configs.split("|")
        configs = [c for c in configs if c[0] in keep]
    if args.literal_only:
        sets = sets[:1]
    for title, pat, want in sets:
        md.append("\n#### %s\n" % title)
        md.append("| config | count | one-shot scan ms | GB/s | wall ms | warm scan ms | warm GB/s "
                  "| split: CPU GB, GB/s | split: GPU GB, GB/s | note |")
        md.append("|---|---|---|---|---|---|---|---|---|---|")
        counts = set()
        for label, argv, multi in configs:
            if want is None and not multi:
                continue
            try:
                s1, w1, err1, c1 = hay_scan_runs(args, argv + pat, [path], args.runs)
                sn, _, err, cn = hay_scan_runs(args, argv + pat, [path] * (reps + 1), args.runs)
            except Exception as e:  # keep the other rows
                check(False, "split row %s: %s" % (label, e))
                continue
            counts.update(c1 + cn)
            warm = (sn - s1) / reps
            sp, sp1 = stat_line(err, "split"), stat_line(err1, "split")
            ran = stat_line(err, "ran=")

            def cell(k):
                """A side's bytes per warm scan and its own rate over the warm
                scans: the difference between the two commands' sums."""
                if not sp or not sp1:
                    return "-"
                b = int(sp[k + "_bytes"]) - int(sp1[k + "_bytes"])
                t = float(sp[k + "_seconds"]) - float(sp1[k + "_seconds"])
                return "%.3f, %.1f" % (b / 1e9 / reps, b / t / 1e9 if t > 0 else 0)
            md.append("| %s | %d | %.2f | %.1f | %.1f | %.2f | %.1f | %s | %s | %s |" % (
                label, c1[0], s1 * 1e3, size / s1 / 1e9, w1 * 1e3, warm * 1e3,
                size / warm / 1e9 if warm > 0 else 0, cell("cpu"), cell("gpu"),
                ran.get("note", "")))
            log("split %s %s: one-shot %.2f ms, warm %.2f ms" % (title, label, s1 * 1e3,
                                                                  warm * 1e3))
            with open(os.path.join(args.out, "cuda_exact.md"), "w") as f:
                f.write("\n".join(md) + "\n")   # rows so far, should a later one hang
        if args.hs_bench:
            hp = ["-e", "Sherlock Holmes"] if want else ["--escapes", "-f", snort]
            cmd = [args.hs_bench, "--threads", "16"] + hp + [path]
            ts, so = [], ""
            for i in range(args.runs + 1):
                p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                so = p.stdout.decode()
                if i:
                    ts.append(scan_seconds(p.stderr.decode()))
            s = statistics.median(ts)
            counts.add(last_int(so))
            md.append("| Hyperscan 16T (hs_bench, scan) | %d | %.2f | %.1f | | | | | | |" %
                      (last_int(so), s * 1e3, size / s / 1e9))
        check(len(counts) == 1 and (want is None or counts == {want}),
              "split %s: counts %s" % (title, counts))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", default="/tmp/hay-cuda-exact")
    ap.add_argument("--rg", default=None)
    ap.add_argument("--lib", default=None)
    ap.add_argument("--grep", default="grep")
    ap.add_argument("--hs-bench", default=None)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--parts", default="tables,bm,big")
    ap.add_argument("--no-cpu-bm", action="store_true")
    ap.add_argument("--big-engines", default="gpu-fast gpu-fast:filter=3 bm-gpu brute-first")
    ap.add_argument("--split-reps", type=int, default=5,
                    help="part split: extra scans of the file in the warm command")
    ap.add_argument("--gpu-params", default=None,
                    help="part split: extra GPU rows, one per params string, separated by |")
    ap.add_argument("--literal-only", action="store_true",
                    help="part split: the one literal only (no snort-community)")
    ap.add_argument("--split-configs", default=None,
                    help="part split: only these row labels, separated by |")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    md = ["## GPU exact search, one pattern (`bench/cuda_exact.py`)", "",
          "- %s, %s, %d CPUs; %s" % (platform.node(), platform.platform(), os.cpu_count(),
                                     time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))]
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                              "--format=csv,noheader"], stdout=subprocess.PIPE).stdout.decode()
        md.append("- GPU: " + smi.strip())
    except OSError:
        pass
    md.append("- command: `python3 bench/cuda_exact.py %s`" % " ".join(sys.argv[1:]))
    for part in args.parts.split(","):
        t0 = time.time()
        try:
            {"tables": part_tables, "bm": part_bm, "big": part_big,
             "split": part_split}[part](args, md)
        except Exception as e:  # keep the other parts' results
            check(False, "part %s: %s: %s" % (part, type(e).__name__, e))
        log("part %s: %.0f s" % (part, time.time() - t0))
        with open(os.path.join(args.out, "cuda_exact.md"), "w") as f:
            f.write("\n".join(md) + "\n")
    if FAILS:
        md.append("\n**Checks failed:**\n" + "\n".join("- " + x for x in FAILS))
    with open(os.path.join(args.out, "cuda_exact.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
