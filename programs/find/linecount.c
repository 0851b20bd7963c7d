/* linecount.c - -c's lines, counted in parts (see linecount.h). */
#include "linecount.h"

#include "cli.h"
#include "stats.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A part is at least this long (a scan call, a thread's turn), and at most
 * that (backend auto sends no part to a GPU: below its threshold). */
#define PART_MIN ((uint64_t)1 << 20)
#define PART_MAX ((uint64_t)64 << 20)
/* Parts per thread: the threads that finish early take more. */
#define PARTS_PER_THREAD 4

typedef struct shared {
    const find_matcher *m;
    const find_lines *rules;   /* buf, len, eol and the -w / -x test */
    hay_scan_opts so;          /* one thread, nothing filled in */
    uint64_t part_len, nparts;
    atomic_uint_least64_t next;   /* the next part to take */
    atomic_bool failed;
} shared;

/* One thread's count, on cache lines of its own: a thread writes its
 * from, resume and lines at every match, and another's fields on the same
 * line cost every scan a miss (`hay find -c`, 2 threads: 0.17 or 0.22 s
 * over 256 MiB, as the allocation fell). */
typedef struct counter {
    _Alignas(64) shared *sh;
    const hay_scan_opts *so;   /* the shared options, or the calling thread's */
    hay_scratch *scratch;
    pthread_t tid;
    uint64_t lines;
    hay_status st;
    /* the scan in progress */
    uint64_t from;       /* the offset in buf the scan started at */
    uint64_t resume;     /* where the scan resumes after a stop */
    struct found *found; /* find_select_in_parts: the part's lines kept here */
    /* the shared state this thread reads on every match, at hand */
    const uint8_t *buf;
    uint64_t len;
    uint8_t eol;
    bool verify, test;   /* prefixes to verify; -w or -x */
} counter;

/* find_select_in_parts: a part's selected lines, as the match that
 * selected each (hay_match's start and end are offsets in buf). */
typedef struct found {
    hay_match *m;
    size_t n, cap;
    bool done;   /* scanned (under the shared lock) */
} found;

static int keep_match(found *f, uint32_t id, uint64_t start, uint64_t end)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 1024;
        hay_match *m = realloc(f->m, cap * sizeof *m);
        if (!m)
            return -1;
        f->m = m;
        f->cap = cap;
    }
    f->m[f->n++] = (hay_match){ .id = id, .start = start, .end = end };
    return 0;
}

/* n zeroed counters, each on cache lines of its own (free() frees them). */
static counter *counters_new(unsigned n)
{
    counter *c = aligned_alloc(_Alignof(counter), n * sizeof *c);
    if (c)
        memset(c, 0, n * sizeof *c);
    return c;
}

/* A match that selects its line stops the scan: it resumes at the next
 * line (the line's other matches would only cost). */
static int count_match(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    counter *c = ctx;
    start += c->from;
    end += c->from;
    if ((c->verify && !find_matcher_verify(c->sh->m, id, c->buf, c->len, &end)) ||
        (c->test && !find_lines_passes(c->sh->rules, start, end)))
        return 0;
    const uint8_t *e = memchr(c->buf + end, c->eol, (size_t)(c->len - end));
    c->resume = e ? (uint64_t)(e - c->buf) + 1 : c->len;
    c->lines++;
    if (c->found && keep_match(c->found, id, start, end) < 0) {
        c->resume = UINT64_MAX;   /* (count_part: out of memory) */
        return 1;
    }
    return 1;
}

/* The first line start at or after x. */
static uint64_t line_start_from(const find_lines *r, uint64_t x)
{
    if (x == 0 || x >= r->len || r->buf[x - 1] == r->eol)
        return x < r->len ? x : r->len;
    const uint8_t *nl = memchr(r->buf + x, r->eol, (size_t)(r->len - x));
    return nl ? (uint64_t)(nl - r->buf) + 1 : r->len;
}

static hay_status count_part(counter *c, uint64_t a, uint64_t b)
{
    const shared *sh = c->sh;
    while (a < b) {
        c->from = a;
        hay_status st = hay_scan(sh->m->set, c->scratch, sh->rules->buf + a, b - a, c->so,
                                 count_match, c);
        if (st != HAY_STOPPED)
            return st;
        if (c->resume == UINT64_MAX)
            return HAY_ERR_NOMEM;
        a = c->resume;
    }
    return HAY_OK;
}

