#!/usr/bin/env python3
"""search.py - the search suite (part `search` of bench/run.py; Python 3
standard library only).

Reads the definitions in bench/defs.json, generates the haystacks they name
(deterministically, cached under bench/work/), runs every engine of every
selected benchmark several times, checks every run's count against the
expected count, and writes results.csv, results.md and machine.json.  The
markdown tables are printed last.

  python3 bench/run.py search --quick            # CI: small haystack, 2 runs
  python3 bench/run.py search                    # the full suite (1 GiB corpus)
  python3 bench/run.py search --list             # what would run
  python3 bench/run.py search --update-expect    # recompute expected counts (oracle)

Engines: `hay find` per algorithm, thread count and schedule, and the search
peers of bench/adapters/peers.py: GNU grep (LC_ALL=C grep -F -c, matching
lines); ripgrep (rg -F --count-matches when that equals all occurrences,
else -c); Hyperscan (adapters/hs_bench.c); the read ceiling (adapters/memread.c).
Times: "wall" is the whole command, end to end; "scan" is the scan phase
that hay (and hs_bench) report with --stats ("kernel-only").
"""

import argparse
import csv
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))      # bench/lib
BENCH = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCH)
DEFS = os.path.join(BENCH, "defs.json")
sys.path[:0] = [HERE, os.path.join(BENCH, "adapters")]
import energy  # noqa: E402  (bench/lib/energy.py: the RAPL reader)
import find_output  # noqa: E402  (bench/lib/find_output.py: rows with grep's options)
import peers  # noqa: E402  (bench/adapters/peers.py: the peers behind one interface)
from haystacks import (  # noqa: E402  (bench/lib/haystacks.py: data, generator, oracle)
    BenchError, log, loud, sha256_file, generate,
    count_overlapping, oracle, bench_patterns, encode_escapes)


# --------------------------------------------------------------------------
# Engines
# --------------------------------------------------------------------------

class Engine:
    def __init__(self, key, label, tool, algo, threads, schedule, kind):
        self.key, self.label, self.tool = key, label, tool
        self.algo, self.threads, self.schedule = algo, threads, schedule
        self.kind = kind            # what its count means: matches or lines
        self.cmd, self.env = None, None
        self.stats_cmd = None       # hay: timed apart, see build_command()
        self.wall, self.scan, self.map, self.stats_wall = [], [], [], []
        self.energy, self.energy_last = [], None
        self.got, self.status, self.note = None, "ok", ""


def thread_values(spec, args):
    out = []
    for t in spec:
        if t == "scaling":
            out.extend(args.thread_list)
        elif t == "max":
            out.append(args.max_threads)
        elif int(t) <= args.max_threads:   # more threads than cores: skipped
            out.append(int(t))
    seen = []
    for t in out:
        if t not in seen:
            seen.append(t)
    return seen


def expand_engines(b, pats, args):
    single = len(pats) == 1
    rg_matches = single and not b.get("caseless") and not peers.has_border(pats[0])
    out = []
    for spec in b["engines"]:
        tool = spec["tool"]
        if tool == "hay":
            for algo in spec.get("algo", ["simd"]):
                for n in thread_values(spec.get("threads", [1]), args):
                    scheds = ["-"] if n == 1 else spec.get("schedule", ["dynamic"])
                    for s in scheds:
                        key = "hay/%s/t%d" % (algo, n) + ("" if n == 1 else "/" + s)
                        label = "hay %s %dT" % (algo, n) + ("" if n == 1 else " " + s)
                        e = Engine(key, label, "hay", algo, n, s, "matches")
                        # find_args rows: another backend than the CPU's
                        e.backend = spec.get("backend", "cpu")
                        if e.backend != "cpu":
                            e.key += "/" + e.backend
                            e.label += " " + e.backend
                        out.append(e)
        elif tool == "hs":
            for n in thread_values(spec.get("threads", [1]), args):
                out.append(Engine("hs/t%d" % n, "hyperscan %dT" % n, "hs", "hs", n,
                                  "static", "matches"))
        elif tool == "rg":
            kind = "matches" if rg_matches else "lines"
            out.append(Engine("rg/" + kind, "ripgrep (%s)" % kind, "rg", "-", 1, "-", kind))
        elif tool == "grep":
            out.append(Engine("grep/lines", "GNU grep (lines)", "grep", "-", 1, "-", "lines"))
        elif tool == "memread":
            for n in thread_values(spec.get("threads", [1]), args):
                out.append(Engine("memread/t%d" % n, "read ceiling %dT" % n, "memread", "-", n,
                                  "static", "newlines"))
        elif tool in peers.SEARCH:
            # Any other search peer of bench/adapters/peers.py; what its
            # count means comes from its adapter (build_command).
            for n in thread_values(spec.get("threads", [1]), args):
                out.append(Engine("%s/t%d" % (tool, n), "%s %dT" % (tool, n), tool, "-", n,
                                  "static", None))
        else:
            raise BenchError("%s: unknown tool %r" % (b["id"], tool))
    if "find_args" in b:   # lines printed or selected (bench/lib/find_output.py)
        for e in out:
            e.kind = find_output.kind(b["find_args"])
            if e.tool != "hay":
                e.key = e.tool + "/" + e.kind
                e.label = (e.label.split(" (")[0] + " " + " ".join(b["find_args"])).rstrip()
    keys = [e.key for e in out]
    if len(set(keys)) != len(keys):
        raise BenchError("%s: duplicate engines" % b["id"])
    return out


