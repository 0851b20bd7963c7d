"""parts.py - the parts of bench/run.py: each measures one table (or a few),
adds its rows through Ctx.add and checks every count and score (Ctx.check)
against the others and against bench/defs.json's expected counts.

  search  the search suite (bench/lib/search.py, run as `run.py search`)
  poster, bm, gpu  the one-pattern engines, CPU and GPU (cuda_exact_bench)
  pfac    the PFAC paper's tables (hay_ocl_bench, cuda_pfac_bench, hay find)
  sw      Smith-Waterman (sw_cuda_bench, hay align, the alignment peers, run.py align)
  energy  joules per GB and per GCU (lib/energy.py, gpu_phases)
  walk    hay find -r over trees and on a pipe (lib/find_walk.py)
  batch   every match through callbacks and arrays (lib/batch_part.py)
  auto    backend auto against cpu and cuda, whole commands (lib/auto_part.py)
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))      # bench/lib
BENCH = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCH)
RUN_PY = os.path.join(BENCH, "run.py")
sys.path[:0] = [HERE, os.path.join(BENCH, "adapters")]
import search as benchrun  # noqa: E402  (the search suite; haystacks, stats parser, machine info)
import energy as benergy  # noqa: E402
import peers as bpeers  # noqa: E402  (the peers behind one interface)
from report import cell  # noqa: E402

NO_GPU = "skipped (no GPU)"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def shell_join(cmd):
    return benchrun.shell_join([str(c) for c in cmd])


class Ctx:
    def __init__(self, args):
        self.args = args
        self.rows = []
        self.fails = []
        self.notes = []
        self.machine = args.machine
        self.date = args.date
        self.meters = benergy.Meters()

    def short(self, cmd):
        """The command with this run's folders as OUT/, WORK/, DATA/, BUILD/ and
        the repository root dropped: shorter rows, the same on every machine."""
        a = self.args
        for path, name in ((a.out, "OUT"), (a.work, "WORK"), (a.data, "DATA"),
                           (a.build, "BUILD"), (ROOT, ".")):
            cmd = cmd.replace(path + "/", name + "/")
        return cmd

    def add(self, table, row, engine, metric, value, unit, command="", status="ok"):
        if isinstance(value, float):
            value = "%.6g" % value
        self.rows.append({"table": table, "row": str(row), "engine": engine, "metric": metric,
                          "value": value, "unit": unit, "status": status,
                          "machine": self.machine, "date": self.date,
                          "command": self.short(shell_join(command)
                                                if isinstance(command, list) else command)})

    def skip(self, table, row, engine, metric, unit, why=NO_GPU):
        self.add(table, row, engine, metric, why, unit, "", "skipped")

    def check(self, cond, msg):
        if not cond:
            self.fails.append(msg)
            log("CHECK FAILED: " + msg)
        return cond

    def run(self, cmd, env=None, timeout=None, ok=(0,)):
        """Runs cmd; returns (stdout, stderr, energy sample).  A bad exit is
        a failed check and raises."""
        with self.meters.measure() as e:
            p = subprocess.run([str(c) for c in cmd], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env, timeout=timeout)
        out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
        if p.returncode not in ok:
            raise RuntimeError("%s: exit %d: %s" % (shell_join(cmd), p.returncode,
                                                    (err or out).strip()[-400:]))
        return out, err, e

    def run_saved(self, cmd, what, fname, env=None, ok=(0,)):
        """Runs one of the part's tools (part timeout), keeps its stdout in
        OUT/fname and returns it; a failure is a failed check and gives ""."""
        try:
            out, _, _ = self.run(cmd, env=env, timeout=self.args.part_timeout, ok=ok)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            self.check(False, "%s: %s" % (what, e))
            out = ""
        with open(os.path.join(self.args.out, fname), "w") as f:
            f.write(out)
        return out


# --------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------

def find_tools(ctx):
    a = ctx.args
    t = {"hay": os.path.join(a.build, "hay")}
    # The peers (bench/adapters/peers.py): grep, rg, hs, parasail, ssw, water;
    # None where this machine has no such tool (its rows read "skipped").
    pp = bpeers.Peers(a.work, carry=a.carry, data=a.data, log=log)
    for k in ("grep", "rg", "hs", "parasail", "ssw", "water"):
        t[k] = pp.get(k)
    for k in ("cuda_exact_bench", "cuda_pfac_bench", "sw_cuda_bench", "hay_ocl_bench",
              "gpu_phases"):
        p = os.path.join(a.build, k)
        t[k] = p if os.access(p, os.X_OK) else None
    if not os.access(t["hay"], os.X_OK):
        raise SystemExit("run.py: no hay at %s (build first: make build, or pass --build)"
                         % t["hay"])
    devs = subprocess.run([t["hay"], "devices"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT).stdout.decode()
    t["devices"] = devs
    t["cuda"] = bool(re.search(r"^cuda\s+available", devs, re.M)) and not a.no_gpu
    t["opencl"] = bool(re.search(r"^opencl\s+available", devs, re.M))
    t["ocl_desc"] = ""
    m = re.search(r"^opencl\s+available.*\n\s+0: ([^(\n]+)", devs, re.M)
    if m:
        t["ocl_desc"] = m.group(1).strip()
    return t


def count_peer(ctx, name, pat, path, threads=1):
    """(label, argv, env) of a search peer counting one literal in path."""
    c = ctx.tools[name].count([pat.encode()], None, False, path, threads)
    return c.argv, c.env


def haystack(ctx, hid):
    defs = json.load(open(benchrun.DEFS))
    return benchrun.generate(hid, defs["haystacks"][hid], ctx.args.data, ctx.args.work)


def case(ctx, part):
    """The part's case in bench/defs.json ("parts"), and for parts with a
    haystack its id in this mode (quick or full)."""
    c = json.load(open(benchrun.DEFS))["parts"][part]
    hid = c["haystack"][0 if ctx.args.quick else 1] if "haystack" in c else None
    return c, hid


def check_expect(ctx, what, counts, want):
    """Every count of a case equals the others and the expected count."""
    ctx.check(len(set(counts.values())) == 1, "%s: counts differ %s" % (what, counts))
    if want is not None:
        ctx.check(all(c == want for c in counts.values()),
                  "%s: want %d, got %s" % (what, want, counts))


def count_of(out):
    return int(out.strip().splitlines()[-1].rsplit(":", 1)[-1])



def gpu_bench(ctx, argv):
    """cuda_exact_bench rows through gpu_exact.py's parser."""
    import gpu_exact as cuda_exact
    ns = argparse.Namespace(build=ctx.args.build, out=ctx.args.out)
    cuda_exact.FAILS[:] = []
    rows, init = cuda_exact.gpu_bench(ns, argv)
    for f in cuda_exact.FAILS:
        ctx.check(False, f)
    return rows, [ctx.tools["cuda_exact_bench"]] + argv


