/*
 * params.c - the parameter layer (src/core/params.h): the grammar on a
 * table of every type, several tables at once, every table the library
 * declares (well formed, its defaults valid), and each backend's keys
 * reached through hay_patterns_compile with the message it returns.
 */
#include "testutil.h"
#include "core/internal.h"
#include "cuda/cuda_params.h"
#include "opencl/hay_opencl.h"
#include "align/align_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- a table with every type ------------------------------------------- */

typedef struct tv {
    uint64_t given;
    uint64_t n, sz, pow, mult;
    double d;
    bool b;
    int e;
    char s[8];
    uint64_t nodef;
} tv;

static const char *const colours[] = { "red", "green", "blue", NULL };
static const hay_param tv_keys[] = {
    HAY_PARAM_U(tv, n, "n", 1, 100, 0, "7", "an integer"),
    HAY_PARAM_SZ(tv, sz, "sz", 0, (uint64_t)4 << 30, "32M", "a size"),
    HAY_PARAM_U(tv, pow, "pow", 1, 4096, HAY_PARAM_POW2, "256", "a power of two"),
    HAY_PARAM_U(tv, mult, "mult", 32, 1024, 32, "64", "a multiple of 32"),
    HAY_PARAM_D(tv, d, "d", 0.0, 1.0, "0.5", "a fraction"),
    HAY_PARAM_B(tv, b, "b", "1", "a switch"),
    HAY_PARAM_E(tv, e, "e", colours, "green", "a colour"),
    HAY_PARAM_S(tv, s, "s", 7, NULL, "a name"),
    HAY_PARAM_SZ(tv, nodef, "nodef", 0, UINT64_MAX, NULL, "no default"),
};
static const hay_param_table tv_table = HAY_PARAM_TABLE("test", tv, tv_keys);

/* A second table sharing one key ("n", narrower) with the first. */
typedef struct tw {
    uint64_t given;
    uint64_t n, w;
} tw;
static const hay_param tw_keys[] = {
    HAY_PARAM_U(tw, n, "n", 1, 10, 0, "3", "shared with tv"),
    HAY_PARAM_U(tw, w, "w", 0, 9, 0, "0", "its own"),
};
static const hay_param_table tw_table = HAY_PARAM_TABLE("other", tw, tw_keys);

static char msg[1024];

static hay_status parse1(const char *text, tv *v)
{
    const hay_param_table *t = &tv_table;
    void *vals = v;
    hay_param_msg m = { msg, sizeof msg };
    return hay_params_parse(text, &t, 1, &vals, false, &m);
}

/* text is refused, and the message holds every one of the words. */
static void refused(const char *text, const char *w1, const char *w2)
{
    tv v;
    hay_status s = parse1(text, &v);
    CHECK(s == HAY_ERR_INVALID, "'%s': %s, want HAY_ERR_INVALID", text, hay_strerror(s));
    CHECK(w1 == NULL || strstr(msg, w1), "'%s': message \"%s\" lacks \"%s\"", text, msg, w1);
    CHECK(w2 == NULL || strstr(msg, w2), "'%s': message \"%s\" lacks \"%s\"", text, msg, w2);
}

static void check_defaults(void)
{
    tv v;
    memset(&v, 0xff, sizeof v);
    CHECK_ST(parse1(NULL, &v), HAY_OK, "NULL");
    CHECK(v.given == 0 && v.n == 7 && v.sz == (32u << 20) && v.pow == 256 && v.mult == 64 &&
          v.d == 0.5 && v.b && v.e == 1 && v.s[0] == 0 && v.nodef == 0,
          "defaults of NULL");
    CHECK(msg[0] == 0, "no message on success: \"%s\"", msg);
    memset(&v, 0xff, sizeof v);
    CHECK_ST(parse1("", &v), HAY_OK, "\"\"");
    CHECK(v.given == 0 && v.n == 7, "defaults of \"\"");
    CHECK(!hay_params_given(&tv_table, &v, "n"), "n not given");
}

