#!/usr/bin/env python3
"""bench/run.py - the one entry point of the haystack benchmarks (`make bench`):
every seed table on the machine at hand, peers beside us, energy per phase,
one CSV, one report, plots.

  python3 bench/run.py [--quick] [--parts LIST] [--build DIR] [--data DIR]
                       [--out DIR] [--record MACHINE] [--plots DIR]
  python3 bench/run.py --list
  python3 bench/run.py search [OPTIONS]     the search suite alone (bench/lib/search.py;
                                            --list, --bench ID, --update-expect, ...)
  python3 bench/run.py align [OPTIONS]      Smith-Waterman GCUPS against length alone
                                            (bench/lib/align.py)
  python3 bench/run.py serve [OPTIONS]      the database search as a whole command, one
                                            process against hay db serve's client
                                            (bench/lib/serve.py)
  python3 bench/run.py report CSV [CSV...] --out DIR [--record MACHINE] [--plots DIR]
  python3 bench/run.py compare bench/results/MACHINE | OLD.csv NEW.csv

Parts (default: all of them, in this order):

  search  the search suite of bench/defs.json (grep, ripgrep, Hyperscan, hay)
  poster  the poster's Tables 1 and 2 (sherlock.txt with "METU" planted 10x,
          and x20): GNU grep, ripgrep, hay on the CPU; the GPU kernels
  bm      the Boyer-Moore paper's Figures 13-24: throughput and speed-up
          against pattern length 5..50 (CPU serial / static / dynamic, thread
          scaling; GPU with and without cascading, every cascade degree, the
          (blocks per SM, threads) pairs; the summary)
  gpu     one literal over the 1 GiB corpus on the GPU: kernel only, end to
          end from pinned memory, pipelined pieces, the read ceiling, with
          the match list and caseless, beside Hyperscan and hay on N threads
  pfac    the PFAC paper's Figures 7-10: the OpenCL knob table (PoCL on a
          CPU, NVIDIA's OpenCL on the GPU machine), the same knobs on CUDA,
          and the CPU on 1..N threads against the GPU
  sw      the Smith-Waterman paper's matrix-filling table (the same random
          3,000^2 and 8,461^2 protein pairs) and its compute vs sync split
          (GPU), hay align, parasail, SSW and EMBOSS water on the CPU, and
          GCUPS against length (bench/lib/align.py)
  energy  joules per GB searched and per giga cell update, per phase: RAPL
          for the CPU, NVML for the GPU, "unavailable" where unreadable
  walk    hay find -r over /usr/include and /usr/share and hay find on a
          200 MB pipe, beside grep -r and rg -uuu (bench/lib/find_walk.py)
  batch   every match of the Snort community set through one callback per
          match against arrays of matches (bench/lib/batch_part.py)
  auto    whole hay find commands with --backend cpu, cuda and auto on 1 MiB,
          64 MiB and 1 GiB: auto against the better backend
          (bench/lib/auto_part.py)

GPU rows are always present: without a CUDA device they read
"skipped (no GPU)".  Every count and score is cross-checked; a failed check
is listed in the report and makes the exit status 1.  --quick is the CI mode
(small inputs, 2-3 runs, a few minutes on 2 cores); the full mode takes the
1 GiB corpus and 5 runs after a warm-up.

Output (OUT, default bench/work/all/DATE): bench.csv with one uniform schema
(table,row,engine,metric,value,unit,status,machine,date,command), report.md,
plots/TABLE.png and .svg (matplotlib; without it no plots, and a note),
and each part's own files.  --record MACHINE also merges the CSV into
bench/results/MACHINE/DAY/records.csv (rows of the parts run replace that
day's) and copies report.md and the logs into bench/results/MACHINE/DAY/raw/.
`report` rebuilds report.md and the plots from CSV files (e.g. several
device calls, one part each).
"""
import argparse
import csv
import datetime
import os
import platform
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))      # bench/
ROOT = os.path.dirname(HERE)
sys.path[:0] = [os.path.join(HERE, "lib"), os.path.join(HERE, "adapters")]
import search as benchrun  # noqa: E402  (the search suite, also `run.py search`)
import parts  # noqa: E402  (the parts: bench/lib/parts.py)
from report import FIELDS, TABLES, header_lines, log, record, report  # noqa: E402

