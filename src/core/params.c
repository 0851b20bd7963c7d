/* params.c - one grammar for every key=value string (see params.h). */
#include "params.h"
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_TABLES 8
#define MAX_VALUE 128   /* longest value a message quotes */

static void say(hay_param_msg *m, const char *fmt, ...)
{
    if (!m || !m->buf || m->cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->buf, m->cap, fmt, ap);
    va_end(ap);
}

/* Appends to a message already started. */
static void add(hay_param_msg *m, const char *fmt, ...)
{
    if (!m || !m->buf || m->cap == 0)
        return;
    size_t used = strlen(m->buf);
    if (used + 1 >= m->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->buf + used, m->cap - used, fmt, ap);
    va_end(ap);
}

static bool blank(char c) { return c == ' ' || c == '\t'; }

/* [*s, *e) without the blanks around it. */
static void trim(const char **s, const char **e)
{
    while (*s < *e && blank(**s))
        (*s)++;
    while (*e > *s && blank((*e)[-1]))
        (*e)--;
}

static bool is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
}

/* Digits with, for SIZE, an optional K, M or G. */
static bool parse_uint(const char *v, size_t n, bool suffix, uint64_t *out)
{
    uint64_t x = 0;
    size_t i = 0;
    for (; i < n && v[i] >= '0' && v[i] <= '9'; i++) {
        uint64_t d = (uint64_t)(v[i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
    }
    if (i == 0)
        return false;
    if (i + 1 == n && suffix) {
        unsigned sh = 0;
        switch (v[i]) {
        case 'k': case 'K': sh = 10; break;
        case 'm': case 'M': sh = 20; break;
        case 'g': case 'G': sh = 30; break;
        default: return false;
        }
        if (x > (UINT64_MAX >> sh))
            return false;
        x <<= sh;
    } else if (i != n) {
        return false;
    }
    *out = x;
    return true;
}

bool hay_params_size(const char *v, size_t n, uint64_t *out)
{
    return v && out && parse_uint(v, n, true, out);
}

static void say_range(hay_param_msg *m, const hay_param *k)
{
    if (k->type == HAY_PARAM_SIZE)
        add(m, "a size (digits, optional K, M or G suffix) in %llu..%llu",
            (unsigned long long)k->min, (unsigned long long)k->max);
    else
        add(m, "an integer in %llu..%llu", (unsigned long long)k->min,
            (unsigned long long)k->max);
    if (k->multiple == HAY_PARAM_POW2)
        add(m, ", a power of two");
    else if (k->multiple > 1)
        add(m, ", a multiple of %llu", (unsigned long long)k->multiple);
}

/* Stores v[0, n) as key k's value in `values` (NULL: check only). */
static hay_status set_value(const hay_param *k, const char *v, size_t n,
                            void *values, hay_param_msg *m)
{
    char *field = values ? (char *)values + k->offset : NULL;
    int shown = n > MAX_VALUE ? MAX_VALUE : (int)n;
    switch (k->type) {
    case HAY_PARAM_UINT:
    case HAY_PARAM_SIZE: {
        uint64_t x = 0;
        bool ok = parse_uint(v, n, k->type == HAY_PARAM_SIZE, &x) &&
                  x >= k->min && x <= k->max;
        if (ok && k->multiple == HAY_PARAM_POW2)
            ok = x && !(x & (x - 1));
        else if (ok && k->multiple > 1)
            ok = x % k->multiple == 0;
        if (!ok) {
            say(m, "parameter '%s': '%.*s' is not ", k->name, shown, v);
            say_range(m, k);
            return HAY_ERR_INVALID;
        }
        if (field)
            memcpy(field, &x, sizeof x);
        return HAY_OK;
    }
    case HAY_PARAM_DOUBLE: {
        char buf[64];
        char *end = NULL;
        double x = 0;
        bool ok = n < sizeof buf;
        if (ok) {
            memcpy(buf, v, n);
            buf[n] = 0;
            errno = 0;
            x = strtod(buf, &end);
            ok = end == buf + n && errno == 0 && isfinite(x) &&
                 x >= k->dmin && x <= k->dmax;
        }
        if (!ok) {
            say(m, "parameter '%s': '%.*s' is not a number in %g..%g", k->name,
                shown, v, k->dmin, k->dmax);
            return HAY_ERR_INVALID;
        }
        if (field)
            memcpy(field, &x, sizeof x);
        return HAY_OK;
    }
    case HAY_PARAM_BOOL: {
        if (!is(v, n, "0") && !is(v, n, "1")) {
            say(m, "parameter '%s': '%.*s' is not 0 or 1", k->name, shown, v);
            return HAY_ERR_INVALID;
        }
        bool b = v[0] == '1';
        if (field)
            memcpy(field, &b, sizeof b);
        return HAY_OK;
    }
    case HAY_PARAM_ENUM: {
        for (int i = 0; k->words && k->words[i]; i++) {
            if (is(v, n, k->words[i])) {
                if (field)
                    memcpy(field, &i, sizeof i);
                return HAY_OK;
            }
        }
        say(m, "parameter '%s': '%.*s' is not one of ", k->name, shown, v);
        for (int i = 0; k->words && k->words[i]; i++)
            add(m, "%s%s", i ? "|" : "", k->words[i]);
        return HAY_ERR_INVALID;
    }
    case HAY_PARAM_STRING:
        if (n > k->max) {
            say(m, "parameter '%s': '%.*s' is longer than %llu bytes", k->name,
                shown, v, (unsigned long long)k->max);
            return HAY_ERR_INVALID;
        }
        if (field) {
            memcpy(field, v, n);
            field[n] = 0;
        }
        return HAY_OK;
    }
    say(m, "parameter '%s': bad declaration", k->name);
    return HAY_ERR_INVALID;
}

void hay_params_defaults(const hay_param_table *t, void *values)
{
    memset(values, 0, t->size);
    for (size_t i = 0; i < t->n; i++) {
        const hay_param *k = &t->keys[i];
        /* Declared defaults are checked by tests/params.c, so a bad one
         * only leaves the field 0. */
        if (k->def)
            set_value(k, k->def, strlen(k->def), values, NULL);
    }
}

const hay_param *hay_params_find(const hay_param_table *t, const char *key)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->keys[i].name, key) == 0)
            return &t->keys[i];
    return NULL;
}

