#!/usr/bin/env python3
"""find_input.py - `hay find`'s input side and walker against GNU grep.

Usage: find_input.py HAY DATA_DIR CASE

Cases:
  live-pipe     a line written to a pipe shows on hay's output (a terminal)
                before the pipe is closed (guarded by a timeout, no timing)
  proc          /proc/cpuinfo and a /sys file (size 0 or unmappable) against grep
  fifo          a FIFO operand against grep
  truncate      a big (mapped) file truncated while it is searched: a warning,
                never a signal
  long-line     one 50 MB line of 'a': -o and plain output in bounded memory
  deep-tree     -r into a tree 1,500 levels deep (paths past PATH_MAX) with
                256 descriptors at most, against grep
  nul-late      a NUL byte after the first 32 KiB: lines before it, then the
                note, as grep -a's lines and grep's note
  walk-data     -r over DATA_DIR against grep -r (sorted), --sort none, --threads 1
  walk-tree     -r over a generated tree (links, FIFOs, hidden and empty files,
                a binary file) against grep -r
  walk-fds      -r over 3,000 files behind a slow big one, with 128 descriptors:
                the queue of open files stays under the limit
  file-pieces   big regular files that one thread reads in pieces of 1 MiB:
                matches across the cuts, against grep and against the files
                mapped (two threads); a NUL inside the first 32 KiB but past
                a short first piece still makes the file binary

Prints PASS/FAIL lines and "N passed, M failed" last; exits 1 on a failure
and 77 (skip) when what the case needs is missing.
"""
import os
import pty
import random
import resource
import select
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

ENV = dict(os.environ, LC_ALL="C")
passed = failed = 0


def check(cond, label, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("PASS " + label)
    else:
        failed += 1
        print("FAIL %s %s" % (label, detail[:600]))
    return cond


def run(argv, **kw):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                       timeout=kw.pop("timeout", 120), **kw)
    return p.returncode, p.stdout, p.stderr


def same_as_grep(label, hay_args, grep_args, sort=False):
    """hay find HAY_ARGS against grep GREP_ARGS: stdout and exit status."""
    hs, ho, he = run([HAY, "find"] + hay_args)
    gs, go, ge = run(["grep"] + grep_args)
    if sort:
        ho, go = sorted(ho.splitlines()), sorted(go.splitlines())
    return check(hs == gs and ho == go, label,
                 "hay exit %d, grep exit %d; hay %r..., grep %r...; hay stderr %r"
                 % (hs, gs, ho[:200], go[:200], he[:200]))


def case_live_pipe():
    """The input arrives line by line; the first line must be printed while
    the writer still holds the pipe open.  Standard output is a terminal, so
    hay flushes each line."""
    master, slave = pty.openpty()
    p = subprocess.Popen([HAY, "find", "ERROR"], stdin=subprocess.PIPE, stdout=slave,
                         stderr=subprocess.PIPE, env=ENV)
    os.close(slave)
    p.stdin.write(b"INFO start\nERROR first\n")
    p.stdin.flush()
    seen = b""
    deadline = time.time() + 20
    while b"ERROR first" not in seen and time.time() < deadline:
        r, _, _ = select.select([master], [], [], 0.5)
        if r:
            try:
                seen += os.read(master, 4096)
            except OSError:
                break
    check(b"ERROR first" in seen, "live-pipe: a line shows before the end of the input",
          "got %r" % seen)
    p.stdin.write(b"ERROR second\n")
    p.stdin.close()
    p.wait(timeout=20)
    while True:
        r, _, _ = select.select([master], [], [], 0.5)
        if not r:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    check(p.returncode == 0 and b"ERROR second" in seen and b"INFO" not in seen,
          "live-pipe: the rest after the end", "exit %d, got %r" % (p.returncode, seen))


def case_proc():
    if not os.path.exists("/proc/cpuinfo"):
        print("SKIP: no /proc/cpuinfo")
        sys.exit(77)
    same_as_grep("proc: -c processor /proc/cpuinfo", ["-c", "processor", "/proc/cpuinfo"],
                 ["-c", "-F", "processor", "/proc/cpuinfo"])
    same_as_grep("proc: -n -o /proc/version", ["-n", "-o", "version", "/proc/version"],
                 ["-n", "-o", "-F", "version", "/proc/version"])
    for f in ("/sys/kernel/mm/transparent_hugepage/enabled", "/sys/devices/system/cpu/online",
              "/sys/kernel/uevent_seqnum"):
        if os.path.exists(f):
            same_as_grep("proc: %s" % f, ["-c", "-e", "", f], ["-c", "-F", "-e", "", f])


def feed_fifo(path, data):
    with open(path, "wb") as f:
        for i in range(0, len(data), 7000):
            f.write(data[i:i + 7000])
            f.flush()


