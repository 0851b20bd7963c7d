#!/usr/bin/env python3
"""cmp.py BEFORE.cubin... -- AFTER.cubin...: compares the SASS of every kernel by name,
with the anonymous namespace's per-file hash and the hay_exact namespace taken out."""
import re, subprocess, sys
ND = '/tmp/cleanup-pip/x/nvidia/cu13/bin/nvdisasm'
def demangle(n):
    d = subprocess.run(['c++filt', n], capture_output=True, text=True).stdout.strip()
    return d.replace('(anonymous namespace)::', '').replace('hay_exact::', '')
def norm(s):
    return re.sub(r'_Z\w+', lambda m: demangle(m.group(0)), s)
def funcs(paths):
    out = {}
    for p in paths:
        txt = subprocess.run([ND, '-c', '-hex', p], capture_output=True, text=True, check=True).stdout
        cur = None
        for line in txt.split('\n'):
            m = re.match(r'\s*\.section\s+\.text\.(\S+?),', line)
            if m:
                cur = norm(m.group(1)); out.setdefault(cur, []); continue
            if cur and re.search(r'/\*[0-9a-f]{4}\*/', line):
                ins = re.sub(r'/\*[0-9a-f]{4}\*/', '', line)
                out[cur].append(re.sub(r'\.L_x_\d+', '.L', re.sub(r'\s+', ' ', norm(ins.strip()))))
    return out
i = sys.argv.index('--')
a, b = funcs(sys.argv[1:i]), funcs(sys.argv[i+1:])
print(len(a), 'kernels before,', len(b), 'after')
for k in sorted(set(a) | set(b)):
    if k not in a or k not in b:
        print('only', 'before' if k in a else 'after', k)
    elif a[k] != b[k]:
        d = sum(1 for x, y in zip(a[k], b[k]) if x != y)
        print('DIFF', k, len(a[k]), len(b[k]), d, 'differing lines')
    else:
        print('same', len(a[k]), 'instructions', k)
if len(sys.argv) and __import__('os').environ.get('SHOW'):
    for k in sorted(set(a) & set(b)):
        n = 0
        for x, y in zip(a[k], b[k]):
            if x != y and n < 3:
                print(k[:40], '\n  -', x, '\n  +', y); n += 1
