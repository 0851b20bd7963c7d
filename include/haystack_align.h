/*
 * haystack_align.h - local sequence alignment (Smith-Waterman) in
 * libhaystack.  Plain C; include after or instead of haystack.h.
 *
 * Introduction
 * ------------
 * Smith-Waterman finds the best-scoring local alignment of a query and a
 * target: the pair of substrings, one of each, whose alignment (residues
 * against residues, or against gaps) scores highest under a substitution
 * score and affine gap penalties.
 *
 * Two objects:
 *   hay_align_scoring  an immutable scoring scheme: an alphabet (the
 *                      residue letters and their codes), a substitution
 *                      matrix and the two gap penalties.  Any number of
 *                      threads may use one at the same time.
 *   hay_align_result   one pair's answer: score, end (and start) on both
 *                      sequences, CIGAR, counts.  Owned by the caller;
 *                      hay_align_result_clear() frees its CIGAR.
 *
 * Sequences are given to the aligner as residue codes 0 .. alpha - 1;
 * hay_align_encode() maps letters to codes and reports the first letter
 * that the scoring's alphabet does not know.
 *
 * Gap penalties.  A gap of length k costs open + (k - 1) * extend: the
 * first gapped residue costs `open`, each further one `extend` (the rule of
 * parasail, EMBOSS water and SSW; both numbers are positive penalties,
 * 1 <= open, 0 <= extend <= open).  BLAST charges existence + k * extension
 * instead, so BLAST's (existence, extension) is open = existence +
 * extension, extend = extension: BLAST's default "11 1" for BLOSUM62 is
 * open 12, extend 1 here, and our default open 11 extend 1 is BLAST's
 * "10 1".
 *
 * Ties.  When several cells reach the best score, the end reported is the
 * one with the smallest query end, then the smallest target end, on every
 * variant and backend (see src/align/sw_device.h).  The start reported is,
 * among the best alignments ending there, the one with the largest query
 * start, then the largest target start (the shortest one).
 *
 * Scores are exact 32-bit integers.  Variants that compute in 16 bits
 * detect when a score could have saturated and recompute in 32 bits
 * (result flag HAY_ALIGN_RESCORED32).  A pair whose best possible score
 * exceeds 2^30 is refused with HAY_ERR_TOO_LARGE.
 *
 * CIGAR.  Extended SAM operations: '=' identical residues (same code),
 * 'X' different residues, 'I' a query residue against a gap (an insertion
 * to the target), 'D' a target residue against a gap.  It covers the
 * aligned part only; a SAM writer adds the soft clips of the query.
 *
 * The library never prints or exits; every function returns a hay_status
 * (hay_strerror() in haystack.h describes it), every _free accepts NULL.
 * Memory comes from malloc (the allocator of haystack.h is not used here).
 *
 * Simple API
 * ----------
 *   hay_align_scoring *s;  hay_align_result r;  hay_align_options o;
 *   hay_align_scoring_builtin("blosum62", 11, 1, &s);
 *   hay_align_encode(s, "HEAGAWGHEE", 10, q, NULL);
 *   hay_align_encode(s, "PAWHEAE", 7, t, NULL);
 *   hay_align_options_init(&o);
 *   hay_align_pair(s, q, 10, t, 7, &o, &r);   // r.score, r.cigar, ...
 *   hay_align_result_clear(&r);  hay_align_scoring_free(s);
 */
#ifndef HAYSTACK_ALIGN_H
#define HAYSTACK_ALIGN_H

#include <stddef.h>
#include <stdint.h>

#include "haystack.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Scoring
 * ---------------------------------------------------------------------- */
typedef struct hay_align_scoring hay_align_scoring;

/* The most residue codes an alphabet may have. */
#define HAY_ALIGN_MAX_ALPHA 32

/*
 * A built-in substitution matrix by name, case-insensitive: "blosum62"
 * (NCBI BLAST's classic BLOSUM62, the one parasail and EMBOSS use),
 * "blosum45", "blosum50", "blosum80", "blosum90", "pam30", "pam70",
 * "pam250" (NCBI's current files, with a J row).  hay_align_matrix_name()
 * lists them.  Returns HAY_ERR_UNKNOWN_NAME for any other name and
 * HAY_ERR_INVALID for bad gap penalties.  *out is owned by the caller.
 */
HAY_API hay_status hay_align_scoring_builtin(const char *name, int32_t gap_open,
                                             int32_t gap_extend,
                                             hay_align_scoring **out);

