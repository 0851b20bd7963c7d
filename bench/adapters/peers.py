"""peers.py - the tools haystack is measured against, as engines behind one
interface (bench/README.md, "Adding a peer").

A peer is found (a path given on the command line, the GPU machine's carried
copy from `scripts/bench-device prepare`, PATH) or built (the C adapters in
this folder, against the peer's library, into the work folder); it then
builds the command for one job and reads that command's answer:

  search peers  count(pats, patfiles, caseless, path, threads) -> Cmd
                Cmd.parse(stdout, stderr) -> (count, scan seconds or None)
                Cmd.counts: what the count is ("matches", "lines", "newlines")
  align peers   align(query, target, scoring, threads) -> Cmd
                Cmd.parse(stdout, stderr) -> (score sum, seconds or None)

`seconds` is the tool's own phase time where it reports one (the adapters
print `stats: phase=scan ... seconds=S` as `hay --stats` does); None means
only the whole command can be timed.  Scoring is a dict: protein
{"matrix": "blosum62", "open": 11, "extend": 1} or DNA
{"dna": (2, -3), "open": 5, "extend": 2}.

Standard library only.
"""
import os
import re
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STATS_SECONDS = re.compile(r"seconds=([0-9.]+)")


def last_count(stdout):
    """The count on the last line ("N" or "file:N")."""
    lines = stdout.strip().splitlines()
    if not lines:
        raise ValueError("no output")
    return int(lines[-1].rsplit(":", 1)[-1].strip())


def scan_seconds(text):
    """seconds= of the 'stats: phase=scan' line, else of any stats line."""
    best = None
    for line in text.splitlines():
        if line.startswith("stats:"):
            m = STATS_SECONDS.search(line)
            if m and ("phase=scan" in line or best is None):
                best = float(m.group(1))
    return best


class Cmd:
    """One command of a peer: argv, environment, and how to read its answer."""

    def __init__(self, argv, env, parse, counts=None):
        self.argv, self.env, self.parse, self.counts = [str(a) for a in argv], env, parse, counts


def pattern_args(pats, patfiles, caseless, escaped):
    """-e for one plain pattern; otherwise a pattern file: escaped (\\xHH,
    for hay and hs_bench) or raw bytes (grep, ripgrep)."""
    ci = ["-i"] if caseless else []
    if len(pats) == 1 and b"\n" not in pats[0] and b"\x00" not in pats[0]:
        return ci + ["-e", os.fsdecode(pats[0])]
    if escaped:
        return ci + ["-f", patfiles["escaped"], "--escapes"]
    return ci + ["-f", patfiles["raw"]]


def has_border(p):
    """True when p overlaps itself (a proper prefix is also a suffix), so
    that non-overlapping and all-occurrence counts can differ."""
    return any(p[:k] == p[-k:] for k in range(1, len(p)))


