/*
 * align_db.c - `hay align`'s database search: TARGET is a database file
 * (`hay db build`, recognised by its magic) or FASTA given with --top or
 * --min-score.  Each query keeps its best hits (hay_align_db_search), which
 * go through the writers of align.c; only the public API is used.
 */
#include "align.h"
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TOP 50
/* Queries per search call: enough to keep a GPU's database upload and
 * the threads' start-up small beside the work, few enough to bound the
 * hits held before they are printed (at most MAX_HELD a call). */
#define QBLOCK 4096
#define MAX_HELD ((size_t)1 << 22)

int file_is_db(const char *path)
{
    if (!strcmp(path, "-"))
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned char head[8];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return hay_align_db_is_db(head, n);
}

int align_db_wanted(const aconfig *cf)
{
    return cf->top > 0 || cf->have_min_score || file_is_db(cf->tpath);
}

hay_align_db *db_from_seq_file(const hay_align_scoring *s, const seq_file *f,
                               const char *path, const char *prog)
{
    hay_align_db_input *in = calloc(f->n ? f->n : 1, sizeof *in);
    if (!in) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return NULL;
    }
    for (size_t i = 0; i < f->n; i++) {
        in[i].name = f->recs[i].id;
        in[i].name_len = strlen(f->recs[i].id);
        in[i].residues = f->recs[i].seq;
        in[i].len = f->recs[i].len;
    }
    hay_align_db *db = NULL;
    char msg[512];
    if (hay_align_db_create(s, in, f->n, &db, msg, sizeof msg) != HAY_OK)
        fprintf(stderr, "%s: %s: %s\n", prog, path, msg);
    free(in);
    return db;
}

int check_db_kind(const aconfig *cf, const char *prog, const char *path, int dna)
{
    if ((cf->mode == 1 && !dna) || (cf->mode == 2 && dna)) {
        fprintf(stderr, "%s: %s: a %s database, not %s\n", prog, path,
                dna ? "DNA" : "protein", dna ? "protein" : "DNA");
        return -1;
    }
    return 0;
}

/* The server's database and scoring (sv) for this request: the scoring
 * was checked against the client's (align_serve.c); --dna and --protein
 * are checked here as for a database file. */
static int served_target(aconfig *cf, const served *sv, seq_file *tf,
                         int *have_tf, hay_align_db **db,
                         hay_align_scoring **s)
{
    hay_align_db_info info;
    hay_align_db_info_get(sv->db, &info);
    if (check_db_kind(cf, "hay align", cf->tpath, info.dna))
        return -1;
    scoring_defaults(cf, info.dna);
    *db = sv->db;
    *s = sv->s;
    if (sv->tf) {
        *tf = *sv->tf;
        *have_tf = 1;
    }
    return 0;
}

/* The database of TARGET, and the scoring for it; 0 or -1 after printing
 * why.  *tf is read (and kept for its letters) when TARGET is FASTA. */
