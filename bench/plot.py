#!/usr/bin/env python3
"""bench/plot.py - one chart per benchmark of a record, as PNG and SVG.

  python3 bench/plot.py RECORD.csv OUTDIR [--title TEXT]

For each benchmark in the CSV that bench/run.py wrote, draws a horizontal bar
chart of throughput (GB/s, scan time where reported, else wall) per engine,
with peers in a second colour and failed rows marked, and writes
OUTDIR/BENCH.png and OUTDIR/BENCH.svg.  It prints a markdown block that embeds
the PNGs, for docs/PERF.md.  Needs matplotlib (pip install matplotlib); when it
is missing the script says so and exits 0 without drawing, so a benchmark run
never fails for want of plots.
"""

import argparse
import csv
import os
import sys
from collections import OrderedDict


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("record")
    ap.add_argument("outdir")
    ap.add_argument("--title", default="")
    ap.add_argument("--relative-to", default="",
                    help="path the markdown links are written relative to")
    a = ap.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot: matplotlib is not installed; no plots drawn", file=sys.stderr)
        return 0
    with open(a.record, newline="") as f:
        rows = list(csv.DictReader(f))
    benches = OrderedDict()
    for r in rows:
        benches.setdefault(r["bench"], []).append(r)
    os.makedirs(a.outdir, exist_ok=True)
    md = []
    for bench, rs in benches.items():
        labels, values, colours = [], [], []
        for r in rs:
            v = 0.0
            for key in ("scan_gbps", "wall_gbps"):
                try:
                    v = float(r.get(key, ""))
                    break
                except ValueError:
                    continue
            labels.append(r.get("label") or r["engine"])
            values.append(v)
            ok = r.get("status", "ok") == "ok"
            colours.append("#b22222" if not ok else
                           ("#1f77b4" if r.get("tool") == "hay" else "#999999"))
        fig, ax = plt.subplots(figsize=(7, 0.35 * len(labels) + 1.2))
        ypos = range(len(labels))
        ax.barh(list(ypos), values, color=colours)
        ax.set_yticks(list(ypos))
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("GB/s (scan where reported, else wall)")
        first = rs[0]
        ax.set_title("%s%s\n%s, %s bytes, %s" % (
            a.title + ": " if a.title else "", bench, first.get("host", ""),
            first.get("bytes", "?"), first.get("date", "")), fontsize=9)
        for y, v in zip(ypos, values):
            ax.text(v, y, " %.2f" % v, va="center", fontsize=7)
        fig.tight_layout()
        for ext in ("png", "svg"):
            fig.savefig(os.path.join(a.outdir, "%s.%s" % (bench, ext)))
        plt.close(fig)
        rel = os.path.relpath(os.path.join(a.outdir, bench + ".png"),
                              a.relative_to or os.getcwd())
        md.append("![%s](%s)" % (bench, rel))
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