def hay_backend_runs(tools, backend):
    """Whether hay runs --backend BACKEND here (a GPU row on a machine
    without one is skipped, not failed)."""
    p = subprocess.run([tools["hay"], "find", "--backend", backend, "-c", "x", "/dev/null"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p.returncode != 2


def build_command(e, tools, pats, patfiles, b, path):
    """Sets e.cmd (timed end to end) and, for hay, e.stats_cmd: the same with
    --stats, run apart because --stats itself costs time (it probes for a GPU).
    A peer's command comes from its adapter (bench/adapters/peers.py)."""
    if "find_args" in b:   # (an empty list: the lines printed, no option)
        find_output.command(e, tools, pats, patfiles, b, path)
        return
    caseless = bool(b.get("caseless"))
    if e.tool == "hay":
        cmd = [tools["hay"], "find", "--count-matches", "--backend", "cpu",
               "--algo", e.algo, "--threads", str(e.threads)]
        if e.threads > 1:
            cmd += ["--schedule", e.schedule]
        e.cmd = cmd + peers.pattern_args(pats, patfiles, caseless, True) + [path]
        e.env = dict(os.environ)
        e.stats_cmd = e.cmd[:2] + ["--stats"] + e.cmd[2:]
        return
    c = tools[e.tool].count(pats, patfiles, caseless, path, e.threads)
    e.kind = e.kind or c.counts
    if c.counts != e.kind:
        raise BenchError("%s: the adapter counts %s, the engine %s" % (e.label, c.counts, e.kind))
    e.cmd, e.env = c.argv, c.env


STAT_RE = re.compile(r'(\w+)=("[^"]*"|\S+)')


def parse_stats(stderr):
    """The 'stats:' lines of hay --stats (and hs_bench) as {phase: {k: v}}."""
    phases = {}
    for line in stderr.splitlines():
        if not line.startswith("stats:"):
            continue
        kv = {k: v.strip('"') for k, v in STAT_RE.findall(line[6:])}
        phases[kv.get("phase", "info")] = kv
    return phases


def parse_count(stdout):
    lines = stdout.strip().splitlines()
    if not lines:
        raise ValueError("no output")
    return int(lines[-1].rsplit(":", 1)[-1].strip())


RAPL = None


def rapl():
    """The CPU package energy counters (bench/energy.py), made on first use."""
    global RAPL
    if RAPL is None:
        RAPL = energy.Rapl()
    return RAPL


def run_once(e, cmd, expected):
    """Runs cmd once; checks its count; returns (wall, scan, map) seconds.
    The CPU package energy of the run (RAPL), when readable, goes to
    e.energy_last (joules) for the caller to keep."""
    e0 = rapl().read()
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e.env)
    wall = time.perf_counter() - t0
    e.energy_last = rapl().joules(e0, rapl().read())
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode not in (0, 1):
        raise BenchError("%s exited with %d: %s" % (e.label, p.returncode, err.strip()[-500:]))
    try:
        got = parse_count(out)
    except ValueError:
        raise BenchError("%s: cannot read a count from %r (stderr %r)"
                         % (e.label, out[-200:], err[-200:]))
    e.got = got
    if got != expected:
        raise BenchError("COUNT MISMATCH: %s counted %d %s, expected %d\n    command: %s"
                         % (e.label, got, e.kind, expected, shell_join(cmd)))
    stats = parse_stats(err)
    scan = stats.get("scan", {}).get("seconds")
    mapped = stats.get("map", {}).get("seconds")
    return wall, float(scan) if scan else None, float(mapped) if mapped else None


def shell_join(cmd):
    return " ".join(c if re.fullmatch(r"[\w./=:+,-]+", c) else "'%s'" % c.replace("'", "'\\''")
                    for c in cmd)


# --------------------------------------------------------------------------
# Tools and machine
# --------------------------------------------------------------------------

def first_line(cmd, env=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                           timeout=30)
        s = p.stdout.decode("utf-8", "replace").strip().splitlines()
        return s[0] if s else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def find_tools(args, work, needed):
    """hay's path and the peers (bench/adapters/peers.py) the plan needs."""
    tools = {}
    hay = args.hay or os.path.join(ROOT, "build", "hay")
    if "hay" in needed:
        if not (os.path.isfile(hay) and os.access(hay, os.X_OK)):
            raise BenchError("no hay binary at %s; build it first:\n"
                             "  cmake -S . -B build && cmake --build build -j2\n"
                             "or pass --hay PATH" % hay)
        tools["hay"] = os.path.abspath(hay)
    found = peers.Peers(work, carry=args.carry, log=log,
                        paths={"rg": args.rg, "grep": args.grep, "hs": args.hs_bench,
                               "memread": args.memread})
    for k in peers.SEARCH:
        if k in needed:
            tools[k] = found.get(k)
            if tools[k] and not os.access(tools[k].path, os.X_OK):
                raise BenchError("%s: %s is not executable" % (k, tools[k].path))
    return tools


def tool_versions(tools):
    v = {}
    if tools.get("hay"):
        v["hay"] = first_line([tools["hay"], "--version"])
    for k in peers.SEARCH:
        if tools.get(k):
            v[k] = tools[k].version()
    v["python"] = platform.python_version()
    v["cc"] = first_line([os.environ.get("CC", "cc"), "--version"])
    return v


def machine_info():
    info = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "host": platform.node(), "kernel": platform.release(),
            "arch": platform.machine(), "logical_cpus": os.cpu_count()}
    try:
        info["affinity_cpus"] = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        pass
    cores = set()
    try:
        with open("/proc/cpuinfo") as f:
            phys = core = None
            for line in f:
                k, _, val = line.partition(":")
                k, val = k.strip(), val.strip()
                if k == "model name":
                    info.setdefault("cpu", val)
                elif k == "physical id":
                    phys = val
                elif k == "core id":
                    core = val
                elif k == "flags":
                    fl = set(val.split())
                    info.setdefault("simd", " ".join(x for x in ("sse4_2", "avx2", "avx512bw")
                                                     if x in fl))
                elif not line.strip():
                    if core is not None:
                        cores.add((phys, core))
                    phys = core = None
    except OSError:
        pass
    if cores:
        info["physical_cores"] = len(cores)
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    info["mem_gib"] = round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    info["os"] = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    try:
        p = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30)
        if p.returncode == 0:
            info["haystack_rev"] = p.stdout.decode().strip()
    except (OSError, subprocess.SubprocessError):
        pass
    if shutil.which("nvidia-smi"):
        info["gpu"] = first_line(["nvidia-smi", "--query-gpu=name,driver_version",
                                  "--format=csv,noheader"])
    return info