/* Takes parts until none is left (or another thread failed). */
static void *count_parts(void *arg)
{
    counter *c = arg;
    shared *sh = c->sh;
    for (;;) {
        uint64_t i = atomic_fetch_add(&sh->next, 1);
        if (i >= sh->nparts || atomic_load(&sh->failed))
            break;
        uint64_t a = line_start_from(sh->rules, i * sh->part_len);
        uint64_t b = line_start_from(sh->rules, (i + 1) * sh->part_len);
        c->st = count_part(c, a, b);
        if (c->st < 0) {
            atomic_store(&sh->failed, true);
            break;
        }
    }
    return NULL;
}

hay_status find_count_lines(const find_matcher *m, hay_scratch *scratch,
                            const find_lines *rules, const hay_scan_opts *so,
                            uint64_t *lines)
{
    shared sh = { .m = m, .rules = rules, .so = *so };
    sh.so.threads = 1;
    sh.so.progress = NULL;
    sh.so.stats = NULL;
    unsigned threads = so->threads ? so->threads : cli_cpu_count();
    uint64_t len = rules->len;
    sh.part_len = len / ((uint64_t)threads * PARTS_PER_THREAD);
    if (sh.part_len < PART_MIN)
        sh.part_len = PART_MIN;
    if (sh.part_len > PART_MAX)
        sh.part_len = PART_MAX;
    sh.nparts = (len + sh.part_len - 1) / sh.part_len;
    if (threads > sh.nparts)
        threads = (unsigned)sh.nparts;
    if (threads > 4 * cli_cpu_count())
        threads = 4 * cli_cpu_count();
    atomic_init(&sh.next, 0);
    atomic_init(&sh.failed, false);

    if (threads == 0)
        threads = 1;   /* (an empty piece: one part, no scan) */
    counter *c = counters_new(threads);
    if (!c)
        return HAY_ERR_NOMEM;
    for (unsigned i = 0; i < threads; i++)
        c[i] = (counter){ .sh = &sh, .so = &sh.so, .buf = rules->buf, .len = len,
                          .eol = rules->eol, .verify = m->covered != NULL,
                          .test = rules->word || rules->whole };
    /* --stats: where the calling thread's last scan ran (backend, engine). */
    hay_scan_opts mine = sh.so;
    mine.stats = so->stats;
    c[0].so = &mine;
    c[0].scratch = scratch;
    unsigned started = 1;
    for (; started < threads; started++) {
        /* A thread that cannot start (or get its scratch) leaves its
         * parts to the others. */
        counter *t = &c[started];
        if (hay_scratch_create(m->set, &t->scratch) < 0)
            break;
        if (pthread_create(&t->tid, NULL, count_parts, t) != 0) {
            hay_scratch_free(t->scratch);
            break;
        }
    }
    count_parts(&c[0]);
    *lines = c[0].lines;
    hay_status st = c[0].st < 0 ? c[0].st : HAY_OK;
    for (unsigned i = 1; i < started; i++) {
        pthread_join(c[i].tid, NULL);
        hay_scratch_free(c[i].scratch);
        *lines += c[i].lines;
        if (c[i].st < 0 && st == HAY_OK)
            st = c[i].st;
    }
    free(c);
    return st;
}

/* find_select_in_parts ---------------------------------------------------- */

/* Parts scanned ahead of the calling thread's replay, per thread, and
 * their length: a part keeps a match per selected line (at worst one per
 * 2 bytes, 12 MiB for a part), so memory stays bounded when the output is
 * slow or every line is selected. */
#define AHEAD_PER_THREAD 2
#define SELECT_PART ((uint64_t)1 << 20)

typedef struct selector {
    shared sh;
    found *parts;
    pthread_mutex_t lock;
    pthread_cond_t cond;   /* a part scanned, or one replayed */
    uint64_t next;         /* the next part to scan (under lock) */
    uint64_t replayed;     /* parts replayed so far (under lock) */
    uint64_t ahead;        /* at most this many parts scanned ahead */
    bool stop;             /* the replay stopped, or a thread failed */
} selector;

