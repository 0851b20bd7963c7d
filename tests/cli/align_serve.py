#!/usr/bin/env python3
"""align_serve.py - `hay db serve` and `hay align --server` (programs/align_serve.c,
align_client.c, serve_proto.h): a client's output, messages and exit status are
those of the one-process `hay align` with the same arguments, byte for byte.

Usage: align_serve.py HAY BACKEND

BACKEND is cpu (CI) or cuda (scripts/gpu-check; skipped, 77, where `hay align
--list` shows no CUDA device).  The data is made here (random proteins drawn
with background frequencies, queries mutated from them, DNA with reverse
complemented queries), so nothing is needed from ../shared/data.  Checks:
  - every --format, --top, --min-score, --evalue, --fsc, --score-only, -j,
    DNA --strand both/plus/minus, a FASTA database served, DB left out, output
    to a file: client == one process (stdout, stderr, exit status);
  - --stats: the same standard output, the server's phases in the timeline;
  - a mismatched matrix or gaps, another DB, --dna on a protein server,
    --backend other than the server's, no server at the path: exit 2 with a
    message;
  - garbage, a huge length, an early close and a silent client on the socket:
    the server goes on and serves the next client;
  - fake servers: another protocol version, a close before the reply, a reply
    cut short, no answer (--server-timeout 1): exit 2 with a message, no hang;
  - two clients at once both answered correctly;
  - the socket is mode 0600; a stale socket file is replaced, a live one is
    refused; SIGTERM stops the server and removes its socket;
  - a server started without OMP_WAIT_POLICY runs with it passive (it starts
    itself again: its /proc/PID/environ), one started with it keeps the
    user's value.
Every server started is killed on the way out; every command has a timeout.
Prints "N passed, M failed" last; exits 1 on any failure, 77 if skipped.
"""
import os
import random
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import check, finish, skip  # noqa: E402

AA = "ARNDCQEGHILKMFPSTWYV"
# Robinson & Robinson background frequencies (x 1000), the order of AA.
FREQ = [78, 51, 45, 54, 19, 43, 63, 74, 22, 51, 90, 57, 22, 39, 52, 71, 58, 13, 32, 64]
ENV = dict(os.environ, OMP_WAIT_POLICY="passive", LC_ALL="C")
SERVERS = []