# --------------------------------------------------------------------------
# Parts
# --------------------------------------------------------------------------

def part_search(ctx):
    a, t = ctx.args, ctx.tools
    out = os.path.join(a.out, "search")
    cmd = [sys.executable, RUN_PY, "search", "--hay", t["hay"],
           "--data", a.data, "--out", out, "--work", a.work, "--carry", a.carry]
    if a.quick:
        cmd.append("--quick")
    else:
        cmd += ["--runs", str(a.runs)]
    if t.get("rg"):
        cmd += ["--rg", t["rg"].path]
    if t.get("hs"):
        cmd += ["--hs-bench", t["hs"].path]
    cmd += a.search_args
    log("$ " + shell_join(cmd))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open(os.path.join(a.out, "search.log"), "wb") as f:
        f.write(p.stderr + p.stdout)
    ctx.check(p.returncode == 0, "search: bench/run.py search exit %d (see search.log)" % p.returncode)
    res = os.path.join(out, "results.csv")
    if not os.path.exists(res):
        return
    for r in csv.DictReader(open(res, newline="")):
        st = "ok" if r["status"] == "ok" else r["status"]
        for metric, key, unit in (("scan_GBps", "scan_gbps", "GB/s"),
                                  ("wall_GBps", "wall_gbps", "GB/s"),
                                  ("wall_s", "wall_median_s", "s")):
            if r[key] not in ("", "-"):
                ctx.add("search", r["bench"], r["label"], metric, r[key], unit, r["command"], st)
        j = r.get("cpu_j_per_gb", "unavailable")
        ctx.add("energy-search", "search " + r["bench"], r["label"], "J_per_GB", j, "J/GB",
                r["command"], "ok" if j != "unavailable" else "unavailable")


def median_runs(ctx, cmd, runs, env=None, warmup=1):
    """Median wall seconds (and scan seconds when the tool prints stats),
    the last count, and the median CPU/GPU joules."""
    walls, scans, cj, gj, cnt = [], [], [], [], None
    for i in range(warmup + runs):
        out, err, e = ctx.run(cmd, env=env, ok=(0, 1))
        if i < warmup:
            continue
        walls.append(e.seconds)
        st = benchrun.parse_stats(err)
        s = cell(st.get("scan", {}).get("seconds"))
        if s is not None:
            scans.append(s)
        if e.cpu_j is not None:
            cj.append(e.cpu_j)
        if e.gpu_j is not None:
            gj.append(e.gpu_j)
        cnt = count_of(out)
    med = statistics.median
    return {"wall": med(walls), "scan": med(scans) if scans else None, "count": cnt,
            "cpu_j": med(cj) if cj else None, "gpu_j": med(gj) if gj else None,
            "stderr": err}


def part_poster(ctx):
    import gpu_exact as cuda_exact
    a, t = ctx.args, ctx.tools
    c, _ = case(ctx, "poster")
    book = open(os.path.join(a.data, c["book"]), "rb").read()
    planted = cuda_exact.plant(book, c["plant"].encode())
    files = []
    for i, mult in enumerate(c["copies"]):
        f = os.path.join(a.work, "sherlock-%s-x%d.txt" % (c["plant"].lower(), mult))
        open(f, "wb").write(planted * mult)
        files.append(("poster-t%d" % (i + 1), f, mult))
    runs = a.runs
    kernels = ["brute-global", "brute-reg", "brute-first", "bm-gpu", "gpu-fast"]
    names = {"brute-global": "GPU data->global, key->global (brute-global)",
             "brute-reg": "GPU data->global, key->register (brute-reg)",
             "brute-first": "GPU data->global, key0->register (brute-first)",
             "bm-gpu": "GPU bm-gpu", "gpu-fast": "GPU gpu-fast"}
    for tab, path, mult in files:
        for word in c["words"]:
            want = c["expect_per_copy"][word] * mult
            counts = {}
            cpu = [("GNU grep -c (lines)",) + count_peer(ctx, "grep", word, path),
                   ("hay find (CPU)", [t["hay"], "find", "--backend", "cpu", "--count-matches",
                                       "-e", word, path], None),
                   ("hay find (auto backend)", [t["hay"], "find", "--count-matches", "-e", word,
                                                path], None)]
            if t.get("rg"):
                cpu.insert(1, ("ripgrep --count-matches",) + count_peer(ctx, "rg", word, path))
            for name, cmd, env in cpu:
                r = median_runs(ctx, cmd, runs, env=env)
                ctx.add(tab, word, name, "time_ms", r["wall"] * 1e3, "ms", cmd)
                ctx.add(tab, word, name, "count", r["count"], "matches" if "grep" not in name
                        else "lines", cmd)
                if "grep" not in name:
                    counts[name] = r["count"]
            if t["cuda"] and t["cuda_exact_bench"]:
                argv = ["--file", path, "--pattern", word, "--list", "--e2e", "--runs",
                        str(runs)]
                for k in kernels:
                    argv += ["--engine", k]
                rows, cmd = gpu_bench(ctx, argv)
                for row in rows:
                    if row["engine"] not in names:
                        continue
                    n = names[row["engine"]]
                    ctx.add(tab, word, n, "time_ms", row["e2e_ms"], "ms", cmd)
                    ctx.add(tab, word, n, "kernel_ms", row["kernel_ms"], "ms", cmd)
                    ctx.add(tab, word, n, "count", row["count"], "matches", cmd)
                    counts[n] = int(row["count"])
            else:
                for k in kernels:
                    for m, u in (("time_ms", "ms"), ("kernel_ms", "ms")):
                        ctx.skip(tab, word, names[k], m, u)
            check_expect(ctx, "%s %s" % (tab, word), counts, want)


