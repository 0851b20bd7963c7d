/*
 * auto.c - backend auto: the choice between the CPU, a GPU and a split of
 * one input between them, made per scan.  It compiles the CPU engine; a
 * scan of at least gpu_min bytes makes, once, the GPU state (from the CPU's
 * trie, so that the trie is built once) and runs there.  With the default
 * threshold a pattern set goes to the GPU only when the CPU's rate on it,
 * measured once on a probe, says the GPU would finish sooner; in the count
 * modes the GPU then shares the input with the cores its copies leave free
 * (the heavy split, split.h) when they add enough.  When no GPU is usable
 * the CPU runs and the scan's stats note says why.
 *
 * It sees the backends only through their ops tables: the CPU's, and the
 * CUDA backend's offload ops (a device state beside the CPU's).  Its
 * tuning is data, in policy.h.
 *
 * params (hay_compile_opts.params; the CPU engine skips the GPU's keys):
 *   split=auto|on|off|heavy|emulate   auto (default): the heavy split in
 *       the count modes when the probe sends the set to the GPU and the
 *       kept CPU threads add split_min_share of its rate; else, and for the
 *       list, the GPU alone.  on: whenever a GPU is usable, the GPU side
 *       pinning a shared mapping in place (unless transfer= says
 *       otherwise), the CPU on the cores it leaves.  heavy: the GPU side
 *       stages on most cores and split_keep CPU threads search from the
 *       front.  off: never.  emulate: a host thread in the GPU's place.
 *   split_keep=N, split_piece=BYTES, split_buffer=BYTES, gpu_min=BYTES
 *   transfer=, reg_threads=, chunk= are the CUDA driver's; auto reads
 *       them for the split's core count and the emulated pieces.
 */
#include "../core/internal.h"
#include "../cuda/cuda_params.h"
#include "policy.h"
#include "split.h"

#include <pthread.h>
#include <stdlib.h>

/* split=: the key's words in the order of its table (cuda_params.c). */
enum {
    SPLIT_AUTO = HAY_SPLIT_MODE_AUTO,
    SPLIT_ON = HAY_SPLIT_MODE_ON,
    SPLIT_OFF = HAY_SPLIT_MODE_OFF,
    SPLIT_EMULATE = HAY_SPLIT_MODE_EMULATE,
    SPLIT_HEAVY = HAY_SPLIT_MODE_HEAVY
};
enum { RUN_CPU, RUN_GPU, RUN_SPLIT };

typedef struct auto_set {
    const hay_auto_policy *pol;
    const hay_backend_ops *dev;   /* the device backend, or NULL when none is built */
    pthread_mutex_t lock;         /* guards the fields below it */
    int state;                    /* GPU state: 0 untried, 1 ready, < 0 failed */
    const char *why;              /* static text when failed */
    void *gpu;                    /* dev->offload's state */
    double cpu_rate;              /* bytes/s of the CPU engine on a probe, 0 untried */
    /* params, parsed once at compile time */
    int split;                    /* SPLIT_* */
    bool reg;                     /* the GPU side copies in place (transfer=register,
                                   * or no transfer= given) */
    unsigned reg_threads;
    unsigned keep;                /* split_keep= (0: the policy's) */
    uint64_t split_piece, split_buffer, emulate_piece;
    uint64_t gpu_min;
    bool gpu_min_given;           /* env or params: used as is, no measured choice */
    /* The warm-up thread, started at compile time when the size hint says
     * the input may go to the GPU: it starts the device while the CPU
     * engine is built (joined by auto_destroy). */
    bool literal;                 /* the CPU searches with a SIMD literal filter */
    const hay_patterns *set;
    pthread_t warm;
    bool warming;
    double warm_t0;
} auto_set;

/* Parameters ------------------------------------------------------------- */

/* Auto's keys and the driver's that it reads, parsed when the set was
 * compiled (cuda_params.c); gpu_min after env HAY_AUTO_GPU_MIN. */
