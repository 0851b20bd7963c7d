/*
 * stats_tables.h - the published Karlin-Altschul parameters that stats.c
 * looks up (stats_tables.c: data only, internal to the aligner).
 */
#ifndef HAY_STATS_TABLES_H
#define HAY_STATS_TABLES_H

/* One tabulated scoring system: BLAST's gap existence and extension
 * (a gap of k costs existence + k * extension), then the parameters;
 * protein rows also carry alpha_v and sigma of Spouge's finite-size
 * correction (the variance and covariance slopes of the alignment's
 * extent; Park, Sheetlin, Ma, Madden & Spouge, BMC Res Notes 5:286, 2012),
 * as BLAST tabulates them. */
typedef struct ka_row {
    int existence, extension;
    double lambda, K, H, alpha, beta, alpha_v, sigma;
} ka_row;

/* A protein scoring system: its rows, the ungapped one first (existence
 * -1), then the gapped rows, ended by a row of zeros. */
typedef struct ka_matrix {
    const char *key;                 /* built-in matrix name */
    const ka_row *rows;
} ka_matrix;

/*
 * Nucleotide match/mismatch (BLAST's reward/penalty), gapped rows only (the
 * greedy non-affine rows of megablast do not apply to affine alignment).
 * Gap costs at or above (max_existence, max_extension) in both numbers
 * behave as no gaps: BLAST then uses ungapped parameters, and so do we.
 * round_down: the parameters hold for even scores only; an odd score is
 * rounded down before its E-value is computed (BLAST does the same).
 */
typedef struct ka_dna {
    int reward, penalty, round_down, max_existence, max_extension;
    const ka_row *rows;
} ka_dna;

/* The tables (stats_tables.c), each ended by an entry whose rows are NULL. */
extern const ka_matrix hay_ka_protein_tables[];
extern const ka_dna hay_ka_dna_tables[];

#endif