# --------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------

def med(xs):
    return statistics.median(xs) if xs else None


def gbps(nbytes, secs):
    return nbytes / secs / 1e9 if secs else None


def fmt(x, spec="%.4f"):
    return "-" if x is None else spec % x


CSV_FIELDS = ["date", "host", "cpu", "logical_cpus", "mem_gib", "kernel", "suite", "bench",
              "haystack", "bytes", "patterns", "caseless", "engine", "label", "tool",
              "tool_version", "algo", "threads", "schedule", "count_kind", "expected", "got",
              "status", "runs", "wall_median_s", "wall_min_s", "wall_max_s", "wall_gbps",
              "scan_median_s", "scan_min_s", "scan_max_s", "scan_gbps", "map_median_s",
              "stats_wall_median_s", "cpu_energy_median_j", "cpu_j_per_gb", "command",
              "stats_command"]


def csv_rows(results, machine, versions):
    rows = []
    for r in results:
        b = r["bench"]
        for e in r["engines"]:
            wm, sm = med(e.wall), med(e.scan)
            rows.append({
                "date": machine["date"], "host": machine["host"], "cpu": machine.get("cpu", "?"),
                "logical_cpus": machine["logical_cpus"], "mem_gib": machine.get("mem_gib"),
                "kernel": machine["kernel"], "suite": b.get("suite", ""), "bench": b["id"],
                "haystack": b["haystack"], "bytes": r["bytes"], "patterns": len(r["pats"]),
                "caseless": int(bool(b.get("caseless"))), "engine": e.key, "label": e.label,
                "tool": e.tool, "tool_version": versions.get(e.tool, "?"), "algo": e.algo,
                "threads": e.threads, "schedule": e.schedule, "count_kind": e.kind,
                "expected": r["expect"][e.kind], "got": e.got, "status": e.status,
                "runs": len(e.wall),
                "wall_median_s": fmt(wm, "%.6f"), "wall_min_s": fmt(min(e.wall) if e.wall else None, "%.6f"),
                "wall_max_s": fmt(max(e.wall) if e.wall else None, "%.6f"),
                "wall_gbps": fmt(gbps(r["bytes"], wm), "%.3f"),
                "scan_median_s": fmt(sm, "%.6f"), "scan_min_s": fmt(min(e.scan) if e.scan else None, "%.6f"),
                "scan_max_s": fmt(max(e.scan) if e.scan else None, "%.6f"),
                "scan_gbps": fmt(gbps(r["bytes"], sm), "%.3f"),
                "map_median_s": fmt(med(e.map), "%.6f"),
                "stats_wall_median_s": fmt(med(e.stats_wall), "%.6f"),
                "cpu_energy_median_j": fmt(med(e.energy), "%.3f") if e.energy else "unavailable",
                "cpu_j_per_gb": fmt(med(e.energy) / (r["bytes"] / 1e9), "%.3f")
                if e.energy else "unavailable",
                "command": shell_join(e.cmd) if e.cmd else "",
                "stats_command": shell_join(e.stats_cmd) if e.stats_cmd else "",
            })
    return rows


