"""batch_part.py - the `batch` part of bench/run.py (issue 17 item 2): what
it costs to get every match out of the library, one callback per match
(hay_scan) against arrays of matches (hay_scan_batch), beside the count
alone (hay_scan_count), on a dense set: the 4,550 Snort community literals
over the quick haystack (full mode: text10m).  bench/batch_bench.c runs the
three in one process, median of --runs after a warm-up, and checks that the
two lists give the same per-pattern counts and offsets checksum; the count
is checked against bench/defs.json.  Rows: the CPU on 1 and N threads,
CUDA and OpenCL when present (else "skipped").
"""
import os

from parts import NO_GPU, case, check_expect, haystack, log

TABLE = "batch"
MODES = (("count", "count only"), ("per-match", "per-match callback"),
         ("batch", "batch callback"), ("list", "arrays (hay_scan_list)"))


def tsv(out):
    """The "mode<TAB>metric<TAB>value<TAB>unit" lines after "# tsv"."""
    rows, on = {}, False
    for line in out.splitlines():
        if line == "# tsv":
            on = True
        elif on and line.count("\t") == 3:
            mode, metric, value, _ = line.split("\t")
            rows[(mode, metric)] = value
    return rows


def part_batch(ctx):
    a, t = ctx.args, ctx.tools
    c, hid = case(ctx, "batch")
    path, _ = haystack(ctx, hid)
    pf = os.path.join(a.data, c["patterns_file"])
    row = "snort-community / %s" % os.path.basename(path)
    prog = os.path.join(a.build, "batch_bench")
    if not os.access(prog, os.X_OK):
        ctx.check(False, "batch: no %s (configure with -DHAY_BENCH=ON)" % prog)
        return
    env = dict(os.environ, HAY_CACHE_DIR=os.path.join(a.work, "opencl-cache"))
    sides = [("CPU 1T", ["--backend", "cpu", "--threads", "1"], True),
             ("CPU %dT" % a.threads, ["--backend", "cpu", "--threads", str(a.threads)], True),
             ("CUDA", ["--backend", "cuda"], t["cuda"]),
             ("OpenCL", ["--backend", "opencl"], t["opencl"])]
    counts = {}
    for name, argv, avail in sides:
        if not avail:
            for _, label in MODES:
                ctx.skip(TABLE, row, "%s %s" % (name, label), "Mmatches_per_s", "M/s",
                         NO_GPU if name == "CUDA" else "skipped (no OpenCL device)")
            continue
        cmd = [prog] + argv + ["--runs", str(a.runs), "-f", pf, path]
        out = ctx.run_saved(cmd, "batch: " + name, "batch-%s.txt" % name.replace(" ", ""),
                            env=env)
        r = tsv(out)
        if ("info", "matches") not in r:
            continue
        counts[name] = int(r[("info", "matches")])
        for mode, label in MODES:
            eng = "%s %s" % (name, label)
            ctx.add(TABLE, row, eng, "Mmatches_per_s", r[(mode, "Mmatches_per_s")], "M/s", cmd)
            ctx.add(TABLE, row, eng, "ms", r[(mode, "ms")], "ms", cmd)
        ctx.add(TABLE, row, name + " batch over per-match", "speedup",
                r[("batch", "speedup_vs_per_match")], "x", cmd)
        log("batch: %s: per-match %s M/s, batch %s M/s" % (
            name, r[("per-match", "Mmatches_per_s")], r[("batch", "Mmatches_per_s")]))
    check_expect(ctx, "batch", counts, c["expect"][hid])
