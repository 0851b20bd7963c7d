"""report.py - the runner's tables, report, plots and records (bench/run.py).

Rows are dicts with FIELDS; TABLES gives each table id its title, what it
reproduces, the metric(s) to plot and the kind of plot.  report() writes
bench.csv, report.md and the plots; record() merges rows into
bench/results/MACHINE/DAY/records.csv (bench/results/README.md).
"""
import csv
import os
import re
import shutil
import sys

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIELDS = ["table", "row", "engine", "metric", "value", "unit", "status", "machine", "date",
          "command"]

# table id: (title, what it reproduces, plot metric(s), plot kind)
TABLES = {
    "batch": ("Every match out of the library: per-match callbacks against batches",
              "issue 17 item 2: hay_scan against hay_scan_batch, count alone beside",
              ["Mmatches_per_s"], "bar"),
    "find-walk": ("hay find -r over trees and on a pipe, whole commands",
                  "issue 19: grep -r and rg -uuu on the same files", ["wall_s"], "bar"),
    "search": ("Search suite (bench/defs.json), whole-command throughput",
               "haystack's own suite: hay against grep, ripgrep, Hyperscan", ["wall_GBps"], "bar"),
    "poster-t1": ("Poster Table 1: sherlock.txt, 'METU' planted 10x, and 'Holmes'",
                  "gpu-string-search-poster Table 1", ["time_ms"], "bar"),
    "poster-t2": ("Poster Table 2: the book x20", "gpu-string-search-poster Table 2",
                  ["time_ms"], "bar"),
    "bm-fig13": ("BM Fig. 13: CPU throughput, serial / static / dynamic", "BM paper Fig. 13",
                 ["Gbps"], "line"),
    "bm-fig14": ("BM Fig. 14: CPU speed-up of static and dynamic over serial",
                 "BM paper Fig. 14", ["speedup"], "line"),
    "bm-fig15": ("BM Fig. 15: throughput against thread count (the paper's Xeon Phi sweep)",
                 "BM paper Fig. 15", ["Gbps"], "line"),
    "bm-fig16": ("BM Fig. 16: speed-up against thread count", "BM paper Fig. 16",
                 ["speedup"], "line"),
    "bm-fig17": ("BM Fig. 17: GPU with and without cascading (ACC) against serial",
                 "BM paper Fig. 17", ["Gbps"], "line"),
    "bm-fig18": ("BM Fig. 18: GPU speed-up over serial", "BM paper Fig. 18", ["speedup"], "line"),
    "bm-fig19": ("BM Fig. 19: GPU throughput per cascade degree", "BM paper Fig. 19",
                 ["Gbps"], "line"),
    "bm-fig20": ("BM Fig. 20: speed-up of cascading over degree 1", "BM paper Fig. 20",
                 ["speedup"], "line"),
    "bm-fig21": ("BM Fig. 21: (blocks per SM, threads per block) pairs, cascade 1",
                 "BM paper Fig. 21 / Table 8", ["Gbps"], "line"),
    "bm-fig22": ("BM Fig. 22: speed-up of the pairs over serial", "BM paper Fig. 22",
                 ["speedup"], "line"),
    "bm-fig23": ("BM Fig. 23: summary throughput", "BM paper Fig. 23", ["Gbps"], "line"),
    "bm-fig24": ("BM Fig. 24: summary speed-up over serial", "BM paper Fig. 24",
                 ["speedup"], "line"),
    "gpu-1g": ("GPU one literal: kernel only, end to end, pipelined, beside the CPU",
               "issue 4: the GPU literal engines against Hyperscan and hay on N threads",
               ["GBps"], "bar"),
    "pfac-fig7-8": ("PFAC Figs. 7/8: OpenCL knobs, time and energy per phase",
                    "PFAC paper Figs. 7 and 8 (one row per knob setting)", ["total_ms"], "bar"),
    "pfac-fig7-cuda": ("PFAC Fig. 7 knobs on CUDA", "PFAC paper Fig. 7, CUDA backend",
                       ["total_ms"], "bar"),
    "pfac-fig9-10": ("PFAC Figs. 9/10: CPU on 1..N threads against the GPU",
                     "PFAC paper Figs. 9 and 10", ["ms"], "bar"),
    "sw-table": ("SW matrix-filling table: 3,000^2 and 8,461^2 random protein pairs",
                 "CUDA Smith-Waterman paper, Fig. 8 (matrix-filling time)", ["fill_ms"], "bar"),
    "sw-split": ("SW compute vs sync split (GPU, best block count)",
                 "CUDA Smith-Waterman paper, Figs. 9/10", ["compute_ms", "sync_ms"], "stack"),
    "sw-gcups": ("Smith-Waterman GCUPS against length (run.py align, GPU scale)",
                 "GCUPS against length; hay against parasail", ["GCUPS"], "bar"),
    "energy-search": ("Energy per GB searched", "issue 7: joules per GB", ["J_per_GB"], "bar"),
    "energy-phases": ("CUDA search phase by phase, 1 GiB from the page cache (gpu_phases)",
                      "issue 7: joules per GB of each phase, NVML", ["J_per_GB"], "bar"),
    "energy-align": ("Energy per giga cell update", "issue 7: joules per GCU", ["J_per_GCU"],
                     "bar"),
}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def cell(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


# Report, plots, record
# --------------------------------------------------------------------------

def table_md(rows):
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    units = {}
    for r in rows:
        us = units.setdefault(r["metric"], [])
        if r["unit"] not in us:
            us.append(r["unit"])
    units = {m: " / ".join(us) for m, us in units.items()}
    out = []
    if len(metrics) == 1:
        engines = list(dict.fromkeys(r["engine"] for r in rows))
        rws = list(dict.fromkeys(r["row"] for r in rows))
        val = {(r["row"], r["engine"]): r["value"] for r in rows}
        out.append("%s (%s)\n" % (metrics[0], units[metrics[0]]))
        out.append("| | " + " | ".join(engines) + " |")
        out.append("|---|" + "---|" * len(engines))
        for rw in rws:
            out.append("| %s | %s |" % (rw, " | ".join(fmtv(val.get((rw, e), "")) for e in engines)))
    else:
        keys = list(dict.fromkeys((r["row"], r["engine"]) for r in rows))
        val = {(r["row"], r["engine"], r["metric"]): r["value"] for r in rows}
        out.append("| row | engine | " + " | ".join("%s (%s)" % (m, units[m]) for m in metrics)
                   + " |")
        out.append("|---|---|" + "---|" * len(metrics))
        for rw, e in keys:
            out.append("| %s | %s | %s |" % (rw, e, " | ".join(fmtv(val.get((rw, e, m), ""))
                                                                for m in metrics)))
    return "\n".join(out)


def fmtv(v):
    x = cell(v)
    if x is None:
        return v
    if x == int(x) and abs(x) < 1e12:
        return "%d" % x
    return "%.4g" % x if abs(x) < 1e4 else "%.0f" % x


def plot(rows, table, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.fonttype"] = "none"   # text stays text: small SVGs
        matplotlib.rcParams["svg.hashsalt"] = "haystack"   # same CSV, same files
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    title, _, metrics, kind = TABLES.get(table, (table, "", [rows[0]["metric"]], "bar"))
    pr = [r for r in rows if r["metric"] in metrics]
    if not pr:
        return None
    machine, date = pr[0]["machine"], pr[0]["date"]
    if kind == "line":
        engines = list(dict.fromkeys(r["engine"] for r in pr))
        fig, ax = plt.subplots(figsize=(7.5, 4.2))
        skipped = []
        for e in engines:
            pts = [(int(re.sub(r"\D", "", r["row"]) or 0), cell(r["value"]))
                   for r in pr if r["engine"] == e]
            pts = [(x, y) for x, y in pts if y is not None]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=e)
            else:
                skipped.append(e)
        ys = [cell(r["value"]) for r in pr if (cell(r["value"]) or 0) > 0]
        if ys and max(ys) / min(ys) > 50:
            ax.set_yscale("log")
        ax.set_xlabel("pattern length m (bytes)")
        ax.set_ylabel("%s (%s)" % (metrics[0], pr[0]["unit"]))
        if skipped:
            ax.text(0.01, 0.01, "skipped: " + "; ".join(skipped), transform=ax.transAxes,
                    fontsize=6, color="#b22222", va="bottom")
        if len(engines) > len(skipped):
            ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    else:
        labels = list(dict.fromkeys((r["row"], r["engine"]) for r in pr))
        one_engine = len({e for _, e in labels}) == 1
        names = [rw if one_engine else "%s | %s" % (rw, e) for rw, e in labels]
        if one_engine:
            title += " (%s)" % labels[0][1]
        fig, ax = plt.subplots(figsize=(6 + 0.07 * max(len(n) for n in names),
                                        0.32 * len(labels) + 1.4))
        left = [0.0] * len(labels)
        allpos = [cell(r["value"]) for r in pr if (cell(r["value"]) or 0) > 0]
        logx = kind != "stack" and allpos and max(allpos) / min(allpos) > 100
        floor = min(allpos) * 0.5 if logx else 0
        colours = ["#1f77b4", "#ff7f0e", "#2ca02c"]
        stacked = []   # kind "stack": each bar's label, the metrics so far
        for mi, m in enumerate(metrics):
            vals, txt = [], []
            for rw, e in labels:
                v = next((r["value"] for r in pr if r["row"] == rw and r["engine"] == e
                          and r["metric"] == m), "")
                x = cell(v)
                vals.append(x or 0.0)
                txt.append(fmtv(v) if x is not None else (v or ""))
            cols = [colours[mi % 3] if cell(t) is not None or not t else "#dddddd" for t in txt]
            if len(metrics) == 1:
                cols = ["#1f77b4" if ("hay" in e or "GPU" in e or "OpenCL" in e or "CUDA" in e)
                        else "#999999" for _, e in labels]
            ax.barh(range(len(labels)), vals, left=left if kind == "stack" else None,
                    color=cols, label=m)
            if kind == "stack":
                stacked = txt if mi == 0 else [p + " + " + t for p, t in zip(stacked, txt)]
                txt = stacked
            if kind != "stack" or mi == len(metrics) - 1:
                for y, (v, tx) in enumerate(zip(vals, txt)):
                    ax.text((left[y] if kind == "stack" else 0) + max(v, floor), y, " " + tx, va="center",
                            fontsize=6, color="#b22222" if "skipped" in tx else "black")
            if kind == "stack":
                left = [l + v for l, v in zip(left, vals)]
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(names, fontsize=6)
        ax.invert_yaxis()
        ax.set_xlabel(", ".join("%s (%s)" % (m, next(r["unit"] for r in pr if r["metric"] == m))
                                for m in metrics if any(r["metric"] == m for r in pr)))
        if logx:
            ax.set_xscale("log")
            ax.set_xlim(left=floor)
        if kind == "stack":
            ax.legend(fontsize=7)
    ax.set_title("%s\n%s, %s" % (title, machine, date[:16]), fontsize=8)
    fig.tight_layout()
    os.makedirs(outdir, exist_ok=True)
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(outdir, "%s.%s" % (table, ext)), dpi=90,
                    metadata={"Date": None} if ext == "svg" else {})
    plt.close(fig)
    return os.path.join(outdir, table + ".png")


