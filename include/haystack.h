/*
 * haystack.h - public API of libhaystack, fast exact string matching.
 *
 * Introduction
 * ------------
 * libhaystack finds every occurrence of a set of literal byte strings
 * ("patterns") in a byte buffer ("haystack").  Patterns are bytes with an
 * explicit length, so they may contain NUL; the haystack is bytes plus a
 * length and may be larger than 4 GiB.
 *
 * Three objects with three lifetimes:
 *   hay_patterns  a compiled, immutable pattern set.  Any number of threads
 *                 may scan with one set at the same time.
 *   hay_scratch   per-thread working memory.  One scratch may be used by one
 *                 scan at a time; give every thread its own.  A scan that
 *                 finds its scratch in use (by another thread, or by the
 *                 scan whose match callback it is called from) returns
 *                 HAY_ERR_SCRATCH_IN_USE and does nothing.
 *   hay_stream    a scan over data that arrives in pieces.
 *
 * Matches go to a callback (pattern id, start offset, end offset); a
 * non-zero return stops the scan.  Pattern ids are the indices of the
 * patterns in the array given to hay_patterns_compile().
 *
 * Every function returns a hay_status: HAY_OK (0), HAY_STOPPED (1) when the
 * callback asked to stop, or a negative error code; hay_strerror() turns it
 * into text.  The library never prints, exits or aborts.  Every _free
 * function accepts NULL.
 *
 * Parts marked EXPERIMENTAL (device-resident buffers, engine parameters,
 * the split fields of hay_scan_stats) are tuning and measuring tools: they
 * may change or go away in any release.
 *
 * Simple API
 * ----------
 *   hay_pattern p = { "needle", 6 };
 *   hay_patterns *set;  hay_scratch *s;  uint64_t n;
 *   hay_patterns_compile(&p, 1, NULL, &set);
 *   hay_scratch_create(set, &s);
 *   hay_scan_count(set, s, buf, len, NULL, &n);
 *   hay_scratch_free(s);  hay_patterns_free(set);
 */
#ifndef HAYSTACK_H
#define HAYSTACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * HAY_API marks the functions of the public API.  The library is built with
 * hidden visibility, so these are the only symbols the shared library
 * exports; everything else in it is internal and may change at any time.
 */
#ifndef HAY_API
#if defined(__GNUC__) || defined(__clang__)
#define HAY_API __attribute__((visibility("default")))
#else
#define HAY_API
#endif
#endif

#define HAY_VERSION_MAJOR 0
#define HAY_VERSION_MINOR 1
#define HAY_VERSION_PATCH 0
#define HAY_VERSION_STRING "0.1.0"

/* Library version as "MAJOR.MINOR.PATCH". */
HAY_API const char *hay_version(void);

/* ------------------------------------------------------------------------
 * Status codes
 * ---------------------------------------------------------------------- */
typedef enum hay_status {
    HAY_OK = 0,
    HAY_STOPPED = 1,              /* the match callback returned non-zero */
    HAY_ERR_NOMEM = -1,           /* an allocation failed */
    HAY_ERR_INVALID = -2,         /* a bad argument (NULL, zero length, ...) */
    HAY_ERR_UNSUPPORTED = -3,     /* the algorithm cannot handle this request */
    HAY_ERR_NO_BACKEND = -4,      /* backend not compiled into this build */
    HAY_ERR_NO_DEVICE = -5,       /* backend built, but no usable device */
    HAY_ERR_DEVICE = -6,          /* a device call failed */
    HAY_ERR_UNKNOWN_NAME = -7,    /* unknown backend or algorithm name */
    HAY_ERR_TOO_LARGE = -8,       /* a size exceeds a documented limit */
    HAY_ERR_STATE = -9,           /* call out of order (e.g. write after close) */
    HAY_ERR_SCRATCH_IN_USE = -10  /* the scratch is in use by another scan */
} hay_status;

/* A static, human-readable description of a status.  Never NULL. */
HAY_API const char *hay_strerror(hay_status status);