/* The i-th built-in matrix name in *name, or HAY_ERR_INVALID past the end. */
HAY_API hay_status hay_align_matrix_name(size_t i, const char **name);

/*
 * A matrix from the text of an NCBI-format file (both layouts: the classic
 * BLAST one and the current one with a J row): '#' comment lines, a header
 * line of residue letters (one character each), then one row per letter,
 * starting with that letter, in the header's order.  Rows must form a
 * square matrix over the header's letters; a row that repeats a letter or
 * lacks a value is an error.  At most HAY_ALIGN_MAX_ALPHA letters.
 * `name` (may be NULL) is kept for reports.  On HAY_ERR_INVALID, *err_line
 * (if not NULL) is the 1-based line at fault (0: the whole text).
 */
HAY_API hay_status hay_align_scoring_parse(const char *text, size_t len,
                                           const char *name, int32_t gap_open,
                                           int32_t gap_extend,
                                           hay_align_scoring **out,
                                           size_t *err_line);

/*
 * Nucleotides scored by match / mismatch (e.g. +2 / -3).  The alphabet is
 * A C G T N; U reads as T, the IUPAC ambiguity letters (R Y S W K M B D H V)
 * read as N, and N scores `mismatch` against everything, itself included.
 * Requires match > 0 and mismatch < match.
 */
HAY_API hay_status hay_align_scoring_dna(int32_t match, int32_t mismatch,
                                         int32_t gap_open, int32_t gap_extend,
                                         hay_align_scoring **out);

HAY_API void hay_align_scoring_free(hay_align_scoring *s);

/* The number of residue codes (the matrix is alpha x alpha). */
HAY_API int hay_align_scoring_alpha(const hay_align_scoring *s);
/* The letter of each code: alpha characters, NUL-terminated. */
HAY_API const char *hay_align_scoring_letters(const hay_align_scoring *s);
/* The matrix's name ("BLOSUM62", "dna", or what was given to _parse). */
HAY_API const char *hay_align_scoring_name(const hay_align_scoring *s);
/* The substitution score of query code a against target code b. */
HAY_API int32_t hay_align_scoring_score(const hay_align_scoring *s, uint8_t a,
                                        uint8_t b);
HAY_API void hay_align_scoring_gaps(const hay_align_scoring *s,
                                    int32_t *gap_open, int32_t *gap_extend);
/* Whether this is the match/mismatch nucleotide scoring. */
HAY_API int hay_align_scoring_is_dna(const hay_align_scoring *s);

/*
 * Maps len residue letters (case-insensitive) to codes in codes[0, len).
 * For a protein matrix without U or O (selenocysteine, pyrrolysine), those
 * read as X when the matrix has X, as BLAST does.  On a letter the alphabet
 * does not know, returns HAY_ERR_INVALID with *bad_pos (if not NULL) its
 * offset; codes is then partly written.
 */
HAY_API hay_status hay_align_encode(const hay_align_scoring *s,
                                    const void *residues, size_t len,
                                    uint8_t *codes, size_t *bad_pos);

/* ------------------------------------------------------------------------
 * Variants (CPU engines)
 *
 *   "scalar"          the reference: one cell at a time, linear space
 *   "striped16"       Farrar's striped SIMD, 16-bit lanes with a
 *                     saturation check, recomputed by striped32 when a
 *                     score could have saturated; best ISA of the CPU
 *   "striped32"       Farrar's striped SIMD, 32-bit lanes
 *   "striped16_sse2", "striped16_avx2", "striped32_sse2", "striped32_avx2"
 *                     the same, one instruction set forced
 *   "auto" (or NULL)  striped16
 * A forced variant the CPU cannot run gives HAY_ERR_UNSUPPORTED.
 * ---------------------------------------------------------------------- */

/* The i-th variant name in *name, or HAY_ERR_INVALID past the end. */
HAY_API hay_status hay_align_variant_name(size_t i, const char **name);

/*
 * Whether a variant can run here: HAY_OK, HAY_ERR_UNKNOWN_NAME or
 * HAY_ERR_UNSUPPORTED.  *resolved (if not NULL) is the variant that runs,
 * e.g. "striped16_avx2" for "auto".
 */
HAY_API hay_status hay_align_variant_check(const char *variant,
                                           const char **resolved);

/*
 * Whether a backend can run the score pass: HAY_OK, HAY_ERR_NO_BACKEND
 * (Smith-Waterman for it not built in), HAY_ERR_NO_DEVICE.  The CPU always
 * can.
 */