static void auto_params(const hay_patterns *set, auto_set *g)
{
    const hay_param_table *at = &hay_auto_param_table, *dt = &hay_cuda_driver_param_table;
    hay_auto_params adflt;
    hay_cuda_driver_params ddflt;
    const hay_auto_params *a = hay_set_params(set, at);
    const hay_cuda_driver_params *d = hay_set_params(set, dt);
    if (!a) {
        hay_params_defaults(at, &adflt);
        a = &adflt;
    }
    if (!d) {
        hay_params_defaults(dt, &ddflt);
        d = &ddflt;
    }
    g->split = a->split;
    g->split_piece = a->split_piece;
    g->split_buffer = a->split_buffer;
    g->keep = hay_params_given(at, a, "split_keep") ? (unsigned)a->split_keep : 0;
    /* The GPU side copies in place unless transfer= says otherwise. */
    g->reg = !hay_params_given(dt, d, "transfer") || d->transfer == HAY_CUDA_TRANSFER_REGISTER;
    g->reg_threads = (unsigned)d->reg_threads;
    g->emulate_piece = hay_params_given(dt, d, "chunk") ? d->chunk : g->pol->emulate_piece;
    g->gpu_min = set->n > 1 ? g->pol->gpu_min_multi : g->pol->gpu_min_single;
    const char *env = getenv("HAY_AUTO_GPU_MIN");
    uint64_t v;
    if (env && hay_params_size(env, strlen(env), &v)) {
        g->gpu_min = v;
        g->gpu_min_given = true;
    }
    if (hay_params_given(dt, d, "gpu_min")) {
        g->gpu_min = d->gpu_min;
        g->gpu_min_given = true;
    }
}

/* The GPU state ------------------------------------------------------------ */

/* The GPU state of an auto set, made on first need; NULL (with *why) when
 * no GPU can take it. */
static void *auto_gpu_get(const hay_patterns *set, const char **why)
{
    auto_set *g = set->aux;
    pthread_mutex_lock(&g->lock);
    if (g->state == 0) {
        hay_status s = g->dev ? g->dev->available() : HAY_ERR_NO_BACKEND;
        if (s == HAY_OK)
            s = g->dev->offload->build(set, hay_cpu_backend.trie(set), &g->gpu);
        g->state = s == HAY_OK ? 1 : s;
        g->why = s == HAY_ERR_NO_DEVICE ? "no usable GPU (cuda: no device); CPU"
                 : s == HAY_ERR_NO_BACKEND ? "no CUDA backend in this build; CPU"
                 : s == HAY_ERR_NOMEM ? "GPU out of memory for the tables; CPU"
                 : s == HAY_ERR_UNSUPPORTED ? "no CUDA engine for this set; CPU"
                 : "the CUDA backend failed to start; CPU";
    }
    void *gpu = g->state == 1 ? g->gpu : NULL;
    *why = g->why;
    pthread_mutex_unlock(&g->lock);
    return gpu;
}

/* The cost model ------------------------------------------------------------ */

/* The CPU threads the heavy split keeps searching beside the GPU side. */
static unsigned split_keep(const auto_set *g, unsigned cores)
{
    if (g->keep)
        return g->keep;
    return cores >= g->pol->keep_min_cores ? cores / g->pol->keep_divisor : 1;
}

/* Whether the heavy split is worth it: the kept threads' share of the
 * CPU's measured rate against the policy's share of the GPU's. */
static bool split_pays(auto_set *g, const hay_scan_opts *o)
{
    unsigned cores = hay_cpu_count(), threads = o->threads ? o->threads : cores;
    pthread_mutex_lock(&g->lock);
    double rate = g->cpu_rate;
    pthread_mutex_unlock(&g->lock);
    if (rate <= 0)
        return true;   /* not measured (one pattern): split */
    unsigned keep = split_keep(g, cores);
    if (keep > threads)
        keep = threads;
    return rate * keep / threads >= g->pol->split_min_share * g->pol->gpu_rate;
}

/* The GPU's fixed cost before its state exists: less what the warm-up
 * thread has done of the device's start-up since it began. */
