#!/usr/bin/env python3
"""bench/compare.py - speed-ups and regressions between two benchmark records.

  python3 bench/compare.py bench/results/MACHINE            # newest vs the one before
  python3 bench/compare.py OLD.csv NEW.csv                  # two given records
  python3 bench/compare.py --threshold 0.10 OLD.csv NEW.csv

Records are the CSV files that bench/run.py writes (bench/results/MACHINE/DATE.csv).
Rows are matched on (bench, engine); for each pair the median times are compared
(scan time where both records have one, wall time otherwise).  A row that got
slower by more than the threshold is a regression; the exit status is 1 when
there is one, so a CI job or a script can stop on it.  Rows present in only one
record are listed, never silently dropped.  Standard library only.
"""

import argparse
import csv
import os
import sys


def load(path):
    with open(path, newline="") as f:
        return {(r["bench"], r["engine"]): r for r in csv.DictReader(f)}


def newest_two(folder):
    files = sorted(f for f in os.listdir(folder) if f.endswith(".csv"))
    if len(files) < 2:
        raise SystemExit("compare: %s holds %d record(s); two are needed"
                         % (folder, len(files)))
    return os.path.join(folder, files[-2]), os.path.join(folder, files[-1])


def seconds(row, kind):
    v = row.get(kind + "_median_s", "")
    try:
        return float(v) if v not in ("", "-") else None
    except ValueError:
        return None


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("records", nargs="+", help="a results folder, or OLD.csv NEW.csv")
    ap.add_argument("--threshold", type=float, default=0.10,
                    help="slowdown fraction that counts as a regression (default 0.10)")
    a = ap.parse_args(argv)
    if len(a.records) == 1 and os.path.isdir(a.records[0]):
        old_path, new_path = newest_two(a.records[0])
    elif len(a.records) == 2:
        old_path, new_path = a.records
    else:
        ap.error("give one results folder or two CSV files")
    old, new = load(old_path), load(new_path)
    print("old: %s\nnew: %s\n" % (old_path, new_path))
    print("| bench | engine | time | old s | new s | speed-up | verdict |")
    print("|---|---|---|---:|---:|---:|---|")
    regressions = 0
    for key in sorted(set(old) & set(new)):
        o, n = old[key], new[key]
        kind = "scan" if seconds(o, "scan") and seconds(n, "scan") else "wall"
        to, tn = seconds(o, kind), seconds(n, kind)
        if not to or not tn:
            verdict, speed = "no time", ""
        else:
            s = to / tn
            speed = "%.2fx" % s
            if n.get("status") != "ok":
                verdict = "FAIL (%s)" % n.get("status")
                regressions += 1
            elif s < 1 / (1 + a.threshold):
                verdict = "REGRESSION"
                regressions += 1
            elif s > 1 + a.threshold:
                verdict = "faster"
            else:
                verdict = "same"
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            key[0], key[1], kind, "%.6f" % to if to else "-",
            "%.6f" % tn if tn else "-", speed, verdict))
    for key in sorted(set(old) - set(new)):
        print("| %s | %s | | | | | only in old |" % key)
    for key in sorted(set(new) - set(old)):
        print("| %s | %s | | | | | only in new |" % key)
    print("\n%d regression(s) beyond %.0f%%" % (regressions, a.threshold * 100))
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
