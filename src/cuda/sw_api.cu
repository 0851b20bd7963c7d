// sw_api.cu - hay_cuda_sw_score(): validation, parameters, transfers and
// the variant table for the CUDA Smith-Waterman kernels (one long pair,
// local alignment, affine gaps; the contract is src/align/sw_device.h).
//
// Variants (docs/DESIGN.md and bench/README.md explain them):
//   simple-cpu, simple-gpu        diagonal-major anti-diagonals, packed
//   coalesced-cpu, coalesced-gpu  anti-diagonals with aligned starts
//   tiled-cpu, tiled-gpu          tiles of tile x tile cells, one block each
// "-cpu": one kernel launch per (tile) anti-diagonal; "-gpu": one
// cooperative persistent kernel with a grid barrier per (tile) diagonal.
//   fast                          strips with per-strip progress flags,
//                                 register micro-tiles, DPX (sw_fast.cu)
#include <stdlib.h>
#include <string.h>

#include "sw_common.cuh"
#include "cuda_params.h"

static const char *const sw_variants[] = {
    "fast", "simple-cpu", "simple-gpu", "coalesced-cpu", "coalesced-gpu",
    "tiled-cpu", "tiled-gpu", NULL,
};

extern "C" const char *hay_cuda_sw_variant(size_t i)
{
    return i < sizeof sw_variants / sizeof sw_variants[0] ? sw_variants[i] : NULL;
}

// The params' keys are declared in cuda_params.c (hay_cuda_sw_param_table);
// 0 stands for a key not given, which each variant fills in its own way.
static int sw_parse_params(const char *s, hay_sw_params *pa)
{
    hay_cuda_sw_params v;
    const hay_param_table *const table = &hay_cuda_sw_param_table;
    void *const values = &v;
    int st = hay_params_parse(s, &table, 1, &values, false, NULL);
    if (st < 0)
        return st;
    memset(pa, 0, sizeof *pa);
    pa->blocks = (int)v.blocks;
    pa->threads = (int)v.threads;
    pa->tile = (int)v.tile;
    pa->split = v.split;
    pa->impl = (int)v.impl;
    pa->chunk = (int)v.chunk;
    return HAY_OK;
}

static int sw_find(const char *name)
{
    if (name == NULL)
        return 0;
    for (int i = 0; sw_variants[i]; i++)
        if (strcmp(name, sw_variants[i]) == 0)
            return i;
    return -1;
}