def speedup_base(e, engines):
    """The one-thread run of the same tool and algorithm, if any."""
    for o in engines:
        if o.tool == e.tool and o.algo == e.algo and o.threads == 1 and o.wall:
            return o
    return None


def markdown(results, machine, versions, targets, args):
    out = []
    out.append("## haystack benchmarks, %s" % machine["date"])
    out.append("")
    out.append("Machine: %s, %s logical CPUs%s, %s GiB, %s, kernel %s%s." % (
        machine.get("cpu", "?"), machine["logical_cpus"],
        " (%s physical cores)" % machine["physical_cores"] if "physical_cores" in machine else "",
        machine.get("mem_gib", "?"), machine.get("os", "?"), machine["kernel"],
        ("; GPU " + machine["gpu"]) if machine.get("gpu") else ""))
    if machine.get("haystack_rev"):
        out.append("haystack source: %s." % machine["haystack_rev"])
    out.append("Tools: " + "; ".join("%s: %s" % kv for kv in versions.items()) + ".")
    out.append("Runs: %d timed (median, min, max) after %d warm-up; every run's count checked. "
               "wall = the whole command, end to end (hay without --stats); scan = the scan "
               "phase that hay --stats (a separate run of the same command) and the adapters "
               "report (kernel-only). GB/s = 10^9 bytes/s at the median." % (args.runs, args.warmup))
    for r in results:
        b = r["bench"]
        out.append("")
        pats = r["pats"]
        ptxt = (repr(pats[0].decode("utf-8", "replace")) if len(pats) == 1
                else "%d patterns" % len(pats))
        if len(pats) == 1 and len(pats[0]) > 64:   # the worst cases' 64 KiB patterns
            ptxt = "%s... (%d bytes)" % (repr(pats[0][:32].decode("utf-8", "replace")),
                                         len(pats[0]))
        out.append("### %s: %s" % (b["id"], b.get("about", "")))
        out.append("")
        lines = r["expect"].get("lines")   # absent where Hyperscan gives the counts
        occ = r["expect"].get("matches")   # absent where grep gives them (lines only)
        out.append("Haystack %s (%d bytes), %s%s; expected %s%s." % (
            b["haystack"], r["bytes"], ptxt, ", caseless" if b.get("caseless") else "",
            "%d occurrences" % occ if occ is not None else "(by GNU grep -F)",
            ", %d matching lines" % lines if lines is not None else ""))
        if any(e.stats_wall for e in r["engines"]):
            over = [med(e.stats_wall) - med(e.wall) for e in r["engines"] if e.stats_wall]
            out.append("hay with --stats took %+.4f s per run against the timed command "
                       "(median over hay rows); wall times are taken without it." % med(over))
        out.append("")
        out.append("| engine | count | wall median s | wall min s | wall max s | wall GB/s "
                   "| scan median s | scan GB/s | speedup vs 1T (scan / wall) |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for e in r["engines"]:
            wm, sm = med(e.wall), med(e.scan)
            base = speedup_base(e, r["engines"])
            sp = "-"
            if base and e.threads > 1:
                s_scan = (med(base.scan) / sm) if (sm and base.scan) else None
                sp = "%s / %.2fx" % (fmt(s_scan, "%.2fx"), med(base.wall) / wm)
            count = ("%d %s" % (e.got, e.kind) if e.status == "ok"
                     else "**%s** %s" % (e.status.upper(), e.note))
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                e.label, count, fmt(wm), fmt(min(e.wall) if e.wall else None),
                fmt(max(e.wall) if e.wall else None), fmt(gbps(r["bytes"], wm), "%.2f"),
                fmt(sm), fmt(gbps(r["bytes"], sm), "%.2f"), sp))
    if targets:
        out.append("")
        out.append("### Targets")
        out.append("")
        out.append("| target | engine | versus | metric | ratio | needed | met |")
        out.append("|---|---|---|---|---|---|---|")
        for t in targets:
            out.append("| %s | %s | %s | %s | %s | >= %.2f | %s |" % (
                t["name"], t["engine"], t["versus"], t["metric"], fmt(t["ratio"], "%.2f"),
                t["at_least"], t["met"]))
    return "\n".join(out)