HAY_API hay_status hay_align_backend_check(hay_backend backend);

/* ------------------------------------------------------------------------
 * Aligning
 * ---------------------------------------------------------------------- */
typedef struct hay_align_options {
    hay_backend backend;       /* AUTO or CPU: the CPU; CUDA, OPENCL: the
                                  score pass on the GPU, the rest on the CPU */
    const char *variant;       /* CPU variant, or the GPU variant; NULL: auto */
    const char *device_params; /* the backend's "key=value,..." or NULL:
                                   GPU keys; on the CPU wavefront_cells,
                                   wavefront_tile and traceback_cells (see
                                   "Long pairs") */
    int threads;               /* 0 = all cores: hay_align_batch's threads
                                  over pairs, and a long pair's threads;
                                  clamped as hay_scan_opts.threads
                                  (haystack.h) */
    int score_only;            /* 1: score and end cell only, no start/CIGAR */
    uint64_t traceback_bytes;  /* budget of the full direction matrix, one
                                  byte a cell; larger alignments, and those
                                  whose matrix cannot be allocated, use
                                  linear space (Myers-Miller).  0: 64 MiB */
} hay_align_options;

/* Defaults: backend AUTO, variant auto, all cores, traceback. */
HAY_API void hay_align_options_init(hay_align_options *o);

enum {
    HAY_ALIGN_RESCORED32 = 1,  /* the 16-bit pass could have saturated */
    HAY_ALIGN_LINEAR = 2,      /* traceback in linear space (Myers-Miller) */
    HAY_ALIGN_WAVEFRONT = 4    /* score passes on several threads (below) */
};

/*
 * Long pairs.  On the CPU with variant auto (or NULL), a pair of at least
 * wavefront_cells cells (query length x target length; default 256M), both
 * sequences 512 residues or longer, is scored on all of o->threads threads
 * at once: the matrix in tiles of wavefront_tile x wavefront_tile cells (at
 * least 8; default: each side's length / (6 x threads), 256 to 2048),
 * tiles along anti-diagonals, striped AVX2 inside a tile (16 bits, redone
 * in 32 bits when a score may have saturated; scalar without AVX2).  Score
 * and end are those of every variant; the reverse pass that finds the
 * start runs the same way, and so does the linear-space traceback: the
 * Myers-Miller splits of rectangles of traceback_cells cells or more
 * (default 16M) on the threads, the alignment the one-thread alignment
 * (each thread may hold a direction matrix of traceback_bytes at once).
 * hay_align_batch runs such pairs first, one
 * after another on all threads, when there are fewer of them than threads
 * (else every pair on one thread).  Keys come in o->device_params
 * ("wavefront_cells=64M,wavefront_tile=2048,traceback_cells=4M"); an
 * unknown key or a bad
 * value is HAY_ERR_INVALID.
 */

typedef struct hay_align_result {
    int32_t score;             /* 0: nothing aligns (no start, no CIGAR) */
    uint64_t q_start, q_end;   /* 0-based, inclusive */
    uint64_t t_start, t_end;   /* q_start/t_start: UINT64_MAX if score_only */
    char *cigar;               /* NUL-terminated; NULL if score_only or
                                  score 0; freed by hay_align_result_clear */
    uint64_t length;           /* alignment columns */
    uint64_t matches;          /* '=' columns */
    uint64_t mismatches;       /* 'X' columns */
    uint64_t positives;        /* columns scoring > 0 */
    uint64_t gap_opens;        /* gap runs (I or D) */
    uint64_t gaps;             /* I and D columns */
    uint64_t cells;            /* m * n of the score pass */
    uint32_t flags;            /* HAY_ALIGN_* */
} hay_align_result;

/*
 * Aligns one pair (codes, lengths >= 1).  Fills *r (which need not be
 * initialised; clear it after use).  Errors: HAY_ERR_INVALID (empty
 * sequence, code out of range, NULL), HAY_ERR_UNKNOWN_NAME,
 * HAY_ERR_UNSUPPORTED (variant), HAY_ERR_NO_BACKEND (GPU not built),
 * HAY_ERR_NO_DEVICE, HAY_ERR_DEVICE, HAY_ERR_NOMEM, HAY_ERR_TOO_LARGE.
 * On error *r holds no allocation.
 */
HAY_API hay_status hay_align_pair(const hay_align_scoring *s, const uint8_t *q,
                                  size_t m, const uint8_t *t, size_t n,
                                  const hay_align_options *o,
                                  hay_align_result *r);

