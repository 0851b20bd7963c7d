/*
 * testutil.h - what every test program shares: pass/fail counters, the
 * independent oracle, a match checker that compares a library run with the
 * oracle without storing the run, engine enumeration, a PRNG and the size
 * knob HAY_TEST_SCALE.
 *
 * The oracle is written here, apart from the library, on purpose: it is
 * the ground truth for every engine, the library's own "naive" included.
 */
#ifndef HAY_TESTUTIL_H
#define HAY_TESTUTIL_H

#include "haystack.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit status ctest reads as "skipped" (SKIP_RETURN_CODE). */
#define TU_SKIP 77

/* Put in an out-pointer before a call that must set it to NULL on error. */
#define TU_NOT_NULL ((void *)16)

/* ---- checks ------------------------------------------------------------ */

extern unsigned long long tu_passed, tu_failed;

/*
 * Printed with every failure message, e.g. the seed of a random test.
 * Points to static text or a buffer the test keeps alive; may be NULL.
 */
extern const char *tu_fail_note;

/* Counts a check; on failure prints file:line, the printf-style message
 * and tu_fail_note (only the first failures are printed).  Returns cond. */
bool tu_check_(bool cond, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define CHECK(cond, ...) tu_check_((cond), __FILE__, __LINE__, __VA_ARGS__)
/* Checks a status against the one expected. */
#define CHECK_ST(got, want, what)                                          \
    do {                                                                   \
        hay_status g_ = (got), w_ = (want);                                \
        CHECK(g_ == w_, "%s: got %d (%s), want %d (%s)", (what), (int)g_, \
              hay_strerror(g_), (int)w_, hay_strerror(w_));                \
    } while (0)

/* Prints "<passed> passed, <failed> failed"; returns the exit status. */
int tu_finish(void);

/* HAY_TEST_SCALE (default 1, 0.25 under AddressSanitizer): multiplies
 * random iteration counts and data sizes.  Never below 0.01. */
double tu_scale(void);
/* max(lo, n * scale) */
size_t tu_scaled(size_t n, size_t lo);

/* ---- memory the GPU can pin in place -------------------------------------- */

/* n (> 0) bytes of shared anonymous memory, the kind transfer=register
 * copies where it lies (src/cuda/hostreg.h): a copy of src, or zeroes when
 * src is NULL.  NULL when it cannot be mapped.  Free with tu_shared_free. */
uint8_t *tu_shared_alloc(const void *src, size_t n);
void tu_shared_free(void *p, size_t n);

/* ---- random ------------------------------------------------------------ */

typedef struct tu_rng {
    uint64_t s;
} tu_rng;

uint64_t tu_rand(tu_rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t tu_below(tu_rng *r, uint64_t n);
/* Uniform in [lo, hi]. */
uint64_t tu_range(tu_rng *r, uint64_t lo, uint64_t hi);

/* len random bytes of alphabet (malloc'd, at least 1 byte allocated). */
uint8_t *tu_random_text(tu_rng *r, const char *alphabet, size_t len);
/* len bytes (malloc'd; len > 0) of '.' with a copy of pats[k % n] laid
 * across the k-th multiple of `step` (a chunk boundary). */
uint8_t *tu_boundary_text(const hay_pattern *pats, size_t n, size_t step, size_t len);

/* ---- matches and the oracle --------------------------------------------- */

typedef struct tu_match {
    uint64_t start, end;
    uint32_t id;
} tu_match;

typedef struct tu_mlist {
    tu_match *m;
    size_t n, cap;
} tu_mlist;

void tu_mlist_push(tu_mlist *l, uint32_t id, uint64_t start, uint64_t end);
void tu_mlist_free(tu_mlist *l);

/* ASCII case folding, written again here rather than taken from the
 * library so that the oracle shares no code with it. */
static inline uint8_t tu_fold(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + ('a' - 'A')) : c;
}

/* Whether pattern p occurs in hay at `at` (at + p->len <= len). */
bool tu_match_at(const uint8_t *hay, size_t at, const hay_pattern *p,
                 bool caseless);

/*
 * The oracle: every end position, every pattern, in order of (end, id).
 * Appends to *out (which the caller zero-initialises and frees).
 */
void tu_oracle(const uint8_t *hay, size_t len, const hay_pattern *pats,
               size_t npats, bool caseless, tu_mlist *out);

/*
 * A match checker, the ctx of tu_check_cb.  It holds the expected matches
 * (the oracle's list, offsets + shift) and compares each group of reported
 * matches with the same end against them; it also checks that ends never
 * decrease and that start == end - pattern length.  With `ref` set it also
 * requires the exact reported sequence of ref (+ ref_shift): how ties are
 * ordered must not change with threads, chunks or padding.  With
 * stop_after = k the callback asks to stop at the k-th match and any later
 * call is an error; then only the prefix is compared with ref.
 */
typedef struct tu_checker {
    const tu_mlist *exp;
    uint64_t shift;
    const tu_mlist *ref;
    uint64_t ref_shift;
    const hay_pattern *pats;
    size_t npats;
    uint64_t stop_after;
    tu_mlist *record;       /* when set, every reported match is appended */
    /* running state */
    uint64_t calls;
    size_t pos;             /* first expected match not yet consumed */
    uint64_t cur_end;
    uint32_t *grp;
    size_t ng, gcap;
    bool bad;
    char err[512];
} tu_checker;

void tu_checker_init(tu_checker *c, const tu_mlist *exp, uint64_t shift,
                     const hay_pattern *pats, size_t npats);
int tu_check_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx);
/* Ends the run: full (all expected matches must have come) or, after a
 * stop, only what was reported.  Returns whether it all agreed; on
 * disagreement c->err says the first difference. */