/* ------------------------------------------------------------------------
 * Allocation
 *
 * Optional.  When given to hay_patterns_compile(), these functions serve the
 * host memory of the CPU backend: the pattern set (its copy of the patterns,
 * the engine's tables and automaton), the scratches and streams created from
 * it, and what scans keep in them (match buffers, leftmost-mode state).  The
 * allocator must outlive all those objects.
 *
 * They do not serve, and malloc does: what backend auto keeps beside the CPU
 * engine (a small record per set, the CPU+GPU split's per-scan state); the
 * host memory of the CUDA and OpenCL backends (device memory and pinned
 * staging come from their drivers); device-resident buffers; energy
 * counters; the alignment functions of haystack_align.h.  The C library, the
 * OpenMP runtime and the GPU drivers allocate for themselves.
 * ---------------------------------------------------------------------- */
typedef struct hay_allocator {
    void *(*alloc)(size_t size, void *ctx);   /* return NULL on failure */
    void (*free)(void *ptr, void *ctx);       /* ptr may be NULL */
    void *ctx;
} hay_allocator;

/* ------------------------------------------------------------------------
 * Backends and algorithms
 * ---------------------------------------------------------------------- */
typedef enum hay_backend {
    HAY_BACKEND_AUTO = 0,   /* best available; the choice is reported */
    HAY_BACKEND_CPU = 1,
    HAY_BACKEND_CUDA = 2,
    HAY_BACKEND_OPENCL = 3
} hay_backend;

/*
 * Algorithms are named.  "auto" (or NULL) picks the best one for the pattern
 * set.  CPU names:
 *   "naive"     the oracle: every position, every pattern; any pattern count;
 *               O(input x total pattern length), kept simple on purpose
 *   "bm"        Boyer-Moore, bad-character and good-suffix rules, Galil's
 *               rule after a match; 1 pattern
 *   "horspool"  Boyer-Moore-Horspool; 1 pattern
 *   "simd"      two rare bytes compared 32 (AVX2) or 16 (SSE2) positions at
 *               a time, then verified; 1 pattern
 *               bm, horspool and simd take time linear in the input whatever
 *               it holds (horspool and simd hand periodic stretches to a
 *               KMP search when verifying costs too much)
 *   "ac"        Aho-Corasick automaton; any pattern count
 *   "dfa"       Aho-Corasick with every transition precomputed (byte classes);
 *               refused with HAY_ERR_TOO_LARGE over its table budget
 *   "pfac"      PFAC, the failureless automaton walked from every start
 *               (the GPU algorithm, on CPU threads); any pattern count;
 *               each start walks as far as a pattern matches, so a long
 *               periodic pattern over a periodic input costs input x length
 *   "teddy"     nibble-shuffle fingerprints of the first 1..3 bytes in
 *               8 buckets, 32 (AVX2) or 16 (SSSE3) positions at a time,
 *               then verified; at most 64 patterns (more: HAY_ERR_TOO_LARGE)
 * The CPU backend's engine parameters (hay_compile_opts.params):
 *   dfa_budget=BYTES    largest DFA table; "auto" takes the DFA when it
 *                       fits, else the compact "ac"
 *   pfac_budget=BYTES   largest dense PFAC table; above it PFAC walks its
 *                       compact edge lists
 * Both default to a sixteenth of physical memory, between 64M and 1G.
 * BYTES takes an optional K, M or G suffix (powers of 1024).  EXPERIMENTAL,
 * as every engine parameter.
 *
 * Every params string has one grammar: "key=value" items separated by
 * commas, blanks around items, keys and values ignored; an empty item, an
 * item without '=', a key given twice, an unknown key or a bad value is
 * HAY_ERR_INVALID (hay_compile_opts.error says which).
 *
 * The OpenCL backend keeps its compiled kernels on disk, in $HAY_CACHE_DIR,
 * else $XDG_CACHE_HOME/haystack, else $HOME/.cache/haystack (each entry
 * checksummed: a damaged one is rebuilt and rewritten), and writes
 * the kernel compiler's messages to the file $HAY_OPENCL_BUILD_LOG names,
 * if set; the library writes no other file.
 */

/* Name of a backend ("auto", "cpu", "cuda", "opencl"); "?" if out of range. */
HAY_API const char *hay_backend_name(hay_backend backend);

/* Parse a backend name.  Returns HAY_ERR_UNKNOWN_NAME if not recognised. */
HAY_API hay_status hay_backend_parse(const char *name, hay_backend *out);

