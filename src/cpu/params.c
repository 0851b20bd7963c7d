/* params.c - the CPU backend's engine parameters (see cpu.h). */
#include "cpu.h"
#include "../cuda/cuda_engine.h"

#include <stdint.h>
#include <unistd.h>

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

/* A size: digits, then an optional K, M or G.  Returns false on anything
 * else, on overflow and on an empty value. */
static bool parse_size(const char *v, size_t n, size_t *out)
{
    size_t i = 0;
    uint64_t x = 0;
    if (n == 0)
        return false;
    while (i < n && v[i] >= '0' && v[i] <= '9') {
        if (x > (UINT64_MAX - 9) / 10)
            return false;
        x = x * 10 + (uint64_t)(v[i] - '0');
        i++;
    }
    if (i == 0)
        return false;
    unsigned shift = 0;
    if (i < n) {
        switch (v[i]) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        default: return false;
        }
        if (++i != n)
            return false;
    }
    if (x > (UINT64_MAX >> shift) || (x << shift) > SIZE_MAX)
        return false;
    *out = (size_t)(x << shift);
    return true;
}

hay_status hay_cpu_params_parse(const hay_patterns *set, hay_cpu_params *out)
{
    RETURN_ERROR_IF(!out || !set, HAY_ERR_INVALID);
    const char *params = set->params;
    bool auto_backend = set->backend == &hay_auto_backend;
    out->dfa_budget = out->pfac_budget = default_budget();
    if (!params)
        return HAY_OK;
    const char *p = params;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        RETURN_ERROR_IF(!eq, HAY_ERR_INVALID);
        size_t kl = (size_t)(eq - p);
        const char *v = eq + 1;
        size_t vl = n - kl - 1;
        size_t *dst = NULL;
        if (auto_backend && hay_cuda_is_key(p, kl)) {
            /* Backend auto may move the scan to the GPU, which reads
             * these (src/cuda/cuda_engine.h). */
            if (!end)
                break;
            p = end + 1;
            RETURN_ERROR_IF(!*p, HAY_ERR_INVALID);
            continue;
        }
        if (kl == 10 && memcmp(p, "dfa_budget", 10) == 0)
            dst = &out->dfa_budget;
        else if (kl == 11 && memcmp(p, "pfac_budget", 11) == 0)
            dst = &out->pfac_budget;
        RETURN_ERROR_IF(!dst || !parse_size(v, vl, dst), HAY_ERR_INVALID);
        if (!end)
            break;
        p = end + 1;
        RETURN_ERROR_IF(!*p, HAY_ERR_INVALID);   /* a trailing comma */
    }
    return HAY_OK;
}