static void check_values(void)
{
    tv v;
    CHECK_ST(parse1("n=1,sz=0,pow=1,mult=32,d=0,b=0,e=red,s=a,nodef=5", &v), HAY_OK, "lows");
    CHECK(v.n == 1 && v.sz == 0 && v.pow == 1 && v.mult == 32 && v.d == 0 && !v.b && v.e == 0 &&
          strcmp(v.s, "a") == 0 && v.nodef == 5, "low values stored");
    CHECK(hay_params_given(&tv_table, &v, "nodef") && hay_params_given(&tv_table, &v, "s"),
          "given bits");
    CHECK(!hay_params_given(&tv_table, &v, "nosuch"), "an unknown key is not given");
    CHECK_ST(parse1("n=100,sz=4G,pow=4096,mult=1024,d=1,b=1,e=blue,s=1234567", &v), HAY_OK,
             "highs");
    CHECK(v.n == 100 && v.sz == ((uint64_t)4 << 30) && v.pow == 4096 && v.mult == 1024 &&
          v.d == 1 && v.b && v.e == 2 && strcmp(v.s, "1234567") == 0, "high values stored");
    /* Suffixes: K, M, G in either case, powers of 1024. */
    static const struct { const char *text; uint64_t want; } sizes[] = {
        { "sz=1k", 1024 }, { "sz=1K", 1024 }, { "sz=3m", 3u << 20 }, { "sz=2M", 2u << 20 },
        { "sz=1g", 1u << 30 }, { "sz=4G", (uint64_t)4 << 30 }, { "sz=0K", 0 },
        { "sz=123", 123 }, { "nodef=17179869183G", (uint64_t)17179869183 << 30 },
        { "nodef=18446744073709551615", UINT64_MAX },
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        memset(&v, 0, sizeof v);
        hay_status s = parse1(sizes[i].text, &v);
        uint64_t got = strncmp(sizes[i].text, "sz", 2) == 0 ? v.sz : v.nodef;
        CHECK(s == HAY_OK && got == sizes[i].want, "'%s': %s, %llu, want %llu",
              sizes[i].text, hay_strerror(s), (unsigned long long)got,
              (unsigned long long)sizes[i].want);
    }
    uint64_t x = 0;
    CHECK(hay_params_size("64M", 3, &x) && x == (64u << 20), "hay_params_size 64M");
    CHECK(!hay_params_size("64MB", 4, &x) && !hay_params_size("", 0, &x) &&
          !hay_params_size(" 1", 2, &x), "hay_params_size refuses 64MB, '', ' 1'");
    /* Blanks around items, keys and values. */
    CHECK_ST(parse1(" n = 9 ,\tsz=1K\t, e =blue", &v), HAY_OK, "blanks");
    CHECK(v.n == 9 && v.sz == 1024 && v.e == 2, "values after blanks");
    CHECK_ST(parse1("s=a b", &v), HAY_OK, "a blank inside a value");
    CHECK(strcmp(v.s, "a b") == 0, "inner blank kept: '%s'", v.s);
    CHECK_ST(parse1("s=x=y", &v), HAY_OK, "'=' inside a value");
    CHECK(strcmp(v.s, "x=y") == 0, "value after the first '=': '%s'", v.s);
}