typedef struct hay_align_seq {
    const uint8_t *codes;
    size_t len;
} hay_align_seq;

/*
 * Every query against every target, on o->threads threads (OpenMP, one
 * pair per task; one thread with a GPU backend): results[qi * ntargets +
 * ti].  Each query is prepared once for all targets.  On error the first failure's status is returned
 * and every result is cleared.
 */
HAY_API hay_status hay_align_batch(const hay_align_scoring *s,
                                   const hay_align_seq *queries,
                                   size_t nqueries,
                                   const hay_align_seq *targets,
                                   size_t ntargets, const hay_align_options *o,
                                   hay_align_result *results);

/* Frees the CIGAR of *r and zeroes it.  NULL is allowed. */
HAY_API void hay_align_result_clear(hay_align_result *r);

/*
 * Scores an alignment from its CIGAR ('=', 'X', 'M', 'I', 'D') placed at
 * q[q_start], t[t_start]: *score is what the scoring gives it.  Returns
 * HAY_ERR_INVALID if the CIGAR is malformed, runs past either sequence,
 * covers a code that is not one of the scoring's (at least its alphabet
 * size), or says '=' where residues differ (or 'X' where they are equal).
 */
HAY_API hay_status hay_align_rescore(const hay_align_scoring *s,
                                     const uint8_t *q, size_t m,
                                     const uint8_t *t, size_t n,
                                     uint64_t q_start, uint64_t t_start,
                                     const char *cigar, int32_t *score);

/* ------------------------------------------------------------------------
 * Statistics
 *
 * Karlin-Altschul statistics turn a local alignment score S into a bit
 * score and an E-value, the number of alignments scoring S or more that
 * chance alone would give in a search of the same size:
 *
 *   bit score  S' = (lambda S - ln K) / ln 2
 *   E-value    E  = K m' n' e^(-lambda S)
 *
 * lambda and K depend on the scoring (matrix, gap costs, background
 * frequencies).  For gapped alignment they have no formula: they were
 * estimated by simulation and published (Altschul, Bundschuh, Olsen & Hwa,
 * NAR 29:351, 2001; the tables NCBI BLAST ships).  m' and n' are the
 * query's and the database's lengths less a length adjustment l for each
 * sequence (an alignment cannot start near a sequence's end; Altschul &
 * Gish, Methods Enzymol 266:460, 1996), computed as BLAST does: the
 * largest integer l with
 *
 *   l <= (alpha / lambda) ln(K (m - l)(n - N l)) + beta
 *
 * (m the query's length, n the database's residues, N its sequences), then
 * m' = m - l, n' = n - N l.  With the same parameters these are BLAST's
 * numbers (blastn's; blastp's when run with OLD_FSC set).  blastp by
 * default uses Spouge's finite-size correction instead
 * (hay_align_evalue_fsc(), hay align --fsc), within a factor of about 3 of
 * the former on these data; see tests/align/blast_check.sh.
 *
 * Where the parameters come from (hay_align_stats.kind and .source):
 *   PUBLISHED  the published gapped parameters.  Protein: BLOSUM45, 50, 62,
 *              80, 90, PAM30, 70, 250 (recognised by their scores on the 20
 *              standard amino acids, so a copy read from a file counts)
 *              with the gap costs BLAST supports.  DNA: the match/mismatch
 *              pairs 1/-5, 1/-4, 2/-7, 1/-3, 2/-5, 1/-2, 2/-3, 3/-4, 4/-5,
 *              1/-1, 3/-2, 5/-4 and their multiples, with BLAST's gap costs
 *              for each.  Remember the gap convention above: BLAST's
 *              existence E and extension X are open E + X, extend X here,
 *              so blastp's BLOSUM62 "11 1" is open 12 extend 1, and this
 *              library's default open 11 extend 1 is BLAST's "10 1".
 *   UNGAPPED   the published ungapped parameters of a standard matrix, for
 *              gap costs above every published gapped pair (where gaps no
 *              longer change them; BLAST's rule for blastn).
 *   FITTED     fitted to a search's own scores (hay_align_stats_fit(), as
 *              ssearch does): what hay align uses instead of COMPUTED when
 *              the database has enough sequences.
 *   COMPUTED   the fallback: ungapped lambda, K, H computed from the matrix
 *              and background frequencies (Robinson & Robinson for
 *              proteins, 1/4 for A, C, G, T) by Karlin & Altschul's method
 *              (PNAS 87:2264, 1990), alpha = lambda / H, beta = 0.  Exact
 *              for ungapped alignment; for gapped alignment with cheap gaps
 *              the E-values come out too small (gapped lambda is smaller),
 *              which .source says.
 * ---------------------------------------------------------------------- */