/*
 * Whether a backend can run here: HAY_OK, HAY_ERR_NO_BACKEND (not built in)
 * or HAY_ERR_NO_DEVICE (built in, no device).  Probing the CUDA backend
 * creates no context.
 */
HAY_API hay_status hay_backend_available(hay_backend backend);

/*
 * Devices of a backend: *count is set to how many can run here (the CPU
 * backend has one; 0 when the backend is unavailable).
 */
HAY_API hay_status hay_device_count(hay_backend backend, int *count);

/*
 * Writes a one-line description of device `index` of a backend (name and
 * main properties) into buf[0, cap), NUL-terminated and truncated to fit.
 */
HAY_API hay_status hay_device_describe(hay_backend backend, int index,
                                       char *buf, size_t cap);

/*
 * Lists the algorithm names of a backend, one by one: *name is set to the
 * i-th name, or the call returns HAY_ERR_INVALID when i is past the end.
 */
HAY_API hay_status hay_algo_name(hay_backend backend, size_t i,
                                 const char **name);

/* ------------------------------------------------------------------------
 * Pattern sets
 * ---------------------------------------------------------------------- */
typedef struct hay_pattern {
    const void *data;  /* the bytes; need not be NUL-terminated */
    size_t len;        /* 1 .. HAY_MAX_PATTERN_LEN */
} hay_pattern;

#define HAY_MAX_PATTERN_LEN 65536u
#define HAY_MAX_PATTERNS 1000000u

/*
 * Match modes.  HAY_MATCH_ALL reports every occurrence, overlapping ones
 * included.  The two others report non-overlapping matches, scanning from
 * left to right: the match that starts leftmost (at or after the end of
 * the previous one) and, among those starting there, the pattern given
 * first (lowest id: LEFTMOST_FIRST) or the longest, then lowest id
 * (LEFTMOST_LONGEST, what grep -o prints).  They apply to hay_scan,
 * hay_scan_count, hay_scan_count_each, hay_scan_marks, hay_scan_first and
 * streams, on every backend.
 */
typedef enum hay_match_mode {
    HAY_MATCH_ALL = 0,
    HAY_MATCH_LEFTMOST_FIRST = 1,
    HAY_MATCH_LEFTMOST_LONGEST = 2
} hay_match_mode;

/* Compile flags. */
#define HAY_CASELESS 1u    /* ASCII letters match either case */

typedef struct hay_compile_opts {
    unsigned flags;               /* HAY_CASELESS, ... */
    hay_backend backend;          /* default HAY_BACKEND_AUTO */
    const char *algo;             /* NULL or "auto" for automatic */
    const hay_allocator *alloc;   /* NULL for malloc/free */
    /* Engine parameters as "key=value" pairs separated by commas (for
     * example the GPU kernels' block size and bytes per thread); NULL for
     * the defaults.  Each engine documents its keys; an unknown key or a
     * bad value makes hay_patterns_compile() return HAY_ERR_INVALID.  The
     * string is copied.  EXPERIMENTAL: keys, ranges and defaults are
     * tuning knobs and may change in any release. */
    const char *params;
    /* Which matches scans report; default HAY_MATCH_ALL. */
    hay_match_mode mode;
    /* NULL, or a buffer of error_cap bytes that hay_patterns_compile()
     * sets to "" and, when it refuses `params`, to a one-line message
     * naming the key and what it allows (for an unknown key: the keys
     * this backend and algorithm read); when the algorithm refuses the
     * set (HAY_ERR_UNSUPPORTED, HAY_ERR_TOO_LARGE), to why (e.g. "brute
     * takes one pattern (2 given); pfac takes any number"). */
    char *error;
    size_t error_cap;
    /* The bytes one scan with this set is expected to cover (the size of
     * the file to be searched, say), or 0 when unknown (the default).  A
     * hint, never a limit: backend auto uses it to start the GPU while
     * the CPU engine is built when the input may go there. */
    uint64_t size_hint;
} hay_compile_opts;

/* Fills *opts with the defaults (auto backend, auto algorithm, no flags). */
HAY_API void hay_compile_opts_init(hay_compile_opts *opts);

typedef struct hay_patterns hay_patterns;