def evaluate_targets(defs, results, args):
    by_bench = {r["bench"]["id"]: r for r in results}
    out = []
    for t in defs.get("targets", []):
        r = by_bench.get(t["bench"])
        if not r:
            continue
        ek = t["engine"].replace("{max}", str(args.max_threads))
        vk = t["versus"].replace("{max}", str(args.max_threads))
        es = {e.key: e for e in r["engines"]}
        e, v = es.get(ek), es.get(vk)
        ratio = None
        if e and v and e.status == "ok" and v.status == "ok":
            a, bb = (e.scan, v.scan) if t["metric"] == "scan" else (e.wall, v.wall)
            if a and bb:
                ratio = med(bb) / med(a)
                if t.get("per_thread"):
                    ratio /= max(1, e.threads // max(1, v.threads))
        met = "n/a" if ratio is None else ("yes" if ratio >= t["at_least"] else "**no**")
        out.append({"name": t["name"], "engine": ek, "versus": vk, "metric": t["metric"],
                    "ratio": ratio, "at_least": t["at_least"], "met": met})
    return out


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 1)[1])
    ap.add_argument("--quick", action="store_true",
                    help="CI mode: the quick suite, 2 runs, no warm-up")
    ap.add_argument("--suite", default=None, help="suite to run: quick, full (default full)")
    ap.add_argument("--bench", action="append", default=[],
                    help="run only this benchmark id (repeatable; a regex)")
    ap.add_argument("--engines", default=None, help="run only engines whose key matches this regex")
    ap.add_argument("--runs", type=int, default=None, help="timed runs per engine (default 5)")
    ap.add_argument("--warmup", type=int, default=None, help="untimed runs first (default 1)")
    ap.add_argument("--max-threads", type=int, default=None,
                    help="what 'max' threads means (default: all CPUs)")
    ap.add_argument("--thread-list", default=None,
                    help="comma list for 'scaling' (default 1,2,4,.. up to max, and max)")
    ap.add_argument("--data", default=os.environ.get("HAY_BENCH_DATA"),
                    help="data folder with text/ (default ../shared/data beside the repo)")
    ap.add_argument("--work", default=os.path.join(BENCH, "work"),
                    help="cache of generated haystacks and tools (default bench/work)")
    ap.add_argument("--out", default=None,
                    help="folder for results.csv, results.md, machine.json "
                         "(default bench/work/results/<date>)")
    ap.add_argument("--hay", default=None, help="hay binary (default build/hay)")
    ap.add_argument("--carry", default=os.path.join(ROOT, ".device-carry"),
                    help="carried peers (scripts/bench-device prepare) when present")
    ap.add_argument("--rg", default=None, help="ripgrep binary (default from PATH)")
    ap.add_argument("--grep", default=None, help="grep binary (default from PATH)")
    ap.add_argument("--hs-bench", default=None,
                    help="Hyperscan adapter binary (default: built into bench/work)")
    ap.add_argument("--memread", default=None,
                    help="read-ceiling adapter binary (default: built into bench/work)")
    ap.add_argument("--defs", default=DEFS, help="definitions file (default bench/defs.json)")
    ap.add_argument("--list", action="store_true", help="list the benchmarks and engines, run nothing")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    ap.add_argument("--update-expect", action="store_true",
                    help="recompute expected counts and source hashes into the definitions")
    args = ap.parse_args(argv)
    if args.quick:
        args.suite = args.suite or "quick"
        args.runs = 2 if args.runs is None else args.runs
        args.warmup = 0 if args.warmup is None else args.warmup
    args.suite = args.suite or "full"
    args.runs = 5 if args.runs is None else args.runs
    args.warmup = 1 if args.warmup is None else args.warmup
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    args.max_threads = args.max_threads or os.cpu_count() or 1
    if args.thread_list:
        args.thread_list = [int(x) for x in args.thread_list.split(",") if x]
    else:
        tl, t = [], 1
        while t < args.max_threads:
            tl.append(t)
            t *= 2
        args.thread_list = tl + [args.max_threads]
    args.data = args.data or os.path.join(os.path.dirname(ROOT), "shared", "data")
    return args


