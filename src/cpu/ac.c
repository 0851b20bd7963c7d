/*
 * ac.c - Aho-Corasick: a trie of the patterns with failure links, scanned
 * one byte at a time.  The root keeps a dense 256-entry row; other states
 * keep their edges sorted by byte.  Each state lists the ids of the
 * patterns that end exactly there (duplicates each keep their id), and a
 * dictionary link points to the nearest state on its failure chain that
 * has such a list, so reporting costs only the matches it finds.
 *
 * This is the correctness baseline for any number of patterns; the
 * multi-pattern work adds the DFA and PFAC tables beside it.
 */
#include "../core/internal.h"
#include "cpu.h"

#define NONE UINT32_MAX

typedef struct ac_state {
    hay_trie trie;             /* the goto function and outputs */
    uint32_t nstates;
    uint32_t root_next[256];   /* root transitions; 0 = back to root */
    uint32_t *edge_first;      /* aliases of the trie's arrays */
    uint8_t *edge_byte;
    uint32_t *edge_to;
    uint32_t *out_first;
    uint32_t *out_id;
    uint32_t *fail;
    uint32_t *dict;            /* next state with outputs on the fail chain */
    uint8_t fold[256];
    size_t memory;
} ac_state;

static void ac_destroy(const hay_patterns *set, void *state)
{
    ac_state *st = state;
    if (!st)
        return;
    const hay_allocator *a = &set->alloc;
    hay_trie_free(a, &st->trie);
    hay_free(a, st->fail);
    hay_free(a, st->dict);
    hay_free(a, st);
}

