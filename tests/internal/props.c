/*
 * props.c - seeded random property tests: random haystacks (alphabets of
 * 2..4 letters, letters and the punctuation next to them, or all 256
 * bytes; 0..200k bytes), 1..64 patterns of 1..40 bytes drawn from the
 * haystack or at random, caseless at random, every engine with random
 * threads (1..4), schedule and chunk size; hay_scan and hay_scan_count
 * against the oracle.
 *
 * The seed is HAY_SEED when set, else taken from the clock; it is printed
 * at the start and with every failure.  Iteration i uses seed + i, so
 * HAY_SEED=<seed> HAY_PROPS_FROM=<i> HAY_PROPS_COUNT=1 reruns one case.
 */
#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_ENGINES 32
#define ITERATIONS 600
#define MAX_HAY ((size_t)200 << 10)
#define MAX_PATS 64
#define MAX_PAT_LEN 40
/* At most this many chunks per scan: bounds the time, not the coverage. */
#define MAX_CHUNKS 4096

static uint64_t env_u64(const char *name, uint64_t dflt, bool *set)
{
    const char *v = getenv(name);
    if (set)
        *set = v && *v;
    return v && *v ? strtoull(v, NULL, 0) : dflt;
}

typedef struct alphabet {
    uint8_t b[256];
    size_t n;
    const char *name;
} alphabet;

static void pick_alphabet(tu_rng *r, alphabet *a)
{
    switch (tu_below(r, 4)) {
    case 0:
    case 1: {
        static const char letters[] = "abcdefghijklmnopqrstuvwxyz";
        a->n = (size_t)tu_range(r, 2, 4);
        for (size_t i = 0; i < a->n; i++) {
            uint8_t c = (uint8_t)letters[tu_below(r, 26)];
            a->b[i] = tu_below(r, 3) == 0 ? (uint8_t)(c - 32) : c;
        }
        a->name = "2..4 letters";
        break;
    }
    case 2: {
        static const char near[] = "@AZ[`az{aA\x01\xc1\xe1";
        a->n = sizeof near - 1;
        memcpy(a->b, near, a->n);
        a->name = "case boundaries";
        break;
    }
    default:
        for (int i = 0; i < 256; i++)
            a->b[i] = (uint8_t)i;
        a->n = 256;
        a->name = "all bytes";
        break;
    }
}

static size_t pick_size(tu_rng *r)
{
    uint64_t k = tu_below(r, 100);
    size_t max = k < 50 ? 2000 : k < 85 ? 20000 : MAX_HAY;
    if (tu_below(r, 20) == 0)
        return (size_t)tu_below(r, 4);   /* 0..3 bytes */
    return (size_t)tu_below(r, max + 1);
}

static void random_opts(tu_rng *r, size_t len, hay_scan_opts *o, char *desc,
                        size_t cap)
{
    hay_scan_opts_init(o);
    o->threads = (unsigned)tu_range(r, 1, 4);
    o->schedule = tu_below(r, 2) ? HAY_SCHEDULE_STATIC : HAY_SCHEDULE_DYNAMIC;
    if (tu_below(r, 4) == 0) {
        o->chunk_size = 0;
    } else {
        /* log-uniform 1 .. 64 KiB, but no more than MAX_CHUNKS chunks */
        size_t c = (size_t)1 << tu_below(r, 17);
        c += (size_t)tu_below(r, c);
        size_t lo = len / MAX_CHUNKS + 1;
        o->chunk_size = c < lo ? lo : c;
    }
    snprintf(desc, cap, "threads %u %s chunk %zu", o->threads,
             o->schedule == HAY_SCHEDULE_STATIC ? "static" : "dynamic",
             o->chunk_size);
}

