#!/usr/bin/env python3
"""align.py - Smith-Waterman GCUPS against length: hay's variants and
parasail in the same run (Python 3 standard library only).

Workloads (../shared/data/bio):
  protein   31 queries x sprot196, BLOSUM62 11/1 (many short pairs)
  ecoli-L   E. coli K-12 slices: query [0, L) against 4 targets
            [k Mbp, k Mbp + L), k = 1..4; DNA 2/-3, 5/2
  mito      human x orangutan mitochondrial genomes (one pair, 16.5 kb)
  hpylori-B the H. pylori B slices (one pair, 70 kb; scores past 16 bits)
  hpylori-E the H. pylori E slices (one pair, 275 x 265 kb; --full only)
  ecoli-pair-L  one E. coli pair [0, L) x [2 Mbp, 2 Mbp + L) for each L of
            --long (default: bench/defs.json parts.align.long, 200000; none
            with --quick); engines above --cpu-max-cells are left out
  ecoli-db  the database search (bench/defs.json parts.align.db): 31
            queries x the E. coli proteome (4,298 proteins, 5.98e10 cells)
            as a `hay db build` file, top 50, score only, BLOSUM62 11/1
Engines: hay scalar (1 thread), hay auto = striped16 with the 32-bit
fallback (1 and N threads), parasail striped 16-bit profile with the 32-bit
fallback (bench/adapters/parasail_bench.c; 1 and N threads), and with --cuda
hay --backend cuda --variant fast (one kernel per pair, pairs in turn; its
seconds include the CUDA context's start, about 0.3 s on the H200 machine).  Threads
work over pairs; one pair of at least wavefront_cells cells (256M) goes to
all of them at once (src/align/sw_wavefront.c), so one-pair workloads have
"hay auto 2T" and "hay auto NT" rows (the wavefront) beside "hay striped16
1T" (one pair on one thread, as before it) and no parasail NT row, and
"hay auto kT traceback" rows (k = 1, 2, N): the whole alignment with its
start and CIGAR, the linear-space traceback on the same threads
(src/align/sw_hirschberg.c); their GCUPS count the score pass's cells only.
The database search has its own rows: "hay db inter kT" and "hay db
striped kT" (k = 1, N), the CPU score pass forced to the inter-sequence
kernel (src/align/sw_inter*.c: its AVX2 instance, and "hay db
inter_avx512 kT" beside it where the CPU has AVX-512BW) or to the striped engines
(--params db_kernel=...), beside parasail striped16 on all the pairs; hay's rows must
agree on their top-50 score sums, parasail's checksum on the sum of every
pair's score from one `hay align --top <all>` run.

Times are each engine's own alignment phase (hay --stats 'seconds', the
adapter's 'seconds': profiles included, file reading excluded), median of
--runs runs after --warmup, engines interleaved round by round.  Every run's
sum of scores is checked against the other engines'; a mismatch marks the
row FAIL and the exit status 1.

Usage: python3 bench/run.py align [--hay build/hay] [--data DIR]
       [--runs 5] [--warmup 1] [--threads N] [--full] [--quick] [--out DIR]
       [--workloads REGEX] [--engines REGEX] [--scalar-max-cells N]
       [--parasail-bench PATH] [--cuda] [--long L,L,...] [--cpu-max-cells N]
"""
import argparse, csv, datetime, json, os, platform, re, statistics
import subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sh(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                                r.stderr[-500:]))
    return r.stdout, r.stderr


def read_fasta_seq(path):
    with open(path) as f:
        return "".join(l.strip() for l in f if not l.startswith(">"))


def write_fasta(path, recs):
    with open(path, "w") as f:
        for name, s in recs:
            f.write(">%s\n" % name)
            for i in range(0, len(s), 80):
                f.write(s[i:i + 80] + "\n")


