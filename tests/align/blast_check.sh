#!/bin/sh
# blast_check.sh - hay align's E-values, bit scores and blast6 coordinates
# against BLAST+ (Debian ncbi-blast+); skipped (77) without blastp, blastn,
# makeblastdb or python3.
#
# Usage: blast_check.sh HAY DATA_DIR
#
# Protein: 6 queries of bio/protein/queries_24-5478aa.fasta (189-362 aa)
# against bio/protein/sprot196.fasta, BLOSUM62, hay's open 11 extend 1 =
# blastp -gapopen 10 -gapextend 1, -comp_based_stats 0 -seg no.
#   * With OLD_FSC=1 (BLAST's classic Karlin-Altschul E-value, the method
#     hay implements) every hit whose raw score equals hay's must print the
#     same E-value and bit score, character for character (-evalue 1000, so
#     every printing range is met).  At least 80% of BLAST's hits of E <= 10
#     must have hay's score: BLAST's heuristic alignment can fall short of
#     the optimum (often for weak hits), never exceed it.
#   * BLAST+ by default applies Spouge's finite-size correction to protein
#     E-values: hay align --fsc must then print the same E-values and bit
#     scores, character for character; hay's default (classic) E-values
#     must stay within a factor of 4 of those (the correction depends on
#     both sequences' lengths; on these data it moves E by up to about 2x).
# DNA: reads of lambda phage (forward, reverse complemented, reverse
# complemented with a mismatch and a deletion, one with an odd score: BLAST
# rounds it down to even for its E-value only) against the genome, match 2
# mismatch -3, hay's open 7 extend 2 = blastn -gapopen 5 -gapextend 2:
# identical blast6 lines (minus strand: sstart > send).
# Every blast6 line's coordinates are those of the tsv line of the same
# pair, whose CIGAR rescores to its score (minus strand: on the query's
# reverse complement).
set -u
hay=$1
data=$2
for p in blastp blastn makeblastdb python3; do
    if ! command -v $p >/dev/null 2>&1; then
        echo "SKIP: $p not found (apt-get install ncbi-blast+)"
        exit 77
    fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hay-blast.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
prot=$data/bio/protein
awk '/^>/{n++} n>=5 && n<=10' "$prot/queries_24-5478aa.fasta" >"$tmp/q.fa"
makeblastdb -in "$prot/sprot196.fasta" -dbtype prot -out "$tmp/db" >/dev/null ||
    exit 2
cols="6 qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore score"
opts="-matrix BLOSUM62 -gapopen 10 -gapextend 1 -comp_based_stats 0 -seg no -evalue 1000 -max_hsps 1 -max_target_seqs 500"
OLD_FSC=1 blastp -query "$tmp/q.fa" -db "$tmp/db" $opts -outfmt "$cols" \
    >"$tmp/old.tsv" || exit 2
env -u OLD_FSC blastp -query "$tmp/q.fa" -db "$tmp/db" $opts -outfmt "$cols" \
    >"$tmp/fsc.tsv" || exit 2
"$hay" align --protein -f blast6 "$tmp/q.fa" "$prot/sprot196.fasta" \
    >"$tmp/hay.b6" || exit 2
"$hay" align --protein "$tmp/q.fa" "$prot/sprot196.fasta" >"$tmp/hay.tsv" ||
    exit 2
"$hay" align --protein --fsc -f blast6 "$tmp/q.fa" "$prot/sprot196.fasta" \
    >"$tmp/hay.fsc" || exit 2

python3 - "$data/bio/dna/lambda_phage.fa" "$tmp" <<'EOF'
import random, sys
seq = ''.join(l.strip() for l in open(sys.argv[1]) if not l.startswith('>'))
comp = {'A': 'T', 'C': 'G', 'G': 'C', 'T': 'A', 'N': 'N'}
rc = lambda s: ''.join(comp[c] for c in reversed(s.upper()))
r2 = list(seq[20000:20300])
r2[50] = 'A' if r2[50] != 'A' else 'C'
del r2[120]
r3 = list(seq[30000:30300])     # one mismatch: an odd score (595)
r3[150] = 'A' if r3[150] != 'A' else 'C'
with open(sys.argv[2] + '/reads.fa', 'w') as f:
    f.write('>fwd\n%s\n>rev\n%s\n>rev2\n%s\n>odd\n%s\n' %
            (seq[10000:10400], rc(seq[10000:10400]), rc(''.join(r2)),
             ''.join(r3)))
EOF
blastn -task blastn -query "$tmp/reads.fa" -subject "$data/bio/dna/lambda_phage.fa" \
    -reward 2 -penalty -3 -gapopen 5 -gapextend 2 -dust no -max_hsps 1 \
    -outfmt "6 qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore" \
    >"$tmp/dna.blast" || exit 2
"$hay" align --dna --gap-open 7 --gap-extend 2 -f blast6 "$tmp/reads.fa" \
    "$data/bio/dna/lambda_phage.fa" >"$tmp/dna.b6" || exit 2
"$hay" align --dna --gap-open 7 --gap-extend 2 "$tmp/reads.fa" \
    "$data/bio/dna/lambda_phage.fa" >"$tmp/dna.tsv" || exit 2

python3 - "$tmp" "$data/bio/matrices/BLOSUM62" "$prot/queries_24-5478aa.fasta" \
    "$prot/sprot196.fasta" "$data/bio/dna/lambda_phage.fa" <<'EOF'
import math, sys
tmp, matfile, qfile, tfile, dnafile = sys.argv[1:6]
fails = []

def rows(path):
    return [l.rstrip('\n').split('\t') for l in open(path) if l.strip()]

