#!/usr/bin/env python3
"""compare.py - speed-ups and regressions between two benchmark records.

  python3 bench/run.py compare bench/results/MACHINE        # newest vs the one before
  python3 bench/run.py compare OLD.csv NEW.csv              # two given records
  python3 bench/run.py compare --threshold 0.10 OLD.csv NEW.csv

Records are the CSV files that `bench/run.py --record MACHINE` writes
(bench/results/MACHINE/DATE/records.csv: table,row,engine,metric,value,unit,...),
or the search suite's results.csv (bench/run.py search --out DIR).
Search-suite files: rows are matched on (bench, engine); for each pair the median
times are compared (scan time where both records have one, wall time otherwise).
Records: rows are matched on (table, row, engine, metric); times (s, ms),
energy (J...) are better lower, throughputs (GB/s, Gbps, GCUPS) and speed-ups
(x) better higher; counts and scores must be equal.  A row that got
slower by more than the threshold is a regression; the exit status is 1 when
there is one, so a CI job or a script can stop on it.  Rows present in only one
record are listed, never silently dropped.  Standard library only.
"""

import argparse
import csv
import os
import sys


def kind_of(path):
    with open(path, newline="") as f:
        head = next(csv.reader(f), [])
    return "all" if "metric" in head and "table" in head else "run"


def load(path):
    with open(path, newline="") as f:
        if kind_of(path) == "all":
            return {(r["table"], r["row"], r["engine"], r["metric"]): r
                    for r in csv.DictReader(f)}
        return {(r["bench"], r["engine"]): r for r in csv.DictReader(f)}


def newest_two(folder):
    """The newest record and the newest earlier one of the same kind."""
    files = sorted(f for f in os.listdir(folder) if f.endswith(".csv"))
    files += sorted(os.path.join(f, "records.csv") for f in os.listdir(folder)
                    if os.path.isfile(os.path.join(folder, f, "records.csv")))
    files.sort(key=lambda f: f.replace(os.sep + "records.csv", ""))
    if files:
        kind = kind_of(os.path.join(folder, files[-1]))
        same = [f for f in files if kind_of(os.path.join(folder, f)) == kind]
    else:
        same = []
    if len(same) < 2:
        raise SystemExit("compare: %s holds %d record(s) of one kind; two are needed"
                         % (folder, len(same)))
    return os.path.join(folder, same[-2]), os.path.join(folder, same[-1])


LOWER = ("s", "ms", "j")        # unit prefixes where lower is better
EXACT = ("matches", "lines", "score", "blocks")


def compare_all(old, new, threshold):
    print("| table | row | engine | metric | old | new | change | verdict |")
    print("|---|---|---|---|---:|---:|---:|---|")
    bad = 0
    for key in sorted(set(old) & set(new)):
        o, n = old[key], new[key]
        unit = n["unit"].split()[0].lower() if n["unit"] else ""
        try:
            a, b = float(o["value"]), float(n["value"])
        except ValueError:
            verdict = "same" if o["value"] == n["value"] else "%s -> %s" % (
                o["status"], n["status"])
            if n["status"] == "FAIL":
                verdict, bad = "FAIL", bad + 1
            print("| %s | %s | %s | %s | %s | %s | | %s |" % (key + (o["value"], n["value"],
                                                              verdict)))
            continue
        if unit in EXACT or key[3] == "count":
            verdict = "same" if a == b else "DIFFERS"
            bad += a != b
            print("| %s | %s | %s | %s | %g | %g | | %s |" % (key + (a, b, verdict)))
            continue
        if a <= 0 or b <= 0:
            print("| %s | %s | %s | %s | %g | %g | | no ratio |" % (key + (a, b)))
            continue
        better = a / b if unit.startswith(LOWER) else b / a
        if n["status"] == "FAIL":
            verdict = "FAIL"
            bad += 1
        elif better < 1 / (1 + threshold):
            verdict = "REGRESSION"
            bad += 1
        elif better > 1 + threshold:
            verdict = "faster" if not unit.startswith("j") else "less energy"
        else:
            verdict = "same"
        print("| %s | %s | %s | %s | %g | %g | %.2fx | %s |" % (key + (a, b, better, verdict)))
    for key in sorted(set(old) - set(new)):
        print("| %s | %s | %s | %s | | | | only in old |" % key)
    for key in sorted(set(new) - set(old)):
        print("| %s | %s | %s | %s | | | | only in new |" % key)
    print("\n%d regression(s) beyond %.0f%% (change: > 1 is better)" % (bad, threshold * 100))
    return 1 if bad else 0


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
    if kind_of(old_path) != kind_of(new_path):
        raise SystemExit("compare: %s and %s are records of different kinds" % (old_path,
                                                                               new_path))
    old, new = load(old_path), load(new_path)
    print("old: %s\nnew: %s\n" % (old_path, new_path))
    if kind_of(new_path) == "all":
        return compare_all(old, new, a.threshold)
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
