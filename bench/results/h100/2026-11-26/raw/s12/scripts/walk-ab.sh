#!/bin/bash
# walk-ab.sh - issue 19 A/B (session 12, h/walk-share): `hay find -r -c` before
# (main at 8dd93f4: .dev-s12/walk-old/ holds its programs/find files) and
# after (this tree), beside ripgrep and grep, whole commands, interleaved
# round after round (a busy machine slows them alike), one warm-up round.
#
# Run from the repository root.  Builds both from plain copies of this tree
# (no git needed), CUDA off for both (set NEW=path to time another build as
# "new"; OLD=path likewise).  Knobs: TREES="/usr/share /usr/include",
# JOBS="1 16", ROUNDS=9, PATTERN=PATH_MAX, MODES="a plain":
#   a      hay find --threads J -r -a -c P T   vs  rg -j J -uuu -a -c -F -E none P T
#          (bench/lib/find_walk.py's commands: every file read as bytes)
#   plain  hay find --threads J -r -c P T      vs  rg -j J -uuu -c -F P T
#          (issue 19's wording; rg then skips binary files' rest, hay doesn't)
# grep -r -c -F (one thread; LC_ALL=C) runs in every row.  Each row: best,
# median and max wall ms per tool, the median CPU ms (user+sys), the exit
# status and the summed counts (must agree), rg's median / new's median.
set -u
here=$PWD
jobs_build=$(nproc)
build() {   # build DIR [old]: a copy of this tree in DIR, hay built in DIR/b
    rm -rf "$1" && mkdir -p "$1"
    tar --exclude=./build --exclude=./build-* --exclude=./.device-carry --exclude=./.git \
        --exclude=./bench/work -cf - . | tar -C "$1" -xf -
    if [ "${2:-}" = old ]; then
        cp .dev-s12/walk-old/*.[ch] "$1/programs/find/"
    fi
    (cd "$1" && cmake -S . -B b -DCMAKE_BUILD_TYPE=Release -DHAY_CUDA=OFF -DHAY_TESTS=OFF \
        >/dev/null && cmake --build b -j"$jobs_build" --target hay 2>&1 |
        grep -E "error|Built target hay")
}
OLD=${OLD:-}
NEW=${NEW:-}
if [ -z "$OLD" ]; then build /tmp/walk-ab-old old; OLD=/tmp/walk-ab-old/b/hay; fi
if [ -z "$NEW" ]; then build /tmp/walk-ab-new; NEW=/tmp/walk-ab-new/b/hay; fi
for b in "$OLD" "$NEW"; do [ -x "$b" ] || { echo "walk-ab: no $b" >&2; exit 2; }; done
echo "old=$OLD new=$NEW rg=$(command -v rg) ($(rg --version 2>/dev/null | head -1)) grep=$(command -v grep)"
echo "host: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
exec python3 - "$OLD" "$NEW" <<'EOF'
import os, resource, statistics, subprocess, sys, time
old, new = sys.argv[1:3]
env = dict(os.environ, LC_ALL="C")
trees = os.environ.get("TREES", "/usr/share /usr/include").split()
jobs = os.environ.get("JOBS", "1 16").split()
rounds = int(os.environ.get("ROUNDS", "9"))
pat = os.environ.get("PATTERN", "PATH_MAX")
modes = os.environ.get("MODES", "a plain").split()

def timed(argv):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    wall = (time.perf_counter() - t) * 1e3
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3
    total = 0
    for line in p.stdout.splitlines():
        try:
            total += int(line.rsplit(b":", 1)[-1])
        except ValueError:
            pass
    return wall, cpu, p.returncode, total

for tree in trees:
    if not os.path.isdir(tree):
        print("%s: missing, skipped" % tree)
        continue
    nfiles = sum(len(f) for _, _, f in os.walk(tree))
    print("\n== %s (%d files)" % (tree, nfiles))
    for mode in modes:
        a = ["-a"] if mode == "a" else []
        rg_a = ["-a", "-E", "none"] if mode == "a" else []
        for j in jobs:
            cmds = {
                "old": [old, "find", "--threads", j, "-r"] + a + ["-c", pat, tree],
                "new": [new, "find", "--threads", j, "-r"] + a + ["-c", pat, tree],
                "rg": ["rg", "--no-config", "-j", j, "-uuu"] + rg_a + ["-c", "-F", pat, tree],
                "grep": ["grep", "-r"] + a + ["-c", "-F", pat, tree],
            }
            res = {n: [] for n in cmds}
            last = {}
            for r in range(rounds + 1):
                for n, argv in cmds.items():
                    w, c, rc, tot = timed(argv)
                    if r:
                        res[n].append((w, c))
                    last[n] = (rc, tot)
            print("-- %s, mode %s, -j %s (%d rounds; load %s)"
                  % (tree, mode, j, rounds, open("/proc/loadavg").read().split()[0]))
            for n in cmds:
                ws = sorted(w for w, _ in res[n])
                cpu = statistics.median(c for _, c in res[n])
                print("  %-5s best %7.1f  median %7.1f  max %7.1f ms  cpu %7.1f ms  exit %d  sum %d"
                      % (n, ws[0], statistics.median(ws), ws[-1], cpu, last[n][0], last[n][1]))
            med = {n: statistics.median(w for w, _ in res[n]) for n in cmds}
            best = {n: min(w for w, _ in res[n]) for n in cmds}
            print("  rg/new: median %.2fx, best %.2fx; old/new: median %.2fx%s"
                  % (med["rg"] / med["new"], best["rg"] / best["new"], med["old"] / med["new"],
                     "" if len({last[n][1] for n in ("old", "new", "rg")}) == 1
                     else "  COUNTS DIFFER"))
EOF
