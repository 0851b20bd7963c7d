/*
 * align.c - `hay align`: Smith-Waterman local alignment of every query
 * against every target (FASTA or FASTQ, gzipped or not), printed as
 * pairwise text, SAM, BLAST tabular, JSON or TSV: the scoring, the
 * encoded sequences and strands, and the all-pairs run.  The command line
 * is align_args.c's, the writers align_print.c's, the database search
 * align_db.c's.  Only the public API (haystack_align.h) is used.
 */
#include "align.h"
#include "cli.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void scoring_defaults(aconfig *cf, int dna)
{
    if (!cf->have_open)
        cf->open = dna ? 5 : 11;
    if (!cf->have_extend)
        cf->extend = dna ? 2 : 1;
    if (!cf->matrix && dna) {
        if (!cf->have_match)
            cf->match = 2;
        if (!cf->have_mismatch)
            cf->mismatch = -3;
    }
}

hay_align_scoring *make_scoring(aconfig *cf, int dna)
{
    hay_align_scoring *s = NULL;
    hay_status st;
    scoring_defaults(cf, dna);
    if (cf->extend > cf->open) {
        fprintf(stderr, "hay align: --gap-extend (%d) must not exceed "
                "--gap-open (%d)\n", (int)cf->extend, (int)cf->open);
        return NULL;
    }
    if (!cf->matrix && dna) {
        st = hay_align_scoring_dna(cf->match, cf->mismatch, cf->open,
                                   cf->extend, &s);
        if (st != HAY_OK) {
            fprintf(stderr, "hay align: --mismatch must be below --match\n");
            return NULL;
        }
        return s;
    }
    if (cf->have_match || cf->have_mismatch) {
        fprintf(stderr, "hay align: --match and --mismatch are for DNA without "
                "--matrix\n");
        return NULL;
    }
    const char *m = cf->matrix ? cf->matrix : "blosum62";
    if (!strchr(m, '/')) {
        st = hay_align_scoring_builtin(m, cf->open, cf->extend, &s);
        if (st == HAY_OK)
            return s;
    }
    uint8_t *text;
    size_t len;
    char err[512];
    if (cli_read_all(m, &text, &len, err, sizeof err)) {
        fprintf(stderr, "hay align: matrix '%s': not a built-in name (see "
                "--list) and not a readable file\n", m);
        return NULL;
    }
    const char *base = strrchr(m, '/');
    size_t line;
    st = hay_align_scoring_parse((const char *)text, len, base ? base + 1 : m,
                                 cf->open, cf->extend, &s, &line);
    free(text);
    if (st != HAY_OK) {
        if (line)
            fprintf(stderr, "hay align: matrix file '%s': line %zu: not an "
                    "NCBI-format matrix row\n", m, line);
        else
            fprintf(stderr, "hay align: matrix file '%s': not an NCBI-format "
                    "matrix (a header of letters and one row per letter)\n", m);
        return NULL;
    }
    return s;
}

int encode_all(const hay_align_scoring *s, const seq_file *f,
               const char *path, hay_align_seq *out, uint8_t **bufs)
{
    for (size_t i = 0; i < f->n; i++) {
        const seq_rec *r = &f->recs[i];
        bufs[i] = malloc(r->len);
        if (!bufs[i]) {
            fprintf(stderr, "hay align: out of memory\n");
            return -1;
        }
        size_t bad;
        if (hay_align_encode(s, r->seq, r->len, bufs[i], &bad) != HAY_OK) {
            unsigned char ch = (unsigned char)r->seq[bad];
            fprintf(stderr, "hay align: %s: sequence '%s': invalid residue ",
                    path, r->id);
            if (isprint(ch))
                fprintf(stderr, "'%c'", ch);
            else
                fprintf(stderr, "\\x%02x", ch);
            fprintf(stderr, " at position %zu for %s scoring (letters %s)\n",
                    bad + 1, hay_align_scoring_name(s),
                    hay_align_scoring_letters(s));
            return -1;
        }
        out[i].codes = bufs[i];
        out[i].len = r->len;
    }
    return 0;
}