static void check_errors(void)
{
    /* Empty items, everywhere. */
    refused(",", "empty item", NULL);
    refused("n=1,", "empty item", NULL);
    refused(",n=1", "empty item", NULL);
    refused("n=1,,b=1", "empty item", NULL);
    refused("n=1, ,b=1", "empty item", NULL);
    refused(" ", "empty item", NULL);
    /* Items that are not key=value. */
    refused("n", "'n'", "no '='");
    refused("n=1,b", "'b'", "no '='");
    refused("=1", "no key", NULL);
    refused("n=", "'n'", "no value");
    refused("n= ", "'n'", "no value");
    /* Unknown keys: the key and every allowed key are named. */
    refused("nosuch=1", "'nosuch'", "allowed: n, sz, pow, mult, d, b, e, s, nodef");
    refused("N=1", "'N'", "allowed:");        /* keys are case-sensitive */
    refused("n=1,zz=2", "'zz'", "allowed:");
    /* Repeated keys. */
    refused("n=1,n=2", "'n'", "twice");
    refused("n=1,b=1,n=1", "'n'", "twice");
    /* Numbers: range, multiple, power of two, syntax. */
    refused("n=0", "'n'", "1..100");
    refused("n=101", "'n'", "1..100");
    refused("n=-1", "'n'", "1..100");
    refused("n=+1", "'n'", NULL);
    refused("n=1K", "'n'", "an integer");     /* suffixes are for sizes */
    refused("n=0x10", "'n'", NULL);
    refused("n=1.0", "'n'", NULL);
    refused("n=99999999999999999999", "'n'", NULL);
    refused("pow=3", "'pow'", "power of two");
    refused("pow=0", "'pow'", NULL);
    refused("mult=48", "'mult'", "multiple of 32");
    refused("mult=16", "'mult'", "32..1024");
    refused("sz=5G", "'sz'", "a size");
    refused("sz=1T", "'sz'", NULL);
    refused("sz=1KB", "'sz'", NULL);
    refused("sz=K", "'sz'", NULL);
    refused("sz=1 K", "'sz'", NULL);
    refused("nodef=17179869184G", "'nodef'", NULL);   /* 2^64: overflow */
    refused("nodef=18446744073709551616", "'nodef'", NULL);
    refused("d=1.5", "'d'", "0..1");
    refused("d=nan", "'d'", NULL);
    refused("d=inf", "'d'", NULL);
    refused("d=0.5x", "'d'", NULL);
    refused("b=2", "'b'", "0 or 1");
    refused("b=true", "'b'", "0 or 1");
    refused("e=purple", "'e'", "red|green|blue");
    refused("e=Red", "'e'", NULL);
    refused("s=12345678", "'s'", "longer than 7");

    /* A short buffer gets a truncated, terminated message; NULL none. */
    char small[8];
    memset(small, 'x', sizeof small);
    tv v;
    const hay_param_table *t = &tv_table;
    void *vals = &v;
    hay_param_msg m = { small, sizeof small };
    CHECK_ST(hay_params_parse("nosuch=1", &t, 1, &vals, false, &m), HAY_ERR_INVALID, "short");
    CHECK(memchr(small, 0, sizeof small) != NULL, "short message terminated");
    CHECK_ST(hay_params_parse("nosuch=1", &t, 1, &vals, false, NULL), HAY_ERR_INVALID,
             "no message buffer");
    CHECK_ST(hay_params_parse("n=1", &t, 0, &vals, false, NULL), HAY_ERR_INVALID, "no table");
}

