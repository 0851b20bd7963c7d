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

static int file_is_db(const char *path)
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

/* The database of TARGET, and the scoring for it; 0 or -1 after printing
 * why.  *tf is read (and kept for its letters) when TARGET is FASTA. */
static int open_target(aconfig *cf, const seq_file *qf, seq_file *tf,
                       int *have_tf, hay_align_db **db,
                       hay_align_scoring **s)
{
    char err[1024];
    if (!file_is_db(cf->tpath)) {
        if (seq_file_read(cf->tpath, tf, err, sizeof err)) {
            fprintf(stderr, "hay align: %s\n", err);
            return -1;
        }
        *have_tf = 1;
        int dna = cf->mode == 1 || (cf->mode == 0 && looks_dna(qf, tf));
        *s = make_scoring(cf, dna);
        if (!*s)
            return -1;
        *db = db_from_seq_file(*s, tf, cf->tpath, "hay align");
        return *db ? 0 : -1;
    }
    if (hay_align_db_open(cf->tpath, db, err, sizeof err) != HAY_OK) {
        fprintf(stderr, "hay align: %s: %s\n", cf->tpath, err);
        return -1;
    }
    hay_align_db_info info;
    hay_align_db_info_get(*db, &info);
    if ((cf->mode == 1 && !info.dna) || (cf->mode == 2 && info.dna)) {
        fprintf(stderr, "hay align: %s: a %s database, not %s\n", cf->tpath,
                info.dna ? "DNA" : "protein", info.dna ? "protein" : "DNA");
        return -1;
    }
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

int align_db_main(aconfig *cf)
{
    seq_file qf, tf;
    int have_tf = 0, rc = 2;
    char err[1024];
    hay_align_db *db = NULL;
    hay_align_scoring *s = NULL;
    hay_align_seq *qs = NULL;
    uint8_t **qb = NULL;
    char *letters = NULL;
    if (seq_file_read(cf->qpath, &qf, err, sizeof err)) {
        fprintf(stderr, "hay align: %s\n", err);
        return 2;
    }
    if (open_target(cf, &qf, &tf, &have_tf, &db, &s))
        goto out;
    /* Not yet in the database search: E-values and the minus strand. */
    if (cf->have_evalue) {
        fprintf(stderr, "hay align: --evalue: not yet in the database search "
                "(--top, --min-score or a database TARGET)\n");
        goto out;
    }
    if (cf->strand == 1 || cf->strand == 3) {
        fprintf(stderr, "hay align: --strand %s: not yet in the database "
                "search (--top, --min-score or a database TARGET); it "
                "searches the plus strand\n", cf->strand == 1 ? "both" : "minus");
        goto out;
    }
    qs = calloc(qf.n, sizeof *qs);
    qb = calloc(qf.n, sizeof *qb);
    if (!qs || !qb) {
        fprintf(stderr, "hay align: out of memory\n");
        goto out;
    }
    if (encode_all(s, &qf, cf->qpath, qs, qb))
        goto out;
    hay_align_db_info info;
    hay_align_db_info_get(db, &info);
    if (cf->format == F_PAIR && !have_tf) {
        letters = malloc(info.longest + 1);
        if (!letters) {
            fprintf(stderr, "hay align: out of memory\n");
            goto out;
        }
    }

    hay_align_db_options o;
    hay_align_db_options_init(&o);
    o.align = cf->opt;
    o.align.threads = cf->opt.threads > 0 ? cf->opt.threads
                                          : (int)cli_cpu_count();
    o.top_k = cf->top ? cf->top : DEFAULT_TOP;
    o.min_score = cf->min_score;
    if (cf->format == F_SAM)
        print_sam_header_db(cf, db);
    if (cf->format == F_JSON)
        print_json_head(cf, s, 0, NULL, 0, 0);
    int first = 1;
    double seconds = 0, sec_scores = 0, sec_tb = 0;
    uint64_t cells = 0, nhits = 0, rescored = 0, linear = 0;
    const char *engine = "none";
    const char *ABC = hay_align_scoring_letters(s);
    size_t qblock = MAX_HELD / o.top_k;
    qblock = qblock < 1 ? 1 : qblock > QBLOCK ? QBLOCK : qblock;
    for (size_t q0 = 0; q0 < qf.n; q0 += qblock) {
        size_t nq = qf.n - q0 < qblock ? qf.n - q0 : qblock;
        hay_align_db_results *res = NULL;
        double t0 = cli_now();
        hay_status st = hay_align_db_search(db, s, qs + q0, nq, &o, &res);
        seconds += cli_now() - t0;
        if (st != HAY_OK) {
            fflush(stdout);
            if (st == HAY_ERR_NO_BACKEND)
                fprintf(stderr, "hay align: backend %s: the database search "
                        "on this backend is not built into this hay\n",
                        hay_backend_name(cf->opt.backend));
            else
                fprintf(stderr, "hay align: %s\n", hay_strerror(st));
            goto out;
        }
        engine = res->engine;
        cells += res->cells;
        rescored += res->rescored32;
        sec_scores += res->seconds_scores;
        sec_tb += res->seconds_traceback;
        for (size_t a = 0; a < nq; a++) {
            const seq_rec *q = &qf.recs[q0 + a];
            const hay_align_db_hits *hh = &res->queries[a];
            if (cf->format == F_SAM && hh->nhits == 0)
                print_sam_record(q, NULL, NULL, 4);
            for (size_t b = 0; b < hh->nhits; b++) {
                const hay_align_db_hit *h = &hh->hits[b];
                seq_rec t = { (char *)h->name, NULL, h->target_len, NULL };
                if (have_tf)
                    t = tf.recs[h->target];
                hay_align_seq tc;
                hay_align_db_seq(db, h->target, NULL, &tc.codes, &tc.len);
                hit ph = { &h->r, q, q, &qs[q0 + a], 0, 0, 0, 0 };
                switch (cf->format) {
                case F_TSV: print_tsv(&t, &ph); break;
                case F_BLAST6: print_blast6(&t, &ph); break;
                case F_JSON: print_json(&t, &ph, &first); break;
                case F_PAIR:
                    if (!have_tf) {
                        /* A database keeps codes: its letters are the
                         * alphabet's (upper case; U and O read as X). */
                        for (size_t k = 0; k < tc.len; k++)
                            letters[k] = ABC[tc.codes[k]];
                        letters[tc.len] = 0;
                        t.seq = letters;
                    }
                    print_pair(cf, s, q, &t, &qs[q0 + a], &tc, &h->r, 0);
                    break;
                case F_SAM:
                    print_sam_record(q, &t, &h->r, b == 0 ? 0 : 256);
                    break;
                }
                nhits++;
                linear += (h->r.flags & HAY_ALIGN_LINEAR) != 0;
            }
        }
        hay_align_db_results_free(res);
    }
    if (cf->format == F_JSON)
        printf("\n]}\n");
    if (cf->stats)
        fprintf(stderr, "stats: queries=%zu targets=%" PRIu64 " hits=%" PRIu64
                " cells=%" PRIu64 " seconds=%.6f gcups=%.3f scores_seconds=%.6f"
                " traceback_seconds=%.6f engine=%s threads=%d top=%zu "
                "rescored32=%" PRIu64 " linear_tracebacks=%" PRIu64 "\n",
                qf.n, info.sequences, nhits, cells, seconds,
                seconds > 0 ? (double)cells / seconds * 1e-9 : 0.0,
                sec_scores, sec_tb, engine, o.align.threads, o.top_k,
                rescored, linear);
    rc = 0;
out:
    for (size_t i = 0; qb && i < qf.n; i++)
        free(qb[i]);
    free(qb);
    free(qs);
    free(letters);
    hay_align_db_free(db);
    hay_align_scoring_free(s);
    seq_file_free(&qf);
    if (have_tf)
        seq_file_free(&tf);
    if (fflush(stdout) != 0 && rc == 0)
        rc = 2;
    return rc;
}