/*
 * Compiles n patterns (1 .. HAY_MAX_PATTERNS) into *out.  The pattern bytes
 * are copied: the caller's array may be freed afterwards.  opts may be NULL.
 * Duplicate patterns are allowed and each id is reported.
 * On error *out is set to NULL.  Free the set with hay_patterns_free().
 */
HAY_API hay_status hay_patterns_compile(const hay_pattern *patterns, size_t n,
                                        const hay_compile_opts *opts,
                                        hay_patterns **out);

HAY_API void hay_patterns_free(hay_patterns *set);

/* What was compiled: the choices made and their reasons. */
typedef struct hay_patterns_info {
    hay_backend backend;      /* the backend that runs scans */
    const char *algo;         /* the algorithm that runs scans */
    const char *reason;       /* why auto chose them (static text) */
    size_t count;             /* number of patterns */
    size_t min_len, max_len;  /* shortest and longest pattern */
    size_t memory;            /* bytes held by the compiled set */
    double compile_seconds;   /* time spent in hay_patterns_compile */
    size_t states;            /* automaton states (0 for engines without) */
} hay_patterns_info;

HAY_API hay_status hay_patterns_info_get(const hay_patterns *set,
                                         hay_patterns_info *info);

/* ------------------------------------------------------------------------
 * Scratch
 * ---------------------------------------------------------------------- */
typedef struct hay_scratch hay_scratch;

/*
 * Creates per-thread working memory for scans with `set` (and with any set
 * compiled with the same allocator).  Free with hay_scratch_free().
 */
HAY_API hay_status hay_scratch_create(const hay_patterns *set,
                                      hay_scratch **out);
HAY_API void hay_scratch_free(hay_scratch *scratch);

/* ------------------------------------------------------------------------
 * Scanning
 * ---------------------------------------------------------------------- */

/*
 * Match callback.  `start` and `end` are byte offsets in the haystack
 * (or, for streams, since the stream was opened); the match occupies
 * [start, end).  Return 0 to go on, non-zero to stop the scan, which then
 * returns HAY_STOPPED.  Callbacks always come from the calling thread.
 *
 * Order: matches are reported in order of non-decreasing `end`; matches
 * with the same end come in an unspecified but deterministic order.  For a
 * single pattern this is also the order of `start`.  Overlapping matches are
 * all reported.  In the leftmost modes matches do not overlap and
 * come in order of start (and so of end).
 */
typedef int (*hay_match_fn)(uint32_t id, uint64_t start, uint64_t end,
                            void *ctx);

/*
 * Batches of matches.  hay_scan_batch, hay_scan_buffer_batch and
 * hay_stream_open_batch report the same matches, in the same order, as
 * their per-match counterparts, but as arrays: the callback receives
 * m[0, n) with 1 <= n <= HAY_BATCH_MAX, and then the next matches in the
 * next call.  A non-zero return stops the scan (HAY_STOPPED): no further
 * batch comes, and the matches after those of the stopping batch are not
 * reported.  The array belongs to the library and is valid only during the
 * call (copy what you keep).  Callbacks come from the calling thread.  A
 * batch ends where the library's delivery runs out (a piece of the input,
 * the end of a stream write), not only when it is full: do not rely on its
 * size.  The memory the library holds for batches is bounded whatever the
 * number of matches: HAY_BATCH_MAX matches per scan, and for CUDA scans with
 * more than one thread two rounds of converted matches (2 x 32,768 per
 * helper thread, 1.5 MiB with one helper).
 *
 * hay_match is 24 bytes, 8-byte aligned: the 32-bit id, 32 bits of
 * explicit padding (always 0) and the two 64-bit offsets, so an array of
 * them has no hidden holes.  [start, end) as for hay_match_fn.
 *
 * A callback keeps one pass over the input and bounded memory, but its
 * work runs on the calling thread, one record at a time.  To have the
 * matches written into arrays of your own instead (by several threads),
 * see hay_scan_list below.
 */
#define HAY_BATCH_MAX 4096u

typedef struct hay_match {
    uint32_t id;
    uint32_t reserved;   /* 0 */
    uint64_t start, end;
} hay_match;

typedef int (*hay_batch_fn)(const hay_match *m, size_t n, void *ctx);

