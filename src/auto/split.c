/*
 * split.c - one input shared by CPU threads (from the front) and a worker
 * (from the back): see split.h.  Plain C; the GPU worker is in auto.c,
 * the host worker for tests is below.
 */
#include "split.h"

#include <pthread.h>
#include <stdlib.h>

enum { PIECE_CLAIMED, PIECE_DONE, PIECE_DEFERRED };

typedef struct split_match {
    uint64_t end;
    uint32_t id;
} split_match;

typedef struct split_piece {
    uint64_t gs, ge;         /* owned ends (gs, ge] */
    int state;
    uint64_t count;          /* HAY_SPLIT_COUNT */
    split_match *m;          /* HAY_SPLIT_LIST, in order of end */
    size_t n, cap;
} split_piece;

struct hay_split {
    const hay_patterns *set;
    const uint8_t *data;
    uint64_t len;
    int mode;
    const hay_split_cfg *cfg;
    pthread_mutex_t lock;
    uint64_t front, back;    /* CPU: ends (0, front]; worker: (back, len] */
    /* The worker's pieces in the order claimed (descending); only the
     * worker touches them until it has been joined. */
    split_piece *p;
    size_t np, pcap;
    size_t cur;              /* the piece hay_split_collect fills */
    uint64_t buffered;       /* bytes of list matches held */
    uint64_t *counts;        /* HAY_SPLIT_EACH: the worker's */
    int stop;                /* atomic: the CPU side stopped or failed */
    uint64_t worker_done;    /* atomic: bytes of pieces done */
    uint64_t cpu_done;       /* atomic: bytes of the CPU's pieces done */
    uint64_t cpu_base;       /* atomic: cpu_done when the worker claimed its first piece */
    unsigned cpu_threads;    /* CPU threads claiming pieces of their own */
    int worker_running;      /* atomic: the worker has claimed a piece */
    int worker_over;         /* under lock: the worker has returned */
    pthread_cond_t changed;  /* worker_running or worker_over set (lock) */
    hay_status worker_status;
    double worker_seconds;
    /* The count modes: when the worker fails (no GPU), its thread searches
     * from the front as one more CPU thread (cpu_helper). */
    hay_scratch *scratch;
    const hay_scan_opts *co;
    uint64_t helper_total;
    uint64_t *helper_counts;
    hay_status helper_status;
    const hay_auto_policy *pol;
    /* The timeline for hay_scan_opts.log (seconds from the start). */
    const hay_scan_opts *log;
    double t0, first_claim, worker_end;
    uint64_t piece_min, piece_max;
};

/* Guided piece sizes ------------------------------------------------------ *
 *
 * Both sides' pieces shrink as the cursors close in, in proportion to the
 * rates the two sides have shown so far in this scan (bytes done), so that
 * neither is left holding a long piece when they meet: the wall time of a
 * split is the later side's, and a GPU piece claimed early can outlast the
 * CPU's last one by milliseconds (docs/PERF.md).  The share of the side
 * that has done nothing yet is taken as one half.  The limits are the
 * policy's (policy.h). */

/* The worker's share of the rate since its first piece, in [0, 1] (lock
 * held or not: the counters are atomics).  Both sides are counted over the
 * same window: counted from the start, the bytes the CPU threads searched
 * while the GPU was starting up (0.15-0.4 s on the H200 host) made the GPU
 * look slow, and its pieces shrank to guide_min_worker long before the
 * meeting (docs/PERF.md).  Half while either side has nothing in it. */
static double worker_share(const hay_split *sp)
{
    if (!__atomic_load_n(&sp->worker_running, __ATOMIC_ACQUIRE))
        return 0.5;
    double w = (double)__atomic_load_n(&sp->worker_done, __ATOMIC_RELAXED);
    double c = (double)(__atomic_load_n(&sp->cpu_done, __ATOMIC_RELAXED) -
                        __atomic_load_n(&sp->cpu_base, __ATOMIC_RELAXED));
    if (w == 0 || c <= 0)
        return 0.5;
    return w / (w + c);
}

