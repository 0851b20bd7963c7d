// cuda_exact_test.cu - the one-pattern CUDA engines (src/cuda/exact.cu)
// driven directly through the engine contract (cuda_engine.h) and checked
// against a naive CPU oracle: counts, per-pattern counts, the match list
// (exact when it fits, a subset of distinct true matches and nothing past
// cap when it does not), the min_end rule, caseless sets, padding 0..34
// before and after the text, every cascade degree and several launch
// shapes.  Without a CUDA device it prints why and exits 77 (skipped).
#include <cuda_runtime.h>

#include <algorithm>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "haystack.h"
#include "exact.h"

namespace {

struct cfg {
    const hay_cuda_engine *e;
    const char *params;
};

std::vector<cfg> configs()
{
    std::vector<cfg> c;
    c.push_back({&hay_cuda_engine_brute_global, NULL});
    c.push_back({&hay_cuda_engine_brute_global, "threads=32"});
    c.push_back({&hay_cuda_engine_brute_reg, NULL});
    c.push_back({&hay_cuda_engine_brute_reg, "threads=1024"});
    c.push_back({&hay_cuda_engine_brute_first, NULL});
    c.push_back({&hay_cuda_engine_brute_first, "threads=64"});
    static const char *bm[] = {
        "cascade=1", "cascade=2", "cascade=4", "cascade=8", "cascade=16", "cascade=32",
        NULL,  // defaults: cascade=64, blocks_per_sm=16, threads=128
        "blocks_per_sm=8,threads=256,cascade=1", "blocks_per_sm=4,threads=512,cascade=64",
        "blocks_per_sm=2,threads=1024,cascade=2", "seg=5,cascade=3,threads=32",
        "seg=4096,threads=64,cascade=1"};
    for (const char *p : bm)
        c.push_back({&hay_cuda_engine_bm, p});
    static const char *fast[] = {
        NULL, "unroll=1,threads=64", "unroll=2,threads=1024,blocks_per_sm=1",
        "unroll=2,threads=128,blocks_per_sm=2", "unroll=4,threads=64,blocks_per_sm=1",
        "filter=3", "filter=3,unroll=1,threads=64", "filter=3,unroll=2,threads=256,blocks_per_sm=2"};
    for (const char *p : fast)
        c.push_back({&hay_cuda_engine_fast, p});
    return c;
}

uint64_t rng_state = 0x9e3779b97f4a7c15ull;
uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
size_t rndn(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

uint8_t fold(uint8_t c, bool ci) { return (ci && c >= 'A' && c <= 'Z') ? (uint8_t)(c | 0x20) : c; }

// Ends e in (min_end, len] of every occurrence.
std::vector<uint64_t> oracle(const std::vector<uint8_t> &t, const std::vector<uint8_t> &p,
                             bool ci, uint64_t min_end)
{
    std::vector<uint64_t> ends;
    size_t m = p.size();
    if (t.size() < m)
        return ends;
    for (size_t s = 0; s + m <= t.size(); s++) {
        size_t i = 0;
        while (i < m && fold(t[s + i], ci) == fold(p[i], ci))
            i++;
        if (i == m && s + m > min_end)
            ends.push_back(s + m);
    }
    return ends;
}

struct dev_bufs {
    uint8_t *text;
    size_t text_cap;
    unsigned long long *count, *pc, *slots, *matches;
    size_t match_cap;
};

const uint64_t COUNT_BASE = 5;          // d_count is added to
const unsigned long long SENTINEL = 0xfeedfacecafebeefull;
const size_t GUARD = 16;                // list slots past cap that must stay untouched

int passed = 0, failed = 0;

void fail_msg(const cfg &c, const char *what, size_t m, size_t len, int ci, uint64_t min_end,
              size_t pb, size_t pa, uint64_t cap, const char *detail)
{
    failed++;
    if (failed <= 300)
        fprintf(stderr, "FAIL %s [%s] m=%zu len=%zu ci=%d min_end=%llu pad=%zu/%zu cap=%llu: %s %s\n",
                c.e->name, c.params ? c.params : "defaults", m, len, ci,
                (unsigned long long)min_end, pb, pa, (unsigned long long)cap, what, detail);
}

// One job: the text sits at d_text = buffer + pb, with pb bytes before and
// pa bytes after it filled with copies of the pattern, so reads outside
// [0, len) or matches crossing its ends would show.
bool run_case(const cfg &c, void *state, const std::vector<uint8_t> &t,
              const std::vector<uint8_t> &p, bool ci, uint64_t min_end, size_t pb, size_t pa,
              bool want_list, uint64_t cap, bool want_pc, const std::vector<uint64_t> &expect,
              dev_bufs &d)
{
    size_t len = t.size(), m = p.size();
    std::vector<uint8_t> buf(pb + len + pa);
    for (size_t i = 0; i < pb; i++)
        buf[i] = p[(i + m - pb % m) % m];
    memcpy(buf.data() + pb, t.data(), len);
    for (size_t i = 0; i < pa; i++)
        buf[pb + len + i] = p[i % m];
    if (buf.size() > d.text_cap || cap + GUARD > d.match_cap) {
        fprintf(stderr, "test bug: buffers too small\n");
        exit(1);
    }
    cudaMemcpy(d.text, buf.data(), buf.size(), cudaMemcpyHostToDevice);
    unsigned long long base[3] = {COUNT_BASE, 0, 0};
    cudaMemcpy(d.count, &base[0], 8, cudaMemcpyHostToDevice);
    cudaMemcpy(d.pc, &base[1], 8, cudaMemcpyHostToDevice);
    cudaMemcpy(d.slots, &base[2], 8, cudaMemcpyHostToDevice);
    size_t nfill = want_list ? cap + GUARD : 0;
    std::vector<unsigned long long> fillv(nfill, SENTINEL);
    if (nfill)
        cudaMemcpy(d.matches, fillv.data(), nfill * 8, cudaMemcpyHostToDevice);
    hay_cuda_job job;
    memset(&job, 0, sizeof job);
    job.d_text = d.text + pb;
    job.len = len;
    job.min_end = min_end;
    job.d_count = d.count;
    job.d_pattern_counts = want_pc ? d.pc : NULL;
    job.d_matches = want_list ? d.matches : NULL;
    job.d_slots = want_list ? d.slots : NULL;
    job.cap = cap;
    job.stream = NULL;
    int rc = c.e->launch(state, &job);
    cudaError_t ce = cudaDeviceSynchronize();
    char detail[200];
    if (rc != 0 || ce != cudaSuccess) {
        snprintf(detail, sizeof detail, "launch rc %d, cuda %s", rc, cudaGetErrorString(ce));
        fail_msg(c, "launch", m, len, ci, min_end, pb, pa, cap, detail);
        if (ce != cudaSuccess)
            exit(1);  // the context is gone
        return false;
    }
    unsigned long long got[3];
    cudaMemcpy(&got[0], d.count, 8, cudaMemcpyDeviceToHost);
    cudaMemcpy(&got[1], d.pc, 8, cudaMemcpyDeviceToHost);
    cudaMemcpy(&got[2], d.slots, 8, cudaMemcpyDeviceToHost);
    uint64_t n = expect.size();
    bool ok = true;
    if (got[0] != COUNT_BASE + n) {
        snprintf(detail, sizeof detail, "got %llu want %llu", got[0] - COUNT_BASE,
                 (unsigned long long)n);
        fail_msg(c, "count", m, len, ci, min_end, pb, pa, cap, detail);
        ok = false;
    }
    if (got[1] != (want_pc ? n : 0)) {
        snprintf(detail, sizeof detail, "got %llu", got[1]);
        fail_msg(c, "pattern count", m, len, ci, min_end, pb, pa, cap, detail);
        ok = false;
    }
    if (got[2] != (want_list ? n : 0)) {
        snprintf(detail, sizeof detail, "got %llu want %llu", got[2], (unsigned long long)n);
        fail_msg(c, "slots", m, len, ci, min_end, pb, pa, cap, detail);
        ok = false;
    }
    if (want_list) {
        std::vector<unsigned long long> list(nfill);
        cudaMemcpy(list.data(), d.matches, nfill * 8, cudaMemcpyDeviceToHost);
        uint64_t written = n < cap ? n : cap;
        for (size_t i = written; i < nfill; i++)
            if (list[i] != SENTINEL) {
                snprintf(detail, sizeof detail, "slot %zu written", i);
                fail_msg(c, "list past its end", m, len, ci, min_end, pb, pa, cap, detail);
                ok = false;
                break;
            }
        std::vector<uint64_t> ends;
        bool ids = true;
        for (size_t i = 0; i < written; i++) {
            ends.push_back(HAY_CUDA_MATCH_END(list[i]));
            ids = ids && HAY_CUDA_MATCH_ID(list[i]) == 0;
        }
        std::sort(ends.begin(), ends.end());
        bool good = ids && std::adjacent_find(ends.begin(), ends.end()) == ends.end();
        if (good && written == n)
            good = ends == expect;
        else if (good)
            for (uint64_t e : ends)
                good = good && std::binary_search(expect.begin(), expect.end(), e);
        if (!good) {
            snprintf(detail, sizeof detail, "%zu entries (ids ok %d)", ends.size(), ids);
            fail_msg(c, "list", m, len, ci, min_end, pb, pa, cap, detail);
            ok = false;
        }
    }
    if (ok)
        passed++;
    return ok;
}

void *build(const cfg &c, const std::vector<uint8_t> &p, bool ci)
{
    size_t off = 0, len = p.size();
    hay_cuda_patterns hp;
    memset(&hp, 0, sizeof hp);
    hp.n = 1;
    hp.bytes = p.data();
    hp.off = &off;
    hp.len = &len;
    hp.min_len = hp.max_len = len;
    hp.caseless = ci;
    hp.params = c.params;
    void *st = NULL;
    int rc = c.e->build(&hp, &st);
    if (rc != 0 || !st) {
        fail_msg(c, "build", len, 0, ci, 0, 0, 0, 0, "");
        return NULL;
    }
    return st;
}

struct tcase {
    std::vector<uint8_t> t, p;
    bool ci;
    uint64_t min_end;
    size_t pb, pa;
    bool list, pc;
    uint64_t cap;
};

// Runs one case on every configuration (the oracle once).
void run_all(const std::vector<cfg> &cs, const tcase &k, dev_bufs &d)
{
    std::vector<uint64_t> expect = oracle(k.t, k.p, k.ci, k.min_end);
    for (const cfg &c : cs) {
        void *st = build(c, k.p, k.ci);
        if (!st)
            continue;
        run_case(c, st, k.t, k.p, k.ci, k.min_end, k.pb, k.pa, k.list, k.cap, k.pc, expect, d);
        c.e->destroy(st);
    }
}

std::vector<uint8_t> random_pattern(size_t m, int alphabet)
{
    std::vector<uint8_t> p(m);
    for (size_t i = 0; i < m; i++)
        p[i] = alphabet ? (uint8_t)('a' + rndn(alphabet)) : (uint8_t)rnd();
    return p;
}

// A text of len bytes over `alphabet` letters (0: any byte) with p planted
// at the start, at the end and at `extra` random places (some overlapping).
std::vector<uint8_t> planted_text(size_t len, const std::vector<uint8_t> &p, int alphabet,
                                  int extra, bool flip_case)
{
    std::vector<uint8_t> t(len);
    for (size_t i = 0; i < len; i++)
        t[i] = alphabet ? (uint8_t)('a' + rndn(alphabet)) : (uint8_t)rnd();
    size_t m = p.size();
    if (len >= m) {
        auto plant = [&](size_t at) {
            for (size_t i = 0; i < m; i++) {
                uint8_t c = p[i];
                if (flip_case && c >= 'a' && c <= 'z' && (rnd() & 1))
                    c = (uint8_t)(c - 32);
                else if (flip_case && c >= 'A' && c <= 'Z' && (rnd() & 1))
                    c = (uint8_t)(c + 32);
                t[at + i] = c;
            }
        };
        plant(0);
        plant(len - m);
        for (int i = 0; i < extra; i++) {
            size_t at = rndn(len - m + 1);
            plant(at);
            if (m > 1 && at + m / 2 + m <= len)
                plant(at + m / 2);  // overlapping the previous copy
        }
    }
    return t;
}

int param_checks(void)
{
    struct {
        const hay_cuda_engine *e;
        const char *params;
        int want;
    } cases[] = {
        {&hay_cuda_engine_brute_global, "colour=blue", HAY_ERR_INVALID},
        {&hay_cuda_engine_brute_global, "cascade=4", HAY_ERR_INVALID},
        {&hay_cuda_engine_brute_reg, "threads=33", HAY_ERR_INVALID},
        {&hay_cuda_engine_brute_first, "threads", HAY_ERR_INVALID},
        {&hay_cuda_engine_bm, "cascade=0", HAY_ERR_INVALID},
        {&hay_cuda_engine_bm, "cascade=64,blocks_per_sm=99", HAY_ERR_INVALID},
        {&hay_cuda_engine_bm, "cascade=8,", HAY_ERR_INVALID},   // an empty item
        {&hay_cuda_engine_bm, " cascade=8 ", HAY_OK},
        {&hay_cuda_engine_bm, "unroll=2", HAY_ERR_INVALID},
        {&hay_cuda_engine_fast, "unroll=3", HAY_ERR_INVALID},
        {&hay_cuda_engine_fast, "threads=-1", HAY_ERR_INVALID},
        {&hay_cuda_engine_fast, "unroll=2,threads=512,blocks_per_sm=4", HAY_OK},
        {&hay_cuda_engine_fast, "unroll=8", HAY_ERR_INVALID},
        {&hay_cuda_engine_fast, "filter=4", HAY_ERR_INVALID},
        {&hay_cuda_engine_fast, "filter=3,threads=1024", HAY_OK},
        {&hay_cuda_engine_bm, "filter=3", HAY_ERR_INVALID},
        {&hay_cuda_engine_fast, "seg=24", HAY_ERR_INVALID},
    };
    int bad = 0;
    const uint8_t pat[] = "abc";
    size_t off = 0, len = 3;
    for (auto &k : cases) {
        hay_cuda_patterns hp;
        memset(&hp, 0, sizeof hp);
        hp.n = 1;
        hp.bytes = pat;
        hp.off = &off;
        hp.len = &len;
        hp.min_len = hp.max_len = 3;
        hp.params = k.params;
        void *st = NULL;
        int rc = k.e->build(&hp, &st);
        if (rc != k.want) {
            fprintf(stderr, "FAIL params %s \"%s\": rc %d want %d\n", k.e->name, k.params, rc,
                    k.want);
            bad++;
        }
        if (st)
            k.e->destroy(st);
    }
    // Two patterns: these engines take one.
    size_t offs[2] = {0, 1}, lens[2] = {1, 1};
    hay_cuda_patterns hp;
    memset(&hp, 0, sizeof hp);
    hp.n = 2;
    hp.bytes = pat;
    hp.off = offs;
    hp.len = lens;
    hp.min_len = hp.max_len = 1;
    void *st = NULL;
    if (hay_cuda_engine_fast.build(&hp, &st) != HAY_ERR_UNSUPPORTED) {
        fprintf(stderr, "FAIL two patterns accepted\n");
        bad++;
    }
    if (st)
        hay_cuda_engine_fast.destroy(st);
    return bad;
}

}  // namespace

int main(int argc, char **argv)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("SKIPPED: no CUDA device (%s)\n", cudaGetErrorString(cudaGetLastError()));
        return 77;
    }
    double scale = 1.0;
    if (argc > 1)
        scale = atof(argv[1]);
    else if (getenv("HAY_TEST_SCALE"))
        scale = atof(getenv("HAY_TEST_SCALE"));
    if (!(scale > 0))
        scale = 1.0;
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("device: %s\n", prop.name);

    dev_bufs d;
    d.text_cap = (8u << 20) + 4096;
    d.match_cap = (1u << 16) + 64;
    if (cudaMalloc((void **)&d.text, d.text_cap) != cudaSuccess ||
        cudaMalloc((void **)&d.count, 8) != cudaSuccess ||
        cudaMalloc((void **)&d.pc, 8) != cudaSuccess ||
        cudaMalloc((void **)&d.slots, 8) != cudaSuccess ||
        cudaMalloc((void **)&d.matches, d.match_cap * 8) != cudaSuccess) {
        printf("FAIL: cudaMalloc\n");
        return 1;
    }
    int pbad = param_checks();
    failed += pbad;
    passed += pbad ? 0 : 1;

    std::vector<cfg> cs = configs();
    static const size_t lengths[] = {1, 2, 3, 15, 16, 17, 31, 32, 33, 64, 255, 256, 1000, 65536};
    for (size_t m : lengths) {
        int before = failed;
        int reps = m >= 1000 ? 2 : (int)(6 * scale) + 1;
        for (int r = 0; r < reps; r++) {
            for (int ci = 0; ci < 2; ci++) {
                tcase k;
                k.ci = ci;
                // Random bytes with planted copies; small texts for short keys.
                k.p = random_pattern(m, ci ? 3 : 0);
                if (ci)
                    for (auto &c : k.p)
                        if (rnd() & 1)
                            c = (uint8_t)(c - 32);
                size_t len = m + rndn(m < 64 ? 3000 : 3 * m + 2000);
                k.t = planted_text(len, k.p, ci ? 3 : 0, 4, ci);
                k.min_end = (r & 1) ? rndn(len + 1) : 0;
                k.pb = rndn(35);
                k.pa = rndn(35);
                k.list = true;
                k.pc = r & 1;
                k.cap = 1 << 16;
                run_all(cs, k, d);
                // Two letters: many partial and overlapping matches; a
                // list smaller than the number of matches.
                if (m <= 256) {
                    k.p = random_pattern(m, 2);
                    k.t = planted_text(m + rndn(20000), k.p, 2, 8, false);
                    k.ci = false;
                    size_t n = oracle(k.t, k.p, false, 0).size();
                    k.cap = n ? rndn(n) : 0;
                    k.min_end = rndn(k.t.size() / 2);
                    run_all(cs, k, d);
                }
            }
        }
        // Padding 0..34 before and after, every alignment of the text.
        if (m <= 64)
            for (size_t pb = 0; pb <= 34; pb++) {
                tcase k;
                k.ci = pb & 1;
                k.p = random_pattern(m, 2);
                k.t = planted_text(m + rndn(300), k.p, 2, 2, k.ci);
                k.min_end = 0;
                k.pb = pb;
                k.pa = (pb * 7 + 3) % 35;
                k.list = true;
                k.pc = true;
                k.cap = 1 << 16;
                run_all(cs, k, d);
            }
        printf("m=%zu: %s\n", m, failed == before ? "ok" : "FAILED");
        fflush(stdout);
    }

    // Dense: a key of one repeated letter over 8 MiB of that letter; every
    // position matches, the list (cap 1000) overflows, counts stay exact.
    {
        static const size_t dense[] = {1, 2, 3, 17, 33, 256};
        std::vector<uint8_t> t((size_t)(8u << 20) - 3, 'a');
        int before = failed;
        for (size_t m : dense) {
            std::vector<uint8_t> p(m, 'a');
            uint64_t n = t.size() - m + 1;
            for (int variant = 0; variant < 2; variant++) {
                uint64_t min_end = variant ? 12345 : 0;
                std::vector<uint64_t> expect;
                if (variant == 0)
                    expect.reserve(n);
                for (uint64_t e = m; e <= t.size(); e++)
                    if (e > min_end)
                        expect.push_back(e);
                for (const cfg &c : cs) {
                    void *st = build(c, p, variant == 1);
                    if (!st)
                        continue;
                    run_case(c, st, t, p, variant == 1, min_end, 1, 0, true, 1000, true, expect, d);
                    run_case(c, st, t, p, variant == 1, min_end, 0, 7, false, 0, false, expect, d);
                    c.e->destroy(st);
                }
            }
        }
        printf("dense: %s\n", failed == before ? "ok" : "FAILED");
    }
    // Empty and short jobs: fewer bytes than the key, min_end at the end.
    {
        int before = failed;
        std::vector<uint8_t> p = {'x', 'y', 'z'};
        std::vector<uint8_t> t = {'x', 'y'};
        std::vector<uint64_t> none;
        std::vector<uint8_t> t2 = {'x', 'y', 'z', 'x', 'y', 'z'};
        for (const cfg &c : cs) {
            void *st = build(c, p, false);
            if (!st)
                continue;
            run_case(c, st, t, p, false, 0, 3, 3, true, 10, true, none, d);
            run_case(c, st, t2, p, false, 6, 0, 0, true, 10, true, none, d);
            run_case(c, st, t2, p, false, 5, 0, 0, true, 10, true, std::vector<uint64_t>{6}, d);
            c.e->destroy(st);
        }
        printf("short jobs: %s\n", failed == before ? "ok" : "FAILED");
    }
    cudaFree(d.text);
    cudaFree(d.count);
    cudaFree(d.pc);
    cudaFree(d.slots);
    cudaFree(d.matches);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
