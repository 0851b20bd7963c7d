/* testutil.c - see testutil.h. */
#include "testutil.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define MAX_PRINTED_FAILURES 40

unsigned long long tu_passed, tu_failed;
const char *tu_fail_note;

bool tu_check_(bool cond, const char *file, int line, const char *fmt, ...)
{
    if (cond) {
        tu_passed++;
        return true;
    }
    if (++tu_failed <= MAX_PRINTED_FAILURES) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stdout, "FAIL %s:%d: ", file, line);
        vfprintf(stdout, fmt, ap);
        va_end(ap);
        if (tu_fail_note)
            fprintf(stdout, " [%s]", tu_fail_note);
        fputc('\n', stdout);
        if (tu_failed == MAX_PRINTED_FAILURES)
            fprintf(stdout, "(further failures are counted, not printed)\n");
        fflush(stdout);
    }
    return false;
}

int tu_finish(void)
{
    if (tu_failed && tu_fail_note)
        printf("failures seen with: %s\n", tu_fail_note);
    printf("%llu passed, %llu failed\n", tu_passed, tu_failed);
    fflush(stdout);
    return tu_failed ? 1 : 0;
}

#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_SCALE 0.25
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DEFAULT_SCALE 0.25
#endif
#endif
#ifndef DEFAULT_SCALE
#define DEFAULT_SCALE 1.0
#endif

double tu_scale(void)
{
    static double scale = -1;
    if (scale < 0) {
        const char *e = getenv("HAY_TEST_SCALE");
        scale = e && *e ? strtod(e, NULL) : DEFAULT_SCALE;
        if (!(scale >= 0.01))
            scale = 0.01;
    }
    return scale;
}

size_t tu_scaled(size_t n, size_t lo)
{
    double v = (double)n * tu_scale();
    return v < (double)lo ? lo : (size_t)v;
}

/* splitmix64 */
uint64_t tu_rand(tu_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t tu_below(tu_rng *r, uint64_t n)
{
    return tu_rand(r) % n;
}

uint64_t tu_range(tu_rng *r, uint64_t lo, uint64_t hi)
{
    return lo + tu_below(r, hi - lo + 1);
}

uint8_t *tu_random_text(tu_rng *r, const char *alphabet, size_t len)
{
    size_t k = strlen(alphabet);
    uint8_t *h = malloc(len ? len : 1);
    for (size_t i = 0; h && i < len; i++)
        h[i] = (uint8_t)alphabet[tu_below(r, k)];
    return h;
}

uint8_t *tu_boundary_text(const hay_pattern *pats, size_t n, size_t step, size_t len)
{
    uint8_t *h = malloc(len);
    if (!h)
        return NULL;
    memset(h, '.', len);
    size_t k = 0;
    for (size_t b = step; b < len; b += step, k++) {
        const hay_pattern *p = &pats[k % n];
        size_t at = b >= p->len / 2 + 1 ? b - p->len / 2 - 1 : 0;
        if (at + p->len <= len)
            memcpy(h + at, p->data, p->len);
    }
    return h;
}

void tu_mlist_push(tu_mlist *l, uint32_t id, uint64_t start, uint64_t end)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->m = realloc(l->m, l->cap * sizeof *l->m);
        if (!l->m) {
            fprintf(stderr, "test: out of memory\n");
            abort();
        }
    }
    l->m[l->n].id = id;
    l->m[l->n].start = start;
    l->m[l->n].end = end;
    l->n++;
}

void tu_mlist_free(tu_mlist *l)
{
    free(l->m);
    memset(l, 0, sizeof *l);
}

bool tu_match_at(const uint8_t *hay, size_t at, const hay_pattern *p,
                 bool caseless)
{
    const uint8_t *q = p->data;
    if (!caseless)
        return memcmp(hay + at, q, p->len) == 0;
    for (size_t k = 0; k < p->len; k++)
        if (tu_fold(hay[at + k]) != tu_fold(q[k]))
            return false;
    return true;
}