/* A piece of at most `most` bytes for a side with `share` of the rate and
 * `parties` claimers: half its share of what is left, split among them,
 * and no less than `least` (nor more than `most`). */
static uint64_t guided(uint64_t left, double share, unsigned parties, uint64_t least,
                       uint64_t most)
{
    if (least > most)
        least = most;
    double g = (double)left * share / (2.0 * (parties ? parties : 1));
    uint64_t want = g < (double)least ? least : g > (double)most ? most : (uint64_t)g;
    return want ? want : 1;
}

/* The worker's side ------------------------------------------------------ */

bool hay_split_claim_back(hay_split *sp, uint64_t want, size_t *piece,
                          uint64_t *gs, uint64_t *ge)
{
    if (want == 0)
        want = 1;
    if (__atomic_load_n(&sp->stop, __ATOMIC_ACQUIRE))
        return false;
    if (sp->np == sp->pcap) {
        size_t cap = sp->pcap ? 2 * sp->pcap : 64;
        split_piece *p = realloc(sp->p, cap * sizeof *p);
        if (!p)
            return false;   /* the CPU takes what is left */
        sp->p = p;
        sp->pcap = cap;
    }
    pthread_mutex_lock(&sp->lock);
    bool ok = sp->back > sp->front;
    if (ok) {
        want = guided(sp->back - sp->front, worker_share(sp), 1, sp->pol->guide_min_worker,
                      want);
        *ge = sp->back;
        *gs = sp->back - sp->front > want ? sp->back - want : sp->front;
        sp->back = *gs;
        if (!__atomic_load_n(&sp->worker_running, __ATOMIC_RELAXED)) {
            __atomic_store_n(&sp->cpu_base, __atomic_load_n(&sp->cpu_done, __ATOMIC_RELAXED),
                             __ATOMIC_RELAXED);
            __atomic_store_n(&sp->worker_running, 1, __ATOMIC_RELEASE);
            sp->first_claim = hay_now() - sp->t0;
            pthread_cond_broadcast(&sp->changed);
        }
    }
    pthread_mutex_unlock(&sp->lock);
    if (!ok)
        return false;
    uint64_t got = *ge - *gs;
    if (!sp->piece_min || got < sp->piece_min)
        sp->piece_min = got;
    if (got > sp->piece_max)
        sp->piece_max = got;
    split_piece *p = &sp->p[sp->np];
    memset(p, 0, sizeof *p);
    p->gs = *gs;
    p->ge = *ge;
    p->state = PIECE_CLAIMED;
    *piece = sp->np++;
    return true;
}

void hay_split_collect_into(hay_split *sp, size_t piece) { sp->cur = piece; }

int hay_split_collect(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)start;
    hay_split *sp = ctx;
    split_piece *p = &sp->p[sp->cur];
    if (p->state == PIECE_DEFERRED)
        return 0;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        uint64_t more = (uint64_t)(cap - p->cap) * sizeof(split_match);
        split_match *m = NULL;
        if (sp->buffered + more <= sp->cfg->list_budget)
            m = realloc(p->m, cap * sizeof *m);
        if (!m) {
            /* Over the budget (or out of memory): the CPU searches this
             * piece again when its turn comes. */
            sp->buffered -= (uint64_t)p->cap * sizeof(split_match);
            free(p->m);
            p->m = NULL;
            p->n = p->cap = 0;
            p->state = PIECE_DEFERRED;
            return 0;
        }
        sp->buffered += more;
        p->m = m;
        p->cap = cap;
    }
    p->m[p->n].end = end;
    p->m[p->n].id = id;
    p->n++;
    return 0;
}

void hay_split_piece_done(hay_split *sp, size_t piece, uint64_t count)
{
    split_piece *p = &sp->p[piece];
    if (p->state == PIECE_CLAIMED)
        p->state = PIECE_DONE;
    p->count = count;
    __atomic_add_fetch(&sp->worker_done, p->ge - p->gs, __ATOMIC_RELAXED);
}

