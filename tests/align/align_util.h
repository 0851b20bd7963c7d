/*
 * align_util.h - what the alignment tests share: an independent oracle (the
 * textbook full-matrix Smith-Waterman with Gotoh's affine gaps, 64-bit),
 * an independent CIGAR rescorer, and a check that a result is a valid
 * optimal alignment.
 */
#ifndef HAY_ALIGN_UTIL_H
#define HAY_ALIGN_UTIL_H

#include "haystack_align.h"
#include "testutil.h"

#include <stdint.h>

typedef struct au_scoring {
    int alpha;
    const int32_t *m;   /* alpha x alpha, copied out of the library object */
    int32_t open, extend;
    int32_t buf[HAY_ALIGN_MAX_ALPHA * HAY_ALIGN_MAX_ALPHA];
} au_scoring;

void au_scoring_from(const hay_align_scoring *s, au_scoring *out);

/* The scorings of the engine tests: every built-in matrix, DNA scorings
 * (matrix NULL: match/mismatch), gaps from 1/1 to 20/5. */
typedef struct au_case {
    const char *matrix;
    int32_t match, mismatch, open, extend;
} au_case;
extern const au_case au_cases[];
extern const size_t au_ncases;

/* The scoring of a case; exits on failure. */
hay_align_scoring *au_make(const au_case *c);

/* Best score and first best cell in row-major order (query outer). */
int64_t au_oracle(const au_scoring *s, const uint8_t *q, size_t m,
                  const uint8_t *t, size_t n, uint64_t *qe, uint64_t *te);

/* Score of a CIGAR at (qs, ts); -1 with *ok = 0 when malformed or
 * inconsistent with the residues.  Sets the spans it covers. */
int64_t au_rescore(const au_scoring *s, const uint8_t *q, size_t m,
                   const uint8_t *t, size_t n, uint64_t qs, uint64_t ts,
                   const char *cigar, uint64_t *qspan, uint64_t *tspan,
                   int *ok);

/* Checks that r is a valid alignment of score want with the given end;
 * what names the case in messages.  Returns 1 if every check passed. */
int au_check_result(const au_scoring *s, const uint8_t *q, size_t m,
                    const uint8_t *t, size_t n, const hay_align_result *r,
                    int64_t want, uint64_t qe, uint64_t te, const char *what);

/* q random; t random or (related) q's relative (point changes and gap runs
 * of up to 40, so that gaps cross tile edges), cut or padded to n. */
void au_make_pair(tu_rng *r, int alpha, uint8_t *q, size_t m, uint8_t *t,
                  size_t n, int related);

/* Whether DIR/bio holds the real pairs; prints a SKIP line when not. */
int au_have_pairs(const char *dir);

/* DIR/bio/A and DIR/bio/B as codes (the records of each FASTA file end
 * to end, at most cap residues) in *q and *t (the caller frees): 1, or 0 after a failed check. */
int au_read_pair(const hay_align_scoring *s, const char *dir, const char *a,
                 const char *b, size_t cap, uint8_t **q, size_t *m,
                 uint8_t **t, size_t *n);

/* A FASTA file as an in-memory database (NULL: unreadable; a failed
 * build is a failed check). */
hay_align_db *au_load_db(const hay_align_scoring *s, const char *path);

/* The protein bio sets of DIR/bio/protein as databases: the queries (the
 * first 64 at most, as qs, shortest first), sprot196 and the E. coli
 * proteome. */
typedef struct au_bio {
    hay_align_db *queries, *sprot, *ecoli;
    hay_align_seq qs[64];
    size_t nq;
} au_bio;

/* 1, or 0 after a SKIP line when a set is missing (nothing to close). */
int au_bio_open(const hay_align_scoring *s, const char *dir, au_bio *b);
void au_bio_close(au_bio *b);

#endif