void tu_oracle(const uint8_t *hay, size_t len, const hay_pattern *pats,
               size_t npats, bool caseless, tu_mlist *out)
{
    for (size_t end = 1; end <= len; end++)
        for (size_t i = 0; i < npats; i++) {
            size_t m = pats[i].len;
            if (m > end)
                continue;
            /* the first byte alone, inline: most positions stop here */
            uint8_t h = hay[end - m], p = *(const uint8_t *)pats[i].data;
            if (h != p && (!caseless || tu_fold(h) != tu_fold(p)))
                continue;
            if (tu_match_at(hay, end - m, &pats[i], caseless))
                tu_mlist_push(out, (uint32_t)i, end - m, end);
        }
}

/* ---- the checker ----------------------------------------------------------- */

void tu_checker_init(tu_checker *c, const tu_mlist *exp, uint64_t shift,
                     const hay_pattern *pats, size_t npats)
{
    memset(c, 0, sizeof *c);
    c->exp = exp;
    c->shift = shift;
    c->pats = pats;
    c->npats = npats;
}

void tu_checker_free(tu_checker *c)
{
    free(c->grp);
    c->grp = NULL;
    c->gcap = c->ng = 0;
}

static void fail_once(tu_checker *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fail_once(tu_checker *c, const char *fmt, ...)
{
    if (c->bad)
        return;
    c->bad = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Compares the group of reported ids ending at c->cur_end with the expected
 * matches there; expected matches ending before it were missed. */
static void flush_group(tu_checker *c)
{
    if (c->bad || c->ng == 0)
        return;
    const tu_mlist *e = c->exp;
    if (c->pos < e->n && e->m[c->pos].end + c->shift < c->cur_end) {
        const tu_match *m = &e->m[c->pos];
        fail_once(c, "missed match id %u [%llu, %llu)", m->id,
                  (unsigned long long)(m->start + c->shift),
                  (unsigned long long)(m->end + c->shift));
        return;
    }
    qsort(c->grp, c->ng, sizeof *c->grp, cmp_u32);
    for (size_t k = 0; k < c->ng; k++) {
        size_t at = c->pos + k;
        if (at >= e->n || e->m[at].end + c->shift != c->cur_end ||
            e->m[at].id != c->grp[k]) {
            fail_once(c, "at end %llu: reported id %u (%zu-th of %zu there) "
                      "is extra or duplicate; expected %s id %u",
                      (unsigned long long)c->cur_end, c->grp[k], k + 1, c->ng,
                      at < e->n && e->m[at].end + c->shift == c->cur_end
                          ? "" : "no more matches there, next",
                      at < e->n ? e->m[at].id : UINT32_MAX);
            return;
        }
    }
    size_t at = c->pos + c->ng;
    if (at < e->n && e->m[at].end + c->shift == c->cur_end) {
        fail_once(c, "at end %llu: missed id %u (%zu reported there)",
                  (unsigned long long)c->cur_end, e->m[at].id, c->ng);
        return;
    }
    c->pos = at;
    c->ng = 0;
}

int tu_check_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    tu_checker *c = ctx;
    uint64_t k = c->calls++;
    if (c->record)
        tu_mlist_push(c->record, id, start, end);
    if (c->stop_after && k >= c->stop_after) {
        fail_once(c, "callback called again (call %llu) after asking to stop "
                  "at call %llu", (unsigned long long)k + 1,
                  (unsigned long long)c->stop_after);
        return 1;
    }
    bool stop = c->stop_after && k + 1 == c->stop_after;
    if (c->bad)
        return stop;
    if (id >= c->npats) {
        fail_once(c, "id %u out of range (%zu patterns)", id, c->npats);
        return stop;
    }
    if (end < start || end - start != c->pats[id].len) {
        fail_once(c, "id %u: [%llu, %llu) is not the pattern length %zu", id,
                  (unsigned long long)start, (unsigned long long)end,
                  c->pats[id].len);
        return stop;
    }
    if (c->ref) {
        const tu_mlist *r = c->ref;
        if (k >= r->n || r->m[k].id != id ||
            r->m[k].end + c->ref_shift != end) {
            fail_once(c, "match %llu is id %u end %llu; the reference run "
                      "gave id %u end %llu there (tie order must not change)",
                      (unsigned long long)k + 1, id, (unsigned long long)end,
                      k < r->n ? r->m[k].id : UINT32_MAX,
                      k < r->n ? (unsigned long long)(r->m[k].end + c->ref_shift)
                               : 0ull);
            return stop;
        }
    }
    if (c->calls > 1 && end < c->cur_end) {
        fail_once(c, "end %llu reported after end %llu (order by end broken)",
                  (unsigned long long)end, (unsigned long long)c->cur_end);
        return stop;
    }
    if (c->calls == 1 || end != c->cur_end) {
        flush_group(c);
        c->cur_end = end;
    }
    if (c->ng == c->gcap) {
        c->gcap = c->gcap ? c->gcap * 2 : 16;
        c->grp = realloc(c->grp, c->gcap * sizeof *c->grp);
        if (!c->grp)
            abort();
    }
    c->grp[c->ng++] = id;
    return stop;
}

bool tu_checker_done(tu_checker *c, bool stopped)
{
    if (stopped) {
        /* A prefix: the groups before the last one were compared as they
         * closed, and ref (when set) call by call. */
        if (!c->bad && c->calls != c->stop_after)
            fail_once(c, "stopped after %llu calls, asked at %llu",
                      (unsigned long long)c->calls,
                      (unsigned long long)c->stop_after);
        return !c->bad;
    }
    flush_group(c);
    if (!c->bad && c->pos != c->exp->n) {
        const tu_match *m = &c->exp->m[c->pos];
        fail_once(c, "missed match id %u [%llu, %llu) (%zu of %zu expected "
                  "matches reported)", m->id,
                  (unsigned long long)(m->start + c->shift),
                  (unsigned long long)(m->end + c->shift), c->pos, c->exp->n);
    }
    return !c->bad;
}

/* ---- engines ------------------------------------------------------------------ */

hay_status tu_compile(const tu_engine *e, const hay_pattern *pats, size_t n,
                      bool caseless, hay_patterns **set)
{
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = e->backend;
    o.algo = e->algo;
    o.flags = caseless ? HAY_CASELESS : 0;
    o.params = e->params;
    return hay_patterns_compile(pats, n, &o, set);
}

bool tu_set_and_scratch(const tu_engine *e, const hay_pattern *p, size_t n,
                        hay_patterns **set, hay_scratch **scr)
{
    *set = NULL;
    *scr = NULL;
    if (tu_compile(e, p, n, false, set) != HAY_OK)
        return false;
    hay_scratch_create(*set, scr);
    return true;
}

hay_scan_opts tu_scan_opts(unsigned threads, size_t chunk, hay_schedule sch)
{
    hay_scan_opts o;
    hay_scan_opts_init(&o);
    o.threads = threads;
    o.chunk_size = chunk;
    o.schedule = sch;
    return o;
}

hay_status tu_scan_checked(const hay_patterns *set, hay_scratch *scr, const uint8_t *data,
                           size_t len, const hay_scan_opts *o, const tu_mlist *exp,
                           const hay_pattern *p, size_t n, bool *agree, char *why)
{
    tu_checker ck;
    tu_checker_init(&ck, exp, 0, p, n);
    hay_status s = hay_scan(set, scr, data, len, o, tu_check_cb, &ck);
    *agree = tu_checker_done(&ck, false);
    snprintf(why, TU_WHY_CAP, "%s", *agree ? "ok" : ck.err);
    tu_checker_free(&ck);
    return s;
}

hay_status tu_engine_variant(const tu_engine *base, const char *params,
                             tu_engine *out, size_t *k, size_t cap)
{
    if (*k >= cap)
        return HAY_ERR_NOMEM;
    tu_engine *e = &out[*k];
    *e = *base;
    e->params = params;
    snprintf(e->label, sizeof e->label, "%.20s %.26s", base->label, params);
    static const hay_pattern two[2] = { { "ab", 2 }, { "cd", 2 } };
    hay_patterns *set = NULL;
    hay_status s = tu_compile(e, two, 2, false, &set);
    hay_patterns_free(set);
    if (s == base->probe)
        (*k)++;
    return s;
}

static void add_engine_params(tu_engine *out, size_t *k, size_t cap,
                              hay_backend b, const char *algo,
                              const char *params, const char *suffix)
{
    if (*k >= cap)
        return;
    tu_engine *e = &out[(*k)++];
    memset(e, 0, sizeof *e);
    e->backend = b;
    e->algo = algo;
    e->params = params;
    snprintf(e->label, sizeof e->label, "%s/%s%s", hay_backend_name(b),
             algo ? algo : "auto", suffix);
    static const hay_pattern two[2] = { { "ab", 2 }, { "cd", 2 } };
    hay_patterns *set = NULL;
    e->probe = tu_compile(e, two, 2, false, &set);
    e->multi = e->probe == HAY_OK;
    hay_patterns_free(set);
}

static void add_engine(tu_engine *out, size_t *k, size_t cap,
                       hay_backend b, const char *algo)
{
    add_engine_params(out, k, cap, b, algo, NULL, "");
}

size_t tu_engines(hay_backend backend, tu_engine *out, size_t cap)
{
    size_t k = 0;
    const char *name;
    for (size_t i = 0; hay_algo_name(backend, i, &name) == HAY_OK; i++)
        add_engine(out, &k, cap, backend, name);
    add_engine(out, &k, cap,
               backend == HAY_BACKEND_CPU ? HAY_BACKEND_AUTO : backend, NULL);
    /* The dense PFAC table fits every test set: force the compact one too. */
    if (backend == HAY_BACKEND_CPU)
        add_engine_params(out, &k, cap, backend, "pfac", "pfac_budget=0",
                          "-compact");
    return k;
}

size_t tu_row_engines(const char *name, hay_backend backend, const char *params,
                      tu_engine *out, size_t cap)
{
    hay_status av = backend == HAY_BACKEND_AUTO ? HAY_OK : hay_backend_available(backend);
    if (av != HAY_OK) {
        printf("row %s: skipped (%s)\n", name, hay_strerror(av));
        return 0;
    }
    size_t n = 1;
    if (backend == HAY_BACKEND_AUTO) {
        memset(&out[0], 0, sizeof out[0]);
        out[0].backend = HAY_BACKEND_AUTO;
        out[0].multi = true;
    } else {
        n = tu_engines(backend, out, cap);
    }
    for (size_t i = 0; i < n && params; i++) {
        out[i].params = params;
        snprintf(out[i].label, sizeof out[i].label, "%s/%s %.26s",
                 hay_backend_name(out[i].backend), out[i].algo ? out[i].algo : "auto", params);
    }
    return n;
}

const tu_engine *tu_row_choice(const tu_engine *e, size_t n)
{
    const tu_engine *c = &e[n - 1];
    for (size_t i = 0; i < n; i++)
        if (!e[i].algo || !strcmp(e[i].algo, "auto"))
            c = &e[i];
    return c;
}

bool tu_row_run(const char *name, hay_backend backend, const char *params,
                void (*each)(const tu_engine *e, hay_backend bufb, const void *ctx),
                void (*after)(const tu_engine *choice, const void *ctx), const void *ctx)
{
    tu_engine engines[TU_ROW_ENGINES];
    size_t ne = tu_row_engines(name, backend, params, engines, TU_ROW_ENGINES);
    if (ne == 0)
        return false;
    hay_backend bufb = backend == HAY_BACKEND_CUDA ? HAY_BACKEND_CUDA : HAY_BACKEND_CPU;
    double t0 = tu_now();
    unsigned long long f0 = tu_failed;
    for (size_t i = 0; i < ne; i++)
        each(&engines[i], bufb, ctx);
    if (after)
        after(tu_row_choice(engines, ne), ctx);
    tu_part_report(name, t0, f0);
    return true;
}

int tu_rows_exit(bool ran)
{
    if (!ran) {
        printf("SKIP: no row could run\n");
        return TU_SKIP;
    }
    return tu_finish();
}

const hay_pattern tu_dense_pats[TU_NDENSE] = { { "a", 1 }, { "ab", 2 }, { "ba", 2 },
                                               { "aab", 3 }, { "b", 1 }, { "ab", 2 } };

uint8_t *tu_dense_text(size_t len)
{
    uint8_t *h = malloc(len ? len : 1);
    tu_rng g = { 42 };
    for (size_t i = 0; h && i < len; i++)
        h[i] = tu_below(&g, 3) ? 'a' : 'b';
    return h;
}

uint64_t tu_peak_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    uint64_t kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %" SCNu64, &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

uint8_t *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        if (n == cap) {
            uint8_t *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

/* ---- pattern files --------------------------------------------------------- */

static int hexv(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

hay_pattern *tu_read_patterns(const char *path, size_t *n, uint8_t **store)
{
    size_t len;
    uint8_t *t = tu_read_file(path, &len);
    if (!t)
        return NULL;
    size_t cap = 1024, k = 0, o = 0;
    hay_pattern *p = malloc(cap * sizeof *p);
    size_t *starts = malloc(cap * sizeof *starts);
    for (size_t i = 0; i < len;) {
        size_t start = o;
        while (i < len && t[i] != '\n') {
            int h1, h2;
            if (t[i] == '\\' && i + 3 < len && t[i + 1] == 'x' &&
                (h1 = hexv(t[i + 2])) >= 0 && (h2 = hexv(t[i + 3])) >= 0) {
                t[o++] = (uint8_t)(h1 * 16 + h2);
                i += 4;
            } else {
                t[o++] = t[i++];
            }
        }
        i++;
        if (o == start)
            continue;
        if (k == cap) {
            cap *= 2;
            p = realloc(p, cap * sizeof *p);
            starts = realloc(starts, cap * sizeof *starts);
        }
        starts[k] = start;
        p[k++].len = o - start;
    }
    for (size_t i = 0; i < k; i++)
        p[i].data = t + starts[i];
    free(starts);
    *n = k;
    *store = t;
    return p;
}

hay_pattern *tu_data_patterns(const char *dir, const char *file, size_t *n, uint8_t **store)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/patterns/%s", dir, file);
    hay_pattern *p = tu_read_patterns(path, n, store);
    if (!p)
        printf("SKIP: %s absent\n", path);
    return p;
}

int tu_key_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)start;
    tu_keys *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1 << 16;
        l->k = realloc(l->k, l->cap * sizeof *l->k);
    }
    uint64_t key = end << 20 | id;
    if (l->n && end < l->k[l->n - 1] >> 20)
        l->ends_down = true;
    if (l->n && key < l->k[l->n - 1])
        l->keys_down = true;
    l->k[l->n++] = key;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void tu_keys_sort(tu_keys *l)
{
    qsort(l->k, l->n, sizeof *l->k, cmp_u64);
}

double tu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- memory the GPU can pin in place -------------------------------------- */

uint8_t *tu_shared_alloc(const void *src, size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (src)
        memcpy(p, src, n);
    return p;
}

void tu_shared_free(void *p, size_t n)
{
    if (p)
        munmap(p, n);
}

bool tu_part_wanted(int argc, char **argv, const char *name)
{
    if (argc < 2)
        return true;
    for (int a = 1; a < argc; a++)
        if (!strcmp(argv[a], name))
            return true;
    return false;
}

void tu_part_report(const char *name, double t0, unsigned long long f0)
{
    printf("%-20s %s %.2f s\n", name, tu_failed == f0 ? "ok" : "FAILED", tu_now() - t0);
    fflush(stdout);
}