static int open_target(aconfig *cf, const seq_file *qf, seq_file *tf,
                       int *have_tf, hay_align_db **db,
                       hay_align_scoring **s, timeline *tl)
{
    char err[1024];
    double t0 = cli_now();
    if (!file_is_db(cf->tpath)) {
        if (seq_file_read(cf->tpath, cf->strict_input, "hay align", tf,
                          err, sizeof err)) {
            fprintf(stderr, "hay align: %s\n", err);
            return -1;
        }
        *have_tf = 1;
        timeline_add(tl, "cli:read_target", t0, cli_now());
        t0 = cli_now();
        int dna = cf->mode == 1 || (cf->mode == 0 && looks_dna(qf, tf));
        *s = make_scoring(cf, dna);
        if (!*s || check_kind(cf, *s, tf, cf->tpath, "target"))
            return -1;
        timeline_add(tl, "cli:scoring_and_kind", t0, cli_now());
        t0 = cli_now();
        *db = db_from_seq_file(*s, tf, cf->tpath, "hay align");
        timeline_add(tl, "cli:db_build", t0, cli_now());
        return *db ? 0 : -1;
    }
    if (hay_align_db_open(cf->tpath, db, err, sizeof err) != HAY_OK) {
        fprintf(stderr, "hay align: %s: %s\n", cf->tpath, err);
        return -1;
    }
    timeline_add(tl, "cli:open_db", t0, cli_now());
    hay_align_db_info info;
    hay_align_db_info_get(*db, &info);
    if (check_db_kind(cf, "hay align", cf->tpath, info.dna))
        return -1;
    *s = make_scoring(cf, info.dna);
    if (!*s)
        return -1;
    if (hay_align_db_check_scoring(*db, *s) != HAY_OK) {
        fprintf(stderr, "hay align: %s: the database is encoded in the "
                "letters %s; %s scoring has %s (rebuild it with hay db build "
                "and this --matrix)\n", cf->tpath, info.letters,
                hay_align_scoring_name(*s), hay_align_scoring_letters(*s));
        return -1;
    }
    return 0;
}

static void print_sam_header_db(const aconfig *cf, const hay_align_db *db)
{
    hay_align_db_info info;
    hay_align_db_info_get(db, &info);
    printf("@HD\tVN:1.6\tSO:unsorted\n");
    for (uint64_t i = 0; i < info.sequences; i++) {
        const char *name;
        size_t len;
        hay_align_db_seq(db, (uint32_t)i, &name, NULL, &len);
        printf("@SQ\tSN:%s\tLN:%zu\n", name, len);
    }
    print_sam_pg(cf);
}

/* One hit as reported: the search's hit on the strand kept. */
typedef struct shit {
    hay_align_db_hit *h;
    int minus;
} shit;

/* By target, the plus strand first. */
static int by_target(const void *a, const void *b)
{
    const shit *x = a, *y = b;
    if (x->h->target != y->h->target)
        return x->h->target < y->h->target ? -1 : 1;
    return x->minus - y->minus;
}

/* Best first: score descending, then target ascending (the search's
 * order). */
static int by_rank(const void *a, const void *b)
{
    const shit *x = a, *y = b;
    if (x->h->r.score != y->h->r.score)
        return x->h->r.score > y->h->r.score ? -1 : 1;
    return x->h->target < y->h->target ? -1 : x->h->target > y->h->target;
}

/*
 * One query's hits: those of the plus search (p, may be NULL) and of the
 * minus search (m, may be NULL), one per target (the better strand, plus
 * on a tie, as the all-pairs path reports a pair), best first, at most k.
 * Exact: a target of the merged top k is in the top k of the strand it is
 * kept on, since every target ranked above it there ranks above it here.
 * Returns the count; out holds room for both lists.
 */
static size_t merge_strands(hay_align_db_hits *p, hay_align_db_hits *m,
                            size_t k, shit *out)
{
    size_t n = 0;
    for (size_t i = 0; p && i < p->nhits; i++)
        out[n++] = (shit){ &p->hits[i], 0 };
    if (!m)
        return n;
    for (size_t i = 0; i < m->nhits; i++)
        out[n++] = (shit){ &m->hits[i], 1 };
    if (!p)
        return n;
    qsort(out, n, sizeof *out, by_target);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w && out[w - 1].h->target == out[i].h->target) {
            if (out[i].h->r.score > out[w - 1].h->r.score)
                out[w - 1] = out[i];
            continue;
        }
        out[w++] = out[i];
    }
    qsort(out, w, sizeof *out, by_rank);
    return w < k ? w : k;
}