static double gpu_cold(const auto_set *g)
{
    double cold = g->pol->gpu_cold_seconds +
                  (double)g->set->states * g->pol->gpu_state_seconds;
    if (g->warming) {
        double done = hay_now() - g->warm_t0;
        cold -= done < g->pol->gpu_start_seconds ? done : g->pol->gpu_start_seconds;
    }
    return cold;
}

/* Whether the CPU would finish len bytes sooner than the GPU with its
 * fixed cost.  The first call per set measures the CPU's rate by counting
 * the first probe_bytes: *probed and *probe_count keep that count so the
 * scan need not search them again. */
static bool auto_cpu_sooner(const hay_patterns *set, hay_scratch *scratch,
                            const uint8_t *data, uint64_t len,
                            const hay_scan_opts *o, uint64_t *probed,
                            uint64_t *probe_count)
{
    auto_set *g = set->aux;
    pthread_mutex_lock(&g->lock);
    double rate = g->cpu_rate;
    bool warm = g->state == 1;
    pthread_mutex_unlock(&g->lock);
    if (rate <= 0) {
        /* The first probe_warmup bytes a thread start the threads and
         * bring the tables into their caches, once per process and set: a
         * rate that counted them came out 30% low (Snort, 16 threads: 2.0
         * against 2.9 GB/s over 1 GiB, also after a warm-up too short to
         * reach every thread).  Their matches are counted all the same. */
        hay_scan_opts po = *o;
        po.progress = NULL;
        po.stats = NULL;
        uint64_t warm_n = 0, n = 0;
        unsigned threads = hay_thread_cap(o->threads);
        uint64_t w0 = g->pol->probe_warmup * threads, p0 = g->pol->probe_bytes * threads;
        uint64_t w = len > w0 + p0 ? w0 : 0;
        uint64_t probe = len - w < p0 ? len - w : p0;
        if (w && hay_cpu_backend.count(set, scratch, data, w, &po, &warm_n) != HAY_OK)
            return false;
        double t0 = hay_now();
        if (hay_cpu_backend.count_range(set, scratch, data, w + probe, w, &po, &n) != HAY_OK)
            return false;
        double t = hay_now() - t0;
        *probed = w + probe;
        *probe_count = warm_n + n;
        rate = (double)probe / (t > 1e-6 ? t : 1e-6);
        pthread_mutex_lock(&g->lock);
        g->cpu_rate = rate;
        pthread_mutex_unlock(&g->lock);
    }
    double fixed = warm ? g->pol->gpu_warm_seconds : gpu_cold(g);
    double cpu_s = (double)len / rate, gpu_s = fixed + (double)len / g->pol->gpu_rate;
    hay_log(o, "auto: cpu %.2f GB/s (probe %llu bytes): cpu %.3f s, gpu %.3f s (fixed %.3f%s)",
            rate / 1e9, (unsigned long long)*probed, cpu_s, gpu_s, fixed,
            g->warming ? ", warming" : "");
    return cpu_s <= gpu_s;
}

/* Where an auto scan of len bytes runs, with a note; *gpu is the GPU state
 * for RUN_GPU (a split's worker makes it itself, so that its start-up
 * overlaps the CPU's searching). */
