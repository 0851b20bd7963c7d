#!/bin/sh
# sam_check.sh - `hay align --format sam` read back by samtools:
#   every record parses (samtools view, SAM -> BAM -> SAM), the record count
#   is right, and samtools calmd, recomputing NM from the reference, finds
#   nothing to change (positions and CIGARs agree with the sequences).
# Inputs: the CLI test reads, and from DATA (when present) the
# mitochondrial pair (a 16 kb alignment traced in linear space) and three
# protein queries against sprot196.
# Usage: sam_check.sh HAY CLI_INPUTS DATA_DIR.  Skips (77) without samtools.
set -u
hay=$1 inputs=$2 data=$3
if ! command -v samtools >/dev/null 2>&1; then
    echo "SKIP: samtools is not installed"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hay-sam.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() {   # name, query, target, expected record count ("" = from tsv), calmd?
    name=$1 q=$2 t=$3 want=$4 calmd=$5
    if ! "$hay" align -f sam "$q" "$t" >"$tmp/$name.sam" 2>"$tmp/err"; then
        echo "FAIL $name: hay align: $(cat "$tmp/err")"
        failed=$((failed + 1))
        return
    fi
    if [ -z "$want" ]; then
        # one record per aligned pair, one unmapped record per query without any
        "$hay" align --score-only "$q" "$t" >"$tmp/$name.tsv"
        want=$(awk -F'\t' '{ if ($3 > 0) n++; if (!($1 in seen)) seen[$1] = 0;
                             if ($3 > 0) seen[$1] = 1 }
                           END { for (k in seen) if (!seen[k]) n++; print n + 0 }' "$tmp/$name.tsv")
    fi
    if ! samtools view -b -o "$tmp/$name.bam" "$tmp/$name.sam" 2>"$tmp/err" ||
       [ -s "$tmp/err" ]; then
        echo "FAIL $name: samtools view: $(head -c 300 "$tmp/err")"
        failed=$((failed + 1))
        return
    fi
    got=$(samtools view -c "$tmp/$name.bam")
    if [ "$got" != "$want" ]; then
        echo "FAIL $name: $got records, want $want"
        failed=$((failed + 1))
        return
    fi
    if [ "$calmd" = 1 ]; then
        samtools faidx "$t" -o "$tmp/$name.fai" 2>/dev/null
        cp "$t" "$tmp/$name.ref.fa"
        samtools faidx "$tmp/$name.ref.fa"
        samtools calmd "$tmp/$name.bam" "$tmp/$name.ref.fa" >"$tmp/$name.md.sam" 2>"$tmp/err"
        if grep -q "different NM" "$tmp/err"; then
            echo "FAIL $name: samtools calmd disagrees: $(head -c 300 "$tmp/err")"
            failed=$((failed + 1))
            return
        fi
        if [ "$(grep -vc '^@' "$tmp/$name.md.sam")" != "$want" ]; then
            echo "FAIL $name: calmd lost records"
            failed=$((failed + 1))
            return
        fi
    fi
    echo "PASS $name ($got records)"
    passed=$((passed + 1))
}
check reads "$inputs/align-reads.fq" "$inputs/align-dna-t.fa" 2 1
check dna "$inputs/align-dna.fa" "$inputs/align-dna-t.fa" 2 1
# minus strand: flag 16, SEQ reverse complemented (calmd's NM shows it)
check minus "$inputs/align-dna-rc.fa" "$inputs/align-dna-t.fa" 2 1
check minus-fastq "$inputs/align-dna-rc.fq" "$inputs/align-dna-t.fa" 1 1
check protein "$inputs/align-q.fa" "$inputs/align-t.fa" "" 0
if [ -d "$data/bio" ]; then
    check mito "$data/bio/dna-pairs/MT-human.fa" "$data/bio/dna-pairs/MT-orang.fa" 1 1
    awk '/^>/ { n++ } n <= 3' "$data/bio/protein/queries_24-5478aa.fasta" >"$tmp/q3.fa"
    check sprot "$tmp/q3.fa" "$data/bio/protein/sprot196.fasta" "" 0
else
    echo "no data at $data: the mitochondrial pair and sprot196 are not checked"
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