def case_fifo():
    tmp = tempfile.mkdtemp(prefix="hay-fifo.")
    try:
        data = b"".join(b"line %d %s\n" % (i, b"needle" if i % 7 == 0 else b"hay")
                        for i in range(200000))
        plain = os.path.join(tmp, "plain")
        with open(plain, "wb") as f:
            f.write(data)
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        for args in (["-n", "needle"], ["-c", "needle"], ["-b", "-o", "needle"]):
            t = threading.Thread(target=feed_fifo, args=(fifo, data))
            t.start()
            hs, ho, he = run([HAY, "find"] + args + [fifo])
            t.join()
            gs, go, _ = run(["grep", "-F"] + args + [plain])
            check(hs == gs and ho == go, "fifo: %s" % " ".join(args),
                  "hay exit %d grep %d, sizes %d %d, %r" % (hs, gs, len(ho), len(go), he[:200]))
    finally:
        shutil.rmtree(tmp)


def case_truncate():
    """The file must be mapped (8 MiB or more, and two threads: one thread
    reads it in pieces instead) and the scan slow (the naive engine: about
    0.1 s or more for 128 MiB) for the truncation to land inside it; a run
    that finished before the truncation, or started after it, is tried
    again with another delay."""
    tmp = tempfile.mkdtemp(prefix="hay-trunc.")
    try:
        hit, died = False, []
        line = b"x" * 63 + b"\n"
        path = os.path.join(tmp, "log")
        for delay in (0.05, 0.1, 0.02, 0.2, 0.01, 0.4, 0.03, 0.15):
            with open(path, "wb") as f:
                for _ in range(128):
                    f.write(line * ((1 << 20) // len(line)))
            p = subprocess.Popen([HAY, "find", "--threads", "2", "--algo", "naive",
                                  "--no-progress", "-c", "zzz", path],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
            time.sleep(delay)
            os.truncate(path, 4096)
            out, err = p.communicate(timeout=300)
            if p.returncode < 0 or p.returncode > 2:
                died.append(p.returncode)
            if b"truncated" in err:
                hit = True
                check(p.returncode in (0, 1) and out.strip().isdigit(),
                      "truncate: the search ends with a warning",
                      "exit %d out %r err %r" % (p.returncode, out, err))
                break
        check(not died, "truncate: never killed by a signal", "exits %r" % died)
        check(hit, "truncate: the truncation landed inside a search (else retried)")
    finally:
        shutil.rmtree(tmp)


def max_rss_kb(argv):
    """Runs argv with stdout counted (newlines) and returns (exit, newlines,
    max RSS in KiB) of that process alone."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
    lines = 0
    while True:
        b = p.stdout.read(1 << 20)
        if not b:
            break
        lines += b.count(b"\n")
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, lines, ru.ru_maxrss


def case_long_line():
    tmp = tempfile.mkdtemp(prefix="hay-long.")
    try:
        n = 50 * 1000 * 1000
        path = os.path.join(tmp, "a")
        with open(path, "wb") as f:
            f.write(b"a" * n + b"\n")
        # The mapped file itself counts in the RSS (50 MB); a 16-byte record
        # per match would be 800 MB more.
        bound = 200 * 1024
        rc, lines, rss = max_rss_kb([HAY, "find", "-o", "a", path])
        check(rc == 0 and lines == n and rss < bound, "long-line: -o, RSS %d KiB" % rss,
              "exit %d, %d lines (want %d), bound %d KiB" % (rc, lines, n, bound))
        rc, lines, rss = max_rss_kb([HAY, "find", "a", path])
        check(rc == 0 and lines == 1 and rss < bound, "long-line: lines, RSS %d KiB" % rss,
              "exit %d, %d lines, bound %d KiB" % (rc, lines, bound))
        rc, lines, rss = max_rss_kb(["sh", "-c", 'cat "$1" | "$0" find -c a', HAY, path])
        check(rc == 0, "long-line: from a pipe")
    finally:
        shutil.rmtree(tmp)


def run_with_fds(argv, nofile):
    """run() with at most `nofile` open descriptors."""
    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                       preexec_fn=limit, timeout=300)
    return p.returncode, p.stdout, p.stderr


def case_deep_tree():
    tmp = tempfile.mkdtemp(prefix="hay-deep.")
    try:
        name = "level_dir"   # 1,500 x 10 bytes: far past PATH_MAX
        fd = os.open(tmp, os.O_RDONLY)
        for depth in range(1500):
            if depth % 100 == 0 or depth == 1499:
                f = os.open("f.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
                os.write(f, b"depth %d needle\nother line\n" % depth)
                os.close(f)
            os.mkdir(name, dir_fd=fd)
            nfd = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nfd
        os.close(fd)
        hs, ho, he = run_with_fds([HAY, "find", "-r", "-n", "needle", tmp], 256)
        gs, go, _ = run(["grep", "-r", "-n", "-F", "needle", tmp])
        check(hs == gs == 0 and sorted(ho.splitlines()) == sorted(go.splitlines())
              and go.count(b"\n") == 16, "deep-tree: -r 1,500 levels with 256 descriptors",
              "hay exit %d grep %d, %d vs %d lines, hay stderr %r"
              % (hs, gs, ho.count(b"\n"), go.count(b"\n"), he[:300]))
    finally:
        subprocess.run(["rm", "-rf", tmp])


def case_nul_late():
    tmp = tempfile.mkdtemp(prefix="hay-nul.")
    try:
        path = os.path.join(tmp, "f")
        head = b"".join(b"line %d %s\n" % (i, b"foo" if i % 3 else b"bar") for i in range(20000))
        tail = b"".join(b"after %d foo\n" % i for i in range(100))
        with open(path, "wb") as f:
            f.write(head + b"foo \x00 bar\n" + tail)
        head_path = os.path.join(tmp, "head")
        with open(head_path, "wb") as f:
            f.write(head)
        for args in (["foo"], ["-n", "foo"], ["-o", "-b", "foo"]):
            hs, ho, he = run([HAY, "find"] + args + [path])
            gs, go, ge = run(["grep", "-F"] + args + [path])
            _, ga, _ = run(["grep", "-F", "-a"] + args + [path])
            # Every line before the one holding the NUL, as grep -a prints them.
            _, want, _ = run(["grep", "-F", "-a"] + args + [head_path])
            note_h = he.replace(b"hay: ", b"", 1)
            note_g = ge.replace(b"grep: ", b"", 1)
            check(hs == gs and b"\x00" not in ho and ho.startswith(go) and ga.startswith(ho)
                  and ho == want and note_h == note_g,
                  "nul-late: %s" % " ".join(args),
                  "exit %d/%d; sizes hay %d grep %d grep -a %d want %d; stderr %r / %r"
                  % (hs, gs, len(ho), len(go), len(ga), len(want), he, ge))
    finally:
        shutil.rmtree(tmp)


def walk_compare(label, root, pattern, extra=()):
    args = ["-r", "-n"] + list(extra) + [pattern, root]
    same_as_grep(label + ": -r -n", args, ["-F"] + args, sort=True)
    same_as_grep(label + ": -r -c", ["-r", "-c", pattern, root],
                 ["-F", "-r", "-c", pattern, root], sort=True)
    one = run([HAY, "find", "--threads", "1"] + args)
    many = run([HAY, "find", "--threads", "4"] + args)
    check(one == many, label + ": --threads 4 prints what --threads 1 does, in order")
    none = run([HAY, "find", "--sort", "none", "--threads", "4"] + args)
    check(none[0] == one[0] and sorted(none[1].splitlines()) == sorted(one[1].splitlines()),
          label + ": --sort none prints the same lines")


def case_walk_data():
    if not os.path.isdir(os.path.join(DATA, "text")):
        print("SKIP: ../shared/data not found (looked in %s)" % DATA)
        sys.exit(77)
    walk_compare("walk-data", DATA, "the")
    walk_compare("walk-data", DATA, "Holmes", ["-i"])


def case_walk_tree():
    tmp = tempfile.mkdtemp(prefix="hay-tree.")
    try:
        rnd = random.Random(7)
        words = [b"alpha", b"needle", b"beta", b"gamma", b"Needle"]
        dirs = [tmp]
        for i in range(60):
            d = os.path.join(rnd.choice(dirs), ("d%d" % i) if i % 9 else (".hidden%d" % i))
            os.mkdir(d)
            dirs.append(d)
        for i in range(400):
            d = rnd.choice(dirs)
            name = ("f%d.txt" % i) if i % 13 else (".h%d" % i)
            with open(os.path.join(d, name), "wb") as f:
                for _ in range(rnd.randrange(0, 300)):
                    f.write(b" ".join(rnd.choice(words) for _ in range(6)) + b"\n")
        with open(os.path.join(tmp, "bin.dat"), "wb") as f:
            f.write(b"needle\x00binary\n")
        os.symlink(os.path.join(dirs[1], "f1.txt") if os.path.exists(
            os.path.join(dirs[1], "f1.txt")) else tmp, os.path.join(tmp, "link"))
        os.symlink(dirs[2], os.path.join(tmp, "dirlink"))
        os.mkfifo(os.path.join(tmp, "fifo"))
        walk_compare("walk-tree", tmp, "needle")
        hs, _, he = run([HAY, "find", "-r", "needle", tmp])
        gs, _, ge = run(["grep", "-F", "-r", "needle", tmp])
        check(sorted(he.replace(b"hay: ", b"").splitlines()) ==
              sorted(ge.replace(b"grep: ", b"").splitlines()),
              "walk-tree: the same notes on stderr", "%r / %r" % (he[:300], ge[:300]))
    finally:
        shutil.rmtree(tmp)


def case_walk_fds():
    tmp = tempfile.mkdtemp(prefix="hay-fds.")
    try:
        with open(os.path.join(tmp, "a_big"), "wb") as f:
            f.write((b"x" * 99 + b"\n") * 1000000)
        for i in range(3000):
            with open(os.path.join(tmp, "f%05d" % i), "wb") as f:
                f.write(b"needle %d\n" % i)
        argv = [HAY, "find", "--algo", "naive", "--threads", "2", "-r", "-c", "needle", tmp]
        hs, ho, he = run_with_fds(argv, 128)
        one = run([HAY, "find", "--threads", "1", "-r", "-c", "needle", tmp])
        check(hs == 0 and not he and ho == one[1] and ho.count(b"\n") == 3001,
              "walk-fds: 3,001 files with 128 descriptors",
              "exit %d, %d lines, stderr %r" % (hs, ho.count(b"\n"), he[:200]))
        # Files whose output is bigger than a worker holds back (16 MiB):
        # they wait for their turn and print in order.
        big = os.path.join(tmp, "big")
        os.mkdir(big)
        for i in range(8):
            with open(os.path.join(big, "f%d" % i), "wb") as f:
                f.write(b"".join(b"line %d e\n" % j for j in range(1500000 if i % 3 == 0 else 10)))
        one = run([HAY, "find", "--threads", "1", "-r", "e", big])
        many = run([HAY, "find", "--threads", "4", "-r", "e", big])
        check(one == many and one[1].count(b"\n") == 3 * 1500000 + 5 * 10,
              "walk-fds: big outputs print in order with 4 threads")
    finally:
        shutil.rmtree(tmp)


def case_file_pieces():
    tmp = tempfile.mkdtemp(prefix="hay-pieces.")
    try:
        mib = 1 << 20
        rnd = random.Random(19)
        data = bytearray()
        while len(data) < 12 * mib:
            n = rnd.randrange(0, 300)
            line = bytes(rnd.choice(b"abcdefgh ") for _ in range(n))
            if rnd.randrange(7) == 0:
                at = rnd.randrange(0, n + 1)
                line = line[:at] + b"needle" + line[at:]
            data += line + b"\n"
        for k in range(1, 13):   # a match across every cut, one ending at it
            data[k * mib - 3:k * mib + 3] = b"needle"
            data[k * mib - 10 - 6:k * mib - 10] = b"needle"
        data += b"needle at the end, no newline"
        path = os.path.join(tmp, "big")
        with open(path, "wb") as f:
            f.write(data)
        for args in (["-c"], ["-n"], ["-b", "-o"], ["-v", "-c"], ["-n", "-w"]):
            same_as_grep("file-pieces: %s, one thread" % " ".join(args),
                         ["--threads", "1"] + args + ["needle", path],
                         ["-F"] + args + ["needle", path])
        one = run([HAY, "find", "--threads", "1", "--count-matches", "needle", path])
        two = run([HAY, "find", "--threads", "2", "--count-matches", "needle", path])
        check(one == two and one[0] == 0, "file-pieces: --count-matches read as mapped",
              "%r / %r" % (one, two))
        # The first piece is the first line alone (the next one is longer
        # than the buffer); the NUL at 20 KiB is in grep's first 32 KiB.
        late = os.path.join(tmp, "late")
        with open(late, "wb") as f:
            f.write(b"needle short\n" + b"x" * 20000 + b"\x00" + b"y" * (2 * mib) +
                    b"\n" + b"needle\n" * 10)
        for args in ([], ["-n"], ["-c"]):
            same_as_grep("file-pieces: NUL past a short first piece %s" % " ".join(args),
                         ["--threads", "1"] + args + ["needle", late],
                         ["-F"] + args + ["needle", late])
    finally:
        shutil.rmtree(tmp)


CASES = {
    "live-pipe": case_live_pipe, "proc": case_proc, "fifo": case_fifo,
    "truncate": case_truncate, "long-line": case_long_line, "deep-tree": case_deep_tree,
    "nul-late": case_nul_late, "walk-data": case_walk_data, "walk-tree": case_walk_tree,
    "walk-fds": case_walk_fds, "file-pieces": case_file_pieces,
}

if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[3] not in CASES:
        sys.exit("usage: find_input.py HAY DATA_DIR CASE (%s)" % ", ".join(CASES))
    HAY, DATA = os.path.abspath(sys.argv[1]), sys.argv[2]
    CASES[sys.argv[3]]()
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
