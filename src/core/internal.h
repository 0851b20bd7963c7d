/*
 * internal.h - what the library's parts share: the pattern set layout, the
 * engine contract that every search loop implements, the backend ops table,
 * and allocation helpers.  Nothing here is installed.
 */
#ifndef HAY_INTERNAL_H
#define HAY_INTERNAL_H

#include "haystack.h"
#include "params.h"

#include <stdbool.h>
#include <string.h>

/* One line per error path: return `err` when `cond` holds. */
#define RETURN_ERROR_IF(cond, err) \
    do { if (cond) return (err); } while (0)
/* Propagate a failing status. */
#define FORWARD_IF_ERROR(expr) \
    do { hay_status fwd_s_ = (expr); if (fwd_s_ < 0) return fwd_s_; } while (0)

/*
 * Emit one match to a sink.  Offsets are absolute; [start, end).  Returns
 * non-zero to stop the scan.
 */
typedef int (*hay_emit_fn)(void *sink, uint32_t id, uint64_t start,
                           uint64_t end);

/*
 * The engine contract: one search loop over one buffer.
 *
 * scan() searches hay[0, len) and reports, in order of non-decreasing end,
 * each match whose end offset (local, exclusive) is greater than min_end.
 * Offsets passed to emit are local + base.  It returns non-zero as soon as
 * emit does.  The chunk driver (chunks.c) gives every engine the same
 * ownership rule: a chunk owns the matches whose last byte lies in it, and
 * the bytes before the chunk that such a match may start in (longest - 1)
 * are handed in as the part of hay below min_end.
 */
typedef struct hay_engine {
    const char *name;
    bool multi;          /* handles more than one pattern */
    hay_status (*build)(hay_patterns *set, void **state);
    void (*destroy)(const hay_patterns *set, void *state);
    int (*scan)(const hay_patterns *set, const void *state,
                const uint8_t *hay, size_t len, size_t min_end,
                uint64_t base, hay_emit_fn emit, void *sink);
    /* Optional: the number of matches scan() would report.  Engines whose
     * states know how many patterns end there count without reporting. */
    uint64_t (*count)(const hay_patterns *set, const void *state,
                      const uint8_t *hay, size_t len, size_t min_end);
} hay_engine;

/* What a scan asks for: a count, counts per pattern, the list, the
 * bitmap of the bytes where matches end (hay_scan_marks), or the first
 * match (hay_scan_first). */
typedef enum hay_ask {
    HAY_ASK_COUNT = 0, HAY_ASK_EACH = 1, HAY_ASK_LIST = 2, HAY_ASK_MARK = 3, HAY_ASK_FIRST = 4
} hay_ask;

/*
 * Pieces handed out by someone else: backend auto's split (src/auto/
 * split.h) gives a device backend's pipeline its pieces from the back of
 * the input, one at a time, and keeps the list matches of each.  A piece
 * owns the matches whose end lies in (gs, ge].
 */
typedef struct hay_piece_source {
    void *src;
    /* The next piece, of at most want bytes; false when none is left. */
    bool (*claim)(void *src, uint64_t want, size_t *piece, uint64_t *gs,
                  uint64_t *ge);
    /* HAY_ASK_LIST: the piece whose matches `collect` (ctx = src) gets next. */
    void (*collect_into)(void *src, size_t piece);
    hay_match_fn collect;
    /* The piece is searched; count: its matches (count asks). */
    void (*done)(void *src, size_t piece, uint64_t count);
} hay_piece_source;

/*
 * One scan by a device backend (hay_backend_ops.run): over a host input or
 * one of the backend's buffers, in one ask.  Replaces a list of sixteen
 * parameters.
 */