bool hay_params_given(const hay_param_table *t, const void *values,
                      const char *key)
{
    const hay_param *k = hay_params_find(t, key);
    if (!k || !values)
        return false;
    uint64_t given;
    memcpy(&given, (const char *)values + t->given_offset, sizeof given);
    return (given >> (k - t->keys)) & 1;
}

static const hay_param *find_n(const hay_param_table *t, const char *key,
                               size_t n)
{
    for (size_t i = 0; i < t->n; i++)
        if (is(key, n, t->keys[i].name))
            return &t->keys[i];
    return NULL;
}

/* "unknown key 'x'; allowed: a, b, c" over all tables, each name once. */
static void say_unknown(hay_param_msg *m, const char *key, size_t n,
                        const hay_param_table *const *tables, size_t nt)
{
    int shown = n > MAX_VALUE ? MAX_VALUE : (int)n;
    say(m, "unknown parameter key '%.*s'; allowed:", shown, key);
    bool first = true;
    for (size_t t = 0; t < nt; t++) {
        for (size_t i = 0; i < tables[t]->n; i++) {
            const char *name = tables[t]->keys[i].name;
            bool seen = false;
            for (size_t u = 0; u < t && !seen; u++)
                seen = hay_params_find(tables[u], name) != NULL;
            for (size_t j = 0; j < i && !seen; j++)
                seen = strcmp(tables[t]->keys[j].name, name) == 0;
            if (!seen) {
                add(m, "%s %s", first ? "" : ",", name);
                first = false;
            }
        }
    }
    if (first)
        add(m, " none");
}

