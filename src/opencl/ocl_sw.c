/*
 * ocl_sw.c - Smith-Waterman on an OpenCL device: the host side of the
 * "simple" anti-diagonal kernel (sw.cl), implementing the contract of
 * src/align/sw_device.h, so that alignment runs on AMD, Intel and mobile
 * GPUs (and on PoCL, where the tests run it against a scalar reference).
 *
 * One launch per anti-diagonal of the m x n matrix (m + n - 1 launches on
 * one in-order queue: each launch is the barrier the next one needs);
 * three diagonals of H and two of E and F live on the device, rotated by
 * changing kernel arguments.  Params: device=P:D (or N), threads=N (the
 * work-group size, default 128), cache=0|1.
 */
#include "../align/sw_device.h"
#include "hay_opencl.h"
#include "ocl_rt.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const variants[] = { "simple", NULL };

const char *hay_opencl_sw_variant(size_t i)
{
    return i < sizeof variants / sizeof variants[0] - 1 ? variants[i] : NULL;
}

typedef struct sw_run {
    cl_command_queue q;
    cl_kernel k;
    cl_mem d_q, d_t, d_mat, d_h[3], d_e[2], d_f[2], d_best_h, d_best_j;
    cl_event *ev;
    size_t nev;
    int32_t *best_h;
    cl_uint *best_j;
} sw_run;

static void run_free(sw_run *w)
{
    cl_mem *all[] = { &w->d_q, &w->d_t, &w->d_mat, &w->d_h[0], &w->d_h[1], &w->d_h[2],
                      &w->d_e[0], &w->d_e[1], &w->d_f[0], &w->d_f[1], &w->d_best_h,
                      &w->d_best_j };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (*all[i])
            clReleaseMemObject(*all[i]);
    for (size_t i = 0; i < w->nev; i++)
        if (w->ev[i])
            clReleaseEvent(w->ev[i]);
    free(w->ev);
    free(w->best_h);
    free(w->best_j);
    if (w->k)
        clReleaseKernel(w->k);
    if (w->q)
        clReleaseCommandQueue(w->q);
}

/* Params (core/params.h). */
typedef struct sw_knobs {
    uint64_t given;
    char device[64];
    uint64_t threads;
    bool cache;
} sw_knobs;
static const hay_param sw_keys[] = {
    HAY_PARAM_S(sw_knobs, device, "device", 63, NULL,
                "P:D or a flat index N (default: $HAY_OPENCL_DEVICE, else the first GPU)"),
    HAY_PARAM_U(sw_knobs, threads, "threads", 1, 4096, 0, "128", "work-group size"),
    HAY_PARAM_B(sw_knobs, cache, "cache", "1", "use the on-disk program cache"),
};
const hay_param_table hay_opencl_sw_param_table =
    HAY_PARAM_TABLE("opencl sw", sw_knobs, sw_keys);

static hay_status check_problem(const hay_sw_problem *p)
{
    RETURN_ERROR_IF(p->alpha < 1 || p->alpha > HAY_SW_MAX_ALPHA || !p->matrix, HAY_ERR_INVALID);
    RETURN_ERROR_IF((p->m && !p->q) || (p->n && !p->t), HAY_ERR_INVALID);
    RETURN_ERROR_IF(p->gap_open < 0 || p->gap_extend < 0, HAY_ERR_INVALID);
    RETURN_ERROR_IF(p->m >= ((size_t)1 << 31) || p->n >= ((size_t)1 << 31), HAY_ERR_TOO_LARGE);
    for (size_t i = 0; i < p->m; i++)
        RETURN_ERROR_IF(p->q[i] >= p->alpha, HAY_ERR_INVALID);
    for (size_t j = 0; j < p->n; j++)
        RETURN_ERROR_IF(p->t[j] >= p->alpha, HAY_ERR_INVALID);
    return HAY_OK;
}

#define SET(i, v) clSetKernelArg(w.k, (cl_uint)(i), sizeof(v), &(v))