/* Progress callback for long scans: bytes done so far out of total. */
typedef void (*hay_progress_fn)(uint64_t done, uint64_t total, void *ctx);

typedef enum hay_schedule {
    HAY_SCHEDULE_DYNAMIC = 0,  /* threads take fixed-size chunks as they go */
    HAY_SCHEDULE_STATIC = 1    /* one equal share of the input per thread */
} hay_schedule;

/*
 * What one scan cost, phase by phase (filled when hay_scan_opts.stats is
 * set).  Times are wall seconds; on a GPU the copy and kernel phases of
 * different pieces overlap, so their sum may exceed total_seconds.  A
 * phase that did not happen is 0; energy_joules is negative when no energy
 * counter could be read.
 */
typedef struct hay_scan_stats {
    hay_backend backend;       /* where the scan ran */
    const char *algo;          /* the engine that ran (static text) */
    double init_seconds;       /* device start-up paid by this call (first use) */
    double prepare_seconds;    /* pattern tables moved to the device */
    double copy_in_seconds;    /* host to device */
    double kernel_seconds;     /* search kernels */
    double copy_out_seconds;   /* results back to the host */
    double total_seconds;      /* the whole call */
    uint64_t bytes;            /* haystack bytes searched */
    uint64_t matches;          /* matches found (before any callback stop) */
    double energy_joules;      /* device energy over the call, or < 0 */
    /* Energy of each phase above, or < 0 when no counter could be read
     * (OpenCL on NVIDIA devices: NVML).  A counter that advances every few
     * milliseconds makes short phases coarse. */
    double init_joules, prepare_joules, copy_in_joules, kernel_joules,
           copy_out_joules;
    const char *energy_method; /* "energy-counter", "power-sampling",
                                  "unavailable" (static text), or NULL */
    /* Why the scan ran where it did (backend auto: "input below the GPU
     * threshold", "no usable GPU: ..."); static text, "" when nothing to
     * say. */
    const char *note;
    /* Backend auto's split (one input shared by the CPU threads and the
     * GPU): the bytes each side searched and the seconds each spent (the
     * GPU's from its thread's start, device start-up included when this
     * scan paid it); all 0 when the scan was not split.  EXPERIMENTAL. */
    uint64_t split_cpu_bytes, split_gpu_bytes;
    double split_cpu_seconds, split_gpu_seconds;
} hay_scan_stats;

/*
 * Threads: a scan runs at most min(4 x the online cores, HAY_MAX_THREADS)
 * threads; a larger hay_scan_opts.threads (or hay_align_options.threads)
 * is clamped to that, so that a wild value never costs more than thread
 * creation can give (the OpenMP runtime ends the process when it cannot
 * start a thread).
 */
#define HAY_MAX_THREADS 1024u

typedef struct hay_scan_opts {
    unsigned threads;          /* 0 = all cores, 1 = serial; clamped (above) */
    hay_schedule schedule;     /* for threads > 1 */
    size_t chunk_size;         /* dynamic chunk size in bytes; 0 = default */
    hay_progress_fn progress;  /* may be NULL */
    void *progress_ctx;
    hay_scan_stats *stats;     /* NULL, or filled in by the scan */
    /* Experimental: where the library's diagnostic timelines go (backend
     * auto's split, the CUDA driver's pinning of host memory), one line
     * per call without a newline, from any thread; NULL (the default):
     * none are made.  The library itself never prints. */
    void (*log)(const char *line, void *ctx);
    void *log_ctx;
    /* Experimental: the caller's own pass over the haystack (a look for
     * NUL bytes, a count of lines) done beside the scan, by the threads
     * that scan it, while the data is in their caches.  Called with parts
     * [start, end) of data, each part at most once, from any of the scan's
     * threads, several at once and in any order, each before any match
     * ending in it reaches the callback.  hay_scan and hay_scan_batch on
     * the CPU backend (and backend auto when it scans on the CPU) call it
     * for every part of a partition of [0, len); other calls and backends
     * may leave out any part, so the caller does the work itself for what
     * it was not given.  NULL (the default): none. */
    void (*on_part)(const void *data, uint64_t start, uint64_t end, void *ctx);
    void *part_ctx;
} hay_scan_opts;

