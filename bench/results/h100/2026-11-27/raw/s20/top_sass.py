#!/usr/bin/env python3
# Prints the SASS lines of an ncu source page (CSV) with the most warp-stall samples.
import csv, sys
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
hdr_i = next((i for i, r in enumerate(rows) if any("Warp Stall Sampling" in c for c in r)), None)
if hdr_i is None:
    print("no stall column; first lines:"); [print(r[:6]) for r in rows[:5]]; sys.exit(0)
h = rows[hdr_i]
def col(*keys):
    for k in keys:
        for j, c in enumerate(h):
            if k in c:
                return j
    return None
js = col("Warp Stall Sampling (All Samples)", "Warp Stall Sampling")
jsrc = col("Source")
jaddr = col("Address", "#")
print("columns:", [c for c in h][:40])
data = []
for r in rows[hdr_i + 1:]:
    try:
        data.append((float(r[js].replace(",", "") or 0), r))
    except (ValueError, IndexError):
        pass
tot = sum(x for x, _ in data) or 1
print("total samples", tot)
for x, r in sorted(data, key=lambda t: -t[0])[:45]:
    print("%6.2f%%  %s  %s" % (100 * x / tot, r[jaddr] if jaddr is not None else "", r[jsrc][:90] if jsrc is not None else r[:3]))