static void check_tables_together(void)
{
    tv v;
    tw w;
    const hay_param_table *both[] = { &tv_table, &tw_table };
    void *vals[] = { &v, &w };
    hay_param_msg m = { msg, sizeof msg };
    /* A key in two tables: each checks and stores it. */
    CHECK_ST(hay_params_parse("n=5,w=2,b=0", both, 2, vals, false, &m), HAY_OK, "two tables");
    CHECK(v.n == 5 && w.n == 5 && w.w == 2 && !v.b && v.sz == (32u << 20),
          "values of both tables");
    CHECK(hay_params_given(&tw_table, &w, "n") && !hay_params_given(&tw_table, &w, "w") == 0,
          "given in the second table");
    CHECK_ST(hay_params_parse("n=50", both, 2, vals, false, &m), HAY_ERR_INVALID,
             "n in one table's range only");
    CHECK(strstr(msg, "1..10") != NULL, "the narrower range named: \"%s\"", msg);
    /* Unknown: every key of both, each once. */
    CHECK_ST(hay_params_parse("x=1", both, 2, vals, false, &m), HAY_ERR_INVALID, "x");
    CHECK(strstr(msg, "allowed: n, sz, pow, mult, d, b, e, s, nodef, w") != NULL,
          "keys of both tables, once each: \"%s\"", msg);
    /* A table with no struct: its keys are checked, stored nowhere. */
    void *only_first[] = { &v, NULL };
    CHECK_ST(hay_params_parse("w=3,n=2", both, 2, only_first, false, &m), HAY_OK,
             "w accepted for another part");
    CHECK(v.n == 2, "n stored in the first table");
    CHECK_ST(hay_params_parse("w=10", both, 2, only_first, false, &m), HAY_ERR_INVALID,
             "w checked though not stored");
    /* others_ok: a part reads its keys out of a string checked elsewhere. */
    const hay_param_table *one = &tw_table;
    void *wv = &w;
    CHECK_ST(hay_params_parse("sz=1K,w=4,zz=1", &one, 1, &wv, true, &m), HAY_OK, "others_ok");
    CHECK(w.w == 4 && w.n == 3, "others_ok reads its own keys only");
    CHECK_ST(hay_params_parse("w=4,,zz=1", &one, 1, &wv, true, &m), HAY_ERR_INVALID,
             "others_ok keeps the grammar");
    CHECK_ST(hay_params_parse("w=40", &one, 1, &wv, true, &m), HAY_ERR_INVALID,
             "others_ok checks its own values");

    /* A parsed set: one allocation, a table's struct by table. */
    hay_param_set *ps = TU_NOT_NULL;
    CHECK_ST(hay_param_set_create(NULL, "w=1,n=4", both, 2, &m, &ps), HAY_OK, "set");
    const tv *pv = hay_param_set_get(ps, &tv_table);
    const tw *pw = hay_param_set_get(ps, &tw_table);
    CHECK(pv && pw && pv->n == 4 && pw->w == 1 && pv->sz == (32u << 20), "set's values");
    CHECK(hay_param_set_get(ps, &hay_cpu_param_table) == NULL, "a table not in the set");
    hay_param_set_free(NULL, ps);
    ps = TU_NOT_NULL;
    CHECK_ST(hay_param_set_create(NULL, "w=1,,n=4", both, 2, &m, &ps), HAY_ERR_INVALID,
             "bad set");
    CHECK(ps == NULL, "a refused set is NULL");
    hay_param_set_free(NULL, NULL);
}

/* ---- every table the library declares ----------------------------------- */

static const hay_param_table *const all_tables[] = {
    &hay_cpu_param_table, &hay_opencl_param_table, &hay_cuda_driver_param_table,
    &hay_auto_param_table, &hay_cuda_pfac_param_table, &hay_cuda_brute_param_table,
    &hay_cuda_bm_param_table, &hay_cuda_fast_param_table, &hay_cuda_sw_param_table,
    &hay_sw_wavefront_param_table, &hay_cuda_fdr_param_table,
};
#define N_TABLES (sizeof all_tables / sizeof all_tables[0])

static size_t field_size(const hay_param *k)
{
    switch (k->type) {
    case HAY_PARAM_UINT: case HAY_PARAM_SIZE: return sizeof(uint64_t);
    case HAY_PARAM_DOUBLE: return sizeof(double);
    case HAY_PARAM_BOOL: return sizeof(bool);
    case HAY_PARAM_ENUM: return sizeof(int);
    case HAY_PARAM_STRING: return (size_t)k->max + 1;
    }
    return 0;
}