extern "C" int hay_cuda_sw_score(const hay_sw_problem *p, const char *variant,
                                 const char *params, hay_sw_device_result *r)
{
    double t0 = hay_sw_now();
    int st = HAY_OK;
    uint8_t *d_q = NULL, *d_t = NULL;
    int32_t *d_mat = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    hay_sw_params pa;
    hay_sw_out out;
    hay_sw_dev dev;
    int which, ndev = 0;
    float ms_up = 0;
    int32_t maxs = 0;

    if (p == NULL || r == NULL)
        return HAY_ERR_INVALID;
    memset(r, 0, sizeof *r);
    which = sw_find(variant);
    if (which < 0)
        return HAY_ERR_UNKNOWN_NAME;
    if (sw_parse_params(params, &pa) != HAY_OK)
        return HAY_ERR_INVALID;
    if (p->q == NULL || p->t == NULL || p->matrix == NULL || p->m == 0 || p->n == 0 ||
        p->alpha < 1 || p->alpha > HAY_SW_MAX_ALPHA || p->gap_open < 0 || p->gap_extend < 0)
        return HAY_ERR_INVALID;
    if (p->gap_open > HAY_SW_MAX_PENALTY || p->gap_extend > HAY_SW_MAX_PENALTY)
        return HAY_ERR_TOO_LARGE;
    // Cell indices are 32-bit on the device.
    if (p->m >= (1u << 30) || p->n >= (1u << 30))
        return HAY_ERR_TOO_LARGE;
    for (int k = 0; k < p->alpha * p->alpha; k++) {
        int32_t v = p->matrix[k];
        if (v > HAY_SW_MAX_PENALTY || v < -HAY_SW_MAX_PENALTY)
            return HAY_ERR_TOO_LARGE;
        if (v > maxs)
            maxs = v;
    }
    for (size_t k = 0; k < p->m; k++)
        if (p->q[k] >= p->alpha)
            return HAY_ERR_INVALID;
    for (size_t k = 0; k < p->n; k++)
        if (p->t[k] >= p->alpha)
            return HAY_ERR_INVALID;
    // Every score must stay far from the "minus infinity" of E and F.
    if ((int64_t)maxs * (int64_t)(p->m < p->n ? p->m : p->n) >= (1LL << 28))
        return HAY_ERR_TOO_LARGE;

    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        cudaGetLastError();
        return HAY_ERR_NO_DEVICE;
    }
    {
        int d = 0;
        SW_CUDA(cudaGetDevice(&d));
        SW_CUDA(cudaDeviceGetAttribute(&dev.sms, cudaDevAttrMultiProcessorCount, d));
    }
    for (int k = 0; k < 2; k++)
        SW_CUDA(cudaEventCreate(&ev[k]));
    SW_CUDA(cudaEventRecord(ev[0], 0));
    SW_CUDA(cudaMalloc((void **)&d_q, p->m));
    SW_CUDA(cudaMalloc((void **)&d_t, p->n));
    SW_CUDA(cudaMalloc((void **)&d_mat, sizeof(int32_t) * (size_t)p->alpha * (size_t)p->alpha));
    SW_CUDA(cudaMemcpy(d_q, p->q, p->m, cudaMemcpyHostToDevice));
    SW_CUDA(cudaMemcpy(d_t, p->t, p->n, cudaMemcpyHostToDevice));
    SW_CUDA(cudaMemcpy(d_mat, p->matrix, sizeof(int32_t) * (size_t)p->alpha * (size_t)p->alpha,
                       cudaMemcpyHostToDevice));
    SW_CUDA(cudaEventRecord(ev[1], 0));

    dev.d_q = d_q;
    dev.d_t = d_t;
    dev.d_mat = d_mat;
    dev.h_mat = p->matrix;
    dev.h_q = p->q;
    dev.m = (int)p->m;
    dev.n = (int)p->n;
    dev.alpha = p->alpha;
    dev.go = p->gap_open;
    dev.ge = p->gap_extend;
    memset(&out, 0, sizeof out);
    if (which == 0) {
        st = hay_sw_fast_run(&dev, &pa, &out);
        // The default ("the fastest") must not fail where another variant
        // works: past the fast kernel's tag range, use tiled-gpu.
        if (st == HAY_ERR_TOO_LARGE && variant == NULL && params == NULL) {
            memset(&out, 0, sizeof out);
            st = hay_sw_paper_run(&dev, HAY_SW_TILED, 1, &pa, &out);
        }
    } else {
        int k = which - 1;   // simple-cpu, simple-gpu, coalesced-cpu, ...
        st = hay_sw_paper_run(&dev, k / 2, k % 2, &pa, &out);
    }
    if (st != HAY_OK)
        goto fail;
    // Copies: the upload (events) and the families' download of their
    // best-cell slots (host clock).
    SW_CUDA(cudaEventElapsedTime(&ms_up, ev[0], ev[1]));

    r->score = out.score;
    r->q_end = (uint64_t)out.qi;
    r->t_end = (uint64_t)out.tj;
    r->cells = (uint64_t)p->m * (uint64_t)p->n;
    r->seconds_compute = out.compute_s;
    r->seconds_sync = out.sync_s;
    r->seconds_copy = 1e-3 * (double)ms_up + out.copy_s;
    r->blocks = out.blocks;
    r->threads = out.threads;
fail:
    cudaFree(d_q);
    cudaFree(d_t);
    cudaFree(d_mat);
    for (int k = 0; k < 2; k++)
        if (ev[k])
            cudaEventDestroy(ev[k]);
    if (st != HAY_OK) {
        cudaGetLastError();   // leave no sticky error for the next call
        memset(r, 0, sizeof *r);
        return st;
    }
    r->seconds_total = hay_sw_now() - t0;
    return HAY_OK;
}