enum {
    HAY_ALIGN_STATS_PUBLISHED = 1,
    HAY_ALIGN_STATS_UNGAPPED = 2,
    HAY_ALIGN_STATS_COMPUTED = 3,
    HAY_ALIGN_STATS_FITTED = 4
};

/* The fewest scores hay_align_stats_fit() fits. */
#define HAY_ALIGN_FIT_MIN 100

typedef struct hay_align_stats {
    double lambda, K, H;       /* per score unit; K unitless; H nats/column */
    double alpha, beta;        /* the length adjustment's parameters */
    int round_down;            /* DNA 2/-7, 2/-5, 2/-3, 3/-4: the published
                                  values hold for even scores; an odd score
                                  is rounded down for its E-value (not its
                                  bit score), as BLAST does */
    int kind;                  /* HAY_ALIGN_STATS_* */
    char source[320];          /* where the numbers came from, in words */
    int fsc;                   /* 1: Spouge's finite-size correction is
                                  known (published protein rows) */
    double fsc_a, fsc_b;       /* an alignment of score y spans a y + b */
    double fsc_alpha, fsc_beta;/* its variance: alpha y + beta */
    double fsc_sigma, fsc_tau; /* the covariance of its two spans */
} hay_align_stats;

/*
 * The statistics of a scoring: published when there are (see above), else
 * computed.  HAY_ERR_UNSUPPORTED when no statistics exist (no positive
 * score, or a non-negative expected score: the alignments are then not
 * local).  *out is written on success and zeroed on error.
 */
HAY_API hay_status hay_align_stats_get(const hay_align_scoring *s,
                               hay_align_stats *out);

/*
 * Ungapped lambda, K, H of the matrix with background frequencies freqs[a]
 * for code a (alpha values, any positive total; NULL: the defaults above).
 * kind is HAY_ALIGN_STATS_COMPUTED.  Errors: HAY_ERR_INVALID (a negative
 * frequency, all zero), HAY_ERR_UNSUPPORTED (as above), HAY_ERR_NOMEM.
 */
HAY_API hay_status hay_align_stats_ungapped(const hay_align_scoring *s,
                                    const double *freqs, hay_align_stats *out);

/*
 * lambda and K fitted to one query's scores against n targets (scores[i]
 * against a target of target_lens[i] residues; n >= HAY_ALIGN_FIT_MIN),
 * as FASTA's ssearch does for scorings without published parameters:
 * maximum likelihood Gumbel with the length correction K m n_i (Mott 1992;
 * Pearson, J Mol Biol 276:71, 1998), scores of related sequences (a
 * pair-wise E-value below 1e-3) set aside and the fit redone.  H, alpha
 * and beta are 0 (no length adjustment); kind HAY_ALIGN_STATS_FITTED.
 * Errors: HAY_ERR_INVALID (NULL, query_len 0), HAY_ERR_UNSUPPORTED (fewer
 * than HAY_ALIGN_FIT_MIN scores left, or all equal), HAY_ERR_NOMEM.
 */
HAY_API hay_status hay_align_stats_fit(const int32_t *scores,
                               const uint64_t *target_lens, size_t n,
                               uint64_t query_len, hay_align_stats *out);

/* The bit score of a raw score. */
HAY_API double hay_align_bitscore(const hay_align_stats *st, int32_t score);

/*
 * The effective search space m' n' of a query of query_len residues against
 * a database of db_residues residues in db_sequences sequences (the
 * length-adjusted product above); *length_adjustment (if not NULL) gets l.
 * 0 when a length is 0.  Compute it once per query and pass it to
 * hay_align_evalue_space() for every hit.
 */
HAY_API double hay_align_search_space(const hay_align_stats *st, uint64_t query_len,
                              uint64_t db_residues, uint64_t db_sequences,
                              uint64_t *length_adjustment);

/* The E-value of a raw score in a given effective search space. */
HAY_API double hay_align_evalue_space(const hay_align_stats *st, int32_t score,
                              double search_space);

/* Both of the above in one call. */
HAY_API double hay_align_evalue(const hay_align_stats *st, int32_t score,
                        uint64_t query_len, uint64_t db_residues,
                        uint64_t db_sequences);