PARTS = ["search", "poster", "bm", "gpu", "pfac", "sw", "energy", "walk", "batch", "auto"]


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 1)[1])
    ap.add_argument("csvs", nargs="*", help="with 'report': the CSV files to merge")
    ap.add_argument("--quick", action="store_true", help="CI mode: small inputs, few runs")
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--data", default=os.environ.get("HAY_BENCH_DATA") or
                    os.path.join(os.path.dirname(ROOT), "shared", "data"))
    ap.add_argument("--work", default=os.path.join(HERE, "work"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--plots", default=None, help="folder for the plots (default OUT/plots)")
    ap.add_argument("--link-base", default=None,
                    help="folder the report's image links are relative to (default OUT)")
    ap.add_argument("--carry", default=os.path.join(ROOT, ".device-carry"),
                    help="carried peers (scripts/bench-device prepare) when present")
    ap.add_argument("--runs", type=int, default=None, help="timed runs per row (5; quick 2)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="the 'all cores' thread count (default: the machine's CPUs)")
    ap.add_argument("--machine", default=None, help="machine name for the CSV and --record")
    ap.add_argument("--record", nargs="?", const="", default=None, metavar="MACHINE",
                    help="merge into bench/results/MACHINE/DAY/records.csv")
    ap.add_argument("--no-gpu", action="store_true", help="treat the machine as having no GPU")
    ap.add_argument("--part-timeout", type=int, default=540)
    ap.add_argument("--search-args", default="", help="extra options for the search part "
                    "(bench/run.py search --help)")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv)
    a.report_mode = bool(a.csvs) and a.csvs[0] == "report"
    if a.report_mode:
        a.csvs = a.csvs[1:]
    elif a.csvs:
        ap.error("unexpected arguments %s (subcommands: search, align, report CSV..., "
                 "compare)" % a.csvs)
    a.runs = a.runs or (2 if a.quick else 5)
    a.search_args = a.search_args.split()
    a.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if a.machine is None:
        a.machine = a.record or "%s-%dcpu" % (platform.node(), os.cpu_count() or 1)
    a.out = os.path.abspath(a.out or os.path.join(a.work, "all", a.date.replace(":", "")))
    a.work = os.path.abspath(a.work)
    a.build = os.path.abspath(a.build)
    a.data = os.path.abspath(a.data)
    a.plots = os.path.abspath(a.plots or os.path.join(a.out, "plots"))
    a.link_base = os.path.abspath(a.link_base or a.out)
    return a


def main(argv):
    a = parse(argv)
    if a.list:
        for p in PARTS:
            print(p)
        for k, v in TABLES.items():
            print("  %-16s %s" % (k, v[0]))
        return 0
    if a.report_mode:
        rows = []
        for c in a.csvs:
            with open(c, newline="") as f:
                new = list(csv.DictReader(f))
            # A later CSV replaces the rows of the (table, row) pairs it has,
            # so that one table measured over several calls (the search part
            # by benchmark) merges.
            keys = {(r["table"], r["row"]) for r in new}
            rows = [r for r in rows if (r["table"], r["row"]) not in keys] + new
        if not rows:
            raise SystemExit("run.py report: no rows")
        a.machine = a.record or rows[0]["machine"]
        a.date = rows[0]["date"]
        hdr = ["## `make bench` report: %s, %s" % (a.machine, a.date), "",
               "- merged from: " + ", ".join(os.path.basename(os.path.dirname(os.path.abspath(c)))
                                             + "/" + os.path.basename(c) for c in a.csvs)]
        for c in a.csvs:
            rp = os.path.join(os.path.dirname(c), "report.md")
            if os.path.exists(rp):
                hdr += ["- from %s: " % os.path.basename(os.path.dirname(os.path.abspath(c)))
                        + "; ".join(l[2:] for l in open(rp).read().splitlines()[2:8]
                                    if l.startswith("- "))]
        fails = [r["table"] + " " + r["row"] + " " + r["engine"] for r in rows
                 if r["status"] == "FAIL"]
        text = report(rows, a.out, a.plots, a.link_base, hdr, fails, [])
        if a.record is not None:
            record(rows, a.machine, a.date, [os.path.join(a.out, "report.md")])
        print(text)
        return 1 if fails else 0
    if not os.path.isdir(os.path.join(a.data, "text")):
        log("SKIP: no data folder at %s (pass --data or set HAY_BENCH_DATA)" % a.data)
        return 0
    os.makedirs(a.out, exist_ok=True)
    os.makedirs(a.work, exist_ok=True)
    ctx = parts.Ctx(a)
    ctx.tools = parts.find_tools(ctx)
    log("run.py: out %s; GPU (CUDA) %s; OpenCL %s; energy %s" % (
        a.out, "yes" if ctx.tools["cuda"] else "no", "yes" if ctx.tools["opencl"] else "no",
        ctx.meters.describe()))
    times = []
    fn = {p: getattr(parts, "part_" + p) for p in PARTS}
    for part in a.parts.split(","):
        if part not in fn:
            raise SystemExit("run.py: unknown part %r (parts: %s)" % (part, ", ".join(PARTS)))
        t0 = time.time()
        log("== part %s" % part)
        try:
            fn[part](ctx)
        except Exception as e:  # keep the other parts' results
            ctx.check(False, "part %s: %s: %s" % (part, type(e).__name__, e))
        times.append((part, time.time() - t0))
        log("== part %s: %.0f s" % (part, times[-1][1]))
        with open(os.path.join(a.out, "bench.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)   # so far (a killed run keeps it)
            w.writeheader()
            w.writerows(ctx.rows)
    mi = benchrun.machine_info()
    if not ctx.tools["cuda"]:
        ctx.notes.append("No usable CUDA device (`hay devices`: %s): GPU rows read "
                         "'%s'." % (re.sub(r"\s+", " ", ctx.tools["devices"]).strip()[:200],
                                    parts.NO_GPU))
    ctx.notes.append("peers: grep %s; ripgrep %s; Hyperscan adapter %s; parasail adapter %s; "
                     "SSW adapter %s; EMBOSS water %s" % tuple(
                         "yes" if ctx.tools.get(k) else "not available"
                         for k in ("grep", "rg", "hs", "parasail", "ssw", "water")))
    hdr = header_lines(ctx, a, mi, ctx.meters.describe(), times,
                       "python3 bench/run.py " + " ".join(argv))
    text = report(ctx.rows, a.out, a.plots, a.link_base, hdr, ctx.fails, ctx.notes)
    if a.record is not None:
        record(ctx.rows, a.machine, a.date,
               [os.path.join(a.out, f) for f in ("report.md", "search.log", "align.log")])
    print(text)
    log("run.py: %d rows, %d failed check(s); out %s" % (len(ctx.rows), len(ctx.fails), a.out))
    return 1 if ctx.fails else 0


def dispatch(argv):
    """The suites that can also run alone, behind this one entry point."""
    if argv[:1] == ["search"]:
        try:
            return benchrun.main(argv[1:])
        except benchrun.BenchError as ex:
            benchrun.loud(str(ex))
            return 2
    if argv[:1] == ["align"]:
        import align
        return align.main(argv[1:])
    if argv[:1] == ["serve"]:
        import serve
        return serve.main(argv[1:])
    if argv[:1] == ["compare"]:
        import compare
        return compare.main(argv[1:])
    return main(argv)


if __name__ == "__main__":
    try:
        sys.exit(dispatch(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