int hay_opencl_sw_score(const hay_sw_problem *p, const char *variant,
                        const char *params, hay_sw_device_result *r)
{
    RETURN_ERROR_IF(!p || !r, HAY_ERR_INVALID);
    memset(r, 0, sizeof *r);
    RETURN_ERROR_IF(variant && strcmp(variant, "simple") != 0, HAY_ERR_UNKNOWN_NAME);
    sw_knobs kn;
    const hay_param_table *const table = &hay_opencl_sw_param_table;
    void *const values = &kn;
    FORWARD_IF_ERROR(hay_params_parse(params, &table, 1, &values, false, NULL));
    const char *device = kn.device;
    uint64_t threads = kn.threads;
    int cache = kn.cache;
    FORWARD_IF_ERROR(check_problem(p));
    double t0 = hay_now();
    r->cells = (uint64_t)p->m * p->n;
    if (p->m == 0 || p->n == 0) {
        r->seconds_total = hay_now() - t0;
        return HAY_OK;
    }
    hay_ocl_dev *dev;
    FORWARD_IF_ERROR(hay_ocl_open(device[0] ? device : NULL, HAY_OCL_PROG_SW, cache, &dev, NULL));

    sw_run w;
    memset(&w, 0, sizeof w);
    hay_status s;
    cl_int err;
    size_t m = p->m, n = p->n, ndiag = m + n - 1;
    w.q = clCreateCommandQueue(dev->ctx, dev->did, CL_QUEUE_PROFILING_ENABLE, &err);
    if ((s = hay_ocl_status(err)) < 0)
        goto out;
    w.k = clCreateKernel(dev->prog[HAY_OCL_PROG_SW], "sw_diagonal", &err);
    if ((s = hay_ocl_status(err)) < 0)
        goto out;
    size_t kmax = 0;
    if (clGetKernelWorkGroupInfo(w.k, dev->did, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax,
                                 &kmax, NULL) != CL_SUCCESS || kmax == 0)
        kmax = dev->max_wg;
    s = HAY_ERR_INVALID;
    if (threads > kmax)
        goto out;
    size_t wg = (size_t)threads;
    w.ev = calloc(ndiag, sizeof *w.ev);
    w.best_h = malloc(m * sizeof *w.best_h);
    w.best_j = malloc(m * sizeof *w.best_j);
    s = HAY_ERR_NOMEM;
    if (!w.ev || !w.best_h || !w.best_j)
        goto out;

    /* Copies in. */
    double c0 = hay_now();
    size_t ms = m * sizeof(cl_int);
    cl_mem *col[] = { &w.d_h[0], &w.d_h[1], &w.d_h[2], &w.d_e[0], &w.d_e[1],
                      &w.d_f[0], &w.d_f[1], &w.d_best_h, &w.d_best_j };
    for (size_t i = 0; i < sizeof col / sizeof col[0]; i++)
        if ((s = hay_ocl_buffer(dev, CL_MEM_READ_WRITE, ms, col[i], &err)) < 0)
            goto out;
    if ((s = hay_ocl_buffer(dev, CL_MEM_READ_ONLY, m, &w.d_q, &err)) < 0 ||
        (s = hay_ocl_buffer(dev, CL_MEM_READ_ONLY, n, &w.d_t, &err)) < 0 ||
        (s = hay_ocl_buffer(dev, CL_MEM_READ_ONLY,
                            (size_t)p->alpha * p->alpha * sizeof(cl_int), &w.d_mat, &err)) < 0)
        goto out;
    static const cl_int zero = 0;
    err = clEnqueueWriteBuffer(w.q, w.d_q, CL_FALSE, 0, m, p->q, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(w.q, w.d_t, CL_FALSE, 0, n, p->t, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(w.q, w.d_mat, CL_FALSE, 0,
                                   (size_t)p->alpha * p->alpha * sizeof(cl_int),
                                   p->matrix, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueFillBuffer(w.q, w.d_best_h, &zero, sizeof zero, 0, ms, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueFillBuffer(w.q, w.d_best_j, &zero, sizeof zero, 0, ms, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(w.q);
    if ((s = hay_ocl_status(err)) < 0)
        goto out;
    r->seconds_copy = hay_now() - c0;

    /* One launch per anti-diagonal. */
    cl_uint um = (cl_uint)m, un = (cl_uint)n;
    cl_int alpha = p->alpha, go = p->gap_open, ge = p->gap_extend;
    err = SET(0, w.d_q);
    err |= SET(1, um);
    err |= SET(2, w.d_t);
    err |= SET(3, un);
    err |= SET(4, w.d_mat);
    err |= SET(5, alpha);
    err |= SET(6, go);
    err |= SET(7, ge);
    err |= SET(18, w.d_best_h);
    err |= SET(19, w.d_best_j);
    s = HAY_ERR_DEVICE;
    if (err != CL_SUCCESS)
        goto out;
    double k0 = hay_now();
    size_t widest = m < n ? m : n;
    for (size_t d = 0; d < ndiag; d++) {
        cl_uint ud = (cl_uint)d;
        cl_uint lo = d >= n ? (cl_uint)(d - n + 1) : 0;
        cl_uint hi = d < m ? (cl_uint)d : (cl_uint)(m - 1);
        /* Diagonal d writes h[d % 3], e[d % 2], f[d % 2]. */
        err = SET(8, ud);
        err |= SET(9, lo);
        err |= SET(10, hi);
        err |= SET(11, w.d_h[(d + 1) % 3]);   /* d - 2 */
        err |= SET(12, w.d_h[(d + 2) % 3]);   /* d - 1 */
        err |= SET(13, w.d_e[(d + 1) % 2]);
        err |= SET(14, w.d_f[(d + 1) % 2]);
        err |= SET(15, w.d_h[d % 3]);
        err |= SET(16, w.d_e[d % 2]);
        err |= SET(17, w.d_f[d % 2]);
        if (err != CL_SUCCESS)
            goto out;
        size_t cells = hi - lo + 1;
        size_t global = (cells + wg - 1) / wg * wg;
        err = clEnqueueNDRangeKernel(w.q, w.k, 1, NULL, &global, &wg, 0, NULL, &w.ev[d]);
        if (err != CL_SUCCESS) {
            s = hay_ocl_status(err);
            goto out;
        }
        w.nev = d + 1;
    }
    err = clFinish(w.q);
    if ((s = hay_ocl_status(err)) < 0)
        goto out;
    double k1 = hay_now();
    double busy = 0;
    for (size_t d = 0; d < ndiag; d++) {
        cl_ulong a = 0, b = 0;
        if (clGetEventProfilingInfo(w.ev[d], CL_PROFILING_COMMAND_START, sizeof a, &a, NULL) == CL_SUCCESS &&
            clGetEventProfilingInfo(w.ev[d], CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) == CL_SUCCESS &&
            b > a)
            busy += (double)(b - a) * 1e-9;
    }
    r->seconds_compute = busy;
    r->seconds_sync = (k1 - k0) > busy ? (k1 - k0) - busy : 0;

    /* Copies out: each row's best; the best row, the first on ties. */
    c0 = hay_now();
    err = clEnqueueReadBuffer(w.q, w.d_best_h, CL_TRUE, 0, ms, w.best_h, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(w.q, w.d_best_j, CL_TRUE, 0, ms, w.best_j, 0, NULL, NULL);
    if ((s = hay_ocl_status(err)) < 0)
        goto out;
    r->seconds_copy += hay_now() - c0;
    for (size_t i = 0; i < m; i++) {
        if (w.best_h[i] > r->score) {
            r->score = w.best_h[i];
            r->q_end = i;
            r->t_end = w.best_j[i];
        }
    }
    r->threads = (int)wg;
    r->blocks = (int)((widest + wg - 1) / wg);
    s = HAY_OK;
out:
    run_free(&w);
    r->seconds_total = hay_now() - t0;
    return s;
}