/* Fills *opts with the defaults (all cores, dynamic, default chunks). */
HAY_API void hay_scan_opts_init(hay_scan_opts *opts);

/*
 * Reports every occurrence of every pattern in data[0, len) to `on_match`.
 * `opts` may be NULL for the defaults.  With several threads the input is
 * cut into chunks that overlap by (longest pattern - 1) bytes; every match
 * is still reported exactly once and in the documented order.
 * Returns HAY_OK, HAY_STOPPED, or an error.
 */
HAY_API hay_status hay_scan(const hay_patterns *set, hay_scratch *scratch,
                            const void *data, uint64_t len,
                            const hay_scan_opts *opts, hay_match_fn on_match,
                            void *ctx);

/* hay_scan with the matches in batches (hay_batch_fn above). */
HAY_API hay_status hay_scan_batch(const hay_patterns *set, hay_scratch *scratch,
                                  const void *data, uint64_t len,
                                  const hay_scan_opts *opts, hay_batch_fn on_batch,
                                  void *ctx);

/*
 * The match list in the caller's arrays (a struct of arrays: a NumPy
 * binding hands its arrays straight in).  Matches i in [0, n) are
 * (ids[i], starts[i], ends[i]), in the order of hay_scan (end, then the
 * same tie order).  starts and ends may be NULL when not wanted; ids may
 * not.  Entries at n and past it may have been written (they hold nothing
 * of use).
 */
typedef struct hay_match_list {
    uint32_t *ids;
    uint64_t *starts;     /* or NULL */
    uint64_t *ends;       /* or NULL */
    size_t cap;           /* entries in each array, at least 1 */
    size_t n;             /* out: matches stored */
    uint64_t done;        /* out: every match with from < end <= done is
                           * stored; == len once the list is complete */
} hay_match_list;

/*
 * The arrays of a list of cap entries, made for a backend: ids always,
 * starts with HAY_LIST_STARTS, ends with HAY_LIST_ENDS in flags (the
 * others NULL); list->cap = cap, n and done 0.  For HAY_BACKEND_CUDA and
 * HAY_BACKEND_AUTO, when a CUDA device is usable, the arrays are
 * page-locked host memory (cudaHostAlloc, portable and mapped), which the
 * CUDA backend's hay_scan_list fills from the device (each piece's matches
 * converted there and copied in by DMA, with no work per match on the
 * host); otherwise, or when pinning fails, ordinary memory.  Any backend
 * may fill them, and the caller reads and writes them as ordinary memory.
 * Free them with hay_match_list_free (only arrays made here).
 *
 * Returns HAY_OK, HAY_ERR_NOMEM, or HAY_ERR_INVALID (no list, cap 0,
 * unknown flags); on failure the list is zeroed.
 *
 * Device memory: hay_scan_list also takes arrays in the device memory of
 * the set's device (the caller's own cudaMalloc'd pointers, or those of
 * CuPy or PyTorch, put in ids, starts and ends; all of them device memory,
 * none mixed with host memory), which the CUDA backend writes on the
 * device, so no match crosses to the host; n and done come back as
 * usual.  Only a set compiled for HAY_BACKEND_CUDA takes them: on any
 * other backend (auto included) the call returns HAY_ERR_INVALID, and
 * says why through hay_scan_opts.log.  The call has finished writing them
 * when it returns.
 */
#define HAY_LIST_STARTS 1u
#define HAY_LIST_ENDS 2u
HAY_API hay_status hay_match_list_alloc(hay_backend backend, size_t cap, unsigned flags,
                                        hay_match_list *list);
/* Frees the arrays of hay_match_list_alloc and zeroes the list; NULL, or
 * a list with ids NULL, is allowed. */
HAY_API void hay_match_list_free(hay_match_list *list);