static int auto_pick(const hay_patterns *set, hay_scratch *scratch,
                     const uint8_t *data, uint64_t len, const hay_scan_opts *o,
                     hay_ask ask, const char **note, void **gpu, uint64_t *probed,
                     uint64_t *probe_count)
{
    auto_set *g = set->aux;
    *gpu = NULL;
    *probed = *probe_count = 0;
    if (g->split == SPLIT_EMULATE) {
        *note = "split between CPU threads and a host thread (split=emulate)";
        return RUN_SPLIT;
    }
    if (!g->dev) {
        *note = "no CUDA backend in this build; CPU";
        return RUN_CPU;
    }
    if (g->split == SPLIT_ON) {
        *note = "split between CPU threads and the GPU (split=on)";
        return RUN_SPLIT;
    }
    if (g->split == SPLIT_HEAVY) {
        *note = "split, the GPU staging on most cores and CPU threads on the rest "
                "(split=heavy)";
        return RUN_SPLIT;
    }
    if (len < g->gpu_min) {
        *note = "input below the GPU threshold; CPU";
        return RUN_CPU;
    }
    if (!g->gpu_min_given && g->literal && len < g->pol->gpu_min_literal) {
        *note = "a SIMD literal filter on the CPU, input below its GPU threshold; CPU";
        return RUN_CPU;
    }
    if (!g->gpu_min_given && set->n > 1 &&
        auto_cpu_sooner(set, scratch, data, len, o, probed, probe_count)) {
        *note = "the CPU's measured rate on this set beats the GPU's start-up and "
                "rate; CPU";
        return RUN_CPU;
    }
    /* The GPU wins by the measured rates: in the count modes it shares the
     * input with the cores its copies leave free (the heavy split), and
     * the CPU searches while the GPU starts up.  split=off, gpu_min=
     * given, and the list: the GPU alone. */
    const char *gpu_note = "input at or above the GPU threshold; CUDA";
    if (!g->gpu_min_given && g->split == SPLIT_AUTO &&
        (ask == HAY_ASK_COUNT || ask == HAY_ASK_EACH)) {
        pthread_mutex_lock(&g->lock);
        int state = g->state;
        const char *why = g->why;
        pthread_mutex_unlock(&g->lock);
        /* Not asked here whether there is a GPU: the first CUDA call
         * (0.1 s on the H200 host) is the worker's, while the CPU
         * searches; with none the CPU searches it all. */
        if (state < 0) {
            *note = why;
            return RUN_CPU;
        }
        if (split_pays(g, o)) {
            *note = "the GPU's rate beats the CPU's: split, the GPU staging on most cores "
                    "and CPU threads on the rest";
            return RUN_SPLIT;
        }
        gpu_note = "the GPU's rate beats the CPU's, and the CPU threads a split leaves "
                   "would add under 4%; CUDA";
    }
    *gpu = auto_gpu_get(set, note);
    if (!*gpu)
        return RUN_CPU;
    *note = gpu_note;
    return RUN_GPU;
}

/* Runs ------------------------------------------------------------------------ */

static void cpu_stats(const hay_patterns *set, const hay_scan_opts *o,
                      double t0, uint64_t len, uint64_t matches,
                      const char *note)
{
    if (!o->stats)
        return;
    hay_stats_reset(o->stats, HAY_BACKEND_CPU, set->engine ? set->engine->name : "?", note);
    o->stats->total_seconds = hay_now() - t0;
    o->stats->bytes = len;
    o->stats->matches = matches;
}

/* The GPU side of a split scan (split.h's worker). */
typedef struct split_gpu {
    const hay_patterns *set;
    const uint8_t *host;
    uint64_t len;
    hay_scan_opts o;
    hay_scan_stats st;
    bool pin;                /* copy in place (auto_split found it eligible) */
    unsigned stage_threads;  /* its copy threads (0: the split's default) */
    bool ran;                /* the GPU state was there */
    const char *why;
} split_gpu;

static hay_status split_gpu_worker(hay_split *sp, void *wctx)
{
    split_gpu *w = wctx;
    const auto_set *g = w->set->aux;
    double g0 = hay_now();
    void *gpu = auto_gpu_get(w->set, &w->why);
    hay_log(&w->o, "split: gpu state ready after %.1f ms", (hay_now() - g0) * 1e3);
    RETURN_ERROR_IF(!gpu, HAY_ERR_NO_DEVICE);
    w->ran = true;
    /* GPU pieces are the driver's chunk= (the caller's chunk_size sizes
     * the CPU's); progress comes from the calling thread only. */
    hay_scan_opts o = w->o;
    o.progress = NULL;
    o.chunk_size = 0;
    o.stats = &w->st;
    hay_piece_source src = hay_split_source(sp);
    hay_ask ask = (hay_ask)hay_split_mode(sp);
    hay_run r = { .host = w->host, .len = w->len, .opts = &o, .ask = ask,
                  .counts = ask == HAY_ASK_EACH ? hay_split_counts(sp) : NULL,
                  .note = "", .t0 = hay_now(), .pieces = &src, .pin = w->pin,
                  .stage_threads = w->stage_threads };
    return g->dev->offload->run(w->set, gpu, &r);
}