typedef struct hay_run {
    const uint8_t *host;        /* host input, or NULL with a buffer */
    const void *buffer;         /* the backend's buffer (buffer_create) */
    uint64_t len;
    const hay_scan_opts *opts;  /* never NULL */
    hay_ask ask;
    hay_match_fn fn;            /* HAY_ASK_LIST */
    void *ctx;
    hay_batch_fn batch;         /* HAY_ASK_LIST in batches (instead of fn):
                                 * hay_run_ask puts a hay_batcher between */
    uint64_t *count;            /* the matches found, any ask (or NULL) */
    uint64_t *counts;           /* HAY_ASK_EACH: set->n counters, zeroed */
    uint64_t *marks;            /* HAY_ASK_MARK: (len + 63) / 64 words, not
                                 * zeroed: each way of answering zeroes them
                                 * (hay_marks_clear) or writes every word */
    hay_match *first;           /* HAY_ASK_FIRST: zeroed; end == 0: none yet */
    const char *note;           /* the stats' note, or NULL */
    double t0;                  /* when the call began (hay_now) */
    const hay_piece_source *pieces;   /* a split's device side, or NULL */
    bool pin;                   /* with pieces: copy the host input where it
                                 * lies (offload->in_place said it may);
                                 * alone, the backend's own params decide */
    unsigned stage_threads;     /* host copy threads; 0: the default */
    uint64_t skip;              /* with a buffer: scan buffer[skip, skip + len)
                                 * as the input (hay_scan_buffer_list resuming;
                                 * offsets relative to skip) */
} hay_run;

typedef struct hay_trie hay_trie;

/*
 * A device backend's state for a set compiled by another backend: backend
 * auto keeps the CPU's engine and makes, on first need, the GPU's (built
 * from the CPU's trie when it has one, so that it is built once).
 */
typedef struct hay_offload_ops {
    /* Starts the device and its context for set (from any thread), so
     * that a later build finds them made. */
    hay_status (*warm_up)(const hay_patterns *set);
    hay_status (*build)(const hay_patterns *set, const hay_trie *trie,
                        void **state);
    void (*destroy)(const hay_patterns *set, void *state);
    hay_status (*run)(const hay_patterns *set, void *state, const hay_run *r);
    /* Whether a host input can be copied where it lies (r.pin). */
    bool (*in_place)(const void *data, uint64_t len);
    /* Whether a buffer of this backend can be scanned with state. */
    bool (*buffer_fits)(const void *state, const void *buffer);
} hay_offload_ops;

/*
 * The backend ops table.  A backend compiles a pattern set into its own
 * state and runs scans and counts over host buffers.  The CPU backend's
 * scan and count are the chunk driver in chunks.c over a hay_engine.  Core
 * (scan.c, buffer.c) applies the match modes on top: a backend reports
 * every occurrence.
 */