static void *select_parts(void *arg)
{
    counter *c = arg;
    selector *x = (selector *)c->sh;   /* (sh is x's first member) */
    for (;;) {
        pthread_mutex_lock(&x->lock);
        while (!x->stop && x->next < x->sh.nparts && x->next >= x->replayed + x->ahead)
            pthread_cond_wait(&x->cond, &x->lock);
        uint64_t i = x->next;
        bool go = !x->stop && i < x->sh.nparts;
        if (go)
            x->next++;
        pthread_mutex_unlock(&x->lock);
        if (!go)
            break;
        uint64_t a = line_start_from(x->sh.rules, i * x->sh.part_len);
        uint64_t b = line_start_from(x->sh.rules, (i + 1) * x->sh.part_len);
        c->found = &x->parts[i];
        hay_status st = count_part(c, a, b);
        pthread_mutex_lock(&x->lock);
        x->parts[i].done = true;
        if (st < 0) {
            c->st = st;
            x->stop = true;
        }
        pthread_cond_broadcast(&x->cond);
        pthread_mutex_unlock(&x->lock);
    }
    return NULL;
}

hay_status find_select_in_parts(const find_matcher *m, const find_lines *rules,
                                const hay_scan_opts *so, hay_match_fn fn, void *ctx)
{
    selector x = { .sh = { .m = m, .rules = rules, .so = *so } };
    x.sh.so.threads = 1;
    x.sh.so.progress = NULL;
    x.sh.so.stats = NULL;
    x.sh.so.on_part = NULL;
    unsigned threads = so->threads ? so->threads : cli_cpu_count();
    if (threads > 4 * cli_cpu_count())
        threads = 4 * cli_cpu_count();
    uint64_t len = rules->len;
    x.sh.part_len = SELECT_PART;
    x.sh.nparts = (len + x.sh.part_len - 1) / x.sh.part_len;
    x.ahead = (uint64_t)threads * AHEAD_PER_THREAD;
    x.parts = calloc(x.sh.nparts ? x.sh.nparts : 1, sizeof *x.parts);
    counter *c = counters_new(threads);
    if (!x.parts || !c) {
        free(x.parts);
        free(c);
        return HAY_ERR_NOMEM;
    }
    pthread_mutex_init(&x.lock, NULL);
    pthread_cond_init(&x.cond, NULL);
    unsigned started = 0;
    for (; started < threads; started++) {
        counter *t = &c[started];
        *t = (counter){ .sh = &x.sh, .so = &x.sh.so, .buf = rules->buf, .len = len,
                        .eol = rules->eol, .verify = m->covered != NULL,
                        .test = rules->word || rules->whole };
        if (hay_scratch_create(m->set, &t->scratch) < 0)
            break;
        if (pthread_create(&t->tid, NULL, select_parts, t) != 0) {
            hay_scratch_free(t->scratch);
            break;
        }
    }
    hay_status st = started ? HAY_OK : HAY_ERR_NOMEM;
    /* The calling thread replays the parts in order as they are scanned. */
    for (uint64_t i = 0; st == HAY_OK && i < x.sh.nparts; i++) {
        pthread_mutex_lock(&x.lock);
        while (!x.parts[i].done && !x.stop)
            pthread_cond_wait(&x.cond, &x.lock);
        bool ok = x.parts[i].done && !x.stop;
        pthread_mutex_unlock(&x.lock);
        if (!ok)
            break;
        found *f = &x.parts[i];
        for (size_t k = 0; k < f->n; k++)
            if (fn(f->m[k].id, f->m[k].start, f->m[k].end, ctx)) {
                st = HAY_STOPPED;
                break;
            }
        free(f->m);
        f->m = NULL;
        pthread_mutex_lock(&x.lock);
        x.replayed = i + 1;
        x.stop |= st != HAY_OK;
        pthread_cond_broadcast(&x.cond);
        pthread_mutex_unlock(&x.lock);
    }
    pthread_mutex_lock(&x.lock);
    x.stop = true;
    pthread_cond_broadcast(&x.cond);
    pthread_mutex_unlock(&x.lock);
    for (unsigned i = 0; i < started; i++) {
        pthread_join(c[i].tid, NULL);
        hay_scratch_free(c[i].scratch);
        if (c[i].st < 0 && st >= 0)
            st = c[i].st;
    }
    for (uint64_t i = 0; i < x.sh.nparts; i++)
        free(x.parts[i].m);
    pthread_cond_destroy(&x.cond);
    pthread_mutex_destroy(&x.lock);
    free(x.parts);
    free(c);
    return st;
}