static hay_status auto_split(const hay_patterns *set, hay_scratch *scratch,
                             const hay_run *r, const char *note,
                             uint64_t probed, uint64_t probe_count)
{
    auto_set *g = set->aux;
    const hay_scan_opts *o = r->opts;
    split_gpu w;
    memset(&w, 0, sizeof w);
    w.set = set;
    w.host = r->host;
    w.len = r->len;
    w.o = *o;
    hay_scan_opts co = *o;
    /* (Its sides scan pieces: the caller's pass over parts, whose offsets
     * are the whole input's, is left to the caller; haystack.h.) */
    w.o.on_part = NULL;
    co.on_part = NULL;
    unsigned keep = g->keep, cores = hay_cpu_count();
    if (g->split == SPLIT_HEAVY || g->split == SPLIT_AUTO) {
        /* The GPU side stages with most of the cores, as alone, and the
         * cores it does not need search from the front, also while the
         * GPU starts up; the other threads search only if it fails. */
        keep = split_keep(g, cores);
        w.stage_threads = cores > keep + 1 ? cores - keep - 1 : 1;
        unsigned all = cores > 1 ? cores - 1 : 1;
        if (co.threads == 0 || co.threads > all)
            co.threads = all;
        if (keep > co.threads)
            keep = co.threads;
    } else if (g->split != SPLIT_EMULATE) {
        /* The GPU side pins a shared mapping in place (unless transfer=
         * says otherwise), else stages it with copy threads. */
        w.pin = g->reg && g->dev->offload->in_place(r->host, r->len);
        unsigned gpu_cores = w.pin ? g->pol->split_gpu_cores_pinned + g->reg_threads
                                   : g->pol->split_gpu_cores;
        unsigned cap = cores > gpu_cores + 1 ? cores - gpu_cores : 1;
        if (co.threads == 0 || co.threads > cap)
            co.threads = cap;
    }
    o = &co;
    hay_split_cfg cfg = { g->split_piece, g->split_buffer, hay_split_host_worker,
                          &g->emulate_piece, keep, probed, probe_count, g->pol };
    if (g->split != SPLIT_EMULATE) {
        cfg.worker = split_gpu_worker;
        cfg.wctx = &w;
    }
    hay_split_result res;
    hay_status s = hay_split_scan(set, scratch, r->host, r->len, o, (int)r->ask, r->fn,
                                  r->ctx, r->count, r->counts, &cfg, &res);
    if (!o->stats)
        return s;
    bool emulated = g->split == SPLIT_EMULATE;
    if (!emulated && !w.ran && w.why)
        note = w.why;   /* no usable GPU */
    else if (res.worker_status < 0)
        note = "split: the GPU failed; the CPU searched the pieces it had not finished";
    else if (res.redone_bytes)
        note = "split between CPU threads and the GPU; the CPU searched again the "
               "pieces whose matches were over the list budget (split_buffer)";
    else if (!emulated && res.worker_bytes == 0)
        note = "split: the CPU finished before the GPU took a piece";
    cpu_stats(set, o, r->t0, r->len, res.matches, note);
    hay_scan_stats *st = o->stats;
    if (w.ran && res.worker_bytes) {
        st->backend = w.st.backend;
        st->algo = w.st.algo;
        st->init_seconds = w.st.init_seconds;
        st->prepare_seconds = w.st.prepare_seconds;
        st->copy_in_seconds = w.st.copy_in_seconds;
        st->kernel_seconds = w.st.kernel_seconds;
        st->copy_out_seconds = w.st.copy_out_seconds;
    }
    st->split_cpu_bytes = res.cpu_bytes;
    st->split_gpu_bytes = res.worker_bytes;
    st->split_cpu_seconds = res.cpu_seconds;
    st->split_gpu_seconds = res.worker_seconds;
    return s;
}

