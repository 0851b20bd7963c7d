#!/bin/bash
# walk-why.sh - where hay's -j16 time goes on a small tree (lead's RESULT-1/2 ask).
# Run from the repository root after walk-ab.sh (uses its builds) or with NEW=path.
# Prints: -j16 best/median of 9 for an empty dir, a one-tiny-file tree, TREE (default
# /usr/share) with and without --sort none, for hay-new and rg; the 10 largest files;
# and an strace -f -tt timeline of one -j16 run: per thread the first and last
# file opened (ms from start) and what was open last.
set -u
NEW=${NEW:-/tmp/walk-ab-new/b/hay}; TREE=${TREE:-/usr/share}; P=${PATTERN:-PATH_MAX}
tmp=$(mktemp -d); mkdir -p "$tmp/empty" "$tmp/one"; echo "x PATH_MAX y" > "$tmp/one/f"
export LC_ALL=C
python3 - "$NEW" "$TREE" "$P" "$tmp" <<'PY'
import statistics, subprocess, sys, time
new, tree, pat, tmp = sys.argv[1:5]
def t(argv):
    s = time.perf_counter(); subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - s) * 1e3
rows = [("empty dir", tmp + "/empty", []), ("one tiny file", tmp + "/one", []),
        (tree, tree, []), (tree + " --sort none", tree, ["--sort", "none"])]
for label, d, extra in rows:
    cmds = {"hay": [new, "find", "--threads", "16"] + extra + ["-r", "-a", "-c", pat, d],
            "rg": ["rg", "--no-config", "-j16", "-uuu", "-a", "-c", "-F", "-E", "none", pat, d]}
    res = {k: [] for k in cmds}
    for r in range(10):
        for k, a in cmds.items():
            w = t(a)
            if r: res[k].append(w)
    print("%-28s " % label + "  ".join("%s best %.1f median %.1f ms" % (k, min(v), statistics.median(v))
                                      for k, v in res.items()))
PY
echo "== 10 largest files under $TREE"
find "$TREE" -type f -printf '%s %p\n' 2>/dev/null | sort -n | tail -10
if command -v strace >/dev/null; then
  echo "== strace -f -tt timeline, hay --threads 16 -r -a -c $P $TREE"
  strace -f -ttt -e trace=clone3,openat,exit_group -o "$tmp/st" "$NEW" find --threads 16 -r -a -c "$P" "$TREE" >/dev/null 2>&1
  python3 - "$tmp/st" <<'PY'
import re, sys
t0 = None; first = {}; last = {}; lastname = {}; clones = []; end = None
for line in open(sys.argv[1]):
    m = re.match(r'(\d+)\s+([\d.]+) (.*)', line)
    if not m: continue
    tid, t, rest = m.group(1), float(m.group(2)), m.group(3)
    t0 = t if t0 is None else t0
    ms = (t - t0) * 1e3
    if rest.startswith("clone3"): clones.append(ms)
    if rest.startswith("exit_group"): end = ms
    o = re.match(r'openat\(\d+|AT_FDCWD, "([^"]*)"', rest)
    if rest.startswith("openat(") and "= -1" not in rest and "/lib" not in rest and "/etc" not in rest:
        n = re.search(r'"([^"]*)"', rest)
        first.setdefault(tid, ms); last[tid] = ms; lastname[tid] = n.group(1) if n else "?"
print("threads started at (ms): %s" % " ".join("%.2f" % c for c in clones))
for tid in sorted(first, key=lambda k: first[k]):
    print("  tid %s: first open %.2f ms, last open %.2f ms (%s)" % (tid, first[tid], last[tid], lastname[tid]))
print("exit_group at %.2f ms (strace slows every call: compare shapes, not totals)" % (end or -1))
PY
fi
rm -rf "$tmp"