class Peer:
    name = label = kind = ""

    def __init__(self, path, env=None):
        self.path, self.env = path, dict(env or os.environ)

    def version(self):
        try:
            p = subprocess.run([self.path, "--version"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, env=self.env, timeout=30)
            s = p.stdout.decode("utf-8", "replace").strip().splitlines()
            return s[0] if s else "?"
        except (OSError, subprocess.SubprocessError):
            return "?"


# --- search peers -----------------------------------------------------------

class Grep(Peer):
    name, label, kind = "grep", "GNU grep", "search"

    def count(self, pats, patfiles, caseless, path, threads=1):
        return Cmd([self.path, "-F", "-c"] + pattern_args(pats, patfiles, caseless, False)
                   + [path], dict(self.env, LC_ALL="C"),
                   lambda out, err: (last_count(out), None), "lines")


class Ripgrep(Peer):
    name, label, kind = "rg", "ripgrep", "search"

    def count(self, pats, patfiles, caseless, path, threads=1):
        # --count-matches counts non-overlapping matches: all occurrences only
        # for one case-sensitive pattern that cannot overlap itself.  ripgrep
        # is not given -i by the suite (it folds Unicode case).
        matches = len(pats) == 1 and not caseless and not has_border(pats[0])
        return Cmd([self.path, "--no-config", "-F", "--count-matches" if matches else "-c"]
                   + pattern_args(pats, patfiles, caseless, False) + [path], self.env,
                   lambda out, err: (last_count(out), None), "matches" if matches else "lines")


class Hyperscan(Peer):
    """Hyperscan through adapters/hs_bench.c: hs_compile_lit_multi, block
    mode, N threads with one scratch each."""
    name, label, kind = "hs", "Hyperscan", "search"

    def count(self, pats, patfiles, caseless, path, threads=1):
        return Cmd([self.path, "--threads", threads] + pattern_args(pats, patfiles, caseless, True)
                   + [path], self.env, lambda out, err: (last_count(out), scan_seconds(err)),
                   "matches")


class MemRead(Peer):
    """The read ceiling (adapters/memread.c): N threads count the newlines of
    the mapped file, no matching."""
    name, label, kind = "memread", "read ceiling", "search"

    def count(self, pats, patfiles, caseless, path, threads=1):
        return Cmd([self.path, "--threads", threads, path], self.env,
                   lambda out, err: (last_count(out), scan_seconds(err)), "newlines")


# --- alignment peers ---------------------------------------------------------

class Parasail(Peer):
    """parasail through adapters/parasail_bench.c: striped 16-bit profiles,
    32-bit when saturated, N threads over pairs."""
    name, label, kind = "parasail", "parasail striped16", "align"

    def align(self, q, t, sc, threads=1):
        s = (["--dna", "%d,%d" % sc["dna"]] if "dna" in sc else ["--matrix", sc["matrix"]])
        return Cmd([self.path, "--threads", threads] + s + ["--open", sc["open"], "--extend",
                                                            sc["extend"], q, t], self.env,
                   lambda out, err: (int(re.search(r"checksum: (-?\d+)", out).group(1)),
                                     float(STATS_SECONDS.search(out).group(1))))


class Ssw(Peer):
    """SSW (libssw) through adapters/ssw_bench.c."""
    name, label, kind = "ssw", "SSW (libssw)", "align"

    def __init__(self, path, env=None, data=None):
        Peer.__init__(self, path, env)
        self.data = data

    def align(self, q, t, sc, threads=1):
        s = (["--dna", "%d,%d" % sc["dna"]] if "dna" in sc else
             ["--matrix", os.path.join(self.data, "bio", "matrices", sc["matrix"].upper())])
        return Cmd([self.path, "--threads", threads] + s + ["--gap-open", sc["open"],
                                                            "--gap-extend", sc["extend"], q, t],
                   self.env, lambda out, err: (last_count(out), scan_seconds(err)))


class Water(Peer):
    """EMBOSS water: one pair, the whole command timed (no phase timer)."""
    name, label, kind = "water", "EMBOSS water", "align"

    def version(self):
        return "EMBOSS water"

    def align(self, q, t, sc, threads=1):
        if "dna" in sc:
            raise ValueError("water: DNA scoring is not wired")
        return Cmd([self.path, "-asequence", q, "-bsequence", t, "-gapopen", sc["open"],
                    "-gapextend", sc["extend"], "-datafile", "E" + sc["matrix"].upper(),
                    "-outfile", "stdout", "-auto"], self.env,
                   lambda out, err: (int(float(re.search(r"# Score: ([-\d.]+)", out).group(1))),
                                     None))


# --- finding and building -----------------------------------------------------

def cc_build(work, name, extra_src, flags, log=None):
    """Builds adapters/<name>.c into work/ unless an up-to-date build is
    there; returns its path, or None (library absent, no compiler)."""
    src = os.path.join(HERE, name + ".c")
    exe = os.path.join(work, name)
    if os.path.exists(exe) and os.path.getmtime(exe) >= os.path.getmtime(src):
        return exe
    os.makedirs(work, exist_ok=True)
    cmd = [os.environ.get("CC", "cc"), "-std=gnu11", "-o", exe, src] + extra_src + flags
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except OSError:
        return None
    if p.returncode:
        if log:
            log("note: %s not built (%s)" % (name, p.stdout.decode(errors="replace")
                                             .strip().splitlines()[-1:]))
        return None
    return exe


def _pkg(name, default):
    try:
        p = subprocess.run(["pkg-config", "--cflags", "--libs", name], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        if p.returncode == 0 and p.stdout.strip():
            return p.stdout.decode().split()
    except OSError:
        pass
    return default


def _avx2():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx2" in f.read()
    except OSError:
        return False


class Peers:
    """Every peer this machine has, found once.  paths: explicit binaries
    ({"rg": PATH, ...}); carry: scripts/bench-device prepare's folder."""

    def __init__(self, work, carry=None, paths=None, data=None, log=None):
        self.work, self.data, self.log = work, data, log
        self.carry = carry if carry and os.path.isdir(carry) else None
        self.paths = {k: v for k, v in (paths or {}).items() if v}
        self._found = {}
        self.env = dict(os.environ)
        if self.carry and os.path.isdir(os.path.join(self.carry, "lib-bench")):
            # Carried parasail/SSW libraries, and parasail's headers for the
            # align part's own build of its adapter.
            for var, sub in (("LD_LIBRARY_PATH", "lib-bench"), ("LIBRARY_PATH", "lib-bench"),
                             ("CPATH", "include")):
                d = os.path.join(self.carry, sub)
                if os.path.isdir(d):
                    self.env[var] = d + (":" + self.env[var] if self.env.get(var) else "")
                    os.environ[var] = self.env[var]

    def _carried(self, name):
        p = os.path.join(self.carry, name) if self.carry else None
        return p if p and os.access(p, os.X_OK) else None

    def _lib_env(self, binary):
        """A carried binary brings its shared libraries in lib/ beside it."""
        env = dict(self.env)
        lib = os.path.join(os.path.dirname(binary), "lib")
        if os.path.isdir(lib):
            env["LD_LIBRARY_PATH"] = lib + os.pathsep + env.get("LD_LIBRARY_PATH", "")
        return env

    def _locate(self, name):
        w, given = self.work, self.paths.get(name)
        if name == "grep":
            p = given or shutil.which("grep")
            return Grep(p, self.env) if p else None
        if name == "rg":
            p = given or self._carried("rg") or shutil.which("rg")
            return Ripgrep(p, self._lib_env(p)) if p else None
        if name == "hs":
            p = given or self._carried("hs_bench") or cc_build(
                w, "hs_bench", [os.path.join(ROOT, "programs", "patfile.c"),
                                "-I" + os.path.join(ROOT, "programs"),
                                "-I" + os.path.join(ROOT, "include")],
                ["-O2"] + _pkg("libhs", ["-lhs"]) + ["-lpthread", "-lstdc++", "-lm"], self.log)
            return Hyperscan(p, self.env) if p else None
        if name == "memread":
            p = given or cc_build(w, "memread", [], ["-O3"] + (["-march=x86-64-v3"] if _avx2()
                                                              else []) + ["-lpthread"], self.log)
            return MemRead(p, self.env) if p else None
        if name == "parasail":
            p = given or self._carried("parasail_bench") or cc_build(
                w, "parasail_bench", [], ["-O2", "-fopenmp", "-lparasail"], self.log)
            return Parasail(p, self.env) if p else None
        if name == "ssw":
            p = given or self._carried("ssw_bench") or cc_build(
                w, "ssw_bench", [], ["-O2", "-fopenmp", "-lssw", "-lm"], self.log)
            return Ssw(p, self.env, self.data) if p else None
        if name == "water":
            p = given or self._carried("emboss/water")
            if p and self.carry and p.startswith(self.carry):
                env = dict(self.env, EMBOSS_DATA=os.path.join(self.carry, "emboss", "data"),
                           LD_LIBRARY_PATH=os.path.join(self.carry, "emboss", "lib") + ":" +
                           self.env.get("LD_LIBRARY_PATH", ""))
                return Water(p, env)
            p = p or shutil.which("water")
            return Water(p, self.env) if p else None
        raise KeyError("unknown peer %r (peers: %s)" % (name, ", ".join(NAMES)))

    def get(self, name):
        """The peer, or None when this machine has no such tool."""
        if name not in self._found:
            self._found[name] = self._locate(name)
        return self._found[name]


SEARCH = ["grep", "rg", "hs", "memread"]      # peers with count(); defs.json names them
ALIGN = ["parasail", "ssw", "water"]           # peers with align()
NAMES = SEARCH + ALIGN