/* find_select_by_marks ---------------------------------------------------- */

/* A slice's bytes: its bitmap is an eighth of them.  The environment
 * variable HAY_MARKS_SLICE sets another (at least 64 bytes), for tests
 * that put slice edges inside small inputs. */
#define MARKS_SLICE ((uint64_t)256 << 20)

static uint64_t marks_slice(void)
{
    const char *e = getenv("HAY_MARKS_SLICE");
    unsigned long long v = e ? strtoull(e, NULL, 10) : 0;
    return v >= 64 ? (uint64_t)v : MARKS_SLICE;
}

/* The first byte in [i, e) whose bit is set in marks (bit 0 for byte lo,
 * lo a multiple of 64), or e. */
static uint64_t next_mark(const uint64_t *marks, uint64_t lo, uint64_t i, uint64_t e)
{
    if (i >= e)
        return e;
    uint64_t w = (i - lo) / 64, last = (e - 1 - lo) / 64;
    uint64_t v = marks[w] & (~(uint64_t)0 << ((i - lo) % 64));
    while (!v && w < last)
        v = marks[++w];
    if (!v)
        return e;
    uint64_t at = lo + w * 64 + (uint64_t)__builtin_ctzll(v);
    return at < e ? at : e;
}

/* A slice's bitmap over the piece's lines. */
typedef struct mark_walk {
    const uint64_t *marks;
    uint64_t lo;             /* the bitmap's bit 0: byte lo (a multiple of 64) */
    const uint8_t *buf;
    uint64_t len;
    uint8_t eol;
} mark_walk;

/* Where the line holding byte i ends, its terminator included. */
static uint64_t line_after(const mark_walk *w, uint64_t i)
{
    const uint8_t *nl = memchr(w->buf + i, w->eol, (size_t)(w->len - i));
    return nl ? (uint64_t)(nl - w->buf) + 1 : w->len;
}

/* One part of a count: the lines from a (a line start, or the end of a
 * line counted before) with a marked byte in [a, b). */
typedef struct mark_part {
    const mark_walk *w;
    uint64_t a, b;
    uint64_t lines, next;    /* found; the end of the last one counted (or a) */
    pthread_t tid;
} mark_part;

static void *count_marked(void *arg)
{
    mark_part *p = arg;
    p->next = p->a;
    for (uint64_t i = p->a;;) {
        i = next_mark(p->w->marks, p->w->lo, i, p->b);
        if (i >= p->b)
            break;
        p->lines++;
        i = p->next = line_after(p->w, i);
    }
    return NULL;
}

/* The marked lines from `from` in [from, se), counted on up to `threads`
 * threads in parts cut at line starts (at least PART_MIN each); *next
 * moves past the last one counted. */
static hay_status count_slice(const mark_walk *w, const find_lines *rules, uint64_t from,
                              uint64_t se, unsigned threads, uint64_t *lines, uint64_t *next)
{
    uint64_t n = se > from ? (se - from) / PART_MIN : 0;
    unsigned t = n < threads ? (unsigned)(n ? n : 1) : threads;
    mark_part one_part, *parts = t > 1 ? calloc(t, sizeof *parts) : &one_part;
    if (!parts)
        return HAY_ERR_NOMEM;
    memset(parts, 0, (t > 1 ? t : 1) * sizeof *parts);
    uint64_t a = from;
    for (unsigned k = 0; k < t; k++) {
        uint64_t b = k + 1 == t ? se : line_start_from(rules, from + (se - from) / t * (k + 1));
        parts[k] = (mark_part){ .w = w, .a = a, .b = b < a ? a : b > se ? se : b };
        a = parts[k].b;
    }
    unsigned started = 1;
    for (; started < t; started++)
        if (pthread_create(&parts[started].tid, NULL, count_marked, &parts[started]) != 0)
            break;
    /* Parts whose thread did not start are counted here. */
    for (unsigned k = 0; k < t; k++)
        if (k == 0 || k >= started)
            count_marked(&parts[k]);
    for (unsigned k = 0; k < t; k++) {
        if (k > 0 && k < started)
            pthread_join(parts[k].tid, NULL);
        *lines += parts[k].lines;
        if (parts[k].next > *next)
            *next = parts[k].next;
    }
    if (t > 1)
        free(parts);
    return HAY_OK;
}