uint64_t *hay_split_counts(hay_split *sp) { return sp->counts; }
const hay_patterns *hay_split_set(const hay_split *sp) { return sp->set; }
int hay_split_mode(const hay_split *sp) { return sp->mode; }
bool hay_split_stopping(const hay_split *sp)
{
    return __atomic_load_n(&sp->stop, __ATOMIC_ACQUIRE) != 0;
}

static bool source_claim(void *src, uint64_t want, size_t *piece, uint64_t *gs,
                         uint64_t *ge)
{
    return hay_split_claim_back(src, want, piece, gs, ge);
}

static void source_collect_into(void *src, size_t piece)
{
    hay_split_collect_into(src, piece);
}

static void source_done(void *src, size_t piece, uint64_t count)
{
    hay_split_piece_done(src, piece, count);
}

hay_piece_source hay_split_source(hay_split *sp)
{
    hay_piece_source s = { sp, source_claim, source_collect_into, hay_split_collect,
                           source_done };
    return s;
}

/* The host worker (tests) ------------------------------------------------ */

static int emit_count1(void *sink, uint32_t id, uint64_t start, uint64_t end)
{
    (void)id; (void)start; (void)end;
    ++*(uint64_t *)sink;
    return 0;
}

static int emit_each1(void *sink, uint32_t id, uint64_t start, uint64_t end)
{
    (void)start; (void)end;
    ((uint64_t *)sink)[id]++;
    return 0;
}

static int emit_collect(void *sink, uint32_t id, uint64_t start, uint64_t end)
{
    return hay_split_collect(id, start, end, sink);
}

hay_status hay_split_host_worker(hay_split *sp, void *wctx)
{
    const hay_patterns *set = sp->set;
    uint64_t piece_len = *(const uint64_t *)wctx;
    uint64_t back = set->max_len - 1;
    size_t k;
    uint64_t gs, ge;
    while (hay_split_claim_back(sp, piece_len, &k, &gs, &ge)) {
        uint64_t lo = gs >= back ? gs - back : 0;
        uint64_t c = 0;
        const uint8_t *h = sp->data + lo;
        size_t n = (size_t)(ge - lo), after = (size_t)(gs - lo);
        if (sp->mode == HAY_SPLIT_COUNT)
            set->engine->scan(set, set->state, h, n, after, lo, emit_count1, &c);
        else if (sp->mode == HAY_SPLIT_EACH)
            set->engine->scan(set, set->state, h, n, after, lo, emit_each1, sp->counts);
        else {
            hay_split_collect_into(sp, k);
            set->engine->scan(set, set->state, h, n, after, lo, emit_collect, sp);
        }
        hay_split_piece_done(sp, k, c);
    }
    return HAY_OK;
}

/* The CPU's side --------------------------------------------------------- */

/* The next CPU piece: cpu_piece bytes for the whole team (the list), or a
 * guided piece for one of cpu_threads threads claiming their own. */
static bool claim_front(hay_split *sp, bool own, uint64_t most, uint64_t *a, uint64_t *b)
{
    pthread_mutex_lock(&sp->lock);
    bool ok = sp->front < sp->back;
    if (ok) {
        uint64_t left = sp->back - sp->front, want = sp->cfg->cpu_piece;
        if (want > most)
            want = most;
        if (own) {
            /* Once the worker runs, only cfg.cpu_keep threads go on. */
            unsigned parties = sp->cpu_threads;
            if (sp->cfg->cpu_keep && sp->cfg->cpu_keep < parties &&
                __atomic_load_n(&sp->worker_running, __ATOMIC_ACQUIRE))
                parties = sp->cfg->cpu_keep;
            want = guided(left, 1.0 - worker_share(sp), parties, sp->pol->guide_min_cpu, want);
        }
        if (want == 0)
            want = 1;
        *a = sp->front;
        *b = left > want ? sp->front + want : sp->back;
        sp->front = *b;
    }
    pthread_mutex_unlock(&sp->lock);
    return ok;
}

