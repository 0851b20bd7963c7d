/*
 * cpu.h - what the CPU engines share beyond internal.h: the engine
 * parameters of the CPU backend (hay_compile_opts.params).
 */
#ifndef HAY_CPU_H
#define HAY_CPU_H

#include "../core/internal.h"

/* The default table budget: above it the DFA is refused (auto then keeps
 * the compact automaton) and the PFAC table stays compact.  A full table
 * scans several times faster than the compact forms (et-open: a 350 MB
 * DFA, 3.5x), so the default is generous where memory allows: a
 * sixteenth of physical memory, between 64 MiB and 1 GiB (256 MiB when
 * the size of memory is unknown). */
#define HAY_BUDGET_MIN ((size_t)64 << 20)
#define HAY_BUDGET_MAX ((size_t)1 << 30)
#define HAY_BUDGET_UNKNOWN ((size_t)256 << 20)

/*
 * The CPU backend's keys (params.h; hay_cpu_param_table in params.c):
 *   dfa_budget=BYTES    the most memory the full DFA table may take
 *   pfac_budget=BYTES   the most memory the dense PFAC table may take
 * (both default to the budget described above)
 */
typedef struct hay_cpu_params {
    uint64_t given;
    uint64_t dfa_budget;
    uint64_t pfac_budget;
} hay_cpu_params;

/* The CPU's values for a set: parsed at compile (hay_set_params), with
 * the budgets that were not given worked out. */
void hay_cpu_params_get(const hay_patterns *set, hay_cpu_params *out);

/* The "auto" choice for several patterns: the automaton is built once, then
 * made a full DFA ("dfa") when its table fits dfa_budget, else kept compact
 * ("ac").  Sets *engine and *state. */
hay_status hay_cpu_auto_build(hay_patterns *set, const hay_engine **engine,
                              void **state);

/* The trie of a set compiled to the ac or dfa engine (ac.c), else NULL. */
const hay_trie *hay_cpu_trie(const hay_patterns *set);

#endif