/* The first match, slice by slice until one has it (a match ending below
 * a slice lies in the slice before, which had none: the first of a slice
 * is its own). */
static hay_status first_by_slices(const find_matcher *m, hay_scratch *scratch,
                                  const find_lines *rules, const hay_scan_opts *o,
                                  uint64_t slice, uint64_t back, hay_match_fn fn, void *ctx)
{
    for (uint64_t ss = 0; ss < rules->len; ss += slice) {
        uint64_t se = rules->len - ss > slice ? ss + slice : rules->len;
        uint64_t lo = ss > back ? ss - back : 0;
        hay_match f;
        hay_status st = hay_scan_first(m->set, scratch, rules->buf + lo, se - lo, o, &f);
        if (st != HAY_OK || f.end)
            return st == HAY_OK && fn(f.id, lo + f.start, lo + f.end, ctx) ? HAY_STOPPED : st;
    }
    return HAY_OK;
}

/* The slices' bitmaps, each made one slice ahead of the walk on a thread
 * of its own (with its own scratch): the GPU searches slice k + 1 while
 * the caller walks the lines of slice k.  Slice k owns the bytes
 * [k * slice, (k + 1) * slice) and is searched from slice_lo(k): a
 * multiple of 64 at least `back` bytes before it, so that its bits lie in
 * whole words of its bitmap. */
typedef struct marks_feed {
    const find_matcher *m;
    const uint8_t *buf;
    uint64_t len, slice, back, nslices;
    hay_scan_opts o;
    uint64_t *bits[2];           /* slice k's in bits[k % 2] */
    hay_status st[2];
    bool threaded;
    hay_scratch *scratch;        /* the thread's */
    pthread_t tid;
    pthread_mutex_t lock;
    pthread_cond_t cond;         /* a slice made, or one walked */
    uint64_t made, walked;       /* slices (under lock) */
    bool stop;
    hay_scan_stats *want;        /* the caller's stats: the slices' summed */
    find_totals sum;
} marks_feed;

static uint64_t slice_lo(const marks_feed *f, uint64_t k)
{
    uint64_t ss = k * f->slice;
    return ss > f->back ? (ss - f->back) & ~(uint64_t)63 : 0;
}

static uint64_t slice_end(const marks_feed *f, uint64_t k)
{
    return f->len - k * f->slice > f->slice ? (k + 1) * f->slice : f->len;
}

static hay_status make_slice(marks_feed *f, hay_scratch *scratch, uint64_t k)
{
    uint64_t lo = slice_lo(f, k);
    hay_scan_stats st;
    hay_scan_opts o = f->o;
    o.stats = f->want ? &st : NULL;
    hay_status s = hay_scan_marks(f->m->set, scratch, f->buf + lo, slice_end(f, k) - lo, &o,
                                  f->bits[k % 2]);
    if (f->want && s == HAY_OK)
        find_totals_add_scan(&f->sum, &st);   /* (one thread makes slices at a time) */
    return s;
}

static void *feed_main(void *arg)
{
    marks_feed *f = arg;
    for (uint64_t k = 0; k < f->nslices; k++) {
        pthread_mutex_lock(&f->lock);
        while (!f->stop && k >= f->walked + 2)
            pthread_cond_wait(&f->cond, &f->lock);
        bool stop = f->stop;
        pthread_mutex_unlock(&f->lock);
        if (stop)
            break;
        hay_status st = make_slice(f, f->scratch, k);
        pthread_mutex_lock(&f->lock);
        f->st[k % 2] = st;
        f->made = k + 1;
        pthread_cond_broadcast(&f->cond);
        pthread_mutex_unlock(&f->lock);
        if (st < 0)
            break;   /* (the walk stops at this slice) */
    }
    return NULL;
}