typedef struct range_cb {
    hay_match_fn fn;
    void *ctx;
    uint64_t lo, after;      /* matches with local end > after, offsets + lo */
    uint64_t *counts;
    uint64_t n;
} range_cb;

static int range_list_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    range_cb *r = ctx;
    if (end <= r->after)
        return 0;
    r->n++;
    return r->fn(id, start + r->lo, end + r->lo, r->ctx);
}

static int range_each_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)start;
    range_cb *r = ctx;
    if (end > r->after) {
        r->counts[id]++;
        r->n++;
    }
    return 0;
}

/* The same into counts that other threads add to. */
static int range_each_shared_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)start;
    range_cb *r = ctx;
    if (end > r->after) {
        __atomic_fetch_add(&r->counts[id], 1, __ATOMIC_RELAXED);
        r->n++;
    }
    return 0;
}

/* The matches ending in (a, b] with the CPU backend on o's threads: added
 * to *count, to counts, or handed to fn.  The backend searches
 * data[lo, b) with lo = a - (longest - 1), and the matches ending by a
 * are left out, so each match of (a, b] is found once. */
static hay_status cpu_range(const hay_split *sp, hay_scratch *scratch,
                            const hay_scan_opts *o, uint64_t a, uint64_t b,
                            hay_match_fn fn, void *ctx, uint64_t *count,
                            uint64_t *counts, bool shared_counts)
{
    const hay_patterns *set = sp->set;
    uint64_t back = set->max_len - 1;
    uint64_t lo = a >= back ? a - back : 0;
    const uint8_t *d = sp->data + lo;
    if (sp->mode == HAY_SPLIT_COUNT) {
        uint64_t c = 0;
        FORWARD_IF_ERROR(hay_cpu_backend.count_range(set, scratch, d, b - lo, a - lo, o, &c));
        *count += c;
        return HAY_OK;
    }
    range_cb r = { fn, ctx, lo, a - lo, counts, 0 };
    hay_match_fn f = sp->mode != HAY_SPLIT_EACH ? range_list_cb
                     : shared_counts         ? range_each_shared_cb
                                             : range_each_cb;
    hay_status s = hay_cpu_backend.scan(set, scratch, d, b - lo, o, f, &r);
    *count += r.n;
    return s;
}

/* The CPU side in the count modes: cpu_threads threads (the calling one
 * among them), each claiming pieces of its own and searching them on one
 * core.  Not one team per piece: a team waits at the end of every piece
 * for its slowest member, and with the GPU side's threads on the same
 * cores a descheduled member stalled the whole side (docs/PERF.md). */
typedef struct cpu_member {
    hay_split *sp;
    hay_scratch *scratch;
    hay_scan_opts o;          /* one thread */
    uint64_t *counts;         /* HAY_SPLIT_EACH: its own, or the shared ones */
    bool shared_counts;
    bool extra;               /* beyond cfg.cpu_keep: only if the worker fails */
    uint64_t total;
    uint64_t total_bytes;     /* searched (HAY_SPLIT_DEBUG) */
    hay_status s;
} cpu_member;