def select(defs, args):
    sel = []
    for b in defs["benchmarks"]:
        if args.bench:
            if not any(re.fullmatch(p, b["id"]) for p in args.bench):
                continue
        elif b.get("suite", "full") != args.suite:
            continue
        sel.append(b)
    if not sel:
        raise BenchError("no benchmark selected")
    return sel


def check_sources(defs, data_dir, hids):
    """The data files must be the ones the expected counts were computed on."""
    src = defs.get("sources", {})
    for hid in hids:
        for f in defs["haystacks"][hid]["files"]:
            p = os.path.join(data_dir, f)
            if not os.path.isfile(p):
                raise BenchError("data file %s missing (--data %s)" % (p, data_dir))
            want = src.get(f)
            if not want:
                raise BenchError("%s has no recorded hash: run --update-expect" % f)
            if os.path.getsize(p) != want["bytes"] or sha256_file(p) != want["sha256"]:
                raise BenchError("%s differs from the file the expected counts were "
                                 "computed on" % p)


def hs_expect(defs, b, pats, args):
    """All occurrences counted by Hyperscan (hs_bench) on the generated
    haystack: for sets far too large for the Python oracle (tens of
    thousands of patterns over 1 GiB).  Hyperscan is an independent
    implementation; tests/hyperscan_counts.c checks hay against it."""
    work = os.path.abspath(args.work)
    path, _ = generate(b["haystack"], defs["haystacks"][b["haystack"]], args.data, work)
    hs = peers.Peers(work, carry=args.carry, paths={"hs": args.hs_bench}, log=log).get("hs")
    hs = hs and hs.path
    if not hs:
        raise BenchError("%s: expect_by hs needs hs_bench (libhyperscan-dev)" % b["id"])
    patdir = os.path.join(work, "patterns")
    os.makedirs(patdir, exist_ok=True)
    pf = os.path.join(patdir, b["id"] + ".esc.txt")
    with open(pf, "wb") as f:
        f.write(b"".join(encode_escapes(p) + b"\n" for p in pats))
    cmd = [hs, "--threads", str(args.max_threads)] + (["-i"] if b.get("caseless") else []) + \
        ["-f", pf, "--escapes", path]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    return {"matches": int(out.stdout.split()[0])}