/* Slice k's bitmap is in bits[k % 2] (made here when there is no thread). */
static hay_status feed_get(marks_feed *f, hay_scratch *scratch, uint64_t k)
{
    if (!f->threaded)
        return make_slice(f, scratch, k);
    pthread_mutex_lock(&f->lock);
    while (f->made <= k)
        pthread_cond_wait(&f->cond, &f->lock);
    hay_status st = f->st[k % 2];
    pthread_mutex_unlock(&f->lock);
    return st;
}

static void feed_walked(marks_feed *f, uint64_t k)
{
    if (!f->threaded)
        return;
    pthread_mutex_lock(&f->lock);
    f->walked = k + 1;
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
}

static void feed_stop(marks_feed *f)
{
    if (f->threaded) {
        pthread_mutex_lock(&f->lock);
        f->stop = true;
        pthread_cond_broadcast(&f->cond);
        pthread_mutex_unlock(&f->lock);
        pthread_join(f->tid, NULL);
        hay_scratch_free(f->scratch);
    }
    pthread_cond_destroy(&f->cond);
    pthread_mutex_destroy(&f->lock);
    free(f->bits[0]);
    free(f->bits[1]);
}

hay_status find_select_by_marks(const find_matcher *m, hay_scratch *scratch,
                                const find_lines *rules, const hay_scan_opts *so, bool one,
                                uint64_t *lines, hay_match_fn fn, void *ctx)
{
    marks_feed f = { .m = m, .buf = rules->buf, .len = rules->len, .slice = marks_slice(),
                     .back = m->max_len ? m->max_len - 1 : 0, .o = *so, .want = so->stats };
    f.o.on_part = NULL;   /* (the slices' offsets are not the piece's) */
    f.o.progress = NULL;
    if (one)
        return first_by_slices(m, scratch, rules, &f.o, f.slice, f.back, fn, ctx);
    f.nslices = (f.len + f.slice - 1) / f.slice;
    uint64_t span = (f.len < f.slice ? f.len : f.slice) + f.back + 64;
    pthread_mutex_init(&f.lock, NULL);
    pthread_cond_init(&f.cond, NULL);
    for (int i = 0; i < (f.nslices > 1 ? 2 : 1); i++)
        if (!(f.bits[i] = malloc((size_t)((span + 63) / 64) * sizeof *f.bits[i]))) {
            feed_stop(&f);
            return HAY_ERR_NOMEM;
        }
    f.threaded = f.nslices > 1 && hay_scratch_create(m->set, &f.scratch) == HAY_OK;
    if (f.threaded && pthread_create(&f.tid, NULL, feed_main, &f) != 0) {
        hay_scratch_free(f.scratch);
        f.threaded = false;
    }
    unsigned threads = so->threads ? so->threads : cli_cpu_count();
    if (threads > 4 * cli_cpu_count())
        threads = 4 * cli_cpu_count();
    hay_status st = HAY_OK;
    uint64_t next = 0;   /* bytes below are in lines already handed over */
    for (uint64_t k = 0; k < f.nslices && st == HAY_OK; k++) {
        st = feed_get(&f, scratch, k);
        uint64_t ss = k * f.slice, se = slice_end(&f, k), lo = slice_lo(&f, k);
        const uint64_t *marks = f.bits[k % 2];
        mark_walk w = { marks, lo, rules->buf, f.len, rules->eol };
        uint64_t from = next > ss ? next : ss;
        if (st == HAY_OK && lines) {
            st = count_slice(&w, rules, from, se, threads, lines, &next);
        } else {
            for (uint64_t i = from; st == HAY_OK;) {
                i = next_mark(marks, lo, i, se);
                if (i >= se)
                    break;
                if (fn(0, i, i + 1, ctx)) {
                    st = HAY_STOPPED;
                    break;
                }
                i = next = line_after(&w, i);
            }
        }
        feed_walked(&f, k);
    }
    feed_stop(&f);
    if (f.want && f.sum.lib_ran)
        *f.want = f.sum.lib;   /* --stats: every slice's phases */
    return st;
}