int reverse_complement(const seq_file *f, seq_file *rc)
{
    static const char from[] = "ACGTUNRYSWKMBDHVacgtunryswkmbdhv";
    static const char to[] = "TGCAANYRSWMKVHDBtgcaanyrswmkvhdb";
    rc->n = f->n;
    rc->fastq = f->fastq;
    rc->recs = calloc(f->n ? f->n : 1, sizeof *rc->recs);
    if (!rc->recs)
        return -1;
    for (size_t i = 0; i < f->n; i++) {
        const seq_rec *r = &f->recs[i];
        seq_rec *o = &rc->recs[i];
        o->id = r->id;
        o->len = r->len;
        o->seq = malloc(r->len + 1);
        if (!o->seq)
            return -1;
        for (size_t j = 0; j < r->len; j++) {
            const char *c = strchr(from, r->seq[r->len - 1 - j]);
            o->seq[j] = c && *c ? to[c - from] : r->seq[r->len - 1 - j];
        }
        o->seq[r->len] = 0;
        if (r->qual) {
            o->qual = malloc(r->len + 1);
            if (!o->qual)
                return -1;
            for (size_t j = 0; j < r->len; j++)
                o->qual[j] = r->qual[r->len - 1 - j];
            o->qual[r->len] = 0;
        }
    }
    return 0;
}

void reverse_complement_free(seq_file *rc)
{
    for (size_t i = 0; rc->recs && i < rc->n; i++) {
        free(rc->recs[i].seq);
        free(rc->recs[i].qual);
    }
    free(rc->recs);
}

/* --params, checked once on a one-residue pair before any work (the
 * library says only HAY_ERR_INVALID). */
int align_check_params(const aconfig *cf, const hay_align_scoring *s)
{
    const uint8_t c = 0;
    hay_align_options o = cf->opt;
    o.score_only = 1;
    o.threads = 1;
    hay_align_result r;
    if (hay_align_pair(s, &c, 1, &c, 1, &o, &r) != HAY_ERR_INVALID)
        return 0;
    int cpu = o.backend == HAY_BACKEND_CPU || o.backend == HAY_BACKEND_AUTO;
    fprintf(stderr, "hay align: --params '%s': an unknown key or a bad value "
            "(%s)\n", o.device_params,
            cpu ? "cpu keys: wavefront_cells=SIZE (at least 1), "
                  "wavefront_tile=N (8 to 1048576), traceback_cells=SIZE "
                  "(at least 1), db_kernel=auto|inter|inter_avx2|inter_avx512|striped"
                : "see the backend's keys in docs/DESIGN.md");
    return 1;
}

static hay_status run_batch(const aconfig *cf, const hay_align_scoring *s,
                            const hay_align_seq *qs, size_t nq,
                            const hay_align_seq *ts, size_t nt,
                            hay_align_result *res, double *seconds)
{
    double t0 = cli_now();
    hay_status st = hay_align_batch(s, qs, nq, ts, nt, &cf->opt, res);
    *seconds += cli_now() - t0;
    if (st != HAY_OK) {
        fflush(stdout);
        if (st == HAY_ERR_NO_BACKEND)
            fprintf(stderr, "hay align: backend %s: Smith-Waterman on this "
                    "backend is not built into this hay\n",
                    hay_backend_name(cf->opt.backend));
        else
            fprintf(stderr, "hay align: %s\n", hay_strerror(st));
    }
    return st;
}

static int align_pairs(aconfig *cf);

int align_main(int argc, char **argv)
{
    aconfig cf;
    int rc = align_parse_args(argc, argv, &cf, 0);
    if (rc < 0 && cf.server)
        rc = align_client_main(&cf);
    else if (rc < 0)
        rc = align_db_wanted(&cf) ? align_db_main(&cf) : align_pairs(&cf);
    aconfig_free(&cf);
    return rc;
}