/* Runs one search; prints why on failure. */
static hay_status search_block(const aconfig *cf, const hay_align_db *db,
                               const hay_align_scoring *s,
                               const hay_align_seq *qs, size_t nq,
                               const hay_align_db_options *o,
                               hay_align_db_results **res, double *seconds,
                               timeline *tl)
{
    double t0 = cli_now();
    hay_status st = hay_align_db_search(db, s, qs, nq, o, res);
    *seconds += cli_now() - t0;
    timeline_add(tl, "cli:search", t0, cli_now());
    timeline_add_results(tl, *res);
    if (st != HAY_OK) {
        fflush(stdout);
        if (st == HAY_ERR_NO_BACKEND)
            fprintf(stderr, "hay align: backend %s: the database search "
                    "on this backend is not built into this hay\n",
                    hay_backend_name(cf->opt.backend));
        else
            fprintf(stderr, "hay align: %s\n", hay_strerror(st));
    }
    return st;
}

/*
 * Starts the device ahead of the search (hay_align_db_warm_up) when the
 * search will use it: backend cuda at once, auto once the size is known
 * (cells: queries' residues x an estimate of the target's).  Env
 * HAY_ALIGN_WARM_UP=0 turns it off, to measure what it saves.
 */
static void start_device(const hay_align_db_options *o, uint64_t cells,
                         hay_align_db_warm **warm, timeline *tl)
{
    const char *e = getenv("HAY_ALIGN_WARM_UP");
    if (*warm || (e && !strcmp(e, "0")))
        return;
    double t0 = cli_now();
    /* A failure here (no memory, no GPU build) shows again on the search,
     * with its message. */
    if (hay_align_db_warm_up(o, cells, warm) != HAY_OK)
        *warm = NULL;
    if (*warm)
        timeline_add(tl, "cli:device_start", t0, cli_now());
}

/* An upper estimate of TARGET's residues before reading it: a database's
 * own count, a FASTA file's size. */
static uint64_t target_residues_estimate(const char *path)
{
    if (!strcmp(path, "-"))
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    fclose(f);
    return n > 0 ? (uint64_t)n : 0;
}

int align_db_main(aconfig *cf)
{
    return align_db_run(cf, NULL);
}