static inline uint32_t ac_child(const ac_state *st, uint32_t s, uint8_t c)
{
    if (s == 0) {
        uint32_t t = st->root_next[c];
        return t ? t : NONE;
    }
    uint32_t lo = st->edge_first[s], hi = st->edge_first[s + 1];
    if (hi - lo <= 8) {
        for (uint32_t e = lo; e < hi; e++)
            if (st->edge_byte[e] == c)
                return st->edge_to[e];
        return NONE;
    }
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (st->edge_byte[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < st->edge_first[s + 1] && st->edge_byte[lo] == c)
               ? st->edge_to[lo] : NONE;
}


static hay_status ac_build(hay_patterns *set, void **state)
{
    const hay_allocator *a = &set->alloc;
    ac_state *st = hay_calloc(a, 1, sizeof *st);
    RETURN_ERROR_IF(!st, HAY_ERR_NOMEM);
    hay_fold_table(set, st->fold);

    uint32_t *queue = NULL;
    hay_status s = hay_trie_build(set, st->fold, &st->trie);
    if (s < 0)
        goto fail;
    s = HAY_ERR_NOMEM;
    uint32_t ns = st->trie.nstates;
    st->nstates = ns;
    st->edge_first = st->trie.edge_first;
    st->edge_byte = st->trie.edge_byte;
    st->edge_to = st->trie.edge_to;
    st->out_first = st->trie.out_first;
    st->out_id = st->trie.out_id;
    st->fail = hay_malloc(a, (size_t)ns * 4);
    st->dict = hay_malloc(a, (size_t)ns * 4);
    queue = hay_malloc(a, (size_t)ns * 4);
    if (!st->fail || !st->dict || !queue)
        goto fail;
    memset(st->root_next, 0, sizeof st->root_next);
    for (uint32_t e = st->edge_first[0]; e < st->edge_first[1]; e++)
        st->root_next[st->edge_byte[e]] = st->edge_to[e];

    /* Failure and dictionary links, breadth first. */
    uint32_t qh = 0, qt = 0;
    st->fail[0] = 0;
    st->dict[0] = NONE;
    for (uint32_t e = st->edge_first[0]; e < st->edge_first[1]; e++) {
        uint32_t v = st->edge_to[e];
        st->fail[v] = 0;
        st->dict[v] = NONE;
        queue[qt++] = v;
    }
    while (qh < qt) {
        uint32_t u = queue[qh++];
        for (uint32_t e = st->edge_first[u]; e < st->edge_first[u + 1]; e++) {
            uint32_t v = st->edge_to[e];
            uint8_t c = st->edge_byte[e];
            uint32_t f = st->fail[u], g;
            while ((g = ac_child(st, f, c)) == NONE && f != 0)
                f = st->fail[f];
            st->fail[v] = (g == NONE || g == v) ? 0 : g;
            uint32_t fv = st->fail[v];
            st->dict[v] = st->out_first[fv] != st->out_first[fv + 1] ? fv : st->dict[fv];
            queue[qt++] = v;
        }
    }
    st->memory = sizeof *st + st->trie.memory + (size_t)ns * 8;
    set->state_memory = st->memory;
    set->states = ns;
    hay_free(a, queue);
    *state = st;
    return HAY_OK;
fail:
    hay_free(a, queue);
    ac_destroy(set, st);
    return s;
}

/* Reports the patterns ending at state s (its list, then its dictionary
 * chain), for a match ending at local offset `end`. */
static inline int report(const hay_patterns *set, const ac_state *st,
                         uint32_t s, size_t end, uint64_t base,
                         hay_emit_fn emit, void *sink)
{
    uint32_t o = st->out_first[s] != st->out_first[s + 1] ? s : st->dict[s];
    for (; o != NONE; o = st->dict[o]) {
        for (uint32_t k = st->out_first[o]; k < st->out_first[o + 1]; k++) {
            uint32_t id = st->out_id[k];
            if (emit(sink, id, base + end - set->len[id], base + end))
                return 1;
        }
    }
    return 0;
}

static int ac_scan(const hay_patterns *set, const void *state,
                   const uint8_t *y, size_t n, size_t min_end, uint64_t base,
                   hay_emit_fn emit, void *sink)
{
    const ac_state *st = state;
    /* Start where a match ending after min_end could begin. */
    size_t from = min_end + 1 > set->max_len ? min_end + 1 - set->max_len : 0;
    uint32_t s = 0;
    for (size_t i = from; i < n; i++) {
        uint8_t c = st->fold[y[i]];
        uint32_t g;
        while ((g = ac_child(st, s, c)) == NONE && s != 0)
            s = st->fail[s];
        s = g == NONE ? 0 : g;
        if (i + 1 > min_end && report(set, st, s, i + 1, base, emit, sink))
            return 1;
    }
    return 0;
}

const hay_engine hay_engine_ac = {
    "ac", true, ac_build, ac_destroy, ac_scan, NULL,
};

/*
 * dfa: the same automaton with every transition precomputed, so a byte costs
 * one table load.  Bytes are first mapped to classes: each byte value that
 * occurs in some pattern (after case folding) is a class of its own, and all
 * other bytes share class 0, which always leads back to the root.  Table
 * entries are premultiplied next-state row offsets with the top bit set when
 * the next state has patterns to report.  The table is refused (the "auto"
 * choice then keeps "ac") when it would exceed its budget (dfa_budget).
 */
#define DFA_OUT 0x80000000u

typedef struct dfa_state {
    ac_state *ac;
    uint32_t nclasses;
    uint8_t cls[256];
    uint32_t *delta;
    uint32_t *nout;   /* per state: patterns reported there, dictionary chain included */
    uint32_t shift, inv;   /* row offset -> state without a division */
} dfa_state;

/* Row offsets are exact multiples of nclasses = 2^shift * odd, so the state
 * is (offset >> shift) times the inverse of odd modulo 2^32. */
static inline uint32_t dfa_state_of(const dfa_state *d, uint32_t offset)
{
    return (offset >> d->shift) * d->inv;
}

static void dfa_destroy(const hay_patterns *set, void *state)
{
    dfa_state *d = state;
    if (!d)
        return;
    ac_destroy(set, d->ac);
    hay_free(&set->alloc, d->delta);
    hay_free(&set->alloc, d->nout);
    hay_free(&set->alloc, d);
}

static bool has_output(const ac_state *st, uint32_t s)
{
    return st->out_first[s] != st->out_first[s + 1] || st->dict[s] != NONE;
}

/* Builds the DFA over an Aho-Corasick automaton, which it then owns; on
 * failure the automaton stays the caller's. */
static hay_status dfa_build_from(hay_patterns *set, ac_state *ac, void **state)
{
    const hay_allocator *a = &set->alloc;
    hay_cpu_params prm;
    hay_cpu_params_get(set, &prm);
    dfa_state *d = hay_calloc(a, 1, sizeof *d);
    RETURN_ERROR_IF(!d, HAY_ERR_NOMEM);
    uint32_t *queue = NULL;
    hay_status s;
    d->ac = ac;
    const ac_state *st = d->ac;

    uint8_t class_of[256];
    uint32_t nclasses = hay_trie_classes(&st->trie, st->fold, class_of, d->cls);
    d->nclasses = nclasses;
    d->shift = (uint32_t)__builtin_ctz(nclasses);
    uint32_t odd = nclasses >> d->shift, inv = odd;
    for (int k = 0; k < 5; k++)
        inv *= 2 - odd * inv;   /* Newton: doubles the correct low bits */
    d->inv = inv;

    s = HAY_ERR_TOO_LARGE;
    size_t cells = (size_t)st->nstates * nclasses;
    if (cells >= DFA_OUT || cells * 4 > prm.dfa_budget)
        goto fail;
    s = HAY_ERR_NOMEM;
    d->delta = hay_malloc(a, cells * 4);
    d->nout = hay_malloc(a, (size_t)st->nstates * 4);
    queue = hay_malloc(a, (size_t)st->nstates * 4);
    if (!d->delta || !d->nout || !queue)
        goto fail;
    /* Dictionary links point to shallower states, so BFS order works; the
     * root has no outputs. */
    d->nout[0] = 0;

    /* Rows in breadth-first order: a state's row is its failure state's row
     * (already done: it is shallower) overwritten by its own edges. */
#define ENTRY(t) ((t) * nclasses | (has_output(st, (t)) ? DFA_OUT : 0))
    uint32_t qh = 0, qt = 0;
    for (uint32_t k = 0; k < nclasses; k++)
        d->delta[k] = 0;
    for (uint32_t e = st->edge_first[0]; e < st->edge_first[1]; e++) {
        d->delta[class_of[st->edge_byte[e]]] = ENTRY(st->edge_to[e]);
        queue[qt++] = st->edge_to[e];
    }
    while (qh < qt) {
        uint32_t v = queue[qh++];
        memcpy(d->delta + (size_t)v * nclasses,
               d->delta + (size_t)st->fail[v] * nclasses, nclasses * 4);
        d->nout[v] = (st->out_first[v + 1] - st->out_first[v]) +
                     (st->dict[v] != NONE ? d->nout[st->dict[v]] : 0);
        for (uint32_t e = st->edge_first[v]; e < st->edge_first[v + 1]; e++) {
            d->delta[(size_t)v * nclasses + class_of[st->edge_byte[e]]] =
                ENTRY(st->edge_to[e]);
            queue[qt++] = st->edge_to[e];
        }
    }
#undef ENTRY
    hay_free(a, queue);
    set->state_memory = st->memory + cells * 4 + (size_t)st->nstates * 4 + sizeof *d;
    *state = d;
    return HAY_OK;
fail:
    hay_free(a, queue);
    d->ac = NULL;
    dfa_destroy(set, d);
    return s;
}

static hay_status dfa_build(hay_patterns *set, void **state)
{
    void *ac = NULL;
    FORWARD_IF_ERROR(ac_build(set, &ac));
    hay_status s = dfa_build_from(set, ac, state);
    if (s < 0)
        ac_destroy(set, ac);
    return s;
}

hay_status hay_cpu_auto_build(hay_patterns *set, const hay_engine **engine,
                              void **state)
{
    void *ac = NULL;
    FORWARD_IF_ERROR(ac_build(set, &ac));
    size_t ac_memory = set->state_memory;
    hay_status s = dfa_build_from(set, ac, state);
    if (s == HAY_OK) {
        *engine = &hay_engine_dfa;
        return HAY_OK;
    }
    if (s != HAY_ERR_TOO_LARGE) {
        ac_destroy(set, ac);
        return s;
    }
    set->state_memory = ac_memory;
    *engine = &hay_engine_ac;
    *state = ac;
    return HAY_OK;
}

static int dfa_scan(const hay_patterns *set, const void *state,
                    const uint8_t *y, size_t n, size_t min_end, uint64_t base,
                    hay_emit_fn emit, void *sink)
{
    const dfa_state *d = state;
    const uint32_t *delta = d->delta;
    const uint8_t *cls = d->cls;
    size_t from = min_end + 1 > set->max_len ? min_end + 1 - set->max_len : 0;
    uint32_t s = 0;
    for (size_t i = from; i < n; i++) {
        uint32_t t = delta[s + cls[y[i]]];
        s = t & ~DFA_OUT;
        if ((t & DFA_OUT) && i + 1 > min_end &&
            report(set, d->ac, dfa_state_of(d, s), i + 1, base, emit, sink))
            return 1;
    }
    return 0;
}

/* Runs the DFA over y[i, end) from state s, adding the outputs of every
 * state entered; returns the final state. */
static inline uint32_t dfa_run(const dfa_state *d, const uint8_t *y, size_t i,
                               size_t end, uint32_t s, uint64_t *count)
{
    const uint32_t *delta = d->delta;
    const uint8_t *cls = d->cls;
    uint64_t c = 0;
    for (; i < end; i++) {
        uint32_t t = delta[s + cls[y[i]]];
        s = t & ~DFA_OUT;
        if (t & DFA_OUT)
            c += d->nout[dfa_state_of(d, s)];
    }
    *count += c;
    return s;
}

/* Every transition depends on the one before, so one walk is bound by the
 * latency of the table loads.  Counting cuts the owned range into LANES
 * pieces (each warmed up from longest - 1 bytes before it, the chunk rule)
 * and walks them in lockstep, so the loads overlap. */
#define LANES 4

static uint64_t dfa_count(const hay_patterns *set, const void *state,
                          const uint8_t *y, size_t n, size_t min_end)
{
    const dfa_state *d = state;
    size_t back = set->max_len - 1;
    uint64_t count = 0, ignored = 0;
    size_t owned = n - min_end;
    if (owned < LANES * (back + 4096)) {
        size_t from = min_end > back ? min_end - back : 0;
        uint32_t s = dfa_run(d, y, from, min_end, 0, &ignored);
        dfa_run(d, y, min_end, n, s, &count);
        return count;
    }
    size_t pos[LANES], stop[LANES];
    uint32_t st[LANES];
    for (int k = 0; k < LANES; k++) {
        size_t a = min_end + owned / LANES * (size_t)k;
        pos[k] = a;
        stop[k] = k + 1 < LANES ? min_end + owned / LANES * (size_t)(k + 1) : n;
        st[k] = dfa_run(d, y, a > back ? a - back : 0, a, 0, &ignored);
    }
    const uint32_t *delta = d->delta;
    const uint8_t *cls = d->cls;
    size_t steps = stop[0] - pos[0];   /* the shortest lane */
    uint64_t c = 0;
    for (size_t i = 0; i < steps; i++) {
        for (int k = 0; k < LANES; k++) {
            uint32_t t = delta[st[k] + cls[y[pos[k] + i]]];
            st[k] = t & ~DFA_OUT;
            if (t & DFA_OUT)
                c += d->nout[dfa_state_of(d, st[k])];
        }
    }
    count += c;
    for (int k = 0; k < LANES; k++)
        dfa_run(d, y, pos[k] + steps, stop[k], st[k], &count);
    return count;
}

const hay_engine hay_engine_dfa = {
    "dfa", true, dfa_build, dfa_destroy, dfa_scan, dfa_count,
};

const hay_trie *hay_cpu_trie(const hay_patterns *set)
{
    if (set->engine == &hay_engine_ac)
        return &((const ac_state *)set->state)->trie;
    if (set->engine == &hay_engine_dfa)
        return &((const dfa_state *)set->state)->ac->trie;
    return NULL;
}