typedef struct hay_backend_ops {
    hay_backend id;
    const char *name;
    hay_status (*available)(void);
    int (*device_count)(void);
    hay_status (*describe)(int index, char *buf, size_t cap);
    const char *const *algos;   /* NULL-terminated list of names */
    hay_status (*compile)(hay_patterns *set, const char *algo);
    void (*destroy)(hay_patterns *set);
    /* scan, count and count_each, or run (below), which then serves every
     * ask. */
    hay_status (*scan)(const hay_patterns *set, hay_scratch *scratch,
                       const uint8_t *data, uint64_t len,
                       const hay_scan_opts *opts, hay_match_fn on_match,
                       void *ctx);
    hay_status (*count)(const hay_patterns *set, hay_scratch *scratch,
                        const uint8_t *data, uint64_t len,
                        const hay_scan_opts *opts, uint64_t *count);
    /* Optional: counts per pattern id (counts has set->n entries, zeroed
     * by the caller).  NULL: hay_scan_count_each counts through scan. */
    hay_status (*count_each)(const hay_patterns *set, hay_scratch *scratch,
                             const uint8_t *data, uint64_t len,
                             const hay_scan_opts *opts, uint64_t *counts);
    /* Optional: the marks of hay_scan_marks (marks zeroed by the caller).
     * NULL: set from scan's callback (hay_mark_cb). */
    hay_status (*marks)(const hay_patterns *set, hay_scratch *scratch,
                        const uint8_t *data, uint64_t len,
                        const hay_scan_opts *opts, uint64_t *marks);
    /* Optional: the matches whose end lies in (after, len] of data[0, len)
     * (the bytes below `after` are look-back only), so that a caller
     * counting a sub-range never counts twice and subtracts. */
    hay_status (*count_range)(const hay_patterns *set, hay_scratch *scratch,
                              const uint8_t *data, uint64_t len, uint64_t after,
                              const hay_scan_opts *opts, uint64_t *count);
    /* Optional: the trie of the compiled set (automaton engines), for a
     * device state built from it (hay_offload_ops.build); NULL if none. */
    const hay_trie *(*trie)(const hay_patterns *set);
    /* Optional, backends with buffers of their own (device memory): made
     * by hay_buffer_create; NULL ops: the buffer is the caller's host
     * memory.  run() runs any ask over a host input or one of these
     * buffers (r->buffer); without it a buffer scan is unsupported. */
    hay_status (*buffer_create)(const void *data, uint64_t len, void **buf);
    void (*buffer_free)(void *buf);
    hay_status (*run)(const hay_patterns *set, hay_scratch *scratch,
                      const hay_run *r);
    /* Optional: a state of this backend beside another's (backend auto). */
    const hay_offload_ops *offload;
    /* The parameter key tables (params.h) that a set's params are checked
     * against for engine algo (NULL: the default) and npatterns patterns:
     * at most HAY_BACKEND_PARAM_TABLES written to out; returns how many. */
    size_t (*param_tables)(const char *algo, size_t npatterns,
                           const hay_param_table **out);
} hay_backend_ops;

#define HAY_BACKEND_PARAM_TABLES 8

extern const hay_backend_ops hay_cpu_backend;
/* Whether the CPU backend searches set (algo: hay_compile_opts.algo, NULL
 * for its own choice) with one of its SIMD literal filters (simd, teddy,
 * fdr), whose rates leave a GPU little to win below several GiB. */
bool hay_cpu_literal_filter(const hay_patterns *set, const char *algo);
extern const hay_backend_ops hay_cuda_backend;
extern const hay_backend_ops hay_opencl_backend;
/* Backend auto with no algorithm named: the CPU engines, and large inputs
 * on a device backend when one is usable and pays (src/auto/). */
extern const hay_backend_ops hay_auto_backend;

/* The CPU backend's keys (cpu/params.c): backend auto's tables include
 * them. */
extern const hay_param_table hay_cpu_param_table;

/* The ops table of a backend (NULL for HAY_BACKEND_AUTO): the registry. */
const hay_backend_ops *hay_backend_ops_of(hay_backend b);

/* Fills *st for a scan on backend b with engine algo: zero phases, no
 * energy counter read (-1, "unavailable"), note ("" for NULL). */
void hay_stats_reset(hay_scan_stats *st, hay_backend b, const char *algo,
                     const char *note);

/* The experimental diagnostic hook of hay_scan_opts: formats one line and
 * hands it to opts->log when set; nothing otherwise. */