bool tu_checker_done(tu_checker *c, bool stopped);
void tu_checker_free(tu_checker *c);

/* ---- engines -------------------------------------------------------------- */

/* One algorithm of one backend, or "auto" on the auto backend. */
typedef struct tu_engine {
    hay_backend backend;
    const char *algo;   /* NULL for auto */
    char label[48];     /* "cpu/bm", "auto/auto" */
    bool multi;         /* compiles sets of several patterns */
    hay_status probe;   /* compiling a two-pattern set gave this */
    const char *params; /* hay_compile_opts.params (engine knobs) or NULL */
} tu_engine;

/*
 * Lists the algorithms of an available backend (and, for the CPU, the
 * auto choice too, and PFAC forced onto its compact table), probing each with a two-pattern set to learn whether
 * it is multi-pattern.  Returns how many were written (at most cap).
 */
size_t tu_engines(hay_backend backend, tu_engine *out, size_t cap);

/*
 * Appends to out[*k] (cap entries) a copy of `base` compiled with `params`
 * (static text), labelled "<base label> <params>" (both cut to fit), when that compiles a
 * two-pattern set the way base does.  Returns that compile's status.
 */
hay_status tu_engine_variant(const tu_engine *base, const char *params,
                       tu_engine *out, size_t *k, size_t cap);

/*
 * The engines of test row `name` (tests/api batch.c, list.c): for backend
 * auto one auto engine, else tu_engines(backend); params (static text, or
 * NULL) given to each and named in its label.  Returns how many (at most
 * cap), or 0 after printing "row NAME: skipped (why)" when the backend
 * cannot run here.
 */
size_t tu_row_engines(const char *name, hay_backend backend, const char *params,
                      tu_engine *out, size_t cap);

/* The row's own choice among its engines: the one with no algorithm named
 * (or "auto"), else the last. */
const tu_engine *tu_row_choice(const tu_engine *e, size_t n);

/*
 * Runs test row `name` as a part (tu_part_report): each(engine, buffers'
 * backend, ctx) on every engine of tu_row_engines (the buffers' backend:
 * CUDA for CUDA sets, the CPU for everything else), then after(the row's
 * choice, ctx) when after is given.  False when the row has no engine
 * here.
 */