hay_status hay_params_parse(const char *text,
                            const hay_param_table *const *tables, size_t n,
                            void *const *values, bool others_ok,
                            hay_param_msg *msg)
{
    if (msg && msg->buf && msg->cap)
        msg->buf[0] = 0;
    RETURN_ERROR_IF(!tables || n == 0 || n > MAX_TABLES, HAY_ERR_INVALID);
    uint64_t given[MAX_TABLES] = { 0 };
    for (size_t t = 0; t < n; t++) {
        RETURN_ERROR_IF(!tables[t] || tables[t]->n > HAY_PARAM_MAX_KEYS, HAY_ERR_INVALID);
        if (values && values[t])
            hay_params_defaults(tables[t], values[t]);
    }
    if (!text || !*text)
        return HAY_OK;
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, ',');
        const char *s = p, *e = end ? end : p + strlen(p);
        trim(&s, &e);
        if (s == e) {
            say(msg, "empty item in parameters '%.*s' (items are key=value, "
                     "separated by single commas)", MAX_VALUE, text);
            return HAY_ERR_INVALID;
        }
        const char *eq = memchr(s, '=', (size_t)(e - s));
        if (!eq) {
            say(msg, "parameter item '%.*s' has no '=' (items are key=value)",
                (int)(e - s > MAX_VALUE ? MAX_VALUE : e - s), s);
            return HAY_ERR_INVALID;
        }
        const char *ke = eq, *vs = eq + 1;
        trim(&s, &ke);
        trim(&vs, &e);
        size_t kn = (size_t)(ke - s), vn = (size_t)(e - vs);
        int kshown = kn > MAX_VALUE ? MAX_VALUE : (int)kn;
        if (kn == 0) {
            say(msg, "parameter item '=%.*s' has no key",
                (int)(vn > MAX_VALUE ? MAX_VALUE : vn), vs);
            return HAY_ERR_INVALID;
        }
        if (vn == 0) {
            say(msg, "parameter '%.*s' has no value", kshown, s);
            return HAY_ERR_INVALID;
        }
        bool known = false;
        for (size_t t = 0; t < n; t++) {
            const hay_param *k = find_n(tables[t], s, kn);
            if (!k)
                continue;
            known = true;
            uint64_t bit = (uint64_t)1 << (k - tables[t]->keys);
            if (given[t] & bit) {
                say(msg, "parameter '%s' is given twice", k->name);
                return HAY_ERR_INVALID;
            }
            given[t] |= bit;
            FORWARD_IF_ERROR(set_value(k, vs, vn, values ? values[t] : NULL, msg));
        }
        if (!known && !others_ok) {
            say_unknown(msg, s, kn, tables, n);
            return HAY_ERR_INVALID;
        }
        if (!end)
            break;
        p = end + 1;
    }
    for (size_t t = 0; t < n; t++)
        if (values && values[t])
            memcpy((char *)values[t] + tables[t]->given_offset, &given[t],
                   sizeof given[t]);
    return HAY_OK;
}

/* The tables and, after them, each table's struct (aligned). */
struct hay_param_set {
    size_t n;
    const hay_param_table *table[MAX_TABLES];
    void *values[MAX_TABLES];
};

static size_t round_up(size_t x)
{
    const size_t a = sizeof(max_align_t);
    return (x + a - 1) / a * a;
}

hay_status hay_param_set_create(const hay_allocator *a, const char *text,
                                const hay_param_table *const *tables,
                                size_t n, hay_param_msg *msg,
                                hay_param_set **out)
{
    RETURN_ERROR_IF(!out || !tables || n == 0 || n > MAX_TABLES, HAY_ERR_INVALID);
    *out = NULL;
    size_t total = round_up(sizeof(hay_param_set));
    for (size_t t = 0; t < n; t++)
        total += round_up(tables[t]->size);
    hay_param_set *ps = hay_calloc(a, 1, total);
    RETURN_ERROR_IF(!ps, HAY_ERR_NOMEM);
    char *at = (char *)ps + round_up(sizeof *ps);
    ps->n = n;
    for (size_t t = 0; t < n; t++) {
        ps->table[t] = tables[t];
        ps->values[t] = at;
        at += round_up(tables[t]->size);
    }
    hay_status s = hay_params_parse(text, tables, n, ps->values, false, msg);
    if (s < 0) {
        hay_free(a, ps);
        return s;
    }
    *out = ps;
    return HAY_OK;
}

const void *hay_param_set_get(const hay_param_set *ps,
                              const hay_param_table *t)
{
    for (size_t i = 0; ps && i < ps->n; i++)
        if (ps->table[i] == t)
            return ps->values[i];
    return NULL;
}

void hay_param_set_free(const hay_allocator *a, hay_param_set *ps)
{
    hay_free(a, ps);
}