/*
 * The E-value with Spouge's finite-size correction (Park, Sheetlin, Ma,
 * Madden & Spouge, BMC Res Notes 5:286, 2012) instead of the length
 * adjustment, as blastp (BLAST+ 2.2.26 and later) computes it by default:
 * from the query's and this target's lengths, scaled by db_residues /
 * target_len (db_residues 0: the pair alone).  Only where st->fsc is set
 * (the published protein parameters); -1 otherwise or for a zero length.
 */
HAY_API double hay_align_evalue_fsc(const hay_align_stats *st, int32_t score,
                            uint64_t query_len, uint64_t target_len,
                            uint64_t db_residues);

/* ------------------------------------------------------------------------
 * Database search
 *
 * Many queries against a database of many targets, keeping the best hits
 * of each query.  A hay_align_db is an immutable set of target sequences,
 * encoded once in a scoring's alphabet: built in memory from FASTA text or
 * from sequences, written to a file (`hay db build`) and opened again by
 * memory-mapping it.  Any number of threads may search one database at the
 * same time.
 *
 * Target order.  Targets keep the index they had in the input (the FASTA
 * order): hits name targets by that index, and hits of equal score are
 * ranked by it, lowest first, on every backend.  Inside the database the
 * residues are stored sorted by length into length partitions (what the
 * GPU kernels are chosen by); that order never shows in results.
 *
 * The file format (version 1; all integers little-endian, sections 64-byte
 * aligned, offsets 64-bit so that files past 4 GiB work):
 *   header, 256 bytes:
 *     0  magic "HAYSWDB\x1a"         8  u32 version (1)
 *    12  u32 header size (256)      16  u32 alpha   20  u32 flags (1: DNA)
 *    24  letters[32]: the alphabet, code order, NUL-padded
 *    56  u64 sequences              64  u64 residues
 *    72  u64 longest sequence       80  u64 partitions
 *    88  u64 file size
 *    96  six sections, each u64 offset then u64 size, in this order:
 *          partitions  one {u64 first, count, min_len, max_len} per length
 *                      partition, over the sorted order
 *          offsets     sequences + 1 u64: sorted target i is residues
 *                      [offsets[i], offsets[i + 1])
 *          order       sequences u32: sorted index -> input index
 *          names_at    sequences + 1 u64 in input order: name i is the
 *                      NUL-terminated text at names[names_at[i]]
 *          names       the names
 *          residues    the codes (each < alpha)
 *   192  u64 checksum: FNV-1a 64 over the 256 header bytes (this field read
 *        as 0) and then every section but residues, taken 8 bytes at a time
 *        (a shorter last piece padded with zeros).  Bytes 200 .. 255 are
 *        reserved and zero.
 * hay_align_db_open() checks all of it (sizes, offsets inside the file,
 * monotone offsets, the permutation, names, every residue code, the
 * checksum) before the database is used.
 * ---------------------------------------------------------------------- */
typedef struct hay_align_db hay_align_db;

/* The file format version this library writes and reads. */
#define HAY_ALIGN_DB_VERSION 1

/* One input sequence: its name and its residue letters. */
typedef struct hay_align_db_input {
    const char *name;          /* name_len bytes, no NUL inside */
    size_t name_len;
    const void *residues;      /* letters, encoded with the scoring */
    size_t len;                /* >= 1 */
} hay_align_db_input;

/*
 * A database of n >= 1 sequences, encoded with s's alphabet (letters the
 * alphabet does not know are an error naming the sequence and position).
 * The inputs are copied.  *out is owned by the caller (hay_align_db_free).
 * msg (may be NULL) receives a one-line reason on failure, at most msgcap
 * bytes with the NUL.  Errors: HAY_ERR_INVALID (empty database, empty
 * sequence, bad letter, more than 2^32 - 1 sequences), HAY_ERR_NOMEM.
 */
HAY_API hay_status hay_align_db_create(const hay_align_scoring *s,
                               const hay_align_db_input *seqs, size_t n,
                               hay_align_db **out, char *msg, size_t msgcap);

/*
 * The same from FASTA text in memory (not compressed): '>' header lines
 * (the name is the first word), residue lines (whitespace ignored).  Text
 * before the first header, an empty sequence and no sequence at all are
 * errors naming the line.
 */
HAY_API hay_status hay_align_db_from_fasta(const hay_align_scoring *s,
                                   const void *text, size_t len,
                                   hay_align_db **out, char *msg,
                                   size_t msgcap);

