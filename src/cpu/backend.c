/*
 * backend.c - the CPU backend's ops table: its engines by name, the
 * automatic choice, and the chunk driver of core/chunks.c as its scan and
 * counts.
 */
#include "cpu.h"

#include <stdio.h>

static const hay_engine *const cpu_engines[] = {
    &hay_engine_simd, &hay_engine_bm, &hay_engine_horspool,
    &hay_engine_dfa, &hay_engine_ac, &hay_engine_naive, &hay_engine_pfac,
    &hay_engine_teddy, &hay_engine_fdr, NULL
};
static const char *const cpu_algos[] = { "simd", "bm", "horspool", "dfa", "ac",
                                         "naive", "pfac", "teddy", "fdr", NULL };

static hay_status cpu_available(void) { return HAY_OK; }
static int cpu_device_count(void) { return 1; }

static hay_status cpu_describe(int index, char *buf, size_t cap)
{
    (void)index;
    char model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            char *colon = strchr(line, ':');
            if (colon && strncmp(line, "model name", 10) == 0) {
                snprintf(model, sizeof model, "%s", colon + 2);
                model[strcspn(model, "\n")] = 0;
                break;
            }
        }
        fclose(f);
    }
    __builtin_cpu_init();
    snprintf(buf, cap, "%s, %u cores, %s", model, hay_cpu_count(),
             __builtin_cpu_supports("avx2") ? "AVX2" : "SSE2");
    return HAY_OK;
}

/*
 * The automatic choice, in one table: the first row whose limits the set
 * meets names its engine (NULL: the automaton, a full DFA when its table
 * fits dfa_budget, else the compact Aho-Corasick).  The limits come from
 * one-thread measurements of every engine on sets of 2 to 80,000 literals
 * over English text (docs/notes/2026-11-26-cpu-sets.md): teddy wins while
 * its 3-byte fingerprints stay selective (a dozen literals); fdr beats
 * the DFA up to a few hundred literals of 4+ bytes, and, with its 3-byte
 * windows, on up to 30,000 of 6+ bytes and 100,000 of 8+, where the DFA's
 * table outgrows the caches; 1-2 byte literals make fdr check every byte,
 * and thousands of 4-5 byte ones flood its filter, so the DFA takes them
 * and everything else.
 */
typedef struct cpu_rule {
    size_t max_n;          /* at most this many patterns */
    size_t min_len;        /* the shortest at least this long */
    const hay_engine *engine;
    const char *reason;
} cpu_rule;

static const cpu_rule cpu_rules[] = {
    { 1, 1, &hay_engine_simd, "one pattern: SIMD rare-byte-pair filter" },
    { 12, 3, &hay_engine_teddy,
      "2-12 literals of 3+ bytes: teddy (SIMD fingerprints in 8 buckets)" },
    { 300, 4, &hay_engine_fdr,
      "13-300 literals of 4+ bytes: fdr (bucketed shift-or filter)" },
    { 30000, 6, &hay_engine_fdr,
      "up to 30,000 literals of 6+ bytes: fdr (bucketed shift-or filter)" },
    { 100000, 8, &hay_engine_fdr,
      "up to 100,000 literals of 8+ bytes: fdr (bucketed shift-or filter)" },
    { SIZE_MAX, 0, NULL, NULL },
};

/* The row of cpu_rules for a set (never NULL: the last row takes all). */
static const cpu_rule *cpu_rule_for(const hay_patterns *set)
{
    const cpu_rule *r = cpu_rules;
    while (r->engine && (set->n > r->max_n || set->min_len < r->min_len))
        r++;
    return r;
}

/* The engine called `name`, or NULL. */
static const hay_engine *engine_named(const char *name)
{
    for (size_t i = 0; cpu_engines[i]; i++)
        if (strcmp(cpu_engines[i]->name, name) == 0)
            return cpu_engines[i];
    return NULL;
}

bool hay_cpu_literal_filter(const hay_patterns *set, const char *algo)
{
    const hay_engine *eng = algo ? engine_named(algo) : cpu_rule_for(set)->engine;
    return eng == &hay_engine_simd || eng == &hay_engine_teddy || eng == &hay_engine_fdr;
}

static hay_status cpu_compile(hay_patterns *set, const char *algo)
{
    const hay_engine *eng = NULL;
    if (!algo) {
        const cpu_rule *r = cpu_rule_for(set);
        eng = r->engine;
        set->reason = r->reason;
        if (!eng) {
            FORWARD_IF_ERROR(hay_cpu_auto_build(set, &eng, &set->state));
            set->engine = eng;
            set->reason = eng == &hay_engine_dfa
                ? "several patterns: Aho-Corasick DFA with byte classes"
                : "several patterns: compact Aho-Corasick (DFA over budget)";
            return HAY_OK;
        }
    } else {
        eng = engine_named(algo);
        RETURN_ERROR_IF(!eng, HAY_ERR_UNKNOWN_NAME);
        if (set->n > 1 && !eng->multi) {
            hay_refuse(set, "%s takes one pattern (%zu given); ac, dfa, teddy, pfac "
                       "and naive take several", eng->name, set->n);
            return HAY_ERR_UNSUPPORTED;
        }
        set->reason = "algorithm chosen by the caller";
    }
    set->engine = eng;
    return eng->build(set, &set->state);
}

static void cpu_destroy(hay_patterns *set)
{
    if (set->engine && set->engine->destroy)
        set->engine->destroy(set, set->state);
    set->state = NULL;
}

static hay_status cpu_count(const hay_patterns *set, hay_scratch *scratch,
                            const uint8_t *data, uint64_t len,
                            const hay_scan_opts *o, uint64_t *count)
{
    return hay_chunk_count(set, scratch, data, len, 0, o, count);
}

static size_t cpu_param_tables(const char *algo, size_t npatterns,
                               const hay_param_table **out)
{
    (void)algo;
    (void)npatterns;
    out[0] = &hay_cpu_param_table;
    return 1;
}

const hay_backend_ops hay_cpu_backend = {
    .id = HAY_BACKEND_CPU,
    .name = "cpu",
    .available = cpu_available,
    .device_count = cpu_device_count,
    .describe = cpu_describe,
    .algos = cpu_algos,
    .compile = cpu_compile,
    .destroy = cpu_destroy,
    .scan = hay_chunk_scan,
    .count = cpu_count,
    .count_range = hay_chunk_count,
    .marks = hay_chunk_marks,
    .trie = hay_cpu_trie,
    .param_tables = cpu_param_tables,
};
