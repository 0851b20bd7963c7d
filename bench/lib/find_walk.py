"""find_walk.py - the `walk` part of bench/run.py (issue 19): `hay find -r`
over whole directory trees and `hay find` reading a pipe, beside GNU grep
and ripgrep, as whole commands (median and best wall seconds after a warm-up
round, the tools interleaved round after round).

All three search the same files and count the same lines, hay and rg on
the same number of threads (--threads, default: the CPUs; the row says it):
  hay find --threads N -r -a -c PATTERN TREE
  grep -r -a -c -F PATTERN TREE                       (LC_ALL=C; one thread)
  rg --no-config -j N -uuu -a -c -F -E none PATTERN TREE   (-uuu: no ignore
      files, hidden files, binary files; -a and -E none: every file read as
      bytes, no UTF-16 transcoding; links are not followed by any of them)
Each row has the median and the best wall seconds and the CPU seconds
(user + system, the median run's): on a machine with fewer cores than threads the CPU total is
what predicts the many-core wall time.  The pipe rows run `cat FILE | TOOL
-c PATTERN` (hay's default threads, rg's and grep's).  The summed per-file
counts must agree; a tree missing on the machine gives "skipped" rows.
"""
import os
import resource
import statistics
import subprocess
import time

from parts import case, haystack, log, shell_join

TABLE = "find-walk"


def timed(argv, env):
    """Wall seconds, the CPU seconds of the process and its children, the
    completed process."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), p


def total(out):
    """The sum of the per-file counts of -c (PATH:N or N lines)."""
    n = 0
    for line in out.decode("utf-8", "replace").splitlines():
        n += int(line.rsplit(":", 1)[-1])
    return n


def measure(ctx, row, cmds, env):
    """Runs the tools in turn, round after round (a busy machine slows them
    alike), one warm-up round first."""
    walls = {name: [] for name in cmds}
    counts = {}
    for i in range(1 + ctx.args.runs):
        for name, argv in cmds.items():
            s, cpu, p = timed(argv, env)
            if p.returncode not in (0, 1):
                log("walk: %s: exit %d: %s" % (shell_join(argv), p.returncode,
                                               p.stderr.decode("utf-8", "replace")[-300:]))
            if i:
                walls[name].append((s, cpu))
            counts[name] = total(p.stdout)
    for name, argv in cmds.items():
        med, cpu = sorted(walls[name])[(len(walls[name]) - 1) // 2]
        best = min(walls[name])[0]
        log("walk: %-32s %-5s %.3f s (best %.3f), CPU %.3f s (%d lines)"
            % (row, name, med, best, cpu, counts[name]))
        ctx.add(TABLE, row, name, "wall_s", med, "s", argv)
        ctx.add(TABLE, row, name, "best_s", best, "s", argv)
        ctx.add(TABLE, row, name, "cpu_s", cpu, "s", argv)
    ctx.check(len(set(counts.values())) == 1, "walk %s: counts differ %s" % (row, counts))


def part_walk(ctx):
    c, hid = case(ctx, "walk")
    t = ctx.tools
    env = dict(os.environ, LC_ALL="C")
    n = ctx.args.threads
    tools = {"hay": [t["hay"], "find"]}
    if t.get("grep"):
        tools["grep"] = [t["grep"].path, "-F"]
    if t.get("rg"):
        tools["rg"] = [t["rg"].path, "--no-config", "-uuu", "-F", "-E", "none"]
    trees = c["trees"][:1] if ctx.args.quick else c["trees"]
    for tree in trees:
        row = "-r %s (%d threads)" % (tree, n)
        if not os.path.isdir(tree):
            for name in tools:
                ctx.skip(TABLE, row, name, "wall_s", "s", "skipped (no %s here)" % tree)
            continue
        recurse = {"hay": ["--threads", str(n), "-r"], "grep": ["-r"], "rg": ["-j", str(n)]}
        measure(ctx, row, {name: a + recurse[name] + ["-a", "-c", c["pattern"], tree]
                           for name, a in tools.items()}, env)
    path, size = haystack(ctx, hid)
    row = "pipe %d MB" % round(size / 1e6)
    measure(ctx, row, {n: ["sh", "-c", 'cat "$0" | "$@"', path] + a + ["-c", c["pipe_pattern"]]
                       for n, a in tools.items()}, env)