/*
 * Writes db to path in the format above (a temporary file renamed into
 * place, so a failed write leaves no partial database).  HAY_ERR_INVALID
 * with msg when the file cannot be written.
 */
HAY_API hay_status hay_align_db_write(const hay_align_db *db, const char *path,
                              char *msg, size_t msgcap);

/*
 * Opens a database file by memory-mapping it, after checking it whole (see
 * above).  A file that is not a database, has another version, is truncated,
 * empty or corrupt gives HAY_ERR_INVALID and a reason in msg; nothing is
 * mapped then.  *out is owned by the caller (hay_align_db_free unmaps).
 */
HAY_API hay_status hay_align_db_open(const char *path, hay_align_db **out, char *msg,
                             size_t msgcap);

/* Whether the first bytes (len of them, at least 8 needed) are a database
 * file's magic: 1 or 0. */
HAY_API int hay_align_db_is_db(const void *head, size_t len);

/* Closes a database (unmaps or frees it).  NULL is allowed. */
HAY_API void hay_align_db_free(hay_align_db *db);

typedef struct hay_align_db_info {
    uint32_t version;          /* of the file, or HAY_ALIGN_DB_VERSION */
    int alpha;
    int dna;                   /* 1: built with the DNA scoring */
    const char *letters;       /* the alphabet in code order (db-owned) */
    uint64_t sequences, residues, longest;
    uint64_t partitions;       /* length partitions */
    int mapped;                /* 1: a memory-mapped file */
} hay_align_db_info;

HAY_API hay_status hay_align_db_info_get(const hay_align_db *db,
                                 hay_align_db_info *info);

/*
 * Target i (input order, 0 .. sequences - 1): its name (NUL-terminated),
 * codes and length, all owned by db.  Any out-pointer may be NULL.
 */
HAY_API hay_status hay_align_db_seq(const hay_align_db *db, uint32_t i,
                            const char **name, const uint8_t **codes,
                            size_t *len);

/*
 * Whether s can search db: the same alphabet, letter for letter (codes mean
 * the same residues).  HAY_OK or HAY_ERR_INVALID.
 */
HAY_API hay_status hay_align_db_check_scoring(const hay_align_db *db,
                                      const hay_align_scoring *s);

typedef struct hay_align_db_warm hay_align_db_warm;

typedef struct hay_align_db_options {
    hay_align_options align;   /* backend (AUTO: the GPU where the database
                                  search is built for it, a device is
                                  present and the search is large enough to
                                  pay the device's start-up, see
                                  hay_align_db_auto_gpu; else the CPU), CPU
                                  variant, threads, score_only,
                                  traceback_bytes */
    size_t top_k;              /* hits kept per query; 0: 50 */
    int32_t min_score;         /* hits need score >= min_score; a score of 0
                                  is never a hit */
    hay_align_db_warm *warm;   /* NULL, or a start of the device begun by
                                  hay_align_db_warm_up: the search waits for
                                  it before its first device call (and
                                  lists its phases, once) */
    int release_device;        /* with warm, on the GPU: 1 promises that
                                  nothing in this process uses the device
                                  after this search's scores (no other
                                  search, pattern set or buffer on it): the
                                  search then drops the database's device
                                  copy and ends the device's context on
                                  warm's thread while it aligns the hits,
                                  so that the process's exit no longer pays
                                  that teardown (0.05-0.1 s);
                                  hay_align_db_warm_free waits for it */
} hay_align_db_options;

/* Defaults: hay_align_options_init, top 50, every score above 0. */
HAY_API void hay_align_db_options_init(hay_align_db_options *o);

/*
 * Whether backend AUTO runs a search of `cells` cells (the sum over the
 * queries of query length x database residues) on the GPU when one is
 * there: when the CPU's `threads` threads would take longer than the
 * device's start-up and end in a fresh process (0.3-0.4 s).  1 or 0.
 */
HAY_API int hay_align_db_auto_gpu(uint64_t cells, int threads);

/*
 * Starts the device of a GPU database search on a thread of its own: the
 * driver, the device's context and the search's kernels (0.2-0.3 s in a
 * fresh process), so that this start-up overlaps what the caller does
 * before its first search (reading and encoding the queries and the
 * database).  o: the options the searches will use; cells: the search's
 * expected size (as hay_align_db_auto_gpu counts it; an estimate will
 * do).  *out is NULL, and nothing starts, unless o's backend is CUDA, or
 * AUTO and the search is one AUTO would send to the GPU.  Pass *out as the
 * searches' o->warm; free it (hay_align_db_warm_free) after the last
 * search.  Returns HAY_OK, HAY_ERR_INVALID (out NULL), HAY_ERR_NOMEM, or
 * HAY_ERR_NO_BACKEND for backend CUDA where the GPU search is not built.
 * A failure of the start itself (no device) shows on the search.
 */