int main(void)
{
    bool seeded;
    uint64_t seed = env_u64("HAY_SEED", 0, &seeded);
    if (!seeded)
        seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
    uint64_t from = env_u64("HAY_PROPS_FROM", 0, NULL);
    uint64_t count = env_u64("HAY_PROPS_COUNT", tu_scaled(ITERATIONS, 20), NULL);
    printf("props: HAY_SEED=%" PRIu64 " (%s), iterations %" PRIu64 "..%" PRIu64 "\n",
           seed, seeded ? "from the environment" : "from the clock", from,
           from + count - 1);
    fflush(stdout);

    tu_engine engines[MAX_ENGINES];
    size_t ne = tu_engines(HAY_BACKEND_CPU, engines, MAX_ENGINES);
    char note[128];
    tu_fail_note = note;

    uint8_t *hay = malloc(MAX_HAY + 1);
    hay_pattern pats[MAX_PATS];
    uint8_t patbuf[MAX_PATS][MAX_PAT_LEN];
    uint64_t total_matches = 0, runs = 0;
    double t0 = tu_now();

    for (uint64_t it = from; it < from + count; it++) {
        snprintf(note, sizeof note, "HAY_SEED=%" PRIu64 " HAY_PROPS_FROM=%" PRIu64
                 " HAY_PROPS_COUNT=1", seed, it);
        tu_rng r = { seed + it * 0x9e3779b97f4a7c15ull };
        alphabet a;
        pick_alphabet(&r, &a);
        size_t len = pick_size(&r);
        for (size_t i = 0; i < len; i++)
            hay[i] = a.b[tu_below(&r, a.n)];
        bool caseless = tu_below(&r, 2);
        size_t np = tu_below(&r, 3) == 0 ? 1 : (size_t)tu_range(&r, 1, MAX_PATS);
        for (size_t i = 0; i < np; i++) {
            size_t m = (size_t)tu_range(&r, 1, MAX_PAT_LEN);
            if (len >= m && tu_below(&r, 5) < 3) {
                memcpy(patbuf[i], hay + tu_below(&r, len - m + 1), m);
            } else {
                for (size_t k = 0; k < m; k++)
                    patbuf[i][k] = a.b[tu_below(&r, a.n)];
            }
            if (caseless)
                for (size_t k = 0; k < m; k++) {
                    uint8_t c = patbuf[i][k] | 0x20;
                    if (c >= 'a' && c <= 'z' && tu_below(&r, 2))
                        patbuf[i][k] ^= 0x20;
                }
            pats[i].data = patbuf[i];
            pats[i].len = m;
        }
        /* Exactly sized, so that over-reads are caught under ASan. */
        uint8_t *h = malloc(len ? len : 1);
        memcpy(h, hay, len);

        tu_mlist exp = { 0 };
        tu_oracle(h, len, pats, np, caseless, &exp);
        total_matches += exp.n;

        for (size_t k = 0; k < ne; k++) {
            const tu_engine *e = &engines[k];
            hay_patterns *set = NULL;
            hay_status s = tu_compile(e, pats, np, caseless, &set);
            if (np > 1 && !e->multi) {
                CHECK(s == HAY_ERR_UNSUPPORTED, "%s with %zu patterns: %s",
                      e->label, np, hay_strerror(s));
                hay_patterns_free(set);
                continue;
            }
            if (!CHECK(s == HAY_OK, "compile %s: %s", e->label, hay_strerror(s)))
                continue;
            hay_scratch *scr = NULL;
            s = hay_scratch_create(set, &scr);
            CHECK(s == HAY_OK, "scratch: %s", hay_strerror(s));

            hay_scan_opts o;
            char desc[96];
            random_opts(&r, len, &o, desc, sizeof desc);
            tu_checker ck;
            tu_checker_init(&ck, &exp, 0, pats, np);
            s = hay_scan(set, scr, h, len, &o, tu_check_cb, &ck);
            bool ok = tu_checker_done(&ck, false);
            CHECK(s == HAY_OK && ok,
                  "scan %s, %zu bytes of %s, %zu patterns%s, %s: %s; %s",
                  e->label, len, a.name, np, caseless ? " caseless" : "", desc,
                  hay_strerror(s), ok ? "matches agree" : ck.err);
            tu_checker_free(&ck);

            random_opts(&r, len, &o, desc, sizeof desc);
            uint64_t n = UINT64_MAX;
            s = hay_scan_count(set, scr, h, len, &o, &n);
            CHECK(s == HAY_OK && n == exp.n,
                  "count %s, %zu bytes of %s, %zu patterns%s, %s: %s, %" PRIu64
                  ", want %zu", e->label, len, a.name, np,
                  caseless ? " caseless" : "", desc, hay_strerror(s), n, exp.n);
            runs++;
            hay_scratch_free(scr);
            hay_patterns_free(set);
        }
        tu_mlist_free(&exp);
        free(h);
    }
    printf("props: %" PRIu64 " engine runs, %" PRIu64 " oracle matches, %.1f s\n",
           runs, total_matches, tu_now() - t0);
    free(hay);
    snprintf(note, sizeof note, "HAY_SEED=%" PRIu64, seed);
    return tu_finish();
}
