/*
 * cpu.h - what the CPU engines share beyond internal.h: the engine
 * parameters of the CPU backend (hay_compile_opts.params).
 */
#ifndef HAY_CPU_H
#define HAY_CPU_H

#include "../core/internal.h"

/* The default table budgets: the DFA is refused (auto then keeps the
 * compact automaton) and the PFAC table stays compact above these. */
#define HAY_DFA_BUDGET_DEFAULT ((size_t)256 << 20)
#define HAY_PFAC_BUDGET_DEFAULT ((size_t)256 << 20)

/*
 * The CPU backend's keys, "key=value" separated by commas:
 *   dfa_budget=BYTES    the most memory the full DFA table may take
 *   pfac_budget=BYTES   the most memory the dense PFAC table may take
 * BYTES is a number with an optional K, M or G suffix (powers of 1024).
 */
typedef struct hay_cpu_params {
    size_t dfa_budget;
    size_t pfac_budget;
} hay_cpu_params;

/* Parses params (NULL or "" for the defaults) into *out.  An unknown key,
 * a missing or bad value: HAY_ERR_INVALID. */
hay_status hay_cpu_params_parse(const char *params, hay_cpu_params *out);

/* The "auto" choice for several patterns: the automaton is built once, then
 * made a full DFA ("dfa") when its table fits dfa_budget, else kept compact
 * ("ac").  Sets *engine and *state. */
hay_status hay_cpu_auto_build(hay_patterns *set, const hay_engine **engine,
                              void **state);

#endif
