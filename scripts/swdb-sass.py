#!/usr/bin/env python3
"""swdb-sass.py - instructions per step and per cell of the database-search
score kernels' step loop (src/cuda/sw_db_kernels.cu), read from SASS.

  scripts/swdb-sass.py [-D MACRO=V ...] [--cubin FILE] [--verbose NAME]

Compiles src/cuda/sw_db_kernels.cu for sm_90 (nvcc -cubin, the macros given
with -D), disassembles every swdb_kernel instance and finds its step loop:
the backward branch with the fewest instructions a DPX instruction (the plain
steps, where SWDB_B2B adds a loop of transition steps).
cuobjdump: $CUOBJDUMP, PATH, or /tmp/nvtools/nvidia/cu13/bin (where
`pip download --no-deps nvidia-cuda-cuobjdump -d /tmp/nvtools` and an unzip
of the wheel there put it; Debian's CUDA 13 nvcc comes without it).  Every
instruction between the loop head and its back branch is counted once
(both sides of an if inside the body: a warp holds threads of both, since
the group's first and last thread are in every warp).  Steps per loop
trip: 16 bits, VIMNMX3.S16x2.RELU count / (R / 2) (the maximum, one a row
pair); 32 bits, SHFL.UP count / 3 (groups of 1 thread: LDS.128 count /
(R / 4)).  Cells per step: R x (2 in 16 bits, 1 in 32).
Prints per instance: registers, spill, steps/trip, instructions per step,
per cell, the overhead per step (instructions other than the cell update's
PRMT or IMAD, VIADDMNMX, VIMNMX, VIMNMX3 and VIADD.16x2), and the ALU and FMA pipe
instructions per step (a rough split by opcode, see pipe()).
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tool(name):
    env = os.environ.get(name.upper())
    if env:
        return env
    p = shutil.which(name)
    if p:
        return p
    p = "/tmp/nvtools/nvidia/cu13/bin/" + name
    if os.path.exists(p):
        return p
    sys.exit("no %s: pip download nvidia-cuda-cuobjdump, unzip into /tmp/nvtools" % name)


def compile_cubin(defs, out):
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    cmd = [nvcc, "-O3", "-std=c++17", "-arch=sm_90", "-cubin", "-o", out,
           os.path.join(ROOT, "src/cuda/sw_db_kernels.cu"), "-I" + os.path.join(ROOT, "include")]
    cmd += ["-D" + d for d in defs]
    subprocess.run(cmd, check=True)


LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Za-z0-9_.]*)\s*([^;]*);")


def functions(cubin):
    out = subprocess.run([tool("cuobjdump"), "-sass", cubin], check=True,
                         capture_output=True, text=True).stdout
    funcs, cur = {}, None
    for ln in out.splitlines():
        m = re.match(r"\s*Function : (\S+)", ln)
        if m:
            cur = m.group(1)
            funcs[cur] = []
            continue
        m = LINE.search(ln)
        if m and cur:
            funcs[cur].append((int(m.group(1), 16), m.group(3), m.group(4).strip(), ln))
    return funcs


def resources(cubin):
    out = subprocess.run([tool("cuobjdump"), "-res-usage", cubin], check=True,
                         capture_output=True, text=True).stdout
    res, cur = {}, None
    for ln in out.splitlines():
        m = re.match(r"\s*Function (\S+):", ln)
        if m:
            cur = m.group(1)
            continue
        m = re.search(r"REG:(\d+) STACK:(\d+)", ln)
        if m and cur:
            res[cur] = (int(m.group(1)), int(m.group(2)))
    return res


DPX = ("VIADDMNMX", "VIMNMX3", "VIMNMX", "VIADD")


def is_cell_op(op, p16):
    if op.startswith("PRMT"):
        return p16
    if op.startswith(("VIADDMNMX", "VIMNMX3", "VIMNMX")):
        return True
    # VIADD.16x2: H - go; IMAD: the score pair of SWDB_PAIR_IMAD.
    return p16 and (op.startswith("VIADD.16x2") or op == "IMAD")


def step_loop(ins):
    """(start, end) indices of the step loop: the fewest instructions a DPX op."""
    addr_idx = {a: i for i, (a, _, _, _) in enumerate(ins)}
    best = None
    for i, (a, op, args, _) in enumerate(ins):
        if not op.startswith("BRA") or op.startswith("BRA.DIV"):
            continue
        m = re.match(r"(?:`\(\.L_x_\d+\)|)?\s*(0x[0-9a-f]+)", args)
        if not m:
            m = re.search(r"(0x[0-9a-f]+)", args)
        if not m:
            continue
        tgt = int(m.group(1), 16)
        if tgt >= a or tgt not in addr_idx:
            continue
        j = addr_idx[tgt]
        body = ins[j:i + 1]
        ndpx = sum(1 for x in body if x[1].startswith(("VIADDMNMX", "VIMNMX3")))
        size = i + 1 - j
        if ndpx == 0:
            continue
        # The fewest instructions a DPX op (the plain step loop, where a
        # kernel also has a longer one: SWDB_B2B's transition steps), then
        # the most DPX ops, then the smallest body.
        key = (-size / ndpx, ndpx, -size)
        if best is None or key > best[0]:
            best = (key, j, i + 1)
    return None if best is None else (best[1], best[2])


def pipe(op):
    """Rough sm_90 pipe of an opcode: fma (IMAD family: FMA pipe), alu,
    mem (LSU/MIO: shared, global, shuffles, constants, S2R), br (branch
    unit), uni (uniform datapath)."""
    if op.startswith("IMAD") or op.startswith(("FFMA", "FMUL", "FADD", "HFMA2")):
        return "fma"
    if op.startswith(("LDS", "STS", "LDG", "STG", "SHFL", "S2R", "LDC", "LDL", "STL", "ATOM", "RED",
                      "BAR", "MEMBAR", "LD.", "ST.", "CS2R")):
        return "mem"
    if op.startswith(("BRA", "BSSY", "BSYNC", "WARPSYNC", "EXIT", "CALL", "RET", "JMP", "BREAK",
                      "YIELD")):
        return "br"
    if op.startswith("U"):
        return "uni"
    return "alu"


def parse_name(f):
    m = re.match(r"_Z11swdb_kernelILb([01])ELi(\d+)ELi(\d+)E(Lb([01])E)?(Li(\d+)E)?", f)
    if not m:
        return None
    return (m.group(1) == "1", int(m.group(2)), int(m.group(3)), m.group(5) == "1",
            int(m.group(7) or 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-D", action="append", default=[], dest="defs")
    ap.add_argument("--cubin")
    ap.add_argument("--verbose", help="print the loop's op histogram for instances matching this")
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    tmp = None
    cubin = args.cubin
    if cubin is None:
        tmp = tempfile.mkdtemp()
        cubin = os.path.join(tmp, "k.cubin")
        compile_cubin(args.defs, cubin)
    funcs = functions(cubin)
    res = resources(cubin)
    label = args.label or (" ".join(args.defs) or "default")
    print("# %s" % label)
    print("%-14s %4s %5s %5s %7s %8s %8s %8s %7s %7s %8s" % (
        "kernel", "reg", "stack", "steps", "ins/st", "cell/st", "ins/cell", "ovh/st",
        "alu/st", "fma/st", "alu/cell"))
    def order(f):
        pn = parse_name(f)
        return (not pn[0], -pn[1], -pn[2], pn[3]) if pn else (2, 0, 0, 0)

    for f in sorted(funcs, key=order):
        pn = parse_name(f)
        if not pn:
            continue
        p16, g, r, pq, kp = pn
        ins = [x for x in funcs[f] if x[1] != "NOP"]
        lp = step_loop(ins)
        if lp is None:
            print("%s: no step loop" % f)
            continue
        body = ins[lp[0]:lp[1]]
        # Steps per trip: 3 shuffles a step (H, F, residue offsets) where
        # the group has more than one thread, else the profile loads.
        nshfl = sum(1 for x in body if x[1].startswith("SHFL.UP"))
        nlds = sum(1 for x in body if x[1] == "LDS.128")
        per_step_lds = 2 * r // 16 if p16 else r // 4
        nmax3 = sum(1 for x in body if x[1] == "VIMNMX3.S16x2.RELU")
        if p16 and nmax3:
            steps = nmax3 / (r / 2)   # the maximum: one VIMNMX3 a row pair
        else:
            steps = nshfl / 3 if g > 1 else (nlds / per_step_lds if per_step_lds else 1)
        if steps <= 0:
            steps = 1
        cells = r * (2 if p16 else 1)
        n = len(body)
        cellops = sum(1 for x in body if is_cell_op(x[1], p16))
        ovh = n - cellops
        # kp: target pairs a unit (SWDB_B2B).
        name = "%s%dx%d%s%s" % ("16:" if p16 else "32:", g, r, " pi" if pq else "",
                                " b%d" % kp if kp > 1 else "")
        reg, stack = res.get(f, (0, 0))
        alu = sum(1 for x in body if pipe(x[1]) == "alu")
        fma = sum(1 for x in body if pipe(x[1]) == "fma")
        print("%-14s %4d %5d %5.1f %7.1f %8d %8.2f %8.1f %7.1f %7.1f %8.3f" % (
            name, reg, stack, steps, n / steps, cells, n / steps / cells, ovh / steps,
            alu / steps, fma / steps, alu / steps / cells))
        if args.verbose and args.verbose in name:
            hist = collections.Counter(x[1] for x in body)
            for op, c in hist.most_common():
                tag = "cell" if is_cell_op(op, p16) else ""
                print("    %-28s %6.2f/step %-4s %s" % (op, c / steps, pipe(op), tag))
    if tmp:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