static void *member_main(void *arg)
{
    cpu_member *m = arg;
    hay_split *sp = m->sp;
    if (m->extra) {
        /* Not while the GPU starts up: searching then slowed its start-up
         * (context, tables: CPU work of its own) by more than it searched
         * (docs/PERF.md).  Only if the worker gives up without a piece. */
        pthread_mutex_lock(&sp->lock);
        while (!__atomic_load_n(&sp->worker_running, __ATOMIC_ACQUIRE) && !sp->worker_over)
            pthread_cond_wait(&sp->changed, &sp->lock);
        pthread_mutex_unlock(&sp->lock);
    }
    uint64_t a, b, most = sp->pol->first_piece;
    double rate = 0;   /* this thread's bytes per second, 0 before its first piece */
    while (m->s == HAY_OK && !__atomic_load_n(&sp->stop, __ATOMIC_ACQUIRE) &&
           !(m->extra && __atomic_load_n(&sp->worker_running, __ATOMIC_ACQUIRE)) &&
           claim_front(sp, true, most, &a, &b)) {
        double t0 = hay_now();
        m->s = cpu_range(sp, m->scratch, &m->o, a, b, NULL, NULL, &m->total, m->counts,
                         m->shared_counts);
        double t = hay_now() - t0;
        __atomic_add_fetch(&sp->cpu_done, b - a, __ATOMIC_RELAXED);
        m->total_bytes += b - a;
        /* The rate of the pieces so far, the last weighing half. */
        double r = (double)(b - a) / (t > 1e-7 ? t : 1e-7);
        rate = rate > 0 ? 0.5 * (rate + r) : r;
        double w = rate * sp->pol->piece_seconds;
        uint64_t least = sp->pol->guide_min_cpu;
        most = w < (double)least ? least
               : w > (double)UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)w;
    }
    if (m->s != HAY_OK)
        __atomic_store_n(&sp->stop, 1, __ATOMIC_RELEASE);
    hay_log(sp->log, "split: cpu thread%s done at %.1f ms, %.1f MB",
            m->extra ? " (extra)" : "", (hay_now() - sp->t0) * 1e3, m->total_bytes / 1e6);
    return NULL;
}

/* Runs the team; the matches into *total (and counts); HAY_OK or the
 * first error.  Bytes searched: everything claimed from the front. */
static hay_status cpu_team(hay_split *sp, hay_scratch *scratch, const hay_scan_opts *co,
                           uint64_t *total, uint64_t *counts)
{
    unsigned t = sp->cpu_threads;
    size_t n = sp->set->n;
    cpu_member *m = calloc(t, sizeof *m);
    pthread_t *th = calloc(t, sizeof *th);
    bool own = sp->mode == HAY_SPLIT_EACH && (uint64_t)n * sizeof(uint64_t) * t <=
                                                sp->pol->own_counts_budget;
    uint64_t *own_counts = own ? calloc((size_t)t * n, sizeof *own_counts) : NULL;
    if (!m || !th || (own && !own_counts)) {
        free(m);
        free(th);
        free(own_counts);
        return HAY_ERR_NOMEM;
    }
    unsigned started = 1;
    for (unsigned i = 0; i < t; i++) {
        m[i].sp = sp;
        m[i].scratch = scratch;   /* unused by one-thread counts and scans */
        m[i].o = *co;
        m[i].o.threads = 1;
        m[i].o.chunk_size = 0;
        m[i].counts = own ? own_counts + (size_t)i * n : counts;
        m[i].shared_counts = !own;
        m[i].extra = sp->cfg->cpu_keep && i >= sp->cfg->cpu_keep;
        m[i].s = HAY_OK;
        if (i > 0) {
            if (pthread_create(&th[i], NULL, member_main, &m[i]) != 0)
                break;   /* fewer threads: the others take its pieces */
            started++;
        }
    }
    member_main(&m[0]);
    hay_status s = HAY_OK;
    for (unsigned i = 0; i < started; i++) {
        if (i > 0)
            pthread_join(th[i], NULL);
        *total += m[i].total;
        if (s == HAY_OK && m[i].s != HAY_OK)
            s = m[i].s;
        if (own)
            for (size_t k = 0; k < n; k++)
                counts[k] += m[i].counts[k];
    }
    free(m);
    free(th);
    free(own_counts);
    return s;
}

/* The worker's thread, once the worker has failed (no GPU, or a GPU
 * error): one more CPU thread, so that a split with no GPU searches on
 * every core it was given.  Its counts are its own, added after it is
 * joined. */