def fasta(path):
    d, name = {}, None
    for l in open(path):
        if l.startswith('>'):
            name = l[1:].split()[0]
            d[name] = []
        else:
            d[name].append(l.strip())
    return {k: ''.join(v).upper() for k, v in d.items()}

# --- protein: E-values and bit scores against blastp
hay_b6 = {(r[0], r[1]): r for r in rows(tmp + '/hay.b6')}
hay_tsv = {(r[0], r[1]): r for r in rows(tmp + '/hay.tsv')}
old = rows(tmp + '/old.tsv')
same = exact = coords = strong = strong_same = 0
for b in old:
    key = (b[0], b[1])
    h, t = hay_b6.get(key), hay_tsv.get(key)
    strong += float(b[10]) <= 10
    if not h or int(t[2]) != int(b[12]):
        continue
    same += 1
    strong_same += float(b[10]) <= 10
    if h[10] == b[10] and h[11] == b[11]:
        exact += 1
    else:
        fails.append('OLD_FSC %s: hay E %s bits %s, blastp E %s bits %s'
                     % (key, h[10], h[11], b[10], b[11]))
    coords += h[6:10] == b[6:10]
if not strong or strong_same < 0.8 * strong:
    fails.append('only %d of %d blastp hits of E <= 10 have hay\'s score'
                 % (strong_same, strong))
ratio_max = 1.0
fsc = rows(tmp + '/fsc.tsv')
hay_fsc = {(r[0], r[1]): r for r in rows(tmp + '/hay.fsc')}
fsc_same = fsc_exact = 0
for b in fsc:
    key = (b[0], b[1])
    h, t = hay_b6.get(key), hay_tsv.get(key)
    if not h or int(t[2]) != int(b[12]):
        continue
    fsc_same += 1
    f = hay_fsc[key]
    if f[10] == b[10] and f[11] == b[11]:
        fsc_exact += 1
    else:
        fails.append('FSC %s: hay --fsc E %s bits %s, blastp E %s bits %s'
                     % (key, f[10], f[11], b[10], b[11]))
    r = float(t[8]) / float(b[10]) if float(b[10]) > 0 else 1.0
    r = max(r, 1 / r) if r > 0 else float('inf')
    ratio_max = max(ratio_max, r)
if ratio_max > 4:
    fails.append('default blastp E-values differ by a factor %.2f' % ratio_max)
print('protein: %d blastp hits (%d of E <= 10), %d with hay\'s score (%d of E <= 10), '
      '%d with the same E-value and bit score (OLD_FSC=1), %d with the same '
      'coordinates; default blastp (Spouge FSC): %d hits, %d with hay\'s '
      'score, %d with the same E-value and bit score (hay --fsc), hay\'s '
      'classic E-values within a factor %.2f'
      % (len(old), strong, same, strong_same, exact, coords, len(fsc),
         fsc_same, fsc_exact, ratio_max))

# --- DNA against blastn, both strands
db, dh = rows(tmp + '/dna.blast'), rows(tmp + '/dna.b6')
if [r[2:] for r in db] != [r[2:] for r in dh]:
    fails.append('blastn and hay differ:\n%s\n%s' % (db, dh))
print('dna: %d blastn lines, %d identical in hay'
      % (len(db), sum(a[2:] == b[2:] for a, b in zip(db, dh))))

# --- blast6 coordinates are the tsv's, and the CIGARs rescore
def matrix(path):
    lines = [l.split() for l in open(path) if l.strip() and l[0] != '#']
    head = lines[0]
    return {(r[0], head[j]): int(v) for r in lines[1:] for j, v in enumerate(r[1:])}

def rescore(q, t, qs, ts, cigar, sub, go, ge):
    i, j, total, num = qs, ts, 0, ''
    for c in cigar:
        if c.isdigit():
            num += c
            continue
        k, num = int(num), ''
        if c in '=XM':
            for _ in range(k):
                total += sub(q[i], t[j])
                i += 1
                j += 1
        else:
            total -= go + (k - 1) * ge
            if c == 'I':
                i += k
            else:
                j += k
    return total

m62 = matrix(matfile)
def rc(s):
    return ''.join({'A': 'T', 'C': 'G', 'G': 'C', 'T': 'A'}.get(c, 'N')
                   for c in reversed(s))
checked = 0
for tsv, b6, qs, ts, sub, go, ge in (
        (hay_tsv, hay_b6, fasta(qfile), fasta(tfile),
         lambda a, b: m62[(a, b)], 11, 1),
        ({(r[0], r[1]): r for r in rows(tmp + '/dna.tsv')},
         {(r[0], r[1]): r for r in dh}, fasta(tmp + '/reads.fa'),
         fasta(dnafile), lambda a, b: 2 if a == b and a != 'N' else -3, 7, 2)):
    for key, t in tsv.items():
        if int(t[2]) == 0:
            continue
        b = b6[key]
        minus = t[10] == '-'
        q = rc(qs[key[0]]) if minus else qs[key[0]]
        want = [t[3], t[4], t[6], t[5]] if minus else t[3:7]
        if b[6:10] != want:
            fails.append('%s: blast6 %s, tsv %s' % (key, b[6:10], t[3:7]))
        q0 = len(q) - int(t[4]) if minus else int(t[3]) - 1
        got = rescore(q, ts[key[1]], q0, int(t[5]) - 1, t[7], sub, go, ge)
        if got != int(t[2]):
            fails.append('%s: CIGAR %s rescores to %d, not %s'
                         % (key, t[7], got, t[2]))
        checked += 1
print('rescored: %d alignments (blast6 coordinates = tsv, CIGAR = score)'
      % checked)
for f in fails[:20]:
    print('FAIL', f)
print('%d passed, %d failed' % (1 if not fails else 0, 1 if fails else 0))
sys.exit(1 if fails else 0)
EOF