typedef struct count_fwd {
    hay_match_fn fn;
    void *ctx;
    uint64_t n;
} count_fwd;

static int count_fwd_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    count_fwd *c = ctx;
    c->n++;
    return c->fn(id, start, end, c->ctx);
}

/* One auto scan of a host input. */
static hay_status auto_run(const hay_patterns *set, hay_scratch *scratch,
                           const hay_run *r)
{
    const hay_scan_opts *o = r->opts;
    const char *note;
    void *gpu;
    uint64_t probed, probe_count;
    int where = auto_pick(set, scratch, r->host, r->len, o, r->ask, &note, &gpu, &probed,
                          &probe_count);
    if (where == RUN_SPLIT && (r->ask == HAY_ASK_MARK || r->ask == HAY_ASK_FIRST)) {
        /* The split shares counts and lists; marks and the first match
         * run on one side: the GPU when there is one. */
        gpu = auto_gpu_get(set, &note);
        where = gpu ? RUN_GPU : RUN_CPU;
        if (gpu)
            note = "marks and the first match are not split; CUDA";
    }
    if (where == RUN_SPLIT)
        return auto_split(set, scratch, r, note, r->ask == HAY_ASK_COUNT ? probed : 0,
                          probe_count);
    if (where == RUN_GPU) {
        const auto_set *g = set->aux;
        hay_run gr = *r;
        gr.note = note;
        return g->dev->offload->run(set, gpu, &gr);
    }
    hay_status s;
    uint64_t n = 0;
    hay_batcher *bt = hay_batcher_of(r->fn, r->ctx);
    if (r->ask == HAY_ASK_LIST && bt) {
        /* A batch counts its own matches: the CPU's delivery puts into it
         * directly, not through count_fwd. */
        uint64_t before = hay_batch_puts(bt);
        s = hay_cpu_backend.scan(set, scratch, r->host, r->len, o, r->fn, r->ctx);
        n = hay_batch_puts(bt) - before;
    } else if (r->ask == HAY_ASK_LIST && !o->stats) {
        /* Nobody reads the count: the caller's callback itself (a caller
         * that stops at a line's first match calls once per line, and the
         * forwarding cost `hay find -c` a third more than the CPU backend). */
        s = hay_cpu_backend.scan(set, scratch, r->host, r->len, o, r->fn, r->ctx);
    } else if (r->ask == HAY_ASK_LIST) {
        count_fwd c = { r->fn, r->ctx, 0 };
        s = hay_cpu_backend.scan(set, scratch, r->host, r->len, o, count_fwd_cb, &c);
        n = c.n;
    } else if (r->ask == HAY_ASK_MARK || r->ask == HAY_ASK_FIRST) {
        s = hay_run_host_ops(&hay_cpu_backend, set, scratch, r);
        n = r->ask == HAY_ASK_FIRST && r->first->end;
    } else if (r->ask == HAY_ASK_COUNT) {
        /* The probe of the CPU's rate counted the matches ending in its
         * first probed bytes: the rest is counted from there. */
        uint64_t rest = 0;
        bool reuse = probed && probed <= r->len && !o->progress;
        s = hay_cpu_backend.count_range(set, scratch, r->host, r->len, reuse ? probed : 0,
                                        o, &rest);
        n = *r->count = (reuse ? probe_count : 0) + rest;
    } else {
        s = hay_cpu_backend.scan(set, scratch, r->host, r->len, o, hay_count_each_cb,
                                 r->counts);
        for (size_t i = 0; i < set->n; i++)
            n += r->counts[i];
    }
    cpu_stats(set, o, r->t0, r->len, n, note);
    return s;
}

/* The ops table ------------------------------------------------------------- */

/* Every ask; a device buffer on the GPU state, made for it if need be. */
static hay_status auto_run_op(const hay_patterns *set, hay_scratch *scratch,
                              const hay_run *r)
{
    if (!r->buffer)
        return auto_run(set, scratch, r);
    const auto_set *g = set->aux;
    const char *why;
    void *gpu = auto_gpu_get(set, &why);
    RETURN_ERROR_IF(!gpu, HAY_ERR_NO_DEVICE);
    RETURN_ERROR_IF(!g->dev->offload->buffer_fits(gpu, r->buffer), HAY_ERR_INVALID);
    return g->dev->offload->run(set, gpu, r);
}