static void cpu_helper(hay_split *sp)
{
    cpu_member m;
    memset(&m, 0, sizeof m);
    m.sp = sp;
    m.scratch = sp->scratch;
    m.o = *sp->co;
    m.o.threads = 1;
    m.o.chunk_size = 0;
    m.s = HAY_OK;
    if (sp->mode == HAY_SPLIT_EACH) {
        sp->helper_counts = calloc(sp->set->n, sizeof *sp->helper_counts);
        if (!sp->helper_counts)
            return;
        m.counts = sp->helper_counts;
    }
    member_main(&m);
    sp->helper_total = m.total;
    sp->helper_status = m.s;
}

static void *worker_main(void *arg)
{
    hay_split *sp = arg;
    double t0 = hay_now();
    sp->worker_status = sp->cfg->worker(sp, sp->cfg->wctx);
    sp->worker_seconds = hay_now() - t0;
    sp->worker_end = hay_now() - sp->t0;
    pthread_mutex_lock(&sp->lock);
    sp->worker_over = 1;
    pthread_cond_broadcast(&sp->changed);
    pthread_mutex_unlock(&sp->lock);
    if (sp->worker_status < 0 && sp->mode != HAY_SPLIT_LIST)
        cpu_helper(sp);
    return NULL;
}

hay_status hay_split_scan(const hay_patterns *set, hay_scratch *scratch,
                          const uint8_t *data, uint64_t len,
                          const hay_scan_opts *o, int mode, hay_match_fn fn,
                          void *ctx, uint64_t *count, uint64_t *counts,
                          const hay_split_cfg *cfg, hay_split_result *res)
{
    memset(res, 0, sizeof *res);
    hay_split sp;
    memset(&sp, 0, sizeof sp);
    sp.set = set;
    sp.data = data;
    sp.len = len;
    sp.mode = mode;
    sp.cfg = cfg;
    sp.back = len;
    sp.t0 = hay_now();
    sp.pol = cfg->policy ? cfg->policy : &hay_auto_policy_default;
    sp.log = o;
    uint64_t total = 0, a, b;
    if (mode == HAY_SPLIT_COUNT && cfg->front && cfg->front <= len) {
        sp.front = cfg->front;
        total = cfg->front_count;
        res->cpu_bytes = cfg->front;
    }
    if (count)
        *count = 0;
    if (mode == HAY_SPLIT_EACH) {
        sp.counts = calloc(set->n, sizeof *sp.counts);
        RETURN_ERROR_IF(!sp.counts, HAY_ERR_NOMEM);
    }
    if (pthread_mutex_init(&sp.lock, NULL) != 0) {
        free(sp.counts);
        return HAY_ERR_NOMEM;
    }
    if (pthread_cond_init(&sp.changed, NULL) != 0) {
        pthread_mutex_destroy(&sp.lock);
        free(sp.counts);
        return HAY_ERR_NOMEM;
    }
    /* The CPU side: the caller's threads and chunks, no progress or stats
     * of its own (reported here for the whole input). */
    hay_scan_opts co = *o;
    co.progress = NULL;
    co.stats = NULL;
    /* The count modes run the CPU side as threads with pieces of their
     * own; the list keeps one team per piece (its matches go out in order
     * as it goes). */
    unsigned threads = hay_thread_cap(co.threads);
    sp.cpu_threads = threads ? threads : 1;
    bool team = mode != HAY_SPLIT_LIST;
    sp.scratch = scratch;
    sp.co = &co;
    sp.helper_status = HAY_OK;

    pthread_t th;
    bool started = pthread_create(&th, NULL, worker_main, &sp) == 0;
    if (!started) {
        sp.worker_status = HAY_ERR_NOMEM;   /* the CPU does it all */
        sp.worker_over = 1;
    }

    hay_status s = HAY_OK;
    if (team) {
        /* Counts: threads with pieces of their own (no progress reports
         * until the end). */
        double t0 = hay_now();
        s = cpu_team(&sp, scratch, &co, &total, counts);
        res->cpu_seconds = hay_now() - t0;
    } else {
        while (s == HAY_OK && claim_front(&sp, false, UINT64_MAX, &a, &b)) {
            double t0 = hay_now();
            s = cpu_range(&sp, scratch, &co, a, b, fn, ctx, &total, counts, false);
            res->cpu_seconds += hay_now() - t0;
            res->cpu_bytes += b - a;
            __atomic_add_fetch(&sp.cpu_done, b - a, __ATOMIC_RELAXED);
            if (o->progress)
                o->progress(b + __atomic_load_n(&sp.worker_done, __ATOMIC_RELAXED), len,
                            o->progress_ctx);
        }
    }
    if (s != HAY_OK)
        __atomic_store_n(&sp.stop, 1, __ATOMIC_RELEASE);
    if (started)
        pthread_join(th, NULL);
    if (team) {
        /* With the worker's thread's pieces when it searched as a CPU
         * thread (cpu_helper). */
        res->cpu_bytes += __atomic_load_n(&sp.cpu_done, __ATOMIC_RELAXED);
        total += sp.helper_total;
        if (sp.helper_counts)
            for (size_t i = 0; i < set->n; i++)
                counts[i] += sp.helper_counts[i];
        if (s == HAY_OK && sp.helper_status != HAY_OK)
            s = sp.helper_status;
    }
    res->worker_status = sp.worker_status;
    res->worker_seconds = sp.worker_seconds;
    hay_log(o, "split: worker first piece at %.1f ms, done at %.1f ms; %zu pieces "
            "of %.1f-%.1f MB; cpu side done at %.1f ms", sp.first_claim * 1e3,
            sp.worker_end * 1e3, sp.np, sp.piece_min / 1e6, sp.piece_max / 1e6,
            res->cpu_seconds * 1e3);

    /* The worker's pieces, in order of offset (the reverse of their claim
     * order): its results, or the CPU's where it has none. */
    bool trust_each = mode != HAY_SPLIT_EACH || sp.worker_status == HAY_OK;
    for (size_t i = 0; i < sp.np && trust_each; i++)
        trust_each = sp.p[i].state == PIECE_DONE;
    if (mode == HAY_SPLIT_EACH && trust_each)
        for (size_t i = 0; i < set->n; i++)
            counts[i] += sp.counts[i];
    for (size_t i = sp.np; i-- > 0 && s == HAY_OK;) {
        split_piece *p = &sp.p[i];
        bool ours = mode == HAY_SPLIT_EACH ? trust_each : p->state == PIECE_DONE;
        if (ours) {
            res->worker_bytes += p->ge - p->gs;
            if (mode == HAY_SPLIT_COUNT)
                total += p->count;
            hay_batcher *bt = hay_batcher_of(fn, ctx);   /* straight into a batch */
            for (size_t k = 0; k < p->n && s == HAY_OK; k++) {
                uint64_t end = p->m[k].end;
                uint32_t id = p->m[k].id;
                total++;
                if (bt ? hay_batch_put(bt, id, end - set->len[id], end)
                       : fn(id, end - set->len[id], end, ctx))
                    s = HAY_STOPPED;
            }
        } else {
            double t0 = hay_now();
            s = cpu_range(&sp, scratch, &co, p->gs, p->ge, fn, ctx, &total, counts, false);
            res->cpu_seconds += hay_now() - t0;
            res->cpu_bytes += p->ge - p->gs;
            res->redone_bytes += p->ge - p->gs;
        }
    }
    if (mode == HAY_SPLIT_EACH && trust_each)
        for (size_t i = 0; i < set->n; i++)
            total += sp.counts[i];
    for (size_t i = 0; i < sp.np; i++)
        free(sp.p[i].m);
    free(sp.p);
    free(sp.counts);
    free(sp.helper_counts);
    pthread_cond_destroy(&sp.changed);
    pthread_mutex_destroy(&sp.lock);
    if (s == HAY_OK && o->progress)
        o->progress(len, len, o->progress_ctx);
    if (count)
        *count = total;
    res->matches = total;
    return s;
}