/*
 * Stores the matches of data[0, len) that end after `from` (0 for all of
 * them), in order, into list's arrays until cap would be exceeded.  Call
 * again with from = list->done while list->done < len: the calls together
 * store every match exactly once, in order.  The input below `from` is
 * read only as the look-back of matches ending after it (the longest
 * pattern - 1 bytes).
 *
 * A list never splits the matches sharing one end: when cap cannot hold
 * all of them, the list stops before that end (done < that end).  When the
 * matches of the first end after `from` alone exceed cap (more duplicate
 * or suffix patterns ending there than cap), nothing can be stored: the
 * call returns HAY_ERR_TOO_LARGE with n = 0 and done = that end - 1, and a
 * larger cap is needed (a cap of at least the number of patterns always
 * suffices).
 *
 * In the leftmost modes the selection of non-overlapping matches restarts
 * at `from`: the call stores the matches of data[from, len) (offsets in
 * data), which continue the previous call's when from is its done (there
 * done is the end of the last match stored).
 *
 * Returns HAY_OK (n and done set; done == len when the list is complete),
 * HAY_ERR_TOO_LARGE (above), or another error (then n = 0, done = from).
 * HAY_ERR_INVALID: no list, no ids, cap 0, from > len, device arrays
 * where they are not taken (hay_match_list_alloc above).  The whole list
 * in one call costs no callback at all.  On the CUDA backend the matches
 * are written into ordinary arrays by several host threads; pinned arrays
 * (hay_match_list_alloc's) and device arrays are written from the device,
 * so no work per match runs on the host (except in the leftmost modes,
 * whose selection runs on the host).
 */
HAY_API hay_status hay_scan_list(const hay_patterns *set, hay_scratch *scratch,
                                 const void *data, uint64_t len, uint64_t from,
                                 const hay_scan_opts *opts, hay_match_list *list);

/* Counts every occurrence of every pattern (overlapping ones included). */
HAY_API hay_status hay_scan_count(const hay_patterns *set, hay_scratch *scratch,
                                  const void *data, uint64_t len,
                                  const hay_scan_opts *opts, uint64_t *count);

/*
 * Counts every occurrence of each pattern: counts[i] (n entries, one per
 * pattern id, zeroed first) is the number of matches of pattern i.
 */
HAY_API hay_status hay_scan_count_each(const hay_patterns *set,
                                       hay_scratch *scratch, const void *data,
                                       uint64_t len, const hay_scan_opts *opts,
                                       uint64_t *counts);

/*
 * Marks the bytes where matches end, for a filter that only needs to know
 * where something matched (the lines of grep -c, -l, -q): sets bit
 * (i % 64) of marks[i / 64] for every byte i that is the last byte of some
 * match (a match [start, end) marks byte end - 1), in the match mode of
 * the set.  marks holds (len + 63) / 64 words, zeroed and filled by the
 * call; bits past len stay 0.  On the GPU no list of matches is made: the
 * kernels set the bits in device memory and only the bitmap (len / 8
 * bytes) comes back.
 */
HAY_API hay_status hay_scan_marks(const hay_patterns *set, hay_scratch *scratch,
                                  const void *data, uint64_t len,
                                  const hay_scan_opts *opts, uint64_t *marks);

/*
 * The first match: *first is set to the match hay_scan (on the same set,
 * backend and options) would report first, the one of lowest end and,
 * among those, the first in hay_scan's order of ties (the CUDA backend's:
 * the lowest id).  No match: HAY_OK with *first zeroed (a match always has
 * end >= 1, so first->end == 0 says "none").  The search stops as soon as
 * the first match is known (on the GPU: after the first piece with one).
 */
HAY_API hay_status hay_scan_first(const hay_patterns *set, hay_scratch *scratch,
                                  const void *data, uint64_t len,
                                  const hay_scan_opts *opts, hay_match *first);

/* ------------------------------------------------------------------------
 * Device-resident haystacks (EXPERIMENTAL)
 *
 * A haystack uploaded once and searched with any number of pattern sets,
 * so that repeated queries pay the host-to-device copy once.  A CUDA buffer
 * holds a device copy (the caller's data may be freed after create); the
 * device is the one HAY_CUDA_DEVICE names (default 0).  A CPU buffer only
 * wraps the caller's pointer, which must then outlive the buffer.
 * HAY_BACKEND_AUTO gives a CUDA buffer when a GPU is usable, else a CPU one.
 *
 * A set scans a buffer of its own backend (a CUDA set a CUDA buffer, a CPU
 * set a CPU buffer); a set compiled for backend auto scans both.  Other
 * pairs return HAY_ERR_UNSUPPORTED, except that any set scans a CPU buffer.
 * Matches, order and options are those of hay_scan().
 * ---------------------------------------------------------------------- */