static hay_status auto_available(void) { return HAY_OK; }
static int auto_device_count(void) { return 1; }
static hay_status auto_describe(int index, char *buf, size_t cap)
{
    return hay_cpu_backend.describe(index, buf, cap);
}

static void *warm_main(void *arg)
{
    const auto_set *g = arg;
    if (g->dev->available() == HAY_OK)
        g->dev->offload->warm_up(g->set);   /* a failure shows again on use */
    return NULL;
}

/* Whether to start the GPU while the CPU engine is built: the caller's
 * size hint reaches the GPU threshold and the set is one the GPU is likely
 * to take (policy.h: warm_min_patterns, warm_min_bytes; never one of the
 * CPU's literal filters, which stay on the CPU below several GiB), or the
 * threshold was given.  A start-up the scan then leaves unused costs the
 * CPU's run about 0.1 s. */
static bool warm_worth(const hay_patterns *set, const auto_set *g)
{
    if (!g->dev || !g->dev->offload->warm_up || g->split == SPLIT_EMULATE ||
        set->size_hint < g->gpu_min)
        return false;
    if (g->gpu_min_given)
        return true;
    return set->n > 1 && !g->literal &&
           (set->n >= g->pol->warm_min_patterns || set->size_hint >= g->pol->warm_min_bytes);
}

static hay_status auto_compile(hay_patterns *set, const char *algo)
{
    auto_set *g = hay_calloc(&set->alloc, 1, sizeof *g);
    RETURN_ERROR_IF(!g, HAY_ERR_NOMEM);
    g->pol = &hay_auto_policy_default;
    const hay_backend_ops *cuda = hay_backend_ops_of(HAY_BACKEND_CUDA);
    g->dev = cuda && cuda->offload ? cuda : NULL;
    auto_params(set, g);
    hay_status s = HAY_OK;
    if (pthread_mutex_init(&g->lock, NULL) != 0)
        s = HAY_ERR_NOMEM;
    g->set = set;
    g->literal = hay_cpu_literal_filter(set, algo);
    if (s == HAY_OK && warm_worth(set, g)) {
        g->warm_t0 = hay_now();
        g->warming = pthread_create(&g->warm, NULL, warm_main, g) == 0;
    }
    if (s == HAY_OK) {
        s = hay_cpu_backend.compile(set, algo);
        if (s < 0) {
            if (g->warming)
                pthread_join(g->warm, NULL);
            pthread_mutex_destroy(&g->lock);
        }
    }
    if (s < 0) {
        hay_free(&set->alloc, g);
        return s;
    }
    set->aux = g;
    return HAY_OK;
}

static void auto_destroy(hay_patterns *set)
{
    hay_cpu_backend.destroy(set);
    auto_set *g = set->aux;
    if (g) {
        if (g->warming)
            pthread_join(g->warm, NULL);
        if (g->gpu)
            g->dev->offload->destroy(set, g->gpu);
        pthread_mutex_destroy(&g->lock);
        hay_free(&set->alloc, g);
    }
    set->aux = NULL;
}

static const char *const auto_algos[] = { NULL };

/* The CPU's keys, and the GPU's for large inputs. */
static size_t auto_param_tables(const char *algo, size_t npatterns,
                                const hay_param_table **out)
{
    (void)algo;
    out[0] = &hay_cpu_param_table;
    return 1 + hay_auto_param_tables(npatterns, out + 1);
}

const hay_backend_ops hay_auto_backend = {
    .id = HAY_BACKEND_AUTO,
    .name = "auto",
    .available = auto_available,
    .device_count = auto_device_count,
    .describe = auto_describe,
    .algos = auto_algos,
    .compile = auto_compile,
    .destroy = auto_destroy,
    .run = auto_run_op,
    .param_tables = auto_param_tables,
};