#define TU_ROW_ENGINES 32
bool tu_row_run(const char *name, hay_backend backend, const char *params,
                void (*each)(const tu_engine *e, hay_backend bufb, const void *ctx),
                void (*after)(const tu_engine *choice, const void *ctx), const void *ctx);
/* A program of rows' exit status: TU_SKIP after "SKIP: no row could run"
 * when none ran, else tu_finish(). */
int tu_rows_exit(bool ran);

/* A dense input for lists of many matches (batch.c, list.c): TU_NDENSE
 * patterns ("ab" twice, suffixes: up to four matches end at one byte) and
 * len random bytes, 'a' two times in three, else 'b' (fixed seed); free()
 * the text; NULL when out of memory. */
#define TU_NDENSE 6
extern const hay_pattern tu_dense_pats[TU_NDENSE];
uint8_t *tu_dense_text(size_t len);

/* The peak resident set (VmHWM) in KiB, 0 when unknown. */
uint64_t tu_peak_rss_kib(void);

hay_status tu_compile(const tu_engine *e, const hay_pattern *pats, size_t n,
                      bool caseless, hay_patterns **set);

/* The set of p[0..n) on engine e (tu_compile, not caseless), and a scratch
 * for it; false (nothing to free) when e does not compile it. */
bool tu_set_and_scratch(const tu_engine *e, const hay_pattern *p, size_t n,
                        hay_patterns **set, hay_scratch **scr);

/* Scan options: threads, chunk_size (0: the default) and schedule. */
hay_scan_opts tu_scan_opts(unsigned threads, size_t chunk, hay_schedule sch);

/* The room tu_scan_checked's why needs. */
#define TU_WHY_CAP sizeof(((tu_checker *)0)->err)

/* hay_scan of data with o, checked against exp, the oracle's list of
 * p[0..n): the scan's status, and *agree whether the matches agreed; why
 * (TU_WHY_CAP bytes) says "ok" or the first difference. */
hay_status tu_scan_checked(const hay_patterns *set, hay_scratch *scr, const uint8_t *data,
                           size_t len, const hay_scan_opts *o, const tu_mlist *exp,
                           const hay_pattern *p, size_t n, bool *agree, char *why);

/* Monotonic seconds. */
double tu_now(void);

/* A test program's parts: whether part `name` runs (no names given on the
 * command line, or it is one of them), and its line "NAME ok|FAILED S s"
 * once it ran (t0 = tu_now() and f0 = tu_failed before it). */
bool tu_part_wanted(int argc, char **argv, const char *name);
void tu_part_report(const char *name, double t0, unsigned long long f0);

/* Reads a whole file; NULL when it cannot. */
uint8_t *tu_read_file(const char *path, size_t *len);
/* A pattern file of ../shared/data (one pattern a line, \xHH decoded):
 * the patterns point into *store (the caller frees both); NULL when the
 * file cannot be read. */
hay_pattern *tu_read_patterns(const char *path, size_t *n, uint8_t **store);
/* The pattern file <dir>/patterns/<file> as tu_read_patterns reads it;
 * NULL after printing "SKIP: <path> absent" when it cannot be read. */
hay_pattern *tu_data_patterns(const char *dir, const char *file, size_t *n, uint8_t **store);

/* ---- match keys ------------------------------------------------------------ */

/* A run's matches as keys end << 20 | id (ids below 2^20), to compare
 * runs as multisets: tu_key_cb (ctx: the tu_keys, zeroed first) appends
 * each, noting whether an end ever decreased (against hay_match_fn's
 * order) or a key did (ties of an end not in id order). */
typedef struct tu_keys {
    uint64_t *k;
    size_t n, cap;
    bool ends_down, keys_down;
} tu_keys;
int tu_key_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx);
/* Sorts the keys (ascending); free(l->k) when done. */
void tu_keys_sort(tu_keys *l);

#endif