static void check_table(const hay_param_table *t)
{
    const char *o = t->owner;
    CHECK(o && *o && t->n > 0 && t->n <= HAY_PARAM_MAX_KEYS, "table %s: owner, size", o);
    CHECK(t->given_offset + sizeof(uint64_t) <= t->size, "%s: given inside", o);
    for (size_t i = 0; i < t->n; i++) {
        const hay_param *k = &t->keys[i];
        CHECK(k->name && *k->name && strcspn(k->name, "=, \t") == strlen(k->name),
              "%s: key %zu has a plain name", o, i);
        CHECK(k->meaning && *k->meaning, "%s: %s has a meaning", o, k->name);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(t->keys[j].name, k->name) != 0, "%s: %s declared twice", o, k->name);
        size_t fs = field_size(k);
        CHECK(fs && k->offset + fs <= t->size, "%s: %s's field inside the struct", o, k->name);
        CHECK(k->offset + fs <= t->given_offset || k->offset >= t->given_offset + 8,
              "%s: %s's field apart from given", o, k->name);
        if (k->type == HAY_PARAM_UINT || k->type == HAY_PARAM_SIZE)
            CHECK(k->min <= k->max, "%s: %s's range", o, k->name);
        if (k->type == HAY_PARAM_DOUBLE)
            CHECK(k->dmin <= k->dmax, "%s: %s's range", o, k->name);
        if (k->type == HAY_PARAM_ENUM)
            CHECK(k->words && k->words[0], "%s: %s has words", o, k->name);
        /* The declared default is a value the key accepts. */
        if (k->def) {
            char text[256];
            snprintf(text, sizeof text, "%s=%s", k->name, k->def);
            void *vals[1] = { NULL };
            hay_param_msg m = { msg, sizeof msg };
            hay_status s = hay_params_parse(text, &t, 1, vals, false, &m);
            CHECK(s == HAY_OK, "%s: default '%s': %s", o, text, msg);
        }
    }
}

static void check_all_tables(void)
{
    for (size_t i = 0; i < N_TABLES; i++)
        check_table(all_tables[i]);
    /* Every CUDA algorithm has its engine's table. */
    const char *name;
    for (size_t i = 0; hay_algo_name(HAY_BACKEND_CUDA, i, &name) == HAY_OK; i++) {
        const hay_param_table *t[4];
        size_t n = hay_cuda_param_tables(name, 1, t);
        CHECK(n == 2 && t[0] == &hay_cuda_driver_param_table, "cuda/%s: the driver's and "
              "an engine's table (%zu)", name, n);
    }
}

/* ---- through the public API --------------------------------------------- */

static hay_status compile(hay_backend b, const char *algo, size_t n, const char *params,
                          hay_patterns **set)
{
    static const hay_pattern two[2] = { { "ab", 2 }, { "cd", 2 } };
    hay_compile_opts o;
    hay_compile_opts_init(&o);
    o.backend = b;
    o.algo = algo;
    o.params = params;
    o.error = msg;
    o.error_cap = sizeof msg;
    *set = TU_NOT_NULL;
    return hay_patterns_compile(two, n, &o, set);
}

/* An unknown key on backend b lists exactly the keys of these tables. */
static void check_listing(hay_backend b, const char *algo, size_t n,
                          const hay_param_table *const *tables, size_t nt)
{
    hay_patterns *set;
    hay_status s = compile(b, algo, n, "nosuch=1", &set);
    const char *what = hay_backend_name(b), *al = algo ? algo : "auto";
    if (s == HAY_ERR_NO_BACKEND || s == HAY_ERR_NO_DEVICE)
        return;   /* refused before its keys are read */
    CHECK(s == HAY_ERR_INVALID && set == NULL, "%s/%s: nosuch=1: %s", what, al,
          hay_strerror(s));
    char want[1024] = "unknown parameter key 'nosuch'; allowed:";
    for (size_t i = 0; i < nt; i++)
        for (size_t k = 0; k < tables[i]->n; k++) {
            size_t l = strlen(want);
            snprintf(want + l, sizeof want - l, "%s %s", i || k ? "," : "",
                     tables[i]->keys[k].name);
        }
    CHECK(strcmp(msg, want) == 0, "%s/%s: message\n  \"%s\", want\n  \"%s\"", what, al,
          msg, want);
}

/* Every declared key with its default value compiles on that backend. */
static void check_defaults_accepted(hay_backend b, const char *algo, size_t n,
                                    const hay_param_table *const *tables, size_t nt)
{
    char text[2048] = "";
    size_t used = 0;
    for (size_t i = 0; i < nt; i++)
        for (size_t k = 0; k < tables[i]->n; k++) {
            const hay_param *p = &tables[i]->keys[k];
            if (!p->def || strstr(text, p->name))
                continue;
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%s=%s",
                                     used ? "," : "", p->name, p->def);
        }
    hay_patterns *set;
    hay_status s = compile(b, algo, n, text, &set);
    if (s == HAY_ERR_NO_BACKEND || s == HAY_ERR_NO_DEVICE)
        return;
    CHECK(s == HAY_OK, "%s/%s with '%s': %s (%s)", hay_backend_name(b), algo ? algo : "auto",
          text, hay_strerror(s), msg);
    if (s == HAY_OK)
        hay_patterns_free(set);
}

