#!/bin/bash
# walk-ab.sh - issue 19, session 13 (h/walk-big): `hay find -r -c` old (main at
# cf2cea1: .dev-s13/walk-old/ holds its programs/find and CMakeLists.txt), r1 (the
# tree of round 1, 9452032: .dev-s13/walk-r1/) and new (this tree) against ripgrep, whole commands, interleaved round after round (a
# busy machine slows them alike), one warm-up round.  Trees: /usr/share,
# /usr/include, and a synthetic one built in /dev/shm (.dev-s13/mktree.py: 4,600
# small files, then a directory "pocl" near the walk's end holding ten ~9 MB
# binary-ish files, as the host's /usr/share).
#
# Run from the repository root (a copy of the branch's tree with .dev-s13/ and
# .device-carry/rg).  Builds both from plain copies of this tree (no git needed),
# CUDA off.  Knobs: TREES, JOBS="1 4 8 12 16", ROUNDS=9, PATTERN=PATH_MAX,
# MODES="a plain":
#   a      hay find --threads J -r -a -c P T   vs  rg -j J -uuu -a -c -F -E none P T
#   plain  hay find --threads J -r -c P T      vs  rg -j J -uuu -c -F P T
#          (rg then skips binary files' rest, hay doesn't: counts may differ)
# Each row: best, median and max wall ms per tool, the median CPU ms (user+sys),
# the exit status and the summed counts; rg/new, old/new and r1/new ratios of
# medians.
# Then HAY_WALK_TIMELINE of one new -j16 -a run per tree (per worker: files,
# busy/idle ms, big files' start-end and threads).
set -u
here=$PWD
[ -x .device-carry/rg ] && export PATH=$here/.device-carry:$PATH
jobs_build=$(nproc)
build() {   # build DIR [old]: a copy of this tree in DIR, hay built in DIR/b
    rm -rf "$1" && mkdir -p "$1"
    tar --exclude=./build --exclude=./build-* --exclude=./.device-carry --exclude=./.git \
        --exclude=./.dev-s13 --exclude=./bench/work -cf - . | tar -C "$1" -xf -
    if [ -n "${2:-}" ]; then   # old or r1: its programs/find and CMakeLists.txt
        rm -f "$1"/programs/find/*.[ch]
        cp .dev-s13/walk-$2/programs/find/*.[ch] "$1/programs/find/"
        cp .dev-s13/walk-$2/CMakeLists.txt "$1/"
    fi
    (cd "$1" && cmake -S . -B b -DCMAKE_BUILD_TYPE=Release -DHAY_CUDA=OFF -DHAY_TESTS=OFF \
        >/dev/null && cmake --build b -j"$jobs_build" --target hay 2>&1 |
        grep -E "error|Built target hay")
}
OLD=${OLD:-}
NEW=${NEW:-}
t0=$(date +%s)
R1=${R1:-}
if [ -z "$OLD" ]; then build /tmp/walk-ab-old old & fi
if [ -z "$R1" ]; then build /tmp/walk-ab-r1 r1 & fi
if [ -z "$NEW" ]; then build /tmp/walk-ab-new & fi
python3 .dev-s13/mktree.py /dev/shm/walk-big &
wait
OLD=${OLD:-/tmp/walk-ab-old/b/hay}
R1=${R1:-/tmp/walk-ab-r1/b/hay}
NEW=${NEW:-/tmp/walk-ab-new/b/hay}
for b in "$OLD" "$R1" "$NEW"; do [ -x "$b" ] || { echo "walk-ab: no $b" >&2; exit 2; }; done
echo "built in $(( $(date +%s) - t0 )) s"
echo "old=$OLD r1=$R1 new=$NEW rg=$(command -v rg) ($(rg --version 2>/dev/null | head -1))"
echo "host: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
export TREES=${TREES:-/usr/share /usr/include /dev/shm/walk-big}
python3 - "$OLD" "$R1" "$NEW" <<'PY'
import os, resource, statistics, subprocess, sys, time
old, r1, new = sys.argv[1:4]
env = dict(os.environ, LC_ALL="C")
trees = os.environ["TREES"].split()
jobs = os.environ.get("JOBS", "1 4 8 12 16").split()
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
                "r1": [r1, "find", "--threads", j, "-r"] + a + ["-c", pat, tree],
                "new": [new, "find", "--threads", j, "-r"] + a + ["-c", pat, tree],
                "rg": ["rg", "--no-config", "-j", j, "-uuu"] + rg_a + ["-c", "-F", pat, tree],
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
            print("  rg/new: median %.2fx, best %.2fx; old/new: median %.2fx; r1/new: median %.2fx%s"
                  % (med["rg"] / med["new"], best["rg"] / best["new"], med["old"] / med["new"],
                     med["r1"] / med["new"],
                     "" if last["old"][1] == last["new"][1] else "  OLD/NEW COUNTS DIFFER"))
PY
for tree in $TREES; do
    [ -d "$tree" ] || continue
    echo; echo "== HAY_WALK_TIMELINE: new --threads 16 -r -a -c $tree (after 2 warm runs)"
    "$NEW" find --threads 16 -r -a -c PATH_MAX "$tree" >/dev/null 2>&1
    "$NEW" find --threads 16 -r -a -c PATH_MAX "$tree" >/dev/null 2>&1
    HAY_WALK_TIMELINE=1 "$NEW" find --threads 16 -r -a -c PATH_MAX "$tree" 2>&1 >/dev/null |
        head -80
done
echo; echo "== 10 largest files under /usr/share"
find /usr/share -type f -printf '%s %p\n' 2>/dev/null | sort -n | tail -10
echo "total $(( $(date +%s) - t0 )) s"