HAY_API hay_status hay_align_db_warm_up(const hay_align_db_options *o,
                                        uint64_t cells,
                                        hay_align_db_warm **out);

/* Waits for the start (and a release_device search's release of the
 * device) if still running, then frees it.  NULL is allowed. */
HAY_API void hay_align_db_warm_free(hay_align_db_warm *w);

/*
 * One phase of a search as it ran, for timelines: start and end in seconds
 * on the monotonic clock (CLOCK_MONOTONIC, as clock_gettime gives it, so
 * that a caller can place it among its own phases).  A phase entered
 * several times (a loop) has its first start, its last end, the seconds
 * spent inside all together and the count.  Phases named "device:..."
 * are the GPU's own times (its events), placed to end where the host saw
 * them end.
 */
typedef struct hay_align_phase {
    const char *name;          /* a static string */
    double start, end;
    double seconds;
    uint64_t count;
} hay_align_phase;

/*
 * One hit.  r is the pair's alignment as hay_align_pair gives it: score and
 * end cells always; start, CIGAR and counts unless score_only.  evalue and
 * bitscore are NAN here: the search leaves them to the caller, who fills
 * them with the Statistics above (hay_align_search_space() of the query
 * against hay_align_db_info_get()'s residues and sequences, as hay align
 * does).
 */
typedef struct hay_align_db_hit {
    uint32_t target;           /* input order index */
    const char *name;          /* owned by the database */
    size_t target_len;
    hay_align_result r;
    double evalue;             /* NAN: not computed */
    double bitscore;           /* NAN: not computed */
} hay_align_db_hit;

typedef struct hay_align_db_hits {
    hay_align_db_hit *hits;    /* nhits of them, best first: score
                                  descending, then target ascending */
    size_t nhits;
} hay_align_db_hits;

typedef struct hay_align_db_results {
    size_t nqueries;
    hay_align_db_hits *queries;    /* one per query, in query order */
    hay_backend backend;           /* where the score pass ran */
    const char *engine;            /* e.g. "inter_avx2" (the CPU's
                                      inter-sequence pass),
                                      "striped16_avx2" or "cuda" */
    uint64_t cells;                /* sum of query x database residues */
    uint64_t rescored32;           /* pairs redone in 32 bits */
    double seconds_scores;         /* score pass and top-k selection */
    double seconds_traceback;      /* alignments of the reported hits */
    uint64_t device_parts;         /* GPU: parts of the database searched
                                    * one after another (1 when it fits in
                                    * the device's memory; 0 on the CPU) */
    hay_align_phase *phases;       /* the search's phases, nphases of them,
                                    * in the order they began (owned by the
                                    * results) */
    size_t nphases;
} hay_align_db_results;

/*
 * Searches nq queries (codes, each of length >= 1) against db with s (which
 * must pass hay_align_db_check_scoring).  The CPU backend runs threads over
 * the targets, each query's profile built once, a top-k per thread merged
 * (with 4 or more queries a thread, threads take whole queries instead);
 * the GPU backend (where built) finds the scores and the top-k on the
 * device; a database larger than the device's memory is searched in parts
 * that fit, one after another, with the same hits.  A database that fits
 * keeps its device copy for the next search with the same scoring and
 * device params, until hay_align_db_free (searches of one database on the
 * GPU from several threads take turns).  The alignments of the reported hits are then traced on CPU
 * threads.  *out is owned by the caller (hay_align_db_results_free); hit
 * names point into db, which must outlive the results.  Errors: those of
 * hay_align_pair; HAY_ERR_INVALID for a scoring of another alphabet.
 */
HAY_API hay_status hay_align_db_search(const hay_align_db *db,
                               const hay_align_scoring *s,
                               const hay_align_seq *queries, size_t nq,
                               const hay_align_db_options *o,
                               hay_align_db_results **out);

/* Frees the results, their CIGARs included.  NULL is allowed. */
HAY_API void hay_align_db_results_free(hay_align_db_results *r);

#ifdef __cplusplus
}
#endif

#endif
