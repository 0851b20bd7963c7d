/* params.c - the CPU backend's keys (see cpu.h and core/params.h). */
#include "cpu.h"

#include <stdint.h>
#include <unistd.h>

static const hay_param cpu_keys[] = {
    HAY_PARAM_SZ(hay_cpu_params, dfa_budget, "dfa_budget", 0, SIZE_MAX, NULL,
                 "largest DFA table; auto takes the compact ac above it "
                 "(default: physical memory / 16, 64M..1G)"),
    HAY_PARAM_SZ(hay_cpu_params, pfac_budget, "pfac_budget", 0, SIZE_MAX, NULL,
                 "largest dense PFAC table; PFAC walks its compact edge lists "
                 "above it (default: as dfa_budget)"),
};
const hay_param_table hay_cpu_param_table =
    HAY_PARAM_TABLE("cpu", hay_cpu_params, cpu_keys);

static size_t default_budget(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return HAY_BUDGET_UNKNOWN;
    uint64_t b = (uint64_t)pages * (uint64_t)page / 16;
    if (b < HAY_BUDGET_MIN)
        return HAY_BUDGET_MIN;
    return b > HAY_BUDGET_MAX ? HAY_BUDGET_MAX : (size_t)b;
}

void hay_cpu_params_get(const hay_patterns *set, hay_cpu_params *out)
{
    const hay_cpu_params *v = hay_set_params(set, &hay_cpu_param_table);
    if (v)
        *out = *v;
    else
        hay_params_defaults(&hay_cpu_param_table, out);
    if (!hay_params_given(&hay_cpu_param_table, out, "dfa_budget"))
        out->dfa_budget = default_budget();
    if (!hay_params_given(&hay_cpu_param_table, out, "pfac_budget"))
        out->pfac_budget = default_budget();
}