def update_expect(defs, args):
    srcs = {}
    for h in defs["haystacks"].values():
        for f in h["files"]:
            p = os.path.join(args.data, f)
            srcs[f] = {"bytes": os.path.getsize(p), "sha256": sha256_file(p)}
    defs["sources"] = dict(sorted(srcs.items()))
    for b in defs["benchmarks"]:
        if args.bench and not any(re.fullmatch(p, b["id"]) for p in args.bench):
            continue   # --bench: recompute only those
        pats = bench_patterns(b, args.data)
        t0 = time.time()
        if "find_args" in b:
            path, _ = generate(b["haystack"], defs["haystacks"][b["haystack"]], args.data,
                               os.path.abspath(args.work))
            if b.get("expect_by") == "grep":   # sets too large for the Python oracle
                b["expect"] = find_output.grep_expect(path, pats, b["find_args"],
                                                      os.path.abspath(args.work), b["id"])
            else:
                b["expect"] = find_output.expect(path, pats, b["find_args"])
        elif b.get("expect_by") == "hs":
            b["expect"] = hs_expect(defs, b, pats, args)
        else:
            b["expect"] = oracle(defs["haystacks"][b["haystack"]], args.data, pats,
                                 bool(b.get("caseless")))
        log("%s: %s (%.1f s)" % (b["id"], b["expect"], time.time() - t0))
    if not args.bench or any(re.fullmatch(p, "parts") for p in args.bench):
        parts_expect(defs, args)   # --bench parts: only those
    with open(args.defs, "w") as f:
        json.dump(defs, f, indent=2, ensure_ascii=False)
        f.write("\n")


def parts_expect(defs, args):
    """The expected counts of bench/run.py's other parts (defs["parts"]),
    from the same oracle: all occurrences, per haystack."""
    parts = defs.get("parts", {})
    for name in ("gpu", "energy", "pfac", "batch"):
        c = parts.get(name)
        if not c:
            continue
        if "pattern" in c:
            pats = [c["pattern"].encode()]
        else:
            pats = bench_patterns(c, args.data)
        c["expect"] = {h: oracle(defs["haystacks"][h], args.data, pats, False, False)["matches"]
                       for h in dict.fromkeys(c["haystack"])}
        log("parts %s: %s" % (name, c["expect"]))
    c = parts.get("poster")
    if c:
        import gpu_exact
        with open(os.path.join(args.data, c["book"]), "rb") as f:
            book = gpu_exact.plant(f.read(), c["plant"].encode())
        c["expect_per_copy"] = {w: count_overlapping(book, w.encode()) for w in c["words"]}
        log("parts poster: %s" % c["expect_per_copy"])