int align_db_run(aconfig *cf, const served *sv)
{
    timeline tl;
    timeline_init(&tl);
    if (sv) {   /* the client's command is the one timed */
        tl.t0 = sv->t0;
        tl.real0 = sv->real0;
        tl.proc_start = sv->proc_start;
        for (size_t i = 0; i < sv->nphases; i++)
            timeline_add_phase(&tl, &sv->phases[i]);
    }
    hay_align_db_warm *warm = sv ? sv->warm : NULL;
    hay_align_db_options o;
    hay_align_db_options_init(&o);
    o.align = cf->opt;
    o.align.threads = cf->opt.threads > 0 ? cf->opt.threads
                                          : (int)cli_cpu_count();
    o.top_k = cf->top ? cf->top : DEFAULT_TOP;
    o.min_score = cf->min_score;
    if (o.align.backend == HAY_BACKEND_CUDA && !sv)
        start_device(&o, 0, &warm, &tl);

    seq_file qf, tf, rf = { 0 };
    int have_tf = 0, rc = 2;
    char err[1024];
    hay_align_db *db = NULL;
    hay_align_scoring *s = NULL;
    hay_align_seq *qs = NULL, *rs = NULL;
    uint8_t **qb = NULL, **rb = NULL;
    char *letters = NULL;
    shit *list = NULL;
    hay_align_db_results *res = NULL, *resm = NULL;
    double t0 = cli_now();
    if (sv ? seq_file_parse(sv->queries, sv->queries_len, cf->qpath,
                            cf->strict_input, "hay align", &qf, err,
                            sizeof err)
           : seq_file_read(cf->qpath, cf->strict_input, "hay align", &qf,
                           err, sizeof err)) {
        fprintf(stderr, "hay align: %s\n", err);
        if (!sv)
            hay_align_db_warm_free(warm);
        timeline_free(&tl);
        return 2;
    }
    timeline_add(&tl, sv ? "serve:parse_queries" : "cli:read_queries", t0,
                 cli_now());
    if (o.align.backend == HAY_BACKEND_AUTO && !sv) {
        uint64_t qres = 0;
        for (size_t i = 0; i < qf.n; i++)
            qres += qf.recs[i].len;
        start_device(&o, qres * target_residues_estimate(cf->tpath), &warm, &tl);
    }
    o.warm = warm;
    t0 = cli_now();
    if (sv ? served_target(cf, sv, &tf, &have_tf, &db, &s)
           : open_target(cf, &qf, &tf, &have_tf, &db, &s, &tl))
        goto out;
    if (cf->opt.backend == HAY_BACKEND_CPU && cf->opt.device_params &&
        align_check_params(cf, s))
        goto out;
    t0 = cli_now();
    if (check_kind(cf, s, &qf, cf->qpath, "query"))
        goto out;
    timeline_add(&tl, "cli:check_queries", t0, cli_now());
    t0 = cli_now();
    int is_dna = hay_align_scoring_is_dna(s);
    if (!is_dna && (cf->strand == 1 || cf->strand == 3)) {
        fprintf(stderr, "hay align: --strand both or minus is for DNA\n");
        goto out;
    }
    int do_plus = !is_dna || cf->strand != 3;
    int do_minus = is_dna && cf->strand != 2;
    qs = calloc(qf.n, sizeof *qs);
    qb = calloc(qf.n, sizeof *qb);
    if (!qs || !qb) {
        fprintf(stderr, "hay align: out of memory\n");
        goto out;
    }
    if (encode_all(s, &qf, cf->qpath, qs, qb))
        goto out;
    timeline_add(&tl, "cli:encode_queries", t0, cli_now());
    if (do_minus) {
        rs = calloc(qf.n, sizeof *rs);
        rb = calloc(qf.n, sizeof *rb);
        if (!rs || !rb || reverse_complement(&qf, &rf)) {
            fprintf(stderr, "hay align: out of memory\n");
            goto out;
        }
        if (encode_all(s, &rf, cf->qpath, rs, rb))
            goto out;
    }
    hay_align_db_info info;
    hay_align_db_info_get(db, &info);
    if (cf->format == F_PAIR && !have_tf) {
        letters = malloc(info.longest + 1);
        if (!letters) {
            fprintf(stderr, "hay align: out of memory\n");
            goto out;
        }
    }

    /* E-values: the database is TARGET, its residues and sequences.  A
     * fit to a query's own scores (ssearch's way) needs every score, and
     * the search keeps only the top hits: the scoring's own statistics
     * (published, else computed) are used, and the source says so. */
    hay_align_stats stats;
    int have_stats = hay_align_stats_get(s, &stats) == HAY_OK;
    if (cf->params == 2) {
        fprintf(stderr, "hay align: --evalue-params fit: a database search "
                "keeps only the top hits of each query and a fit needs "
                "every score (use a FASTA TARGET without --top and "
                "--min-score)\n");
        goto out;
    }
    if (have_stats && cf->params == 0 &&
        stats.kind == HAY_ALIGN_STATS_COMPUTED &&
        info.sequences >= HAY_ALIGN_FIT_MIN) {
        static const char why[] = "; not fitted to the query's scores as "
            "the all-pairs path does: the database search keeps only the "
            "top hits";
        size_t n = strlen(stats.source);
        if (n + sizeof why <= sizeof stats.source)
            memcpy(stats.source + n, why, sizeof why);
    }
    if (cf->have_evalue && !have_stats) {
        fprintf(stderr, "hay align: --evalue: this scoring has no statistics "
                "(its expected score is not negative)\n");
        goto out;
    }

    list = calloc(2 * o.top_k, sizeof *list);
    if (!list) {
        fprintf(stderr, "hay align: out of memory\n");
        goto out;
    }
    if (cf->format == F_SAM)
        print_sam_header_db(cf, db);
    if (cf->format == F_JSON)
        print_json_head(cf, s, 0, have_stats ? &stats : NULL, info.residues,
                        info.sequences);
    int first = 1;
    double seconds = 0, sec_scores = 0, sec_tb = 0;
    uint64_t cells = 0, nhits = 0, rescored = 0, linear = 0, parts = 0;
    const char *engine = "none";
    const char *ABC = hay_align_scoring_letters(s);
    size_t qblock = MAX_HELD / o.top_k / (do_plus + do_minus);
    qblock = qblock < 1 ? 1 : qblock > QBLOCK ? QBLOCK : qblock;
    /* The last search ends the device's use (release_device): its context's
     * teardown then overlaps the alignments and the printing instead of
     * adding to the exit.  HAY_ALIGN_RELEASE=0 keeps it to the exit. */
    const char *rel = getenv("HAY_ALIGN_RELEASE");
    int may_release = !sv && !(rel && !strcmp(rel, "0"));
    for (size_t q0 = 0; q0 < qf.n; q0 += qblock) {
        size_t nq = qf.n - q0 < qblock ? qf.n - q0 : qblock;
        int last = q0 + nq >= qf.n && may_release;
        o.release_device = last && !do_minus;
        if (do_plus && search_block(cf, db, s, qs + q0, nq, &o, &res,
                                    &seconds, &tl) != HAY_OK)
            goto out;
        o.release_device = last;
        if (do_minus && search_block(cf, db, s, rs + q0, nq, &o, &resm,
                                     &seconds, &tl) != HAY_OK)
            goto out;
        t0 = cli_now();
        for (int k = 0; k < 2; k++) {
            hay_align_db_results *r = k ? resm : res;
            if (!r)
                continue;
            engine = r->engine;
            cells += r->cells;
            rescored += r->rescored32;
            if (r->device_parts > parts)
                parts = r->device_parts;
            sec_scores += r->seconds_scores;
            sec_tb += r->seconds_traceback;
        }
        for (size_t a = 0; a < nq; a++) {
            const seq_rec *q = &qf.recs[q0 + a];
            size_t n = merge_strands(res ? &res->queries[a] : NULL,
                                     resm ? &resm->queries[a] : NULL,
                                     o.top_k, list);
            double space = have_stats
                ? hay_align_search_space(&stats, q->len, info.residues,
                                         info.sequences, NULL)
                : 0;
            int primary_done = 0;
            size_t printed = 0;
            for (size_t b = 0; b < n; b++) {
                hay_align_db_hit *h = list[b].h;
                int minus = list[b].minus;
                /* The statistics, into the search's hits too. */
                if (have_stats && cf->fsc && stats.fsc)
                    h->evalue = hay_align_evalue_fsc(&stats, h->r.score,
                                                     q->len, h->target_len,
                                                     info.residues);
                else if (have_stats)
                    h->evalue = hay_align_evalue_space(&stats, h->r.score,
                                                       space);
                if (have_stats)
                    h->bitscore = hay_align_bitscore(&stats, h->r.score);
                if (cf->have_evalue && !(h->evalue <= cf->max_evalue))
                    continue;
                const seq_rec *qa = minus ? &rf.recs[q0 + a] : q;
                const hay_align_seq *qc = minus ? &rs[q0 + a] : &qs[q0 + a];
                seq_rec t = { (char *)h->name, NULL, h->target_len, NULL };
                if (have_tf)
                    t = tf.recs[h->target];
                hay_align_seq tc;
                hay_align_db_seq(db, h->target, NULL, &tc.codes, &tc.len);
                hit ph = { &h->r, q, qa, qc, minus, have_stats, h->evalue,
                           h->bitscore };
                switch (cf->format) {
                case F_TSV: print_tsv(&t, &ph); break;
                case F_BLAST6: print_blast6(&t, &ph); break;
                case F_JSON: print_json(&t, &ph, &first); break;
                case F_PAIR:
                    if (!have_tf) {
                        /* A database keeps codes: its letters are the
                         * alphabet's (upper case; U and O read as X). */
                        for (size_t c = 0; c < tc.len; c++)
                            letters[c] = ABC[tc.codes[c]];
                        letters[tc.len] = 0;
                        t.seq = letters;
                    }
                    print_pair(cf, s, qa, &t, qc, &tc, &h->r, minus);
                    break;
                case F_SAM:
                    /* SEQ and CIGAR along the reference: the aligned query
                     * (reverse complemented) as is; the best hit printed
                     * is primary, as in the all-pairs path. */
                    print_sam_record(qa, &t, &h->r,
                                     (primary_done ? 256 : 0) |
                                     (minus ? 16 : 0));
                    primary_done = 1;
                    break;
                }
                printed++;
                nhits++;
                linear += (h->r.flags & HAY_ALIGN_LINEAR) != 0;
            }
            if (cf->format == F_SAM && printed == 0)
                print_sam_record(q, NULL, NULL, 4);
        }
        timeline_add(&tl, "cli:print", t0, cli_now());
        hay_align_db_results_free(res);
        hay_align_db_results_free(resm);
        res = resm = NULL;
    }
    if (cf->format == F_JSON)
        printf("\n]}\n");
    if (cf->stats) {
        fprintf(stderr, "stats: queries=%zu targets=%" PRIu64 " hits=%" PRIu64
                " cells=%" PRIu64 " seconds=%.6f gcups=%.3f scores_seconds=%.6f"
                " traceback_seconds=%.6f engine=%s threads=%d top=%zu "
                "strands=%s rescored32=%" PRIu64 " linear_tracebacks=%" PRIu64
                " device_parts=%" PRIu64 "\n", qf.n, info.sequences, nhits, cells, seconds,
                seconds > 0 ? (double)cells / seconds * 1e-9 : 0.0,
                sec_scores, sec_tb, engine, o.align.threads, o.top_k,
                do_plus && do_minus ? "both" : do_minus ? "minus" : "plus",
                rescored, linear, parts);
        if (have_stats)
            fprintf(stderr, "stats: lambda=%.6g K=%.6g H=%.6g alpha=%.6g "
                    "beta=%.6g db_residues=%" PRIu64 " db_sequences=%" PRIu64
                    " source: %s\n", stats.lambda, stats.K, stats.H,
                    stats.alpha, stats.beta, info.residues, info.sequences,
                    stats.source);
        else
            fprintf(stderr, "stats: no E-values: this scoring's expected "
                    "score is not negative\n");
    }
    rc = 0;
out:
    t0 = cli_now();
    hay_align_db_results_free(res);
    hay_align_db_results_free(resm);
    free(list);
    for (size_t i = 0; qb && i < qf.n; i++)
        free(qb[i]);
    for (size_t i = 0; rb && i < qf.n; i++)
        free(rb[i]);
    free(qb);
    free(rb);
    free(qs);
    free(rs);
    free(letters);
    reverse_complement_free(&rf);
    seq_file_free(&qf);
    if (!sv) {   /* the server's stay for its next request */
        hay_align_db_free(db);
        hay_align_scoring_free(s);
        if (have_tf)
            seq_file_free(&tf);
    }
    timeline_add(&tl, "cli:free", t0, cli_now());
    t0 = cli_now();
    if (!sv)
        hay_align_db_warm_free(warm);
    timeline_add(&tl, "cli:device_start_free", t0, cli_now());
    t0 = cli_now();
    if (fflush(stdout) != 0 && rc == 0)
        rc = 2;
    timeline_add(&tl, "cli:flush", t0, cli_now());
    if (cf->stats && rc == 0)
        timeline_print(&tl);
    timeline_free(&tl);
    return rc;
}
