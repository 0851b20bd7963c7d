// fdr_gpu_core.cu - the thread code of the CUDA engine fdr-gpu
// (src/cuda/fdr_gpu.cuh) and its tables (fdr_gpu_build.c), run on the
// host thread by thread as the kernel runs them, against oracles: a naive
// search for random sets (1..3-byte literals, NUL bytes, duplicates,
// caseless, literals of 4..300 bytes and one of 65,536, groups, every
// domain, several run lengths; lists, and counts with short matches added
// in place), every alignment of the piece (0..15 bytes
// past a 16-byte boundary, garbage around it) and pieces with look-back
// (min_end > 0); then real pattern sets against the CPU backend
// (snort-community, et-open, english-words caseless) when the data
// directory is given; and sets of short literals alone (short_sets).
// Needs no GPU: it runs wherever CUDA builds.
//
//   test_fdr_gpu_core [data dir]
#include <algorithm>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#include "haystack.h"
#include "fdr_gpu.cuh"

namespace {

int failures = 0;
#define EXPECT(c, ...)                                  \
    do {                                                \
        if (!(c)) {                                     \
            failures++;                                 \
            if (failures < 20) {                        \
                fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
                fprintf(stderr, __VA_ARGS__);           \
                fprintf(stderr, "\n");                  \
            }                                           \
        }                                               \
    } while (0)

uint64_t rng = 0x2545F4914F6CDD1Dull;
uint64_t rnd()
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

struct pset {
    std::vector<uint8_t> bytes;
    std::vector<size_t> off, len;
    bool caseless = false;
    void add(const uint8_t *p, size_t n)
    {
        off.push_back(bytes.size());
        len.push_back(n);
        bytes.insert(bytes.end(), p, p + n);
    }
    hay_cuda_patterns view() const
    {
        size_t mn = SIZE_MAX, mx = 0;
        for (size_t l : len) {
            mn = std::min(mn, l);
            mx = std::max(mx, l);
        }
        hay_cuda_patterns p;
        memset(&p, 0, sizeof p);
        p.n = len.size();
        p.bytes = bytes.data();
        p.off = off.data();
        p.len = len.data();
        p.min_len = mn;
        p.max_len = mx;
        p.caseless = caseless;
        return p;
    }
};

typedef std::vector<uint64_t> keys;   // HAY_CUDA_MATCH(end, id)

struct emit_host {
    keys *out;
    uint64_t added;
    void add(uint32_t k) { added += k; }
    void operator()(uint64_t end, uint32_t id) { out->push_back(HAY_CUDA_MATCH(end, id)); }
};
template <bool CASELESS>
struct queue_host {
    const fdr_view *v;
    const fdr_piece *pc;
    emit_host *em;
    static constexpr bool short_lists = true;   // as the kernel's list
    void push(uint64_t c) { fdr_verify<CASELESS>(*v, *pc, c, *em); }
    void step(bool) {}
    void short_list(uint32_t m, int64_t e0)
    {
        for (; m; m &= m - 1) {
            uint32_t id;
            uint64_t end = fdr_short_one<CASELESS>(*v, *pc, e0, fdr_lowest(m), &id);
            (*em)(end, id);
        }
    }
    void shorts(uint32_t s, const uint32_t w[4], uint32_t prev, int64_t e0)
    {
        for (; s; s &= s - 1)
            fdr_short_in_word(*v, *pc, w, prev, e0, fdr_lowest(s), *em);
    }
    void put(uint32_t c, const fdr_word_out &o, uint32_t shm, int64_t e0)
    {
        while (c)
            push(fdr_take(c, o, shm, e0));
    }
};

// One thread of a pass, with the kernel's template choice.
template <bool CL>
void one_thread(bool fast, const fdr_view &v, const fdr_piece &pc, const fdr_geom &gm,
                uint64_t th, emit_host &em, queue_host<CL> &q)
{
    if (v.scode && fast)
        fdr_thread<CL, true, true>(v, pc, gm, th, em, q);
    else if (v.scode)
        fdr_thread<CL, true, false>(v, pc, gm, th, em, q);
    else if (fast)
        fdr_thread<CL, false, true>(v, pc, gm, th, em, q);
    else
        fdr_thread<CL, false, false>(v, pc, gm, th, em, q);
}

// Every pass of the tables over the piece text[0, len) that reports ends
// in (min_end, len], thread by thread as the kernel's grid would; with
// *count, a count (short matches added in place) instead of the list.
keys run_engine(const hay_fdr_gpu_tables &t, const uint8_t *text, uint64_t len,
                uint64_t min_end, size_t max_len, uint32_t run, uint64_t *count = nullptr)
{
    keys out;
    if (count)
        *count = 0;
    uint64_t start0 = min_end > max_len - 1 ? min_end - (max_len - 1) : 0;
    if (len <= min_end)
        return out;
    fdr_piece pc = { text, len, min_end };
    fdr_geom gm = fdr_plan(text, len, start0, run);
    emit_host em = { &out, 0 };
    for (uint32_t g = 0; g < t.groups; g++) {
        if (g > 0 && !t.nlong)
            break;
        fdr_view v;
        v.table = t.table + ((size_t)g << t.domain);
        v.scode = g == 0 ? t.short_code : nullptr;
        v.short_first = t.short_first;
        v.short_ent = t.short_ent;
        v.short_pair = t.short_pair;
        v.slot_first = t.slot_first;
        v.lits = t.lits;
        v.bytes = t.bytes;
        v.plen = t.plen + (size_t)g * HAY_FDR_GPU_BUCKETS;
        v.domain = t.domain;
        v.hash_bits = t.hash_bits;
        v.pbits = t.pbits;
        v.pmap = t.pmap;
        v.group = g;
        queue_host<true> qt = { &v, &pc, &em };
        queue_host<false> qf = { &v, &pc, &em };
        for (uint64_t th = 0; th < gm.nthr; th++) {
            if (t.caseless)
                one_thread<true>(count != nullptr, v, pc, gm, th, em, qt);
            else
                one_thread<false>(count != nullptr, v, pc, gm, th, em, qf);
        }
    }
    if (count)
        *count = out.size() + em.added;
    std::sort(out.begin(), out.end());
    return out;
}

uint8_t fold(uint8_t c) { return c >= 'A' && c <= 'Z' ? c | 0x20 : c; }

keys naive(const pset &p, const uint8_t *text, uint64_t len, uint64_t min_end)
{
    keys out;
    for (size_t id = 0; id < p.len.size(); id++) {
        const uint8_t *q = p.bytes.data() + p.off[id];
        size_t l = p.len[id];
        for (uint64_t s = 0; s + l <= len; s++) {
            if (s + l <= min_end)
                continue;
            size_t j = 0;
            while (j < l && (p.caseless ? fold(text[s + j]) == fold(q[j]) : text[s + j] == q[j]))
                j++;
            if (j == l)
                out.push_back(HAY_CUDA_MATCH(s + l, id));
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The piece text[0, len) placed at every alignment with garbage around it.
void check_all_alignments(const pset &p, const hay_fdr_gpu_tables &t, const uint8_t *text,
                          uint64_t len, uint64_t min_end, uint32_t run, const keys &want,
                          const char *what)
{
    std::vector<uint8_t> buf(len + 128);
    uint8_t *al = (uint8_t *)(((uintptr_t)buf.data() + 15) & ~(uintptr_t)15);
    for (unsigned a0 = 0; a0 < 16; a0++) {
        for (size_t i = 0; i < buf.size(); i++)
            buf[i] = (uint8_t)rnd();
        memcpy(al + a0, text, len);
        keys got = run_engine(t, al + a0, len, min_end, p.view().max_len, run);
        EXPECT(got == want, "%s: align %u run %u min_end %llu: %zu matches, want %zu", what,
               a0, run, (unsigned long long)min_end, got.size(), want.size());
        uint64_t c;
        run_engine(t, al + a0, len, min_end, p.view().max_len, run, &c);
        EXPECT(c == want.size(), "%s: align %u run %u min_end %llu: count %llu, want %zu",
               what, a0, run, (unsigned long long)min_end, (unsigned long long)c, want.size());
    }
}

// Sets of short literals, whose codes the filter's words read and count in
// place: 1-byte only (with duplicates: 3 or more send the key to the
// lists), 2-byte only (NUL bytes, doubled bytes, pairs whose first byte
// ends another), mixed with long literals, caseless, snort-like; texts of
// their own bytes with matches planted at the piece's first and last
// bytes, every alignment, three look-backs, two run lengths.
void short_sets()
{
    static const char *const sets[] = {
        "a|b|\\0|z",                 // 1-byte
        "a|a|a|b|b|\\0",             // 1-byte, duplicates (slow)
        "ab|ba|aa|\\0\\0|\\0a|a\\0", // 2-byte
        "ab|bc|cd|da|ab",            // 2-byte chains, a duplicate
        "a|ab|b|ba|abc|bcd|abcd",    // mixed with long
        "a|aB|Ab|ab|xyzw|B",         // caseless
        " |\\r\\n|n |d|nd|\\n",      // snort-like: spaces and line ends
    };
    int n = 0;
    for (const char *spec : sets) {
        pset p;
        p.caseless = n == 5;
        std::vector<uint8_t> q;
        for (const char *c = spec;; c++) {
            if (*c == '|' || !*c) {
                p.add(q.data(), q.size());
                q.clear();
                if (!*c)
                    break;
            } else if (c[0] == '\\' && c[1] == '0') {
                q.push_back(0);
                c++;
            } else if (c[0] == '\\' && c[1] == 'r') {
                q.push_back('\r');
                c++;
            } else if (c[0] == '\\' && c[1] == 'n') {
                q.push_back('\n');
                c++;
            } else {
                q.push_back((uint8_t)*c);
            }
        }
        // The text: the set's own bytes (and their other case) at random.
        std::vector<uint8_t> alpha;
        for (uint8_t c : p.bytes) {
            alpha.push_back(c);
            alpha.push_back(fold(c) == c && c >= 'a' && c <= 'z' ? (uint8_t)(c - 32) : c);
        }
        alpha.push_back('.');
        for (size_t len : { (size_t)1, (size_t)2, (size_t)17, (size_t)300, (size_t)2000 }) {
            std::vector<uint8_t> text(len);
            for (auto &c : text)
                c = alpha[rnd() % alpha.size()];
            // A literal at the first bytes and one at the last.
            size_t a = rnd() % p.len.size(), b = rnd() % p.len.size();
            if (p.len[a] <= len)
                memcpy(&text[0], &p.bytes[p.off[a]], p.len[a]);
            if (p.len[b] <= len)
                memcpy(&text[len - p.len[b]], &p.bytes[p.off[b]], p.len[b]);
            hay_cuda_patterns v = p.view();
            hay_fdr_gpu_tables t;
            int s = hay_fdr_gpu_build(&v, 12, 32768, &t);
            EXPECT(s == 0 && t.short_code, "short set %d: build %d", n, s);
            if (s == 0) {
                char what[64];
                snprintf(what, sizeof what, "short set %d (%s), length %zu", n, spec, len);
                for (uint64_t me : { (uint64_t)0, (uint64_t)len / 2, (uint64_t)len - 1 }) {
                    keys want = naive(p, text.data(), len, me);
                    for (uint32_t run : { 16u, 64u })
                        check_all_alignments(p, t, text.data(), len, me, run, want, what);
                }
            }
            hay_fdr_gpu_tables_free(&t);
        }
        n++;
    }
}

void random_sets()
{
    static const uint32_t domains[] = { 10, 12, 15 };
    static const uint32_t groups[] = { 64, 4096 };
    static const uint32_t runs[] = { 16, 48, 64, 256 };
    for (int round = 0; round < 48; round++) {
        pset p;
        p.caseless = round % 3 == 1;
        unsigned alpha = round % 2 ? 4 : 256;   // a small alphabet: many matches
        size_t npat = 1 + rnd() % (round < 24 ? 40 : 300);
        for (size_t i = 0; i < npat; i++) {
            size_t l;
            uint64_t r = rnd() % 100;
            l = r < 15 ? 1 + rnd() % 3 : r < 95 ? 4 + rnd() % 12 : 16 + rnd() % 285;
            std::vector<uint8_t> q(l);
            for (auto &c : q)
                c = alpha == 4 ? "aBc\0"[rnd() % 4] : (uint8_t)rnd();
            p.add(q.data(), l);
            if (rnd() % 10 == 0)
                p.add(q.data(), l);   // a duplicate
        }
        if (round == 7) {
            std::vector<uint8_t> big(65536, 'a');
            p.add(big.data(), big.size());
        }
        size_t len = 1 + rnd() % 5000;
        if (round == 7)
            len = 66000;
        std::vector<uint8_t> text(len);
        for (auto &c : text)
            c = alpha == 4 || round == 7 ? "aBcAb\0"[rnd() % (round == 7 ? 1 : 6)] : (uint8_t)rnd();
        // Plant some literals.
        for (int k = 0; k < 20 && round != 7; k++) {
            size_t id = rnd() % p.len.size();
            if (p.len[id] < len) {
                size_t at = rnd() % (len - p.len[id] + 1);
                memcpy(&text[at], p.bytes.data() + p.off[id], p.len[id]);
            }
        }
        hay_cuda_patterns v = p.view();
        uint32_t dom = domains[round % 3], gm = groups[(round / 3) % 2];
        hay_fdr_gpu_tables t;
        int s = hay_fdr_gpu_build(&v, dom, gm, &t);
        EXPECT(s == 0, "build: %d", s);
        if (s == 0) {
            char what[64];
            snprintf(what, sizeof what, "round %d (%zu literals, domain %u, groups %u)", round,
                     p.len.size(), dom, t.groups);
            uint64_t mins[] = { 0, len / 3, len - 1 };
            for (uint64_t me : mins) {
                keys want = naive(p, text.data(), len, me);
                check_all_alignments(p, t, text.data(), len, me, runs[round % 4], want, what);
            }
        }
        hay_fdr_gpu_tables_free(&t);
    }
}

// The patterns of a data file (one a line, \xHH escapes).
pset read_set(const std::string &path, bool caseless, bool *ok)
{
    pset p;
    p.caseless = caseless;
    FILE *f = fopen(path.c_str(), "rb");
    *ok = f != nullptr;
    if (!f)
        return p;
    std::string all;
    char b[65536];
    size_t n;
    while ((n = fread(b, 1, sizeof b, f)) > 0)
        all.append(b, n);
    fclose(f);
    size_t i = 0;
    while (i < all.size()) {
        std::vector<uint8_t> q;
        while (i < all.size() && all[i] != '\n') {
            if (all[i] == '\\' && i + 3 < all.size() && all[i + 1] == 'x' &&
                isxdigit((unsigned char)all[i + 2]) && isxdigit((unsigned char)all[i + 3])) {
                q.push_back((uint8_t)strtoul(all.substr(i + 2, 2).c_str(), nullptr, 16));
                i += 4;
            } else {
                q.push_back((uint8_t)all[i++]);
            }
        }
        i++;
        if (!q.empty())
            p.add(q.data(), q.size());
    }
    return p;
}

int collect(uint32_t id, uint64_t start, uint64_t end, void *ctx)
{
    (void)start;
    ((keys *)ctx)->push_back(HAY_CUDA_MATCH(end, id));
    return 0;
}

void real_sets(const char *dir)
{
    static const struct {
        const char *file;
        bool caseless;
    } sets[] = { { "snort-community.txt", false }, { "et-open.txt", false },
                 { "english-words.txt", true } };
    std::string tpath = std::string(dir) + "/text/sherlock.txt";
    FILE *f = fopen(tpath.c_str(), "rb");
    if (!f) {
        printf("SKIP: real data: %s absent\n", tpath.c_str());
        return;
    }
    std::vector<uint8_t> text(1 << 20);
    text.resize(fread(text.data(), 1, text.size(), f));
    fclose(f);
    for (auto &s : sets) {
        bool ok;
        pset p = read_set(std::string(dir) + "/patterns/" + s.file, s.caseless, &ok);
        if (!ok) {
            printf("SKIP: real data: %s absent\n", s.file);
            continue;
        }
        std::vector<hay_pattern> hp(p.len.size());
        for (size_t i = 0; i < hp.size(); i++)
            hp[i] = { p.bytes.data() + p.off[i], p.len[i] };
        hay_compile_opts o;
        hay_compile_opts_init(&o);
        o.backend = HAY_BACKEND_CPU;
        o.flags = s.caseless ? HAY_CASELESS : 0;
        hay_patterns *cpu = nullptr;
        hay_scratch *sc = nullptr;
        keys want;
        if (hay_patterns_compile(hp.data(), hp.size(), &o, &cpu) != HAY_OK ||
            hay_scratch_create(cpu, &sc) != HAY_OK ||
            hay_scan(cpu, sc, text.data(), text.size(), nullptr, collect, &want) != HAY_OK) {
            EXPECT(false, "%s: the CPU reference failed", s.file);
            continue;
        }
        std::sort(want.begin(), want.end());
        hay_cuda_patterns v = p.view();
        hay_fdr_gpu_tables t;
        static const struct {
            uint32_t domain, gmax;
        } shapes[] = { { 14, 32768 }, { 11, 2048 }, { 12, 1024 } };
        for (auto sh : shapes) {
            EXPECT(hay_fdr_gpu_build(&v, sh.domain, sh.gmax, &t) == 0, "%s: build", s.file);
            keys got = run_engine(t, text.data(), text.size(), 0, v.max_len, 64);
            uint64_t c;
            run_engine(t, text.data(), text.size(), 0, v.max_len, 64, &c);
            EXPECT(c == want.size(), "%s: count %llu, CPU %zu", s.file, (unsigned long long)c,
                   want.size());
            EXPECT(got == want, "%s over %s, domain %u, group_max %u: %zu matches, CPU %zu",
                   s.file, tpath.c_str(), sh.domain, sh.gmax, got.size(), want.size());
            printf("%s, domain %u, group_max %u (%u groups): %zu matches, count %llu (CPU %zu)\n",
                   s.file, sh.domain, sh.gmax, t.groups, got.size(), (unsigned long long)c,
                   want.size());
            hay_fdr_gpu_tables_free(&t);
        }
        hay_scratch_free(sc);
        hay_patterns_free(cpu);
    }
}

// fdr_nth_bit (the kernel's short lists deal out the k-th match of a lane's
// mask) against a walk over the bits: each single bit, all 32, then random
// masks of every density (two random words ANDed, one shifted by 0..31).
void nth_bits()
{
    uint64_t r = 88172645463325252ull;
    for (int i = 0; i < 100000; i++) {
        uint32_t x;
        if (i < 32) {
            x = 1u << i;
        } else if (i == 32) {
            x = ~0u;
        } else {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;   // xorshift64
            x = (uint32_t)r & ((uint32_t)(r >> 32) >> (i & 31));
        }
        uint32_t k = 0;
        for (unsigned p = 0; p < 32; p++)
            if (x >> p & 1) {
                EXPECT(fdr_nth_bit(x, k) == p, "nth_bit(%#x, %u) = %u, want %u", x, k,
                       fdr_nth_bit(x, k), p);
                k++;
            }
    }
}

}  // namespace

int main(int argc, char **argv)
{
    nth_bits();
    random_sets();
    printf("random sets done\n");
    short_sets();
    printf("short sets done\n");
    if (argc > 1)
        real_sets(argv[1]);
    printf("%s (%d failures)\n", failures ? "FAILED" : "ok", failures);
    return failures ? 1 : 0;
}
