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
A tree named "generated:big-last" is built in WORK (generated_tree): the
shape of a small /usr/share whose biggest files, ten ~9 MiB binary ones,
sit in one directory near the end of a sorted walk (pocl's kernels on the
16-core host, session 13): 4,600 small files copied from /usr/include, then
zz-big/ holding include/ (a directory, which ends a range of work, pool.c)
and the ten big files, a few lines of which hold the pattern.
Each row has the median and the best wall seconds and the CPU seconds
(user + system, the median run's): on a machine with fewer cores than threads the CPU total is
what predicts the many-core wall time.  The pipe rows run `cat FILE | TOOL
-c PATTERN` (hay's default threads, rg's and grep's).  The summed per-file
counts must agree; a tree missing on the machine gives "skipped" rows.
"""
import os
import random
import resource
import shutil
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


def generated_tree(ctx, name, pattern):
    """WORK/walk-NAME, built once (see the top); None when /usr/include,
    where its small files come from, is missing."""
    if name != "big-last" or not os.path.isdir("/usr/include"):
        return None
    root = os.path.join(ctx.args.work, "walk-" + name)
    done = os.path.join(ctx.args.work, "walk-%s.done" % name)
    if os.path.exists(done):
        return root
    shutil.rmtree(root, ignore_errors=True)
    n = 0
    for top, dirs, files in os.walk("/usr/include"):
        dirs.sort()
        for f in sorted(files):
            src = os.path.join(top, f)
            if n == 4600 or os.path.islink(src) or os.path.getsize(src) > (1 << 20):
                continue
            dst = os.path.join(root, os.path.relpath(src, "/usr/include"))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
            n += 1
    big = os.path.join(root, "zz-big")
    os.makedirs(os.path.join(big, "include"))
    with open(os.path.join(big, "include", "h.h"), "w") as f:
        f.write("#define H 1\n")
    rnd = random.Random(19)
    line = ("#define %s 4096\n" % pattern).encode()
    for i in range(10):
        parts = []
        for k in range((9 << 20) // 4096):
            parts.append(rnd.randbytes(4000))
            parts.append(line if k % 500 == 0 else b"a line of text\n")
        with open(os.path.join(big, "kernel-%02d.bc" % i), "wb") as f:
            f.write(b"".join(parts))
    open(done, "w").close()
    log("walk: built %s (%d small files, ten 9 MiB files last)" % (root, n))
    return root


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
        if tree.startswith("generated:"):
            tree = generated_tree(ctx, tree.split(":", 1)[1], c["pattern"]) or tree
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