def main(argv):
    args = parse_args(argv)
    with open(args.defs) as f:
        defs = json.load(f)
    if args.update_expect:
        update_expect(defs, args)
        return 0
    benches = select(defs, args)
    if not args.list and not os.path.isdir(args.data):
        # As the tests do: no data folder, a clean skip with a message.
        log("SKIP: no data folder at %s (pass --data or set HAY_BENCH_DATA)" % args.data)
        return 0
    needed = set()
    plan = []
    for b in benches:
        if "expect" not in b:
            raise BenchError("%s has no expected counts: run --update-expect" % b["id"])
        pats = bench_patterns(b, args.data) if not args.list else \
            [p.encode() for p in b.get("patterns", ["?"])]
        engines = expand_engines(b, pats, args)
        if args.engines:
            engines = [e for e in engines if re.search(args.engines, e.key)]
        needed.update(e.tool for e in engines)
        plan.append((b, pats, engines))
    if args.list:
        for b, pats, engines in plan:
            print("%-16s %-9s %s" % (b["id"], b["haystack"], b.get("about", "")))
            for e in engines:
                print("    %-26s %s" % (e.key, e.label))
        return 0

    check_sources(defs, args.data, sorted({b["haystack"] for b in benches}))
    work = os.path.abspath(args.work)
    tools = find_tools(args, work, needed)
    for k in peers.SEARCH:
        if k in needed and not tools.get(k):
            log("note: %s not available; its rows are skipped" % k)
    machine = machine_info()
    versions = tool_versions(tools)
    out_dir = args.out or os.path.join(work, "results",
                                       machine["date"].replace(":", "").replace("-", ""))
    os.makedirs(out_dir, exist_ok=True)

    results, failures = [], []
    for b, pats, engines in plan:
        path, size = generate(b["haystack"], defs["haystacks"][b["haystack"]], args.data, work)
        patdir = os.path.join(work, "patterns")
        os.makedirs(patdir, exist_ok=True)
        patfiles = {"escaped": os.path.join(patdir, b["id"] + ".esc.txt"),
                    "raw": os.path.join(patdir, b["id"] + ".raw.txt")}
        with open(patfiles["escaped"], "wb") as f:
            f.write(b"".join(encode_escapes(p) + b"\n" for p in pats))
        with open(patfiles["raw"], "wb") as f:
            f.write(b"".join(p + b"\n" for p in pats))
        runnable = []
        for e in engines:
            if not tools.get(e.tool):
                e.status, e.note = "skipped", "tool not available"
                continue
            if e.tool in ("rg", "grep") and len(pats) > 1 and any(b"\n" in p for p in pats):
                e.status, e.note = "skipped", "pattern holds a newline"
                continue
            if getattr(e, "backend", "cpu") != "cpu" and not hay_backend_runs(tools, e.backend):
                e.status, e.note = "skipped", "no %s device here" % e.backend
                continue
            build_command(e, tools, pats, patfiles, b, path)
            runnable.append(e)
        r = {"bench": b, "pats": pats, "bytes": size, "expect": b["expect"], "engines": engines}
        results.append(r)
        if args.dry_run:
            for e in runnable:
                print(shell_join(e.cmd))
                if e.stats_cmd:
                    print(shell_join(e.stats_cmd))
            continue
        log("== %s (%s, %d bytes): %d engines x (%d + %d runs)" % (
            b["id"], b["haystack"], size, len(runnable), args.warmup, args.runs))
        # Rounds over all engines, so slow drift (heat, other load) spreads evenly.
        for rnd in range(args.warmup + args.runs):
            for e in runnable:
                if e.status != "ok":
                    continue
                try:
                    wall, scan, mapped = run_once(e, e.cmd, b["expect"][e.kind])
                    energy = e.energy_last
                    if e.stats_cmd:
                        swall, scan, mapped = run_once(e, e.stats_cmd, b["expect"][e.kind])
                except BenchError as ex:
                    e.status, e.note = "fail", str(ex).splitlines()[0]
                    failures.append("%s / %s: %s" % (b["id"], e.label, ex))
                    loud("%s / %s: %s" % (b["id"], e.label, ex))
                    continue
                if rnd >= args.warmup:
                    e.wall.append(wall)
                    if energy is not None:
                        e.energy.append(energy)
                    if e.stats_cmd:
                        e.stats_wall.append(swall)
                    if scan is not None:
                        e.scan.append(scan)
                    if mapped is not None:
                        e.map.append(mapped)
        for e in runnable:
            if e.status == "ok":
                log("   %-28s wall %s s  scan %s s" % (e.label, fmt(med(e.wall)), fmt(med(e.scan))))
    if args.dry_run:
        return 0

    targets = evaluate_targets(defs, results, args)
    with open(os.path.join(out_dir, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        w.writeheader()
        w.writerows(csv_rows(results, machine, versions))
    with open(os.path.join(out_dir, "machine.json"), "w") as f:
        json.dump({"machine": machine, "tools": versions, "argv": argv,
                   "runs": args.runs, "warmup": args.warmup, "max_threads": args.max_threads,
                   "targets": targets}, f, indent=2)
    md = markdown(results, machine, versions, targets, args)
    if failures:
        md += "\n\n### FAILURES\n\n" + "\n".join("- " + x.replace("\n", " ") for x in failures)
    with open(os.path.join(out_dir, "results.md"), "w") as f:
        f.write(md + "\n")
    log("results in %s" % out_dir)
    print(md, flush=True)
    if failures:
        loud("%d engine(s) FAILED the count check or did not run; see above" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BenchError as ex:
        loud(str(ex))
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