def run(argv, timeout=120, stdout=subprocess.PIPE):
    p = subprocess.run(argv, stdout=stdout, stderr=subprocess.PIPE, env=ENV, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def mutate(rng, s, rate):
    out = []
    for c in s:
        r = rng.random()
        if r < rate:
            out.append(rng.choice(AA))
        elif r < rate * 1.2:
            continue
        elif r < rate * 1.4:
            out.append(c + rng.choice(AA))
        else:
            out.append(c)
    return "".join(out)


def write_fasta(path, recs):
    with open(path, "w") as f:
        for name, seq in recs:
            f.write(">%s some description\n" % name)
            for i in range(0, len(seq), 60):
                f.write(seq[i:i + 60] + "\n")


def make_data(d):
    rng = random.Random(16)
    prot = ["".join(rng.choices(AA, FREQ, k=rng.randint(40, 420))) for _ in range(300)]
    write_fasta(os.path.join(d, "prot.fa"), [("p%03d" % i, s) for i, s in enumerate(prot)])
    qs = [("q%d" % i, mutate(rng, prot[rng.randrange(300)], 0.1 + 0.1 * i)) for i in range(5)]
    qs.append(("qrand", "".join(rng.choices(AA, FREQ, k=150))))
    write_fasta(os.path.join(d, "q.fa"), qs)
    dna = ["".join(rng.choices("ACGT", k=rng.randint(100, 600))) for _ in range(80)]
    write_fasta(os.path.join(d, "dna.fa"), [("d%02d" % i, s) for i, s in enumerate(dna)])
    comp = {"A": "T", "C": "G", "G": "C", "T": "A"}
    dq = []
    for i in range(4):
        s = dna[rng.randrange(80)]
        a = rng.randrange(len(s) // 2)
        piece = s[a:a + 80]
        if i % 2:
            piece = "".join(comp[c] for c in reversed(piece))
        dq.append(("dq%d" % i, piece))
    write_fasta(os.path.join(d, "dq.fa"), dq)
    # another protein database: a DB that is not the served one
    write_fasta(os.path.join(d, "other.fa"), [("o%d" % i, s) for i, s in enumerate(prot[:50])])


def start_server(hay, db, sock, extra, wait=True, env=ENV):
    log = open(sock + ".log", "ab")
    p = subprocess.Popen([hay, "db", "serve", db, "--socket", sock] + extra,
                         stdout=subprocess.DEVNULL, stderr=log, env=env)
    SERVERS.append(p)
    if wait:
        t_end = time.time() + 120
        while time.time() < t_end and p.poll() is None:
            if os.path.exists(sock):
                try:
                    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    c.connect(sock)
                    c.close()   # the server logs a dropped connection
                    break
                except OSError:
                    pass
            time.sleep(0.05)
    return p


def wait_policy(p):
    """OMP_WAIT_POLICY in the running process's environment (None: unset)."""
    with open("/proc/%d/environ" % p.pid, "rb") as f:
        for var in f.read().split(b"\0"):
            if var.startswith(b"OMP_WAIT_POLICY="):
                return var.split(b"=", 1)[1]
    return None


def stop(p, sig=signal.SIGTERM):
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return p.returncode


def same(label, hay, sock, args, tpath=None, served_args=None):
    """The client's (stdout, stderr, status) against the one process's."""
    want = run([hay, "align"] + args)
    cargs = served_args if served_args is not None else args
    got = run([hay, "align", "--server", sock] + cargs)
    check(label, got == want and want[0] == 0 and len(want[1]) > 0,
          "exit %d/%d, %d/%d bytes; stderr %r / %r" %
          (got[0], want[0], len(got[1]), len(want[1]), got[2][-300:], want[2][-300:]))


def fake_server(path, behaviour):
    """A server that misbehaves once: 'version', 'close', 'truncated', 'silent'."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(1)

    def serve():
        c, _ = s.accept()
        if behaviour == "version":
            c.sendall(b"HAYSERVE" + struct.pack("<IIQ", 99, 1, 8) + b"\0" * 8)
        elif behaviour in ("close", "truncated"):
            c.sendall(b"HAYSERVE" + struct.pack("<IIQ", 1, 1, 8) + b"\0" * 8)
            c.recv(65536)
            if behaviour == "truncated":
                c.sendall(b"HAYSERVE" + struct.pack("<II", 1, 3))
        else:   # silent: never greets
            time.sleep(5)
        c.close()
        s.close()
    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return t


def raw_client(sock, data, read_hello=True, close_early=False):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.settimeout(30)
    c.connect(sock)
    if read_hello:
        c.recv(24 + 8 + 4096)
    if not close_early:
        c.sendall(data)
    c.close()


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    hay, backend = sys.argv[1], sys.argv[2]
    if backend != "cpu":
        lst = run([hay, "align", "--list"])[1].decode()
        if "%s(available)" % backend not in lst:
            skip("--backend %s does not run here (%s)" %
                 (backend, [w for w in lst.split() if w.startswith(backend)]))
    d = tempfile.mkdtemp(prefix="hay-serve-")
    try:
        tests(hay, backend, d)
    finally:
        for p in SERVERS:
            if p.poll() is None:
                p.kill()
                p.wait()
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        os.rmdir(d)
    finish()


def tests(hay, backend, d):
    make_data(d)
    P = lambda n: os.path.join(d, n)  # noqa: E731
    for fa, out in (("prot.fa", "prot.hdb"), ("dna.fa", "dna.hdb")):
        rc = run([hay, "db", "build", P(fa), P(out)])
        check("db build " + fa, rc[0] == 0, rc[2])
    be = ["--backend", backend]
    sock = P("s")
    srv = start_server(hay, P("prot.hdb"), sock, be + ["-j", "2"])
    check("server up", srv.poll() is None and os.path.exists(sock))
    if srv.poll() is not None or not os.path.exists(sock):
        return
    mode = stat.S_IMODE(os.stat(sock).st_mode)
    check("socket mode 0600", mode == 0o600, oct(mode))

    q, db = P("q.fa"), P("prot.hdb")
    for opts in ([], ["-f", "sam", "--top", "3"], ["-f", "blast6"], ["-f", "blast6", "--fsc"],
                 ["-f", "json", "--evalue", "1e-5"], ["-f", "pair", "--top", "2"],
                 ["--score-only"], ["--score-only", "-f", "json", "--top", "4"],
                 ["--min-score", "35"], ["--top", "7", "-j", "1"], ["-f", "tsv", "--top", "500"]):
        same("protein %s" % " ".join(opts), hay, sock, be + opts + [q, db])
    # DB left out: the served one (tsv has no command line in it)
    same("DB left out", hay, sock, be + ["--top", "5", q, db], served_args=be + ["--top", "5", q])
    # output into a file, not a pipe
    with open(P("out1"), "wb") as f1, open(P("out2"), "wb") as f2:
        r1 = run([hay, "align"] + be + ["-f", "blast6", q, db], stdout=f1)
        r2 = run([hay, "align", "--server", sock] + be + ["-f", "blast6", q, db], stdout=f2)
    with open(P("out1"), "rb") as f1, open(P("out2"), "rb") as f2:
        a, b = f1.read(), f2.read()
    check("output to a file", r1[0] == r2[0] == 0 and a == b and len(a) > 0)
    # --stats: the same output; the timeline has the server's phases
    want = run([hay, "align", "--stats"] + be + [q, db])
    got = run([hay, "align", "--server", sock, "--stats"] + be + [q, db])
    check("--stats output", got[:2] == want[:2], "%d/%d" % (got[0], want[0]))
    check("--stats phases", b"phase=serve:receive" in got[2] and b"stats: queries=" in got[2],
          got[2][-400:])
    # errors: the one-process message and status, wherever the client or
    # the server finds them
    write_fasta(P("bad.fa"), [("bad", "MKV1LL")])
    for label, args in (("bad residue", [P("bad.fa"), db]),
                        ("kind before scoring", ["--dna", "--match", "1", q, db]),
                        ("score-only sam", ["--score-only", "-f", "sam", q, db]),
                        ("evalue fit", ["--evalue-params", "fit", q, db]),
                        ("no query file", [P("missing.fa"), db])):
        want = run([hay, "align"] + be + args)
        got = run([hay, "align", "--server", sock] + be + args)
        check("error " + label, got == want and want[0] == 2, "%r / %r" % (got, want))

    # mismatches: exit 2 and a message, never a silent answer
    for label, args, text in (
            ("matrix", ["--matrix", "blosum45", q], b"scoring"),
            ("gaps", ["--gap-open", "12", q], b"gaps 12/1"),
            ("db", [q, P("other.fa")], b"not the database"),
            ("kind", ["--dna", q], b"protein database"),
            ("backend", ["--backend", "opencl" if backend == "cpu" else "cpu", q], b"searches on"),
            ("no server", ["--server", P("nowhere"), q], b"no server answers")):
        t0 = time.time()
        rc, out, err = run([hay, "align", "--server", sock] + args if label != "no server"
                           else [hay, "align"] + args, timeout=60)
        check("mismatch " + label, rc == 2 and out == b"" and text in err and
              time.time() - t0 < 30, "exit %d: %r" % (rc, err[-300:]))

    # misbehaving clients, then a normal one
    raw_client(sock, b"garbage" * 100)
    raw_client(sock, b"HAYSERVE" + struct.pack("<IIQ", 1, 2, 1 << 62))
    raw_client(sock, b"", close_early=True)
    raw_client(sock, b"", read_hello=False, close_early=True)
    raw_client(sock, b"HAYSERVE" + struct.pack("<IIQ", 1, 2, 200) + b"\x00" * 200)
    same("served after garbage", hay, sock, be + ["-f", "blast6", q, db])
    check("server alive after garbage", srv.poll() is None)

    # two clients at once
    argsets = [be + ["-f", "sam", q, db], be + ["--top", "9", "-f", "json", q, db]]
    wants = [run([hay, "align"] + a) for a in argsets]
    ps = [subprocess.Popen([hay, "align", "--server", sock] + a, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=ENV) for a in argsets]
    gots = [p.communicate(timeout=120) for p in ps]
    for i, (p, g, w) in enumerate(zip(ps, gots, wants)):
        check("concurrent client %d" % i, (p.returncode, g[0], g[1]) == w and w[0] == 0)

    # a second server on a live socket is refused
    rc = run([hay, "db", "serve", db, "--socket", sock, "--backend", "cpu"], timeout=60)
    check("live socket refused", rc[0] == 2 and b"already answers" in rc[2], rc[2])
    # SIGTERM: stops, removes the socket
    rc = stop(srv)
    check("SIGTERM stop", rc == 0 and not os.path.exists(sock), "exit %s" % rc)
    with open(sock + ".log", "rb") as f:
        log = f.read()
    check("log lines", b"request" in log and b"dropped" in log and b"stopped by SIGTERM" in log,
          log[-500:])

    # a stale socket file (no server behind it) is replaced
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(sock)
    s.close()
    srv = start_server(hay, db, sock, be + ["--quiet"])
    same("after a stale socket", hay, sock, be + ["--top", "3", q, db])
    stop(srv, signal.SIGINT)
    check("SIGINT stop", srv.returncode == 0 and not os.path.exists(sock))

    # DNA: strands, from a server started without OMP_WAIT_POLICY: it runs
    # with it passive, so that its threads do not spin between searches
    dsock = P("sd")
    unset = dict(ENV)
    del unset["OMP_WAIT_POLICY"]
    srv = start_server(hay, P("dna.hdb"), dsock, be, env=unset)
    check("server made passive", srv.poll() is None and wait_policy(srv) == b"passive",
          "OMP_WAIT_POLICY=%r" % (wait_policy(srv) if srv.poll() is None else "exited"))
    dq, ddb = P("dq.fa"), P("dna.hdb")
    for opts in ([], ["--strand", "plus"], ["--strand", "minus"], ["-f", "sam"],
                 ["-f", "blast6", "--strand", "both"], ["--score-only"]):
        same("dna %s" % " ".join(opts), hay, dsock, be + opts + [dq, ddb])
    stop(srv)

    # a FASTA database served: the one-process search of it with --top; the
    # user's OMP_WAIT_POLICY (any spelling libgomp takes) is kept
    fsock = P("sf")
    srv = start_server(hay, P("prot.fa"), fsock, be, env=dict(ENV, OMP_WAIT_POLICY="PASSIVE"))
    check("user's wait policy kept", srv.poll() is None and wait_policy(srv) == b"PASSIVE")
    for opts in (["--top", "50"], ["--top", "4", "-f", "pair"]):
        same("fasta db %s" % " ".join(opts), hay, fsock, be + opts + [q, P("prot.fa")])
    stop(srv)

    # fake servers: no hang, exit 2, a message
    for behaviour, text in (("version", b"version 99"), ("close", b"closed"),
                            ("truncated", b"closed"), ("silent", b"no answer")):
        path = P("fake-" + behaviour)
        t = fake_server(path, behaviour)
        t0 = time.time()
        rc, out, err = run([hay, "align", "--server", path, "--server-timeout", "1",
                            q], timeout=60)
        check("fake server " + behaviour, rc == 2 and text in err and time.time() - t0 < 10,
              "exit %d: %r" % (rc, err[-300:]))
        t.join(timeout=10)
        os.unlink(path)
    for f in os.listdir(d):
        if f.endswith(".log"):
            os.unlink(os.path.join(d, f))


main()