void hay_log(const hay_scan_opts *opts, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct hay_patterns {
    hay_allocator alloc;
    unsigned flags;
    size_t n;
    uint8_t *bytes;        /* all patterns, back to back */
    size_t *off;           /* pattern i is bytes[off[i] .. off[i] + len[i]) */
    size_t *len;
    size_t min_len, max_len;
    const hay_backend_ops *backend;
    const hay_engine *engine;   /* CPU backend: the search loop */
    void *state;                /* the engine's or backend's compiled state */
    size_t state_memory;        /* bytes the engine reports for its state */
    const char *reason;
    double compile_seconds;
    char *params;               /* copy of hay_compile_opts.params or NULL */
    hay_param_set *param_set;   /* params parsed once, against the tables of
                                 * the backend (hay_set_params) */
    const char *algo_name;      /* device backends: the device's algorithm */
    void *aux;                  /* backend auto: its policy state and the
                                 * GPU's, made on first use (src/auto/) */
    size_t states;              /* automaton states of the engine (0: none) */
    hay_match_mode mode;        /* hay_compile_opts.mode */
    uint64_t size_hint;         /* hay_compile_opts.size_hint */
    hay_param_msg refusal;      /* during compile only: hay_compile_opts.error */
};

/* Says why a backend or engine refuses the set being compiled (the
 * message of hay_compile_opts.error), before it returns
 * HAY_ERR_UNSUPPORTED or HAY_ERR_TOO_LARGE; e.g. "brute takes one
 * pattern (2 given)".  Nothing when the caller gave no buffer. */
void hay_refuse(hay_patterns *set, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline const uint8_t *hay_pat(const hay_patterns *set, size_t i)
{
    return set->bytes + set->off[i];
}

/* The values of table t parsed when the set was compiled, or NULL when
 * the set's backend does not read t. */
static inline const void *hay_set_params(const hay_patterns *set,
                                         const hay_param_table *t)
{
    return hay_param_set_get(set->param_set, t);
}

/* ASCII case folding. */
static inline uint8_t hay_fold(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') ? (uint8_t)(c | 0x20) : c;
}
static inline bool hay_is_alpha(uint8_t c)
{
    return hay_fold(c) >= 'a' && hay_fold(c) <= 'z';
}

/* fold[c] = c, or its ASCII lower case when the set is caseless. */
static inline void hay_fold_table(const hay_patterns *set, uint8_t fold[256])
{
    bool caseless = set->flags & HAY_CASELESS;
    for (int c = 0; c < 256; c++)
        fold[c] = caseless ? hay_fold((uint8_t)c) : (uint8_t)c;
}

/*
 * The bad-character shift of Boyer-Moore and Horspool: the distance from
 * the last occurrence of byte c in pat[0, m-1) to the end, m if absent.
 * `pat` is already folded; a caseless table gives upper case letters the
 * shift of their lower case.
 */
static inline void hay_bad_char_table(const uint8_t *pat, size_t m,
                                      bool caseless, size_t shift[256])
{
    for (int c = 0; c < 256; c++)
        shift[c] = m;
    for (size_t i = 0; i + 1 < m; i++)
        shift[pat[i]] = m - 1 - i;
    if (caseless)
        for (int c = 'A'; c <= 'Z'; c++)
            shift[c] = shift[c | 0x20];
}

/* Byte comparison, exact or ASCII-caseless. */
static inline bool hay_eq(const uint8_t *a, const uint8_t *b, size_t n,
                          bool caseless)
{
    if (!caseless)
        return memcmp(a, b, n) == 0;
    for (size_t i = 0; i < n; i++)
        if (hay_fold(a[i]) != hay_fold(b[i]))
            return false;
    return true;
}

/* Allocation through the set's allocator.  hay_calloc zeroes. */
void *hay_malloc(const hay_allocator *a, size_t size);
void *hay_calloc(const hay_allocator *a, size_t n, size_t size);
void *hay_realloc(const hay_allocator *a, void *p, size_t old_size,
                  size_t new_size);
void hay_free(const hay_allocator *a, void *p);

/*
 * The trie of a pattern set (the goto function of Aho-Corasick), in CSR
 * form: state 0 is the root; the edges of state s are
 * [edge_first[s], edge_first[s + 1]), sorted by byte; the ids of the
 * patterns that end exactly at s are out_id[out_first[s] .. out_first[s + 1])
 * in increasing order.  Bytes are folded by `fold` before insertion.
 * Built by ac.c; the Aho-Corasick, DFA and PFAC tables all start from it.
 */
struct hay_trie {
    uint32_t nstates;
    uint32_t *edge_first;   /* nstates + 1 */
    uint8_t *edge_byte;
    uint32_t *edge_to;
    uint32_t *out_first;    /* nstates + 1 */
    uint32_t *out_id;       /* n */
    size_t memory;
};

hay_status hay_trie_build(const hay_patterns *set, const uint8_t fold[256],
                          hay_trie *out);
void hay_trie_free(const hay_allocator *a, hay_trie *t);

/* Byte classes of a trie, shared by the DFA and PFAC tables: every byte on
 * some edge gets a class of its own, numbered from 1 in increasing byte
 * order (so edges sorted by byte are sorted by class), and class 0 holds
 * the bytes on no edge; when all 256 bytes occur, the classes are the
 * bytes themselves.  class_of[b] is the class of edge byte b, cls[c] the
 * class of input byte c (through fold).  Returns the number of classes. */
uint32_t hay_trie_classes(const hay_trie *t, const uint8_t fold[256],
                          uint8_t class_of[256], uint8_t cls[256]);

/*
 * PFAC (failureless Aho-Corasick, pfac-opencl-mobile-energy.txt section
 * 3.1): the trie alone, walked from every start position until it has no
 * edge for the next byte.  No transition leads back to the root, so state
 * 0 doubles as "stop" in every table.  States are renumbered so that the
 * final states (where at least one pattern ends) are 1 .. nfinal: a walk
 * tests `s <= nfinal` to know it must report.
 *
 * Two forms of the transition function, both over byte classes (cls maps a
 * byte, after ASCII folding for caseless sets, to its class; class 0 holds
 * the bytes that occur in no pattern, which have no edges, except when all
 * 256 byte values occur: then classes are the bytes themselves):
 *   dense    next[s * nclasses + cls[c]], the classic PFAC table; NULL when
 *            it would exceed the budget given to hay_pfac_build
 *   compact  the CSR edge lists of the trie, by class, sorted (always built)
 * root[c] is the root's row by byte, for the first step of every walk.
 * Outputs: the pattern ids ending at final state s are
 * out_id[out_first[s] .. out_first[s + 1]) (s in 1 .. nfinal).
 * depth[s] is the length of the string that leads to s (the match length).
 */
typedef struct hay_pfac {
    uint32_t nstates, nfinal, nclasses;
    uint32_t max_len, min_len;
    uint8_t cls[256];
    uint32_t root[256];
    uint32_t *next;          /* dense table or NULL */
    uint32_t *edge_first;    /* nstates + 1 */
    uint8_t *edge_cls;
    uint32_t *edge_to;
    uint32_t *out_first;     /* nfinal + 2: entries for states 0 .. nfinal + 1 */
    uint32_t *out_id;        /* n */
    uint32_t *depth;         /* nstates */
    size_t dense_bytes;      /* size of next (or what it would have been) */
    size_t memory;           /* bytes held, all arrays */
    double build_seconds;
} hay_pfac;

/* Builds the PFAC tables of `set`; the dense table only when it takes at
 * most dense_budget bytes.  Free with hay_pfac_free(). */
hay_status hay_pfac_build(const hay_patterns *set, size_t dense_budget,
                          hay_pfac **out);
/* The same from a trie built already (with hay_fold_table(set)'s folding). */
hay_status hay_pfac_build_from(const hay_patterns *set, const hay_trie *t,
                               size_t dense_budget, hay_pfac **out);
void hay_pfac_free(const hay_patterns *set, hay_pfac *p);

/* The compact transition of PFAC: the next state from s on class k, 0 for
 * stop. */
static inline uint32_t hay_pfac_step_compact(const hay_pfac *p, uint32_t s,
                                             uint8_t k)
{
    uint32_t lo = p->edge_first[s], hi = p->edge_first[s + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->edge_cls[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < p->edge_first[s + 1] && p->edge_cls[lo] == k) ? p->edge_to[lo] : 0;
}

/* CPU engines. */
extern const hay_engine hay_engine_naive;
extern const hay_engine hay_engine_bm;
extern const hay_engine hay_engine_horspool;
extern const hay_engine hay_engine_simd;
extern const hay_engine hay_engine_ac;
extern const hay_engine hay_engine_dfa;
extern const hay_engine hay_engine_pfac;
extern const hay_engine hay_engine_teddy;
extern const hay_engine hay_engine_fdr;

/*
 * The leftmost match modes (leftmost.c): a filter between a backend's
 * ordered stream of all occurrences and the caller's callback.
 * hay_leftmost_match is a hay_match_fn taking the filter as ctx; flush
 * reports what is still pending at the end of the input (non-zero when the
 * callback stopped).
 */
typedef struct hay_leftmost hay_leftmost;
hay_status hay_leftmost_create(const hay_patterns *set, hay_match_fn fn,
                               void *ctx, hay_leftmost **out);
int hay_leftmost_match(uint32_t id, uint64_t start, uint64_t end, void *ctx);
int hay_leftmost_flush(hay_leftmost *f);
void hay_leftmost_free(hay_leftmost *f);

/*
 * Every scan call of the public API ends here (scan.c): one ask over a
 * host input (r->host) or a device buffer (r->buffer, scanned by
 * set->backend->run), with the set's match mode applied the same way for
 * every backend.  r->opts is set; counts are zeroed by the caller.  The
 * scratch is held for the call: HAY_ERR_SCRATCH_IN_USE when it is held.
 */
hay_status hay_run_ask(const hay_patterns *set, hay_scratch *scratch,
                       const hay_run *r);

/*
 * Batched delivery (batch.c): a hay_batcher collects matches into m[0, n)
 * (HAY_BATCH_MAX entries) and hands them to fn when full; hay_batch_match
 * is the hay_match_fn (ctx = the batcher) every backend can be given.
 * Delivery loops that hold ordered arrays check hay_batcher_of(fn, ctx)
 * and put into the batch directly.  Once fn has returned non-zero every
 * put and flush returns 1 and delivers nothing more.
 */
typedef struct hay_batcher {
    hay_batch_fn fn;
    void *ctx;
    hay_match *m;
    size_t n;
    bool stopped;
    uint64_t flushed;   /* matches handed over so far (+ n: all put) */
} hay_batcher;

/* Starts a batcher on the array *keep (allocated with a on first use,
 * kept by the caller for the next scan). */
hay_status hay_batcher_init(hay_batcher *b, const hay_allocator *a, hay_match **keep,
                            hay_batch_fn fn, void *ctx);
/* Hands what is held to fn; non-zero when fn stopped (now or before). */
int hay_batch_flush(hay_batcher *b);
int hay_batch_match(uint32_t id, uint64_t start, uint64_t end, void *ctx);
/* Flushes what is held, then hands m[0, n) (the caller's records, in
 * order) to fn in slices of at most HAY_BATCH_MAX, without copying them;
 * non-zero when fn stopped (now or before).  hay_batch_puts counts them. */
int hay_batch_give(hay_batcher *b, const hay_match *m, size_t n);

/* One match into the batch (a put after a stop is held, never handed
 * over: flush refuses). */
static inline int hay_batch_put(hay_batcher *b, uint32_t id, uint64_t start,
                                uint64_t end)
{
    size_t n = b->n;
    hay_match *m = b->m + n;
    m->id = id;
    m->reserved = 0;
    m->start = start;
    m->end = end;
    b->n = ++n;
    return n == HAY_BATCH_MAX ? hay_batch_flush(b) : 0;
}

/* Matches put so far. */
static inline uint64_t hay_batch_puts(const hay_batcher *b)
{
    return b->flushed + b->n;
}

/*
 * For loops over an array of ordered matches: the free part of the batch
 * (*room entries, at least 1; NULL once fn has stopped), filled in place,
 * then commit(k) for the k entries written (flushes when full).  No call
 * and no batcher field touched per match.
 */
static inline hay_match *hay_batch_room(hay_batcher *b, size_t *room)
{
    *room = HAY_BATCH_MAX - b->n;
    return b->stopped ? NULL : b->m + b->n;
}

static inline int hay_batch_commit(hay_batcher *b, size_t k)
{
    b->n += k;
    return b->n == HAY_BATCH_MAX ? hay_batch_flush(b) : 0;
}

/* The batcher behind a match callback, or NULL when it is not one. */
static inline hay_batcher *hay_batcher_of(hay_match_fn fn, void *ctx)
{
    return fn == hay_batch_match ? (hay_batcher *)ctx : NULL;
}

/* The chunk driver (chunks.c): threads, chunks and the ownership rule over
 * set->engine; the CPU backend's scan and counts (src/cpu/backend.c). */
hay_status hay_chunk_scan(const hay_patterns *set, hay_scratch *scratch,
                          const uint8_t *data, uint64_t len,
                          const hay_scan_opts *o, hay_match_fn fn, void *ctx);
/* A callback as an emit function's sink (hay_emit_to). */
typedef struct hay_cb_sink {
    hay_match_fn fn;
    void *ctx;
} hay_cb_sink;
/* The emit function and sink that reach fn(ctx): straight into the batch
 * when fn is a batcher's, else through *cb. */
hay_emit_fn hay_emit_to(hay_match_fn fn, void *ctx, hay_cb_sink *cb, void **sink);
/* Runs set's engine over data[.., e), reporting the matches ending in
 * (after, e] (the ownership rule) with offsets relative to data plus base;
 * non-zero when emit stopped it. */
int hay_scan_range_at(const hay_patterns *set, const uint8_t *data, uint64_t base,
                      uint64_t after, uint64_t e, hay_emit_fn emit, void *sink);
/* The matches ending in (after, len]; after = 0 counts them all. */
hay_status hay_chunk_count(const hay_patterns *set, hay_scratch *scratch,
                           const uint8_t *data, uint64_t len, uint64_t after,
                           const hay_scan_opts *o, uint64_t *count);

/* A match callback that adds one to ((uint64_t *)ctx)[id]: counts per
 * pattern through a scan (scan.c). */
int hay_count_each_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx);
/* A match callback that sets the bit of byte end - 1 in the bitmap ctx
 * (uint64_t words): marks through a scan (scan.c). */
int hay_mark_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx);
/* A match callback that keeps the match in ctx (a hay_match) and stops
 * the scan: the first match through a scan (scan.c). */
int hay_first_cb(uint32_t id, uint64_t start, uint64_t end, void *ctx);
/* Zeroes the bitmap of a marks ask (before its bits are set one by one). */
static inline void hay_marks_clear(const hay_run *r)
{
    memset(r->marks, 0, (size_t)((r->len + 63) / 64) * sizeof *r->marks);
}
/* Sets byte end - 1's bit in marks (uint64_t words). */
static inline void hay_mark_set(uint64_t *marks, uint64_t end)
{
    marks[(end - 1) >> 6] |= (uint64_t)1 << ((end - 1) & 63);
}
/* An ask answered from a backend's scan, count and count_each ops, which
 * need not be b's own set's (backend auto's CPU side): every occurrence,
 * no match mode applied. */
hay_status hay_run_host_ops(const hay_backend_ops *b, const hay_patterns *set,
                            hay_scratch *scratch, const hay_run *r);
/* The marks of the CPU chunk driver (chunks.c): chunks of multiples of 64
 * bytes on the scan's threads, so that no two write the same word. */
hay_status hay_chunk_marks(const hay_patterns *set, hay_scratch *scratch,
                           const uint8_t *data, uint64_t len,
                           const hay_scan_opts *o, uint64_t *marks);

/* Monotonic seconds. */
double hay_now(void);

/* Number of online cores (at least 1), read once per process. */
unsigned hay_cpu_count(void);

/* The threads a scan runs for a request (0: every core), clamped to
 * min(4 x hay_cpu_count(), HAY_MAX_THREADS) as haystack.h promises. */
unsigned hay_thread_cap(unsigned requested);

/* Internal hooks exposed for unit tests (declared in tests too). */
typedef struct hay_bm_tables {
    size_t bad_char[256];
    size_t *good_suffix;   /* m entries */
    size_t *suffix;        /* m entries */
} hay_bm_tables;
const hay_bm_tables *hay_bm_tables_of(const hay_patterns *set);

#endif
