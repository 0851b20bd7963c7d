/*
 * db_parts.c - the database search on the GPU through the public API
 * (hay_align_db_search, backend CUDA): the same hits as the CPU backend,
 * with the database resident and in parts (device params db_max=, as for
 * a database larger than the device's memory).  Exits 77 without a device.
 */
#include "testutil.h"
#include "haystack_align.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char AA[] = "ARNDCQEGHILKMFPSTWYV";

static int same(const hay_align_db_results *a, const hay_align_db_results *b,
                size_t nq, const char *what)
{
    int ok = a->nqueries == nq && b->nqueries == nq;
    for (size_t j = 0; ok && j < nq; j++) {
        const hay_align_db_hits *x = &a->queries[j], *y = &b->queries[j];
        ok = x->nhits == y->nhits;
        for (size_t h = 0; ok && h < x->nhits; h++)
            ok = x->hits[h].target == y->hits[h].target &&
                 x->hits[h].r.score == y->hits[h].r.score &&
                 x->hits[h].r.q_end == y->hits[h].r.q_end &&
                 x->hits[h].r.t_end == y->hits[h].r.t_end;
        CHECK(ok, "%s: query %zu: hits differ from the CPU's", what, j);
    }
    return ok;
}

int main(void)
{
    hay_align_scoring *s = NULL;
    CHECK_ST(hay_align_scoring_builtin("blosum62", 11, 1, &s), HAY_OK, "scoring");
    /* 1,500 random proteins of 20..600 residues, some of them copies (ties
     * across parts), and 6 queries cut from them. */
    size_t nt = tu_scaled(1500, 200), cap = nt * 700 + 64, len = 0;
    char *fa = malloc(cap);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < nt; i++) {
        len += (size_t)snprintf(fa + len, cap - len, ">t%zu\n", i);
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        size_t n = 20 + (size_t)(x >> 33) % 580;
        if (i % 97 == 5 && i > 10) {   /* a copy of an earlier target */
            const char *p = strstr(fa, ">t3\n") + 4;
            const char *e = strchr(p, '\n');
            memcpy(fa + len, p, (size_t)(e - p));
            len += (size_t)(e - p);
        } else {
            for (size_t k = 0; k < n; k++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                fa[len++] = AA[(x >> 33) % 20];
            }
        }
        fa[len++] = '\n';
    }
    hay_align_db *db = NULL;
    char msg[256];
    CHECK_ST(hay_align_db_from_fasta(s, fa, len, &db, msg, sizeof msg), HAY_OK, msg);
    enum { NQ = 6 };
    hay_align_seq qs[NQ];
    for (size_t j = 0; j < NQ; j++) {
        size_t n;
        const uint8_t *c;
        hay_align_db_seq(db, (uint32_t)(j * 7 + 3), NULL, &c, &n);
        qs[j].codes = c;
        qs[j].len = n;
    }
    hay_align_db_options o;
    hay_align_db_options_init(&o);
    o.top_k = 20;
    o.align.score_only = 1;
    hay_align_db_results *cpu = NULL, *gpu = NULL;
    o.align.backend = HAY_BACKEND_CPU;
    CHECK_ST(hay_align_db_search(db, s, qs, NQ, &o, &cpu), HAY_OK, "cpu");
    o.align.backend = HAY_BACKEND_CUDA;
    hay_status st = hay_align_db_search(db, s, qs, NQ, &o, &gpu);
    if (st == HAY_ERR_NO_DEVICE || st == HAY_ERR_NO_BACKEND) {
        printf("no CUDA device: skipped\n");
        hay_align_db_results_free(cpu);
        hay_align_db_free(db);
        hay_align_scoring_free(s);
        free(fa);
        return TU_SKIP;
    }
    CHECK_ST(st, HAY_OK, "cuda");
    if (cpu && gpu) {
        same(cpu, gpu, NQ, "resident");
        CHECK(gpu->device_parts == 1, "resident: %llu parts",
              (unsigned long long)gpu->device_parts);
    }
    hay_align_db_results_free(gpu);
    /* Parts of at most 16 KiB of residues (the database holds ~450 KiB). */
    const char *caps[] = { "db_max=16K", "db_max=100K" };
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        gpu = NULL;
        o.align.device_params = caps[c];
        CHECK_ST(hay_align_db_search(db, s, qs, NQ, &o, &gpu), HAY_OK, caps[c]);
        if (cpu && gpu) {
            same(cpu, gpu, NQ, caps[c]);
            CHECK(gpu->device_parts > 1, "%s: %llu parts", caps[c],
                  (unsigned long long)gpu->device_parts);
        }
        hay_align_db_results_free(gpu);
    }
    /* A single target larger than db_max cannot be split: an error, after
     * at most log2(targets) + 1 tries. */
    o.align.device_params = "db_max=1";
    gpu = NULL;
    CHECK_ST(hay_align_db_search(db, s, qs, NQ, &o, &gpu), HAY_ERR_TOO_LARGE, "db_max=1");
    CHECK(gpu == NULL, "db_max=1: no results");
    hay_align_db_results_free(cpu);
    hay_align_db_free(db);
    hay_align_scoring_free(s);
    free(fa);
    return tu_finish();
}