def report(rows, out, plots_dir, link_base, header, fails, notes):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "bench.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    tables = list(dict.fromkeys(r["table"] for r in rows))
    order = [t for t in TABLES if t in tables] + [t for t in tables if t not in TABLES]
    md = list(header)
    drew = False
    for tb in order:
        trs = [r for r in rows if r["table"] == tb]
        title, what, _, _ = TABLES.get(tb, (tb, "", [], ""))
        md += ["", "### %s (`%s`)" % (title, tb), ""]
        if what:
            md.append("Reproduces: %s.\n" % what)
        png = plot(trs, tb, plots_dir)
        if png:
            drew = True
            md.append("![%s](%s)\n" % (tb, os.path.relpath(png, link_base)))
        md.append(table_md(trs))
        cmds = list(dict.fromkeys(r["command"] for r in trs if r["command"]))
        if cmds:
            md.append("\n<details><summary>commands (%d)</summary>\n\n" % len(cmds) +
                      "\n".join("    " + c for c in cmds[:40]) +
                      ("\n    ..." if len(cmds) > 40 else "") + "\n</details>")
    if not drew:
        md.append("\n(no plots: matplotlib is not installed)")
    if notes:
        md += ["", "### Notes", ""] + ["- " + n for n in notes]
    if fails:
        md += ["", "### FAILED CHECKS", ""] + ["- " + f for f in fails]
    text = "\n".join(md) + "\n"
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    return text