static void check_backends(void)
{
    const hay_param_table *cpu[] = { &hay_cpu_param_table };
    const hay_param_table *auto1[] = { &hay_cpu_param_table, &hay_cuda_driver_param_table,
                                       &hay_auto_param_table, &hay_cuda_fast_param_table };
    /* several patterns: PFAC's and fdr-gpu's keys (backend cuda picks one) */
    const hay_param_table *auto2[] = { &hay_cpu_param_table, &hay_cuda_driver_param_table,
                                       &hay_auto_param_table, &hay_cuda_pfac_param_table,
                                       &hay_cuda_fdr_param_table };
    const hay_param_table *cuda2[] = { &hay_cuda_driver_param_table,
                                       &hay_cuda_pfac_param_table,
                                       &hay_cuda_fdr_param_table };
    const hay_param_table *cuda_bm[] = { &hay_cuda_driver_param_table,
                                         &hay_cuda_bm_param_table };
    const hay_param_table *ocl[] = { &hay_opencl_param_table };
    check_listing(HAY_BACKEND_CPU, NULL, 2, cpu, 1);
    check_listing(HAY_BACKEND_AUTO, "ac", 2, cpu, 1);   /* a named CPU engine: the CPU */
    check_listing(HAY_BACKEND_AUTO, NULL, 1, auto1, 4);
    check_listing(HAY_BACKEND_AUTO, NULL, 2, auto2, 5);
    check_listing(HAY_BACKEND_CUDA, NULL, 2, cuda2, 3);
    check_listing(HAY_BACKEND_CUDA, "bm-gpu", 1, cuda_bm, 2);
    check_listing(HAY_BACKEND_OPENCL, NULL, 2, ocl, 1);
    check_defaults_accepted(HAY_BACKEND_CPU, NULL, 2, cpu, 1);
    check_defaults_accepted(HAY_BACKEND_AUTO, NULL, 1, auto1, 4);
    check_defaults_accepted(HAY_BACKEND_AUTO, NULL, 2, auto2, 5);

    /* The CPU's values reach its engines: a 16-byte DFA budget refuses the DFA. */
    hay_patterns *set;
    CHECK_ST(compile(HAY_BACKEND_CPU, "dfa", 2, " dfa_budget = 16 ", &set), HAY_ERR_TOO_LARGE,
             "dfa over 16 bytes");
    CHECK_ST(compile(HAY_BACKEND_CPU, "dfa", 2, "dfa_budget=1M", &set), HAY_OK, "dfa in 1M");
    hay_patterns_free(set);
    /* Auto's CPU side ignores the GPU's keys, and a bad GPU value is still refused. */
    CHECK_ST(compile(HAY_BACKEND_AUTO, NULL, 2, "dfa_budget=1M,split=off,bpt=4", &set), HAY_OK,
             "auto with GPU keys");
    hay_patterns_free(set);
    CHECK_ST(compile(HAY_BACKEND_AUTO, NULL, 2, "bpt=65", &set), HAY_ERR_INVALID, "bpt=65");
    CHECK(strstr(msg, "'bpt'") && strstr(msg, "1..64"), "bpt's range named: \"%s\"", msg);
    /* The message is cleared by a compile that succeeds. */
    CHECK_ST(compile(HAY_BACKEND_CPU, NULL, 2, NULL, &set), HAY_OK, "no params");
    CHECK(msg[0] == 0, "message cleared: \"%s\"", msg);
    hay_patterns_free(set);
}

int main(void)
{
    check_defaults();
    check_values();
    check_errors();
    check_tables_together();
    check_all_tables();
    check_backends();
    return tu_finish();
}