typedef struct hay_buffer hay_buffer;

HAY_API hay_status hay_buffer_create(hay_backend backend, const void *data,
                                     uint64_t len, hay_buffer **out);
HAY_API void hay_buffer_free(hay_buffer *buf);
/* The backend that holds the buffer (CPU or CUDA). */
HAY_API hay_backend hay_buffer_backend(const hay_buffer *buf);

HAY_API hay_status hay_scan_buffer(const hay_patterns *set,
                                   hay_scratch *scratch, const hay_buffer *buf,
                                   const hay_scan_opts *opts,
                                   hay_match_fn on_match, void *ctx);
HAY_API hay_status hay_scan_buffer_batch(const hay_patterns *set,
                                         hay_scratch *scratch,
                                         const hay_buffer *buf,
                                         const hay_scan_opts *opts,
                                         hay_batch_fn on_batch, void *ctx);
/* hay_scan_list over a buffer (len: the buffer's). */
HAY_API hay_status hay_scan_buffer_list(const hay_patterns *set,
                                        hay_scratch *scratch, const hay_buffer *buf,
                                        uint64_t from, const hay_scan_opts *opts,
                                        hay_match_list *list);
HAY_API hay_status hay_scan_count_buffer(const hay_patterns *set,
                                         hay_scratch *scratch,
                                         const hay_buffer *buf,
                                         const hay_scan_opts *opts,
                                         uint64_t *count);
HAY_API hay_status hay_scan_count_each_buffer(const hay_patterns *set,
                                              hay_scratch *scratch,
                                              const hay_buffer *buf,
                                              const hay_scan_opts *opts,
                                              uint64_t *counts);
/* hay_scan_marks and hay_scan_first over a buffer: marks holds
 * (length + 63) / 64 words. */
HAY_API hay_status hay_scan_marks_buffer(const hay_patterns *set,
                                         hay_scratch *scratch,
                                         const hay_buffer *buf,
                                         const hay_scan_opts *opts,
                                         uint64_t *marks);
HAY_API hay_status hay_scan_first_buffer(const hay_patterns *set,
                                         hay_scratch *scratch,
                                         const hay_buffer *buf,
                                         const hay_scan_opts *opts,
                                         hay_match *first);

/* ------------------------------------------------------------------------
 * Streaming
 *
 * Data written piece by piece is searched as if it were one buffer: a match
 * that spans two writes is reported once, with offsets counted from the
 * opening of the stream.  The stream keeps the last (longest pattern - 1)
 * bytes it has seen.  The set must outlive the stream.  Open, write, close
 * (which reports what is pending), free.
 * ---------------------------------------------------------------------- */
typedef struct hay_stream hay_stream;

HAY_API hay_status hay_stream_open(const hay_patterns *set,
                                   hay_match_fn on_match, void *ctx,
                                   hay_stream **out);

/*
 * A stream whose matches come in batches (hay_batch_fn).  Every write
 * delivers the matches it found before it returns (the last batch may be
 * short), and close those still pending in the leftmost modes: a stream
 * never holds a batch across calls.
 */
HAY_API hay_status hay_stream_open_batch(const hay_patterns *set,
                                         hay_batch_fn on_batch, void *ctx,
                                         hay_stream **out);

/*
 * Searches the next len bytes.  Once the callback has stopped the stream,
 * further writes return HAY_STOPPED without scanning.
 */
HAY_API hay_status hay_stream_write(hay_stream *stream, const void *data,
                                    size_t len);

/*
 * Ends the stream.  In the leftmost modes the matches still pending are
 * reported first (HAY_STOPPED when the callback stops them).  The stream
 * stays allocated until hay_stream_free(): a write or a second close
 * returns HAY_ERR_STATE.  stream may be NULL (HAY_OK).
 */
HAY_API hay_status hay_stream_close(hay_stream *stream);

/* Frees the stream, closed or not (an unclosed stream's pending matches
 * are dropped, not reported).  NULL is allowed. */
HAY_API void hay_stream_free(hay_stream *stream);

#ifdef __cplusplus
}
#endif

#endif /* HAYSTACK_H */