def record(rows, machine, date, raw=()):
    """Merges rows into bench/results/MACHINE/DAY/records.csv (the rows of
    the tables given replace that day's) and copies the files in raw (the
    report, the logs) into that day's raw/ folder, names prefixed with the
    run's time so that several runs of a day stay apart."""
    name = re.sub(r"[^\w.-]", "_", machine)
    d = os.path.join(BENCH, "results", name, date[:10])
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "records.csv")
    old = []
    if os.path.exists(path):
        with open(path, newline="") as f:
            old = list(csv.DictReader(f))
    new_tables = {r["table"] for r in rows}
    merged = [r for r in old if r.get("table") not in new_tables] + rows
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(merged)
    stamp = re.sub(r"\D", "", date[11:19]) or "run"
    for src in raw:
        if os.path.isfile(src):
            os.makedirs(os.path.join(d, "raw"), exist_ok=True)
            shutil.copyfile(src, os.path.join(d, "raw", "%s-%s" % (stamp, os.path.basename(src))))
    if not os.path.exists(os.path.join(d, "README.md")):
        log("recorded %s: add %s/README.md with the commands, the commit and the hardware "
            "(bench/results/README.md)" % (path, d))
    log("recorded %s (%d rows); compare: python3 bench/run.py compare %s"
        % (path, len(merged), os.path.dirname(d)))
    return path


def header_lines(ctx_or_none, args, machine_info, meters_desc, parts_times, cmdline):
    mi = machine_info
    h = ["## `make bench` report: %s, %s" % (args.machine, args.date), "",
         "- machine: %s, %s logical CPUs, %s GiB, %s, kernel %s%s" % (
             mi.get("cpu", "?"), mi.get("logical_cpus"), mi.get("mem_gib", "?"),
             mi.get("os", "?"), mi.get("kernel", "?"),
             ("; GPU " + mi["gpu"]) if mi.get("gpu") else "; no GPU"),
         "- haystack source: %s" % mi.get("haystack_rev", "?"),
         "- energy meters: %s" % meters_desc,
         "- command: `%s`" % cmdline,
         "- mode: %s; runs per row: %d (median) after 1 warm-up" % (
             "quick" if args.quick else "full", args.runs)]
    if parts_times:
        h.append("- parts: " + ", ".join("%s %.0f s" % kv for kv in parts_times))
    return h