def part_bm(ctx):
    import gpu_exact as cuda_exact
    a, t = ctx.args, ctx.tools
    c, hid = case(ctx, "bm")
    path, size = haystack(ctx, hid)
    off = cuda_exact.clean_offset(path, min(c["offset"], size // 2))
    with open(path, "rb") as f:
        f.seek(off)
        text = f.read(50)
    lens = c["lengths"]
    N = a.threads
    runs = a.runs
    tl = sorted(set([1, 2, 4, 8, 16, 32, 64, 128]) & set(range(1, N + 1)) | {N})
    cpu_cfg = [("CPU bm serial (1T)", ["--threads", "1"]),
               ("CPU bm %dT static" % N, ["--threads", str(N), "--schedule", "static"]),
               ("CPU bm %dT dynamic" % N, ["--threads", str(N), "--schedule", "dynamic"])]
    for n in tl:
        if n not in (1, N):
            cpu_cfg.append(("CPU bm %dT dynamic" % n, ["--threads", str(n), "--schedule",
                                                       "dynamic"]))
    gbps = {}      # (engine, m) -> Gbps
    counts = {}    # m -> {engine: count}
    cmds = {}
    for name, extra in cpu_cfg:
        for m in lens:
            pat = text[:m].decode()
            cmd = [t["hay"], "find", "--backend", "cpu", "--algo", "bm", "--count-matches",
                   "--stats"] + extra + ["-e", pat, path]
            r = median_runs(ctx, cmd, runs)
            secs = r["scan"] or r["wall"]
            gbps[(name, m)] = 8 * size / secs / 1e9
            counts.setdefault(m, {})[name] = r["count"]
            cmds[name] = cmd
    serial = cpu_cfg[0][0]
    stat, dyn = cpu_cfg[1][0], cpu_cfg[2][0]
    degs = [1, 2, 4, 8, 16, 32, 64]
    pairs = [(16, 128), (8, 256), (4, 512), (2, 1024)]
    gpu_names = {}
    if t["cuda"] and t["cuda_exact_bench"]:
        argv = ["--file", path, "--pat-at", str(off), "--lens", ",".join(map(str, lens)),
                "--runs", str(runs)]
        eng = ["gpu-fast"] + ["bm-gpu:cascade=%d" % d for d in degs] + \
            ["bm-gpu:blocks_per_sm=%d,threads=%d,cascade=1" % p for p in pairs]
        for e in eng:
            argv += ["--engine", e]
        rows, gcmd = gpu_bench(ctx, argv)
        for r in rows:
            if r["engine"] == "read-ceiling":
                continue
            key = r["engine"] + (":" + r["params"] if r.get("params") else "")
            m = int(r["m"])
            gbps[(key, m)] = 8 * float(r["kernel_GBps"])
            counts.setdefault(m, {})["GPU " + key] = int(r["count"])
            cmds[key] = gcmd
        gpu_names = {k for k, _ in gbps if not k.startswith("CPU")}
    for m in lens:
        ctx.check(len(set(counts.get(m, {}).values())) == 1,
                  "bm m=%d: counts differ %s" % (m, counts.get(m)))

    def put(table, engine, key, kind="Gbps", base=None):
        for m in lens:
            if key.startswith("CPU") or key in gpu_names:
                if kind == "Gbps":
                    ctx.add(table, "m=%d" % m, engine, "Gbps", gbps[(key, m)], "Gbps",
                            cmds.get(key, ""))
                else:
                    ctx.add(table, "m=%d" % m, engine, "speedup",
                            gbps[(key, m)] / gbps[(base, m)], "x", cmds.get(key, ""))
            else:
                ctx.skip(table, "m=%d" % m, engine, kind, "Gbps" if kind == "Gbps" else "x")

    put("bm-fig13", serial, serial)
    put("bm-fig13", stat, stat)
    put("bm-fig13", dyn, dyn)
    put("bm-fig14", stat, stat, "speedup", serial)
    put("bm-fig14", dyn, dyn, "speedup", serial)
    for n in tl:
        key = serial if n == 1 else "CPU bm %dT dynamic" % n
        put("bm-fig15", "CPU bm %dT%s" % (n, "" if n == 1 else " dynamic"), key)
        if n > 1:
            put("bm-fig16", "CPU bm %dT dynamic" % n, key, "speedup", serial)
    put("bm-fig17", serial, serial)
    put("bm-fig17", "GPU bm-gpu without ACC (cascade 1)", "bm-gpu:cascade=1")
    put("bm-fig17", "GPU bm-gpu with ACC (cascade 64)", "bm-gpu:cascade=64")
    put("bm-fig17", "GPU gpu-fast (ours)", "gpu-fast")
    put("bm-fig18", "GPU bm-gpu without ACC (cascade 1)", "bm-gpu:cascade=1", "speedup", serial)
    put("bm-fig18", "GPU bm-gpu with ACC (cascade 64)", "bm-gpu:cascade=64", "speedup", serial)
    put("bm-fig18", "GPU gpu-fast (ours)", "gpu-fast", "speedup", serial)
    for d in degs:
        put("bm-fig19", "GPU bm-gpu cascade %d" % d, "bm-gpu:cascade=%d" % d)
        if d > 1:
            put("bm-fig20", "GPU bm-gpu cascade %d" % d, "bm-gpu:cascade=%d" % d, "speedup",
                "bm-gpu:cascade=1")
    for b, th in pairs:
        key = "bm-gpu:blocks_per_sm=%d,threads=%d,cascade=1" % (b, th)
        put("bm-fig21", "GPU bm-gpu (%d, %d)" % (b, th), key)
        put("bm-fig22", "GPU bm-gpu (%d, %d)" % (b, th), key, "speedup", serial)
    put("bm-fig23", serial, serial)
    put("bm-fig23", dyn, dyn)
    put("bm-fig23", "GPU bm-gpu with ACC (cascade 64)", "bm-gpu:cascade=64")
    put("bm-fig23", "GPU gpu-fast (ours)", "gpu-fast")
    put("bm-fig24", dyn, dyn, "speedup", serial)
    put("bm-fig24", "GPU bm-gpu with ACC (cascade 64)", "bm-gpu:cascade=64", "speedup", serial)
    put("bm-fig24", "GPU gpu-fast (ours)", "gpu-fast", "speedup", serial)
    ctx.notes.append("bm: haystack %s (%d bytes); patterns: the first 5..50 bytes at offset "
                     "%d (%r...); CPU: scan phase of `hay find --algo bm --stats`; GPU: "
                     "kernel only, text resident (cuda_exact_bench); median of %d after 1 "
                     "warm-up; Gbps = 8 * bytes / s / 1e9." % (os.path.basename(path), size, off,
                                                              text[:20].decode(), runs))


GPU_BIG_ENGINES = ["gpu-fast", "gpu-fast:filter=3", "bm-gpu", "brute-first"]


def part_gpu(ctx):
    """One literal over the 1 GiB corpus (quick: the small haystack) on the
    GPU's one-pattern engines (cuda_exact_bench): kernel only (text resident),
    end to end from pinned memory in one copy, pipelined 64 MiB pieces on two
    streams, the read ceiling; with the match list and caseless; beside
    Hyperscan and hay on N CPU threads (scan phase and whole command)."""
    a, t = ctx.args, ctx.tools
    c, hid = case(ctx, "gpu")
    path, size = haystack(ctx, hid)
    pat = c["pattern"]
    row = "'%s' / %s" % (pat, os.path.basename(path))
    N = a.threads
    counts = {}
    if t["cuda"] and t["cuda_exact_bench"]:
        argv = ["--file", path, "--pattern", pat, "--ceiling", "--e2e", "--pipeline",
                str(64 << 20), "--runs", str(a.runs)]
        for e in GPU_BIG_ENGINES:
            argv += ["--engine", e]
        rows, cmd = gpu_bench(ctx, argv)
        for r in rows:
            name = "GPU " + r["engine"] + (" " + r["params"] if r.get("params") else "")
            if r["engine"] == "read-ceiling":
                ctx.add("gpu-1g", row, "GPU read ceiling (16-byte loads, no matching)", "GBps",
                        r["kernel_GBps"], "GB/s", cmd)
                continue
            counts[name] = int(r["count"])
            ctx.add("gpu-1g", row, name + " (kernel)", "GBps", r["kernel_GBps"], "GB/s", cmd)
            ctx.add("gpu-1g", row, name + " (end to end)", "GBps", r["e2e_GBps"], "GB/s", cmd)
            ctx.add("gpu-1g", row, name + " (pipelined)", "GBps", r["pipe_GBps"], "GB/s", cmd)
        first = GPU_BIG_ENGINES[0]
        rows, cmd = gpu_bench(ctx, ["--file", path, "--pattern", pat, "--list", "--runs",
                                    str(a.runs), "--engine", first])
        for r in rows:
            if r["engine"] != "read-ceiling":
                counts["GPU %s with the match list" % first] = int(r["count"])
                ctx.add("gpu-1g", row, "GPU %s with the match list (kernel)" % first, "GBps",
                        r["kernel_GBps"], "GB/s", cmd)
        ci = "'%s' caseless / %s" % (pat.lower(), os.path.basename(path))
        argv = ["--file", path, "--pattern", pat.lower(), "--ci", "--runs", str(a.runs)]
        for e in GPU_BIG_ENGINES[:2]:
            argv += ["--engine", e]
        rows, cmd = gpu_bench(ctx, argv)
        for r in rows:
            if r["engine"] != "read-ceiling":
                ctx.add("gpu-1g", ci, "GPU %s (kernel)" % r["engine"] +
                        (" " + r["params"] if r.get("params") else ""), "GBps",
                        r["kernel_GBps"], "GB/s", cmd)
                ctx.add("gpu-1g", ci, "GPU %s" % r["engine"], "count", r["count"], "matches",
                        cmd)
    else:
        for e in GPU_BIG_ENGINES:
            ctx.skip("gpu-1g", row, "GPU %s (kernel)" % e, "GBps", "GB/s")
    cpu = [("hay find CPU %dT" % N, [t["hay"], "find", "--backend", "cpu", "--count-matches",
                                     "--stats", "--threads", str(N), "-e", pat, path], None)]
    if t.get("hs"):
        cpu.append(("Hyperscan %dT" % N,) + count_peer(ctx, "hs", pat, path, N))
    for name, cmd, env in cpu:
        r = median_runs(ctx, cmd, a.runs, env=env)
        counts[name] = r["count"]
        if r["scan"]:
            ctx.add("gpu-1g", row, name + " (scan)", "GBps", size / r["scan"] / 1e9, "GB/s", cmd)
        ctx.add("gpu-1g", row, name + " (whole command)", "GBps", size / r["wall"] / 1e9,
                "GB/s", cmd)
    check_expect(ctx, "gpu", counts, c["expect"][hid])


def snort_patterns(ctx):
    import snort_select
    pats = snort_select.select(ctx.args.data)
    pf = os.path.join(ctx.args.work, "snort-1000.esc.txt")
    with open(pf, "wb") as f:
        f.write(b"".join(benchrun.encode_escapes(p) + b"\n" for p in pats))
    return pats, pf


def part_pfac(ctx):
    a, t = ctx.args, ctx.tools
    # Figs. 7/8: the OpenCL knob table (bench/ocl_bench.c), on the OpenCL device at hand.
    if t["hay_ocl_bench"] and t["opencl"]:
        csvp = os.path.join(a.out, "ocl-fig78.csv")
        cmd = [t["hay_ocl_bench"], "--data", a.data, "--runs", str(a.runs), "--csv", csvp,
               "--rows", "paper" if a.quick else "all"]
        if a.quick:
            cmd += ["--size", "2M"]
        env = dict(os.environ, HAY_CACHE_DIR=os.path.join(a.work, "opencl-cache"))
        out = ctx.run_saved(cmd, "pfac: hay_ocl_bench", "ocl-fig78.md", env=env)
        dev = t["ocl_desc"] or "OpenCL device 0"
        if os.path.exists(csvp):
            for r in csv.DictReader(open(csvp, newline="")):
                row = "transfer=%s,local=%s,wg=%s,bpw=%s" % (r["transfer"], r["local"], r["wg"],
                                                            r["bpw"])
                st = "ok" if r["ok"] == "1" else "FAIL"
                ctx.check(st == "ok", "pfac OpenCL row %s: count check failed" % row)
                eng = "OpenCL " + dev
                for k, u in (("prepare_ms", "ms"), ("write_ms", "ms"), ("kernel_ms", "ms"),
                             ("read_ms", "ms"), ("gpu_total_ms", "ms"),
                             ("speedup_vs_cpu1", "x")):
                    ctx.add("pfac-fig7-8", row, eng, "total_ms" if k == "gpu_total_ms" else k,
                            r[k], u, cmd, st)
                for k in ("write_j", "kernel_j", "read_j"):
                    j = cell(r[k])
                    ctx.add("pfac-fig7-8", row, eng, k.replace("_j", "_J"),
                            r[k] if j is not None and j >= 0 else "unavailable", "J", cmd,
                            st if j is not None and j >= 0 else "unavailable")
    else:
        ctx.skip("pfac-fig7-8", "all knob rows", "OpenCL", "total_ms", "ms",
                 "skipped (no OpenCL device or hay_ocl_bench not built)")
    # Fig. 7 knobs on CUDA (bench/cuda_pfac_bench.c).
    patfile = os.path.join(a.data, "patterns", "snort-community.txt")
    textdir = os.path.join(a.data, "text")
    if t["cuda"] and t["cuda_pfac_bench"]:
        cmd = [t["cuda_pfac_bench"], "fig7", patfile, textdir, "--reps", str(a.runs)]
        out = ctx.run_saved(cmd, "pfac: cuda_pfac_bench fig7", "cuda-pfac-fig7.txt", ok=(0, 1))
        for line in out.splitlines():
            if line.startswith("#") or "|" not in line or line.startswith("knobs"):
                continue
            knobs, nums, lst, ok = [x.strip() for x in line.split("|")]
            v = nums.split()
            lv = lst.split()
            st = "ok" if ok == "yes" else "FAIL"
            ctx.check(st == "ok", "pfac CUDA %s: counts differ" % knobs)
            for k, x, u in (("copy_in_ms", v[0], "ms"), ("kernel_ms", v[1], "ms"),
                            ("copy_out_ms", v[2], "ms"), ("total_ms", v[3], "ms"),
                            ("speedup_vs_cpu_ac1", v[4], "x"), ("list_total_ms", lv[0], "ms")):
                ctx.add("pfac-fig7-cuda", knobs, "CUDA pfac", k, x, u, cmd, st)
    else:
        ctx.skip("pfac-fig7-cuda", "all knob rows", "CUDA pfac", "total_ms", "ms")
    # Figs. 9/10: CPU threads against the GPU, 1,000 Snort patterns over text10m.
    pats, pf = snort_patterns(ctx)
    c, hid = case(ctx, "pfac")
    path, size = haystack(ctx, hid)
    N = a.threads
    tl = sorted(set([1, 2, 4, 8, 12, 16, 32, 64]) & set(range(1, N + 1)) | {N})
    counts = {}
    base = None
    res = []
    for n in tl:
        cmd = [t["hay"], "find", "--backend", "cpu", "--algo", "dfa", "--count-matches",
               "--stats", "--threads", str(n), "-f", pf, "--escapes", path]
        r = median_runs(ctx, cmd, a.runs)
        res.append(("CPU dfa %dT" % n, r, cmd))
    if t.get("hs"):
        cmd = t["hs"].count(pats, {"escaped": pf}, False, path, N).argv
        res.append(("Hyperscan %dT" % N, median_runs(ctx, cmd, a.runs), cmd))
    for backend, avail in (("opencl", t["opencl"]), ("cuda", t["cuda"])):
        name = "%s pfac (hay find --backend %s)" % ("OpenCL" if backend == "opencl" else "GPU",
                                                    backend)
        if not avail:
            ctx.skip("pfac-fig9-10", "1000 snort / text10m", name, "ms", "ms",
                     NO_GPU if backend == "cuda" else "skipped (no OpenCL device)")
            continue
        cmd = [t["hay"], "find", "--backend", backend, "--count-matches", "--stats", "-f", pf,
               "--escapes", path]
        env = dict(os.environ, HAY_CACHE_DIR=os.path.join(a.work, "opencl-cache"))
        res.append((name, median_runs(ctx, cmd, a.runs, env=env), cmd))
    for name, r, cmd in res:
        secs = r["scan"] or r["wall"]
        if base is None:
            base = secs
        ctx.add("pfac-fig9-10", "1000 snort / text10m", name, "ms", secs * 1e3, "ms", cmd)
        ctx.add("pfac-fig9-10", "1000 snort / text10m", name, "speedup_vs_cpu1", base / secs,
                "x", cmd)
        counts[name] = r["count"]
        gpu = "--backend" in cmd and cmd[cmd.index("--backend") + 1] != "cpu"
        env = dict(os.environ, HAY_CACHE_DIR=os.path.join(a.work, "opencl-cache"))
        add_energy(ctx, "energy-search", "pfac 1000 snort / text10m", name,
                   energy_loop(ctx, cmd, env=env), size, cmd, gpu=gpu)
    check_expect(ctx, "pfac fig9-10", counts, c["expect"][hid])


def device_phases(stderr):
    """hay find --stats' device phase lines: {phase: (seconds, joules or None)}, method."""
    ph, method = {}, None
    for line in stderr.splitlines():
        m = re.match(r"stats: device phase=(\w+) seconds=([\d.]+) joules=(\S+)", line)
        if m:
            ph[m.group(1)] = (float(m.group(2)), cell(m.group(3)))
        m = re.match(r"stats: device energy=(\S+)", line)
        if m:
            method = m.group(1)
    return ph, method


ENERGY_WINDOW_S = 2.0


def energy_loop(ctx, cmd, env=None, window=ENERGY_WINDOW_S):
    """Runs cmd back to back for at least `window` seconds (2 runs at least)
    under one meter reading, so that NVML's counter, which moves in steps of
    tens of milliseconds, and RAPL see a long interval; returns the mean
    joules per run (cpu_j, gpu_j) and the last stderr."""
    n, err = 0, ""
    with ctx.meters.measure() as e:
        t0 = time.perf_counter()
        while n < 2 or time.perf_counter() - t0 < window:
            p = subprocess.run([str(c) for c in cmd], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env=env)
            err = p.stderr.decode("utf-8", "replace")
            n += 1
    return {"cpu_j": None if e.cpu_j is None else e.cpu_j / n,
            "gpu_j": None if e.gpu_j is None else e.gpu_j / n, "stderr": err, "runs": n}


def add_energy(ctx, table, row, name, r, size, cmd, cells=None, gpu=False):
    """Whole-process energy of a measured command (RAPL for the CPU, NVML for
    the GPU: rows that use it) per GB (or per giga cell update), and the
    device's own phases (the library's meter, `hay find --stats`)."""
    per, unit, metric = (size / 1e9, "J/GB", "J_per_GB") if cells is None else \
        (cells / 1e9, "J/GCU", "J_per_GCU")
    if r["cpu_j"] is not None:
        ctx.add(table, row, name, metric, r["cpu_j"] / per, unit + " (CPU package, RAPL)", cmd)
    else:
        ctx.add(table, row, name, metric, "unavailable", unit + " (CPU package, RAPL)", cmd,
                "unavailable")
    if gpu and r["gpu_j"] is not None:
        ctx.add(table, row, name, metric + "_gpu", r["gpu_j"] / per, unit + " (GPU, %s)"
                % ctx.meters.gpu_method, cmd)
    ph, method = device_phases(r.get("stderr", ""))
    for p, (s, j) in ph.items():
        ctx.add(table, row, name, "%s_J" % p, j if j is not None else "unavailable",
                "J (device phase, %s)" % (method or "unavailable"), cmd,
                "ok" if j is not None else "unavailable")


def random_protein(n, seed):
    """sw_cuda_bench's random_seq (xorshift64, 20 residues), as letters."""
    letters = "ARNDCQEGHILKMFPSTWYV"
    s = (seed * 0x9e3779b97f4a7c15 + 1) & (2**64 - 1)
    out = []
    for _ in range(n):
        s ^= (s << 13) & (2**64 - 1)
        s ^= s >> 7
        s ^= (s << 17) & (2**64 - 1)
        out.append(letters[s % 20])
    return "".join(out)


def write_fasta(path, name, s):
    with open(path, "w") as f:
        f.write(">%s\n" % name)
        for i in range(0, len(s), 60):
            f.write(s[i:i + 60] + "\n")


def part_sw(ctx):
    a, t = ctx.args, ctx.tools
    lens = [3000] if a.quick else [3000, 8461]
    gpu_scores = {}
    if t["cuda"] and t["sw_cuda_bench"]:
        cmd = [t["sw_cuda_bench"], "table", "--runs", str(a.runs)]
        out = ctx.run_saved(cmd, "sw: sw_cuda_bench table", "sw-cuda-table.tsv")
        for line in out.splitlines():
            f = line.split("\t")
            if f[0] == "best":
                pair, var = f[1], f[2]
                ctx.add("sw-table", pair, "GPU " + var, "fill_ms", f[4], "ms", cmd)
                ctx.add("sw-split", pair + " " + var, "GPU", "compute_ms", f[5], "ms", cmd)
                ctx.add("sw-split", pair + " " + var, "GPU", "sync_ms", f[6], "ms", cmd)
                ctx.add("sw-split", pair + " " + var, "GPU", "sync_pct", f[7], "%", cmd)
                ctx.add("sw-split", pair + " " + var, "GPU", "best_blocks", f[3], "blocks",
                        cmd)
            elif re.match(r"\d+x\d+$", f[0]) and len(f) >= 10:
                ctx.add("sw-table", f[0], "GPU %s blocks=%s" % (f[1], f[2]), "GCUPS", f[8],
                        "GCUPS", cmd)
                gpu_scores.setdefault(f[0], set()).add(int(f[9]))
        for pair, sc in gpu_scores.items():
            ctx.check(len(sc) == 1, "sw GPU %s: scores differ %s" % (pair, sc))
    else:
        for L in (3000, 8461):
            for v in ("simple-cpu", "simple-gpu", "coalesced-cpu", "coalesced-gpu",
                      "tiled-cpu", "tiled-gpu"):
                ctx.skip("sw-table", "%dx%d" % (L, L), "GPU " + v, "fill_ms", "ms")
                for m in ("compute_ms", "sync_ms"):
                    ctx.skip("sw-split", "%dx%d %s" % (L, L, v), "GPU", m, "ms")
    # The CPU rows: the same pairs (sw_cuda_bench's generator), BLOSUM62, gaps 11/1.
    for L in lens:
        pair = "%dx%d" % (L, L)
        q = os.path.join(a.work, "sw-%d-q.fa" % L)
        tg = os.path.join(a.work, "sw-%d-t.fa" % L)
        write_fasta(q, "q%d" % L, random_protein(L, 11 + (L == 8461)))
        write_fasta(tg, "t%d" % L, random_protein(L, 101 + (L == 8461)))
        cells = L * L
        hay_parse = (lambda out, err: (int(out.splitlines()[0].split("\t")[2]),
                                       cell(re.search(r"seconds=([0-9.]+)", err).group(1))))
        engines = [("hay align scalar 1T", [t["hay"], "align", "--score-only", "--stats", "-j",
                                            "1", "--variant", "scalar", "--protein", q, tg],
                    None, hay_parse),
                   ("hay align 1T (auto)", [t["hay"], "align", "--score-only", "--stats", "-j",
                                            "1", "--protein", q, tg], None, hay_parse)]
        # The alignment peers (bench/adapters/peers.py), one thread each.
        for k, name, why in (("parasail", "parasail striped16 1T", "not available"),
                             ("ssw", "SSW (libssw) 1T", "not available"),
                             ("water", "EMBOSS water", "EMBOSS water not on this machine")):
            if t.get(k):
                c = t[k].align(q, tg, {"matrix": "blosum62", "open": 11, "extend": 1}, 1)
                engines.append((name, c.argv, c.env, c.parse))
            else:
                ctx.skip("sw-table", pair, name.rsplit(" 1T", 1)[0], "fill_ms", "ms",
                         "skipped (%s)" % why)
        scores = {}
        for name, cmd, env, parse in engines:
            secs, score, cj = [], None, []
            for i in range(1 + a.runs):
                try:
                    out, err, e = ctx.run(cmd, env=env, timeout=a.part_timeout)
                except (RuntimeError, subprocess.TimeoutExpired) as ex:
                    ctx.check(False, "sw %s %s: %s" % (pair, name, ex))
                    break
                score, s = parse(out, err)
                if s is None:
                    s = e.seconds   # the whole command: the tool has no phase timer
                if i:
                    secs.append(s)
                    if e.cpu_j is not None:
                        cj.append(e.cpu_j)
            if not secs:
                continue
            med = statistics.median(secs)
            scores[name] = score
            ctx.add("sw-table", pair, name, "fill_ms", med * 1e3, "ms", cmd)
            ctx.add("sw-table", pair, name, "GCUPS", cells / med / 1e9, "GCUPS", cmd)
            ctx.add("sw-table", pair, name, "score", score, "score", cmd)
            add_energy(ctx, "energy-align", "sw " + pair, name,
                       {"cpu_j": statistics.median(cj) if cj else None, "gpu_j": None}, 0, cmd,
                       cells)
        if pair in gpu_scores:
            scores["GPU"] = sorted(gpu_scores[pair])[0]
        ctx.check(len(set(scores.values())) == 1, "sw %s: scores differ %s" % (pair, scores))
    # GCUPS against length (bench/lib/align.py: hay against parasail).
    out = os.path.join(a.out, "align")
    cmd = [sys.executable, RUN_PY, "align", "--hay", t["hay"], "--data",
           a.data, "--out", out, "--runs", str(a.runs), "--threads", str(a.threads)]
    if t.get("parasail"):
        cmd += ["--parasail-bench", t["parasail"].path]
    if a.quick:
        cmd += ["--quick", "--scalar-max-cells", "2e8"]
    log("$ " + shell_join(cmd))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    open(os.path.join(a.out, "align.log"), "wb").write(p.stdout)
    ctx.check(p.returncode == 0, "sw: run.py align exit %d (see align.log)" % p.returncode)
    res = os.path.join(out, "results.csv")
    if p.returncode == 0 and os.path.exists(res):
        for r in csv.DictReader(open(res, newline="")):
            ctx.add("sw-gcups", "%s (%s cells)" % (r["workload"], r["cells"]), r["engine"],
                    "GCUPS", r["gcups"], "GCUPS", r["command"],
                    "ok" if r["check"] == "ok" else "FAIL")
    if t["cuda"] and t["sw_cuda_bench"]:
        cmd = [t["sw_cuda_bench"], "scale", "--data", a.data, "--runs", str(a.runs)]
        if a.quick:
            cmd += ["--max-cells", "1e9"]
        o = ctx.run_saved(cmd, "sw: sw_cuda_bench scale", "sw-cuda-scale.tsv")
        for line in o.splitlines():
            f = line.split("\t")
            if len(f) >= 10 and not line.startswith(("#", "pair")):
                cells = int(f[1]) * int(f[2])
                ctx.add("sw-gcups", "%s (%.3g cells)" % (f[0], cells), "GPU " + f[3],
                        "GCUPS", f[8], "GCUPS", cmd)
    else:
        ctx.skip("sw-gcups", "scale (mito .. 1 Mbp)", "GPU fast", "GCUPS", "GCUPS")


def part_energy(ctx):
    a, t = ctx.args, ctx.tools
    c, hid = case(ctx, "energy")
    path, size = haystack(ctx, hid)
    pat = c["pattern"]
    row = "'%s' / %s" % (pat, os.path.basename(path))
    N = a.threads
    cmds = [("hay find CPU %dT" % N, [t["hay"], "find", "--backend", "cpu", "--count-matches",
                                      "--stats", "--threads", str(N), "-e", pat, path], None),
            ("GNU grep -c (lines)",) + count_peer(ctx, "grep", pat, path)]
    if t.get("rg"):
        cmds.append(("ripgrep",) + count_peer(ctx, "rg", pat, path))
    if t.get("hs"):
        cmds.append(("Hyperscan %dT" % N,) + count_peer(ctx, "hs", pat, path, N))
    if t["cuda"]:
        cmds.append(("hay find CUDA", [t["hay"], "find", "--backend", "cuda", "--count-matches",
                                       "--stats", "-e", pat, path], None))
    else:
        ctx.skip("energy-search", row, "hay find CUDA", "J_per_GB", "J/GB")
    counts = {}
    for name, cmd, env in cmds:
        r = median_runs(ctx, cmd, a.runs, env=env)
        if "grep" not in name:
            counts[name] = r["count"]
        add_energy(ctx, "energy-search", row, name, energy_loop(ctx, cmd, env=env), size, cmd,
                   gpu="CUDA" in name)
    check_expect(ctx, "energy", counts, c["expect"][hid])
    # The CUDA search phase by phase (bench/gpu_phases.c): each phase repeated
    # back to back for 2 s under NVML's counter, joules per repetition.
    if t["cuda"] and t["gpu_phases"]:
        cmd = [t["gpu_phases"], "--backend", "cuda", "--runs", str(max(a.runs, 3)),
               "--energy-seconds", "2", "-e", pat, path]
        out = ctx.run_saved(cmd, "energy: gpu_phases", "gpu-phases.txt")
        tsv = out.split("# tsv", 1)[-1].splitlines()[1:] if "# tsv" in out else []
        for line in tsv:
            f = line.split("\t")
            if len(f) == 4:
                ctx.add("energy-phases", row, "hay CUDA: " + f[0], f[1], float(f[2]), f[3],
                        cmd)
        ctx.check(bool(tsv), "energy: gpu_phases printed no figures")
    else:
        ctx.skip("energy-phases", row, "hay CUDA (gpu_phases)", "J_per_GB", "J/GB")
    # Alignment: joules per giga cell update on the mito pair (hay, parasail) and the GPU.
    dp = os.path.join(a.data, "bio", "dna-pairs")
    q, tg = os.path.join(dp, "MT-human.fa"), os.path.join(dp, "MT-orang.fa")
    cmds = [("hay align %dT" % N, [t["hay"], "align", "--score-only", "--stats", "-j", str(N),
                                   "--dna", "--strand", "plus", q, tg])]
    if t.get("parasail"):
        dna = {"dna": (2, -3), "open": 5, "extend": 2}
        cmds.append(("parasail striped16 1T", t["parasail"].align(q, tg, dna, 1).argv))
    for name, cmd in cmds:
        r = median_runs_align(ctx, cmd, 1)
        add_energy(ctx, "energy-align", "mito pair", name, energy_loop(ctx, cmd), 0, cmd,
                   r["cells"])
    if t["cuda"] and t["sw_cuda_bench"]:
        cmd = [t["sw_cuda_bench"], "scale", "--data", a.data, "--runs", "3",
               "--variants", "fast", "--max-cells", "1e9"]
        out, _, e = ctx.run(cmd, timeout=a.part_timeout)
        cells = 0
        for line in out.splitlines():
            f = line.split("\t")
            if len(f) >= 10 and not line.startswith(("#", "pair")):
                cells += 4 * int(f[1]) * int(f[2])   # warm-up + 3 runs
        if cells and e.gpu_j is not None:
            ctx.add("energy-align", "sw_cuda_bench scale (whole process)", "GPU fast",
                    "J_per_GCU_gpu", e.gpu_j / (cells / 1e9), "J/GCU (GPU, %s)"
                    % ctx.meters.gpu_method, cmd)
    else:
        ctx.skip("energy-align", "sw_cuda_bench scale", "GPU fast", "J_per_GCU_gpu", "J/GCU")


def median_runs_align(ctx, cmd, runs):
    cj, gj, cells, err = [], [], 0, ""
    for i in range(1 + runs):
        out, err, e = ctx.run(cmd)
        m = re.search(r"cells=(\d+)", err + out)
        cells = int(m.group(1)) if m else 0
        if i:
            if e.cpu_j is not None:
                cj.append(e.cpu_j)
            if e.gpu_j is not None:
                gj.append(e.gpu_j)
    return {"cpu_j": statistics.median(cj) if cj else None,
            "gpu_j": statistics.median(gj) if gj else None, "cells": cells, "stderr": err}


# --------------------------------------------------------------------------


from find_walk import part_walk  # noqa: E402,F401  (it imports this module's helpers)
from batch_part import part_batch  # noqa: E402,F401  (likewise)
from auto_part import part_auto  # noqa: E402,F401  (likewise)