/* Every query against every target (TARGET FASTA or FASTQ). */
static int align_pairs(aconfig *cf)
{
    int rc;
    seq_file qf, tf, rf = { 0 };
    char err[1024];
    if (seq_file_read(cf->qpath, cf->strict_input, "hay align", &qf,
                      err, sizeof err)) {
        fprintf(stderr, "hay align: %s\n", err);
        return 2;
    }
    if (seq_file_read(cf->tpath, cf->strict_input, "hay align", &tf,
                      err, sizeof err)) {
        fprintf(stderr, "hay align: %s\n", err);
        seq_file_free(&qf);
        return 2;
    }
    rc = 2;
    int dna = cf->mode == 1 || (cf->mode == 0 && looks_dna(&qf, &tf));
    hay_align_scoring *s = make_scoring(cf, dna);
    hay_align_seq *qs = calloc(qf.n, sizeof *qs), *ts = calloc(tf.n, sizeof *ts);
    hay_align_seq *rs = NULL;
    uint8_t **qb = calloc(qf.n, sizeof *qb), **tb = calloc(tf.n, sizeof *tb);
    uint8_t **rb = NULL;
    hay_align_result *res = NULL, *resm = NULL;
    double *space = NULL;
    int32_t *fit_scores = NULL;
    uint64_t *fit_lens = NULL;
    uint64_t fitted = 0, fit_failed = 0;
    double fit_lo = 0, fit_hi = 0;
    size_t qblock = 0;
    if (!s || !qs || !ts || !qb || !tb)
        goto out;
    if (cf->opt.device_params && align_check_params(cf, s))
        goto out;
    int is_dna = hay_align_scoring_is_dna(s);
    if (!is_dna && (cf->strand == 1 || cf->strand == 3)) {
        fprintf(stderr, "hay align: --strand both or minus is for DNA\n");
        goto out;
    }
    int do_plus = !is_dna || cf->strand != 3;
    int do_minus = is_dna && (cf->strand == 0 || cf->strand == 1 || cf->strand == 3);
    if (check_kind(cf, s, &qf, cf->qpath, "query") ||
        check_kind(cf, s, &tf, cf->tpath, "target"))
        goto out;
    if (encode_all(s, &qf, cf->qpath, qs, qb) ||
        encode_all(s, &tf, cf->tpath, ts, tb))
        goto out;
    if (do_minus) {
        rs = calloc(qf.n, sizeof *rs);
        rb = calloc(qf.n, sizeof *rb);
        if (!rs || !rb || reverse_complement(&qf, &rf) ||
            encode_all(s, &rf, cf->qpath, rs, rb)) {
            fprintf(stderr, "hay align: out of memory\n");
            goto out;
        }
    }

    /* E-values: TARGET is the database. */
    hay_align_stats stats;
    int have_stats = hay_align_stats_get(s, &stats) == HAY_OK;
    /* Fitting to each query's own scores (ssearch's way) where no
     * published parameters exist and TARGET is large enough. */
    int use_fit = cf->params == 2 ||
        (cf->params == 0 && tf.n >= HAY_ALIGN_FIT_MIN &&
         (!have_stats || stats.kind == HAY_ALIGN_STATS_COMPUTED));
    if (cf->params == 2 && tf.n < HAY_ALIGN_FIT_MIN) {
        fprintf(stderr, "hay align: --evalue-params fit needs at least %d "
                "target sequences (TARGET has %zu)\n", HAY_ALIGN_FIT_MIN,
                tf.n);
        goto out;
    }
    if (cf->have_evalue && !have_stats && !use_fit) {
        fprintf(stderr, "hay align: --evalue: this scoring has no statistics "
                "(its expected score is not negative)\n");
        goto out;
    }
    uint64_t db_residues = 0;
    for (size_t i = 0; i < tf.n; i++)
        db_residues += tf.recs[i].len;

    int threads = cf->opt.threads > 0 ? cf->opt.threads : (int)cli_cpu_count();
    cf->opt.threads = threads;
    /* Queries in blocks of a few thousand pairs: enough to keep the
     * threads busy between two barriers, few enough to hold the results;
     * every block is printed in order before the next one runs. */
    qblock = (size_t)(4096 > 64 * threads ? 4096 : 64 * threads) / tf.n + 1;
    if (qblock > qf.n)
        qblock = qf.n;
    res = calloc(qblock * tf.n, sizeof *res);
    resm = do_minus ? calloc(qblock * tf.n, sizeof *resm) : NULL;
    space = calloc(qblock, sizeof *space);
    fit_scores = calloc(tf.n, sizeof *fit_scores);
    fit_lens = calloc(tf.n, sizeof *fit_lens);
    if (!res || !space || (do_minus && !resm) || !fit_scores || !fit_lens) {
        fprintf(stderr, "hay align: out of memory\n");
        goto out;
    }
    if (cf->format == F_SAM)
        print_sam_header(cf, &tf);
    if (cf->format == F_JSON)
        print_json_head(cf, s, use_fit, have_stats ? &stats : NULL,
                        db_residues, tf.n);
    int first = 1;
    double seconds = 0;
    uint64_t cells = 0, pairs = 0, rescored = 0, linear = 0, wavefront = 0;
    for (size_t q0 = 0; q0 < qf.n; q0 += qblock) {
        size_t nq = qf.n - q0 < qblock ? qf.n - q0 : qblock;
        if (do_plus && run_batch(cf, s, qs + q0, nq, ts, tf.n, res,
                                 &seconds) != HAY_OK)
            goto out;
        if (do_minus && run_batch(cf, s, rs + q0, nq, ts, tf.n, resm,
                                  &seconds) != HAY_OK)
            goto out;
        for (size_t a = 0; a < nq; a++) {
            const seq_rec *q = &qf.recs[q0 + a];
            /* The strand reported for each pair: the better score, the
             * plus strand on a tie. */
            hit *hits = calloc(tf.n, sizeof *hits);
            if (!hits) {
                fprintf(stderr, "hay align: out of memory\n");
                goto out;
            }
            size_t primary = SIZE_MAX;
            for (size_t b = 0; b < tf.n; b++) {
                hit *h = &hits[b];
                hay_align_result *rp = do_plus ? &res[a * tf.n + b] : NULL;
                hay_align_result *rm = do_minus ? &resm[a * tf.n + b] : NULL;
                h->minus = !rp || (rm && rm->score > rp->score);
                h->r = h->minus ? rm : rp;
                h->q = q;
                h->qa = h->minus ? &rf.recs[q0 + a] : q;
                h->qc = h->minus ? &rs[q0 + a] : &qs[q0 + a];
            }
            /* This query's statistics: the scoring's, or fitted. */
            const hay_align_stats *qst = have_stats ? &stats : NULL;
            hay_align_stats fit;
            if (use_fit) {
                for (size_t b = 0; b < tf.n; b++) {
                    fit_scores[b] = hits[b].r->score;
                    fit_lens[b] = tf.recs[b].len;
                }
                if (hay_align_stats_fit(fit_scores, fit_lens, tf.n, q->len,
                                        &fit) == HAY_OK) {
                    qst = &fit;
                    fit_lo = fitted && fit_lo < fit.lambda ? fit_lo : fit.lambda;
                    fit_hi = fitted && fit_hi > fit.lambda ? fit_hi : fit.lambda;
                    fitted++;
                } else
                    fit_failed++;
            }
            if (qst)
                space[a] = hay_align_search_space(qst, q->len, db_residues,
                                                  tf.n, NULL);
            for (size_t b = 0; b < tf.n; b++) {
                hit *h = &hits[b];
                h->have_stats = qst != NULL;
                if (qst && cf->fsc && qst->fsc)
                    h->evalue = hay_align_evalue_fsc(qst, h->r->score, q->len,
                                                     tf.recs[b].len,
                                                     db_residues);
                else if (qst)
                    h->evalue = hay_align_evalue_space(qst, h->r->score,
                                                       space[a]);
                if (qst)
                    h->bits = hay_align_bitscore(qst, h->r->score);
                if (cf->format == F_SAM && h->r->score > 0 &&
                    (!cf->have_evalue ||
                     (h->have_stats && h->evalue <= cf->max_evalue)) &&
                    (primary == SIZE_MAX ||
                     h->r->score > hits[primary].r->score))
                    primary = b;
            }
            if (cf->format == F_SAM && primary == SIZE_MAX)
                print_sam_record(q, NULL, NULL, 4);
            for (size_t b = 0; b < tf.n; b++) {
                const hit *h = &hits[b];
                const seq_rec *t = &tf.recs[b];
                if (!cf->have_evalue || (h->have_stats &&
                                        h->evalue <= cf->max_evalue))
                    switch (cf->format) {
                    case F_TSV: print_tsv(t, h); break;
                    case F_BLAST6: print_blast6(t, h); break;
                    case F_JSON: print_json(t, h, &first); break;
                    case F_PAIR:
                        print_pair(cf, s, h->qa, t, h->qc, &ts[b], h->r,
                                   h->minus);
                        break;
                    case F_SAM:
                        /* SAM's SEQ and CIGAR are along the reference: the
                         * aligned query (reverse complemented) as is. */
                        if (h->r->score > 0)
                            print_sam_record(h->qa, t, h->r,
                                             (b == primary ? 0 : 256) |
                                             (h->minus ? 16 : 0));
                        break;
                    }
                for (int k = 0; k < 2; k++) {
                    hay_align_result *r = k ? (do_minus ? &resm[a * tf.n + b]
                                                        : NULL)
                                            : (do_plus ? &res[a * tf.n + b]
                                                       : NULL);
                    if (!r)
                        continue;
                    cells += r->cells;
                    pairs++;
                    rescored += (r->flags & HAY_ALIGN_RESCORED32) != 0;
                    linear += (r->flags & HAY_ALIGN_LINEAR) != 0;
                    wavefront += (r->flags & HAY_ALIGN_WAVEFRONT) != 0;
                    hay_align_result_clear(r);
                }
            }
            free(hits);
        }
    }
    if (cf->format == F_JSON)
        printf("\n]}\n");
    if (cf->stats) {
        const char *v = "gpu";
        if (cf->opt.backend == HAY_BACKEND_CPU || cf->opt.backend == HAY_BACKEND_AUTO)
            hay_align_variant_check(cf->opt.variant, &v);
        fprintf(stderr, "stats: pairs=%" PRIu64 " cells=%" PRIu64
                " seconds=%.6f gcups=%.3f variant=%s threads=%d "
                "rescored32=%" PRIu64 " linear_tracebacks=%" PRIu64
                " wavefront=%" PRIu64 "\n",
                pairs, cells, seconds,
                seconds > 0 ? (double)cells / seconds * 1e-9 : 0.0, v,
                threads, rescored, linear, wavefront);
        if (use_fit)
            fprintf(stderr, "stats: lambda and K fitted to each query's "
                    "scores: %" PRIu64 " queries fitted (lambda %.4g to "
                    "%.4g), %" PRIu64 " could not be%s\n", fitted, fit_lo,
                    fit_hi, fit_failed,
                    !fit_failed ? ""
                    : have_stats ? " (the scoring's parameters used for them)"
                                 : " (no E-values for them)");
        else if (have_stats)
            fprintf(stderr, "stats: lambda=%.6g K=%.6g H=%.6g alpha=%.6g "
                    "beta=%.6g db_residues=%" PRIu64 " db_sequences=%zu "
                    "source: %s\n", stats.lambda, stats.K, stats.H,
                    stats.alpha, stats.beta, db_residues, tf.n, stats.source);
        else
            fprintf(stderr, "stats: no E-values: this scoring's expected "
                    "score is not negative\n");
    }
    rc = 0;
out:
    for (size_t i = 0; res && i < qblock * tf.n; i++)
        hay_align_result_clear(&res[i]);
    for (size_t i = 0; resm && i < qblock * tf.n; i++)
        hay_align_result_clear(&resm[i]);
    free(res);
    free(resm);
    free(space);
    free(fit_scores);
    free(fit_lens);
    for (size_t i = 0; qb && i < qf.n; i++)
        free(qb[i]);
    for (size_t i = 0; rb && i < qf.n; i++)
        free(rb[i]);
    for (size_t i = 0; tb && i < tf.n; i++)
        free(tb[i]);
    free(qb);
    free(rb);
    free(tb);
    free(qs);
    free(rs);
    free(ts);
    reverse_complement_free(&rf);
    hay_align_scoring_free(s);
    seq_file_free(&qf);
    seq_file_free(&tf);
    if (fflush(stdout) != 0 && rc == 0)
        rc = 2;
    return rc;
}