def workloads(data, work, full, quick, long_lens=(), db=None):
    bio = os.path.join(data, "bio")
    w = []
    if db and not quick:
        w.append(("ecoli-db", os.path.join(bio, db["queries"]),
                  os.path.join(bio, db["targets"]), "db"))
    w.append(("protein", os.path.join(bio, "protein/queries_24-5478aa.fasta"),
              os.path.join(bio, "protein/sprot196.fasta"), "protein"))
    ecoli = read_fasta_seq(os.path.join(bio, "dna/ecoli_k12_mg1655.fna"))
    lens = [1000, 4000] if quick else [1000, 4000, 16000, 64000]
    for L in lens:
        q = os.path.join(work, "ecoli-%d-q.fa" % L)
        t = os.path.join(work, "ecoli-%d-t.fa" % L)
        write_fasta(q, [("ecoli_0_%d" % L, ecoli[:L])])
        write_fasta(t, [("ecoli_%dM" % k, ecoli[k * 10**6:k * 10**6 + L])
                        for k in range(1, 5)])
        w.append(("ecoli-%dk" % (L // 1000), q, t, "dna"))
    dp = os.path.join(bio, "dna-pairs")
    w.append(("mito", os.path.join(dp, "MT-human.fa"),
              os.path.join(dp, "MT-orang.fa"), "dna"))
    if not quick:
        w.append(("hpylori-B", os.path.join(dp, "H_pylori26695_Bslice.fasta"),
                  os.path.join(dp, "H_pyloriJ99_Bslice.fasta"), "dna"))
    if full:
        w.append(("hpylori-E", os.path.join(dp, "H_pylori26695_Eslice.fasta"),
                  os.path.join(dp, "H_pyloriJ99_Eslice.fasta"), "dna"))
    for L in long_lens:
        q = os.path.join(work, "ecoli-pair-%d-q.fa" % L)
        t = os.path.join(work, "ecoli-pair-%d-t.fa" % L)
        write_fasta(q, [("ecoli_0_%d" % L, ecoli[:L])])
        write_fasta(t, [("ecoli_2M_%d" % L, ecoli[2 * 10**6:2 * 10**6 + L])])
        w.append(("ecoli-pair-%dk" % (L // 1000), q, t, "dna"))
    return w


def one_pair(path_q, path_t):
    n = 0
    for p in (path_q, path_t):
        with open(p) as f:
            n += sum(1 for l in f if l.startswith(">"))
    return n == 2


def hay_cmd(hay, kind, variant, threads, q, t, backend=None, traceback=False):
    c = [hay, "align", "--stats", "-j", str(threads)]
    if not traceback:
        c.append("--score-only")
    if backend:
        c += ["--backend", backend]
    if variant:
        c += ["--variant", variant]
    # DNA: the forward strand only, as the peers (parasail, SSW, water)
    # align it; hay align searches both strands by default.
    c += ["--dna", "--strand", "plus"] if kind == "dna" else ["--protein"]
    c += [q, t]
    return c


def db_cmd(hay, kernel, threads, top, q, hdb):
    return [hay, "align", "--stats", "-j", str(threads), "--backend", "cpu",
            "--top", str(top), "--score-only", "--protein", "--params",
            "db_kernel=" + kernel, q, hdb]


def db_engines(a, q, t, pflags, pb):
    """The database search's rows: hay's two kernels, parasail; and the
    check: hay's rows against each other (top-k sums), parasail against
    the sum of every pair's score (one hay run keeping every hit)."""
    hdb = os.path.join(a.out, "ecoli.hdb")
    if not os.path.exists(hdb):
        sh([a.hay, "db", "build", "--protein", t, hdb])
    with open(t) as f:
        ntargets = sum(1 for l in f if l.startswith(">"))
    top = a.db["top"]
    N = a.threads
    engines = []
    # inter: the AVX2 instance (the default's); with AVX-512BW the 512-bit
    # one too, in its own rows
    kernels = ["inter", "striped"]
    try:
        with open("/proc/cpuinfo") as f:
            if " avx512bw" in f.read():
                kernels.insert(1, "inter_avx512")
    except OSError:
        pass
    for k in sorted({1, N}):
        for kernel in kernels:
            engines.append(("hay db %s %dT" % (kernel, k), run_hay,
                            db_cmd(a.hay, kernel, k, top, q, hdb)))
    # hay reads selenocysteine (U, 3 in the proteome) as X, parasail as
    # an unknown letter: its copy of the targets says X.
    tx = os.path.join(a.out, "ecoli-db-targets-ux.fa")
    with open(t) as f, open(tx, "w") as g:
        for l in f:
            g.write(l if l.startswith(">") else l.replace("U", "X"))
    engines.append(("parasail striped16 %dT" % N, run_parasail,
                    [pb, "--threads", str(N)] + pflags + [q, tx]))
    _, _, every = run_hay(db_cmd(a.hay, "striped", N, ntargets, q, hdb))
    return engines, {"parasail striped16 %dT" % N: {every}}


def run_hay(cmd):
    out, err = sh(cmd)
    m = re.search(r"seconds=([0-9.]+)", err)
    cells = int(re.search(r"cells=(\d+)", err).group(1))
    total = sum(int(l.split("\t")[2]) for l in out.splitlines() if l)
    return float(m.group(1)), cells, total


def run_parasail(cmd):
    out, _ = sh(cmd)
    s = float(re.search(r"seconds=([0-9.]+)", out).group(1))
    cells = int(re.search(r"cells=(\d+)", out).group(1))
    total = int(re.search(r"checksum: (-?\d+)", out).group(1))
    return s, cells, total


def pair_engines(a, kind, q, t, pflags, pb):
    """The pairs' rows (every query x every target) and the cells."""
    N = a.threads
    engines = [
        ("hay scalar 1T", run_hay, hay_cmd(a.hay, kind, "scalar", 1, q, t)),
        ("hay striped16 1T", run_hay, hay_cmd(a.hay, kind, None, 1, q, t)),
        ("hay striped16 %dT" % N, run_hay,
         hay_cmd(a.hay, kind, None, N, q, t)),
        ("parasail striped16 1T", run_parasail,
         [pb, "--threads", "1"] + pflags + [q, t]),
        ("parasail striped16 %dT" % N, run_parasail,
         [pb, "--threads", str(N)] + pflags + [q, t]),
    ]
    pair = one_pair(q, t)
    if a.cuda:
        engines.append(("hay cuda fast", run_hay,
                        hay_cmd(a.hay, kind, "fast", 1, q, t, "cuda")))
    # The cell count, from the cheapest engine there is.
    _, cells, _ = run_hay(engines[-1][2] if a.cuda and pair else
                          hay_cmd(a.hay, kind, None, N, q, t))
    # The scalar reference only where it takes seconds.
    if cells > a.scalar_max_cells:
        engines = engines[1:]
    if pair:
        # One pair is one thread's work in parasail; hay runs a long
        # pair on all the threads (the wavefront).
        engines = [e for e in engines if "%dT" % N not in e[0] or N == 1]
        if N > 1:
            engines += [("hay auto %dT" % k, run_hay,
                         hay_cmd(a.hay, kind, None, k, q, t))
                        for k in sorted({2, N})]
        # The whole alignment: score, start, and the linear-space
        # traceback (src/align/sw_hirschberg.c on the threads).
        engines += [("hay auto %dT traceback" % k, run_hay,
                     hay_cmd(a.hay, kind, None, k, q, t, traceback=True))
                    for k in sorted({1, 2, N})]
        if cells > a.cpu_max_cells:
            engines = [e for e in engines if "cuda" in e[0]]
    return engines, cells


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--hay", default=os.path.join(ROOT, "build/hay"))
    ap.add_argument("--data", default=os.path.join(ROOT, "../shared/data"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--full", action="store_true", help="add hpylori-E")
    ap.add_argument("--quick", action="store_true", help="small workloads")
    ap.add_argument("--scalar-max-cells", type=float, default=2e9)
    ap.add_argument("--workloads", default=".", help="regex on workload names")
    ap.add_argument("--engines", default=".", help="regex on engine names")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/work/align"))
    ap.add_argument("--parasail-bench", default=None,
                    help="a prebuilt parasail_bench (else built with cc)")
    ap.add_argument("--cuda", action="store_true",
                    help="add hay --backend cuda --variant fast")
    ap.add_argument("--long", default=None,
                    help="E. coli one-pair lengths, e.g. 100000,300000,1000000 "
                    "(default: bench/defs.json parts.align.long)")
    ap.add_argument("--cpu-max-cells", type=float, default=1e11,
                    help="one-pair workloads: leave out CPU engines above this")
    a = ap.parse_args(argv)
    if not os.path.isdir(os.path.join(a.data, "bio")):
        print("align: no data at %s: skipped" % a.data)
        return 0
    os.makedirs(a.out, exist_ok=True)
    pb = a.parasail_bench
    if pb is None:
        pb = os.path.join(a.out, "parasail_bench")
        src = os.path.join(ROOT, "bench/adapters/parasail_bench.c")
        sh(["cc", "-O2", "-fopenmp", src, "-lparasail", "-o", pb])
    N = a.threads
    if a.long is None:
        with open(os.path.join(ROOT, "bench/defs.json")) as f:
            a.long = "" if a.quick else ",".join(
                str(x) for x in json.load(f)["parts"]["align"]["long"])
    long_lens = [int(x) for x in a.long.split(",") if x]
    with open(os.path.join(ROOT, "bench/defs.json")) as f:
        a.db = json.load(f)["parts"]["align"]["db"]
    rows, failed = [], False
    for name, q, t, kind in workloads(a.data, a.out, a.full, a.quick, long_lens,
                                      a.db):
        if not re.search(a.workloads, name):
            continue
        pflags = ["--dna", "2,-3", "--open", "5", "--extend", "2"] \
            if kind == "dna" else ["--matrix", "blosum62", "--open", "11",
                                   "--extend", "1"]
        want = {}       # an engine's expected sums, where not the first's
        if kind == "db":
            engines, want = db_engines(a, q, t, pflags, pb)
            _, cells, _ = run_hay(engines[0][2])
        else:
            engines, cells = pair_engines(a, kind, q, t, pflags, pb)
        engines = [e for e in engines if re.search(a.engines, e[0])]
        times = {e[0]: [] for e in engines}
        totals = {}
        for r in range(a.warmup + a.runs):
            for ename, fn, cmd in engines:
                s, c, tot = fn(cmd)
                totals.setdefault(ename, set()).add(tot)
                if r >= a.warmup:
                    times[ename].append(s)
        ref = totals[engines[0][0]]
        for ename, fn, cmd in engines:
            ok = totals[ename] == want.get(ename, ref) and len(ref) == 1
            failed |= not ok
            ts = times[ename]
            med = statistics.median(ts)
            rows.append(dict(workload=name, cells=cells, engine=ename,
                             median_s=med, min_s=min(ts), max_s=max(ts),
                             gcups=cells / med * 1e-9 if med > 0 else 0,
                             score_sum=sorted(totals[ename])[0],
                             check="ok" if ok else "FAIL",
                             command=" ".join(cmd)))
            print("%-10s %-24s %9.4f s %8.3f GCUPS %s" % (
                name, ename, med, rows[-1]["gcups"], rows[-1]["check"]),
                flush=True)
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for l in f:
                if l.startswith("model name"):
                    cpu = l.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    md = ["Machine: %s, %d cores; %s; date %s; runs %d (+%d warm-up), median." % (
        cpu, os.cpu_count(), platform.platform(),
        datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), a.runs,
        a.warmup), "",
        "| workload | cells | engine | median s | min s | max s | GCUPS | scores |",
        "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append("| %s | %.3g | %s | %.4f | %.4f | %.4f | %.3f | %s |" % (
            r["workload"], r["cells"], r["engine"], r["median_s"], r["min_s"],
            r["max_s"], r["gcups"], r["check"]))
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
