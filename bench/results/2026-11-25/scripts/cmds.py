# Whole commands: `hay find --count-matches` once per process, each config
# RUNS times (median), then once more with --stats for the note and split.
# Usage: python3 cmds.py FILE...; env RUNS, SETS, CFGS (comma lists), HAY.
import subprocess, sys, time, os, statistics
H = os.environ.get("HAY", "build-gpu/hay")
D = os.environ.get("PATS", ".dev-data/patterns")
NAMES = sum([["-e", p] for p in ["Sherlock Holmes", "Pierre", "Ahab", "Jesus", "whale",
                                   "Lord", "President", "government"]], [])
sets = {"snort": ["--escapes", "-f", D + "/snort-community.txt"],
        "etopen": ["--escapes", "-f", D + "/et-open.txt"], "names": NAMES}
cfgs = {"cpu": ["--backend", "cpu"], "cuda": ["--backend", "cuda"],
        "auto-off": ["--backend", "auto", "--params", "split=off"],
        "auto": ["--backend", "auto"]}
runs = int(os.environ.get("RUNS", "5"))
for f in sys.argv[1:]:
    for sname in os.environ.get("SETS", "snort,etopen,names").split(","):
        for cname in os.environ.get("CFGS", ",".join(cfgs)).split(","):
            cmd = [H, "find", "--count-matches"] + cfgs[cname] + sets[sname] + [f]
            ts, out = [], ""
            for _ in range(runs):
                t0 = time.time()
                p = subprocess.run(cmd, capture_output=True, text=True)
                ts.append(time.time() - t0)
                out = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr.strip()[:80]
            st = subprocess.run(cmd[:2] + ["--stats"] + cmd[2:], capture_output=True, text=True).stderr
            note = [l for l in st.splitlines() if "ran=" in l or "split " in l or "init" in l]
            print("%-7s %-9s %-6s median %.3f s  runs %s  | %s | %s" % (
                sname, cname, os.path.basename(f), statistics.median(ts),
                " ".join("%.3f" % t for t in ts), out[-40:],
                " ; ".join(l[7:220] for l in note)), flush=True)
