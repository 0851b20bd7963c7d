/*
 * params.h - the parameter layer: hay_compile_opts.params and the GPU
 * alignment's device params, parsed by one grammar against key tables
 * that each backend and engine declares.  Plain C, included from .cu
 * files too.  docs/DESIGN.md "Parameters" says how to declare keys.
 *
 * Grammar (the same for every backend and engine):
 *   - NULL or "" means no items: every key takes its default.
 *   - Items are separated by commas; spaces and tabs around an item, and
 *     around its key and value, are dropped.
 *   - An item is key=value.  An empty item (",,", a leading or trailing
 *     comma, a blank string), an item without '=', an empty key or an
 *     empty value is an error.
 *   - A key given twice is an error (no silent last-wins: the CLI joins
 *     --device and --params into one string, and a clash there is a
 *     mistake worth naming).
 *   - Keys are case-sensitive; enum words too.
 * Value types:
 *   UINT    decimal digits, within [min, max] (and a multiple of
 *           `multiple`, or a power of two with HAY_PARAM_POW2)
 *   SIZE    decimal digits with an optional K, M or G suffix (either case,
 *           powers of 1024), checked like UINT: byte sizes and large counts
 *   DOUBLE  a finite decimal number (strtod) within [dmin, dmax]
 *   BOOL    0 or 1
 *   ENUM    one of `words`; stored as its index
 *   STRING  any text of 1 .. max bytes
 * Every error is HAY_ERR_INVALID with a one-line message naming the key and
 * what it allows (an unknown key: the keys allowed).
 *
 * A table describes one C struct of values (the reader's own struct): each
 * key says where its field lies (offset) and the field's type follows from
 * the key's type: uint64_t (UINT, SIZE), double, bool, int (ENUM), char[]
 * of max + 1 bytes (STRING).  The struct holds a uint64_t `given` whose
 * bit i says that keys[i] was in the text (the HAY_PARAM_TABLE macro finds
 * it), so a reader can tell a default from a value that was asked for.
 */
#ifndef HAY_PARAMS_H
#define HAY_PARAMS_H

#include "haystack.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hay_param_type {
    HAY_PARAM_UINT,
    HAY_PARAM_SIZE,
    HAY_PARAM_DOUBLE,
    HAY_PARAM_BOOL,
    HAY_PARAM_ENUM,
    HAY_PARAM_STRING
} hay_param_type;

/* hay_param.multiple: the value must be a power of two. */
#define HAY_PARAM_POW2 UINT64_MAX

typedef struct hay_param {
    const char *name;
    hay_param_type type;
    size_t offset;              /* of the field in the table's struct */
    uint64_t min, max;          /* UINT, SIZE: inclusive; STRING: max length */
    uint64_t multiple;          /* UINT, SIZE: 0 any, N a multiple of N,
                                 * HAY_PARAM_POW2 */
    double dmin, dmax;          /* DOUBLE: inclusive */
    const char *const *words;   /* ENUM: NULL-terminated */
    const char *def;            /* the default, written as a value of the key;
                                 * NULL: none here, the reader works one out
                                 * when the key is not given (the field is 0) */
    const char *meaning;        /* one line, for messages and listings */
} hay_param;

typedef struct hay_param_table {
    const char *owner;          /* "cpu", "cuda driver", "pfac", ... */
    const hay_param *keys;
    size_t n;                   /* at most 64 */
    size_t size;                /* sizeof the values struct */
    size_t given_offset;        /* of its uint64_t `given` */
} hay_param_table;

#define HAY_PARAM_MAX_KEYS 64

/* A table over `type` (a struct with a uint64_t `given`) from an array of
 * keys. */
#define HAY_PARAM_TABLE(owner, st, keys) \
    { (owner), (keys), sizeof(keys) / sizeof((keys)[0]), sizeof(st), \
      offsetof(st, given) }

/* Key declarations (C designated initializers: fields left out are 0).
 * def is a string in the key's own syntax, or NULL. */
#define HAY_PARAM_U(st, field, key, lo, hi, mult, dflt, text) \
    { .name = (key), .type = HAY_PARAM_UINT, .offset = offsetof(st, field), \
      .min = (lo), .max = (hi), .multiple = (mult), .def = (dflt), .meaning = (text) }
#define HAY_PARAM_SZ(st, field, key, lo, hi, dflt, text) \
    { .name = (key), .type = HAY_PARAM_SIZE, .offset = offsetof(st, field), \
      .min = (lo), .max = (hi), .def = (dflt), .meaning = (text) }
#define HAY_PARAM_D(st, field, key, lo, hi, dflt, text) \
    { .name = (key), .type = HAY_PARAM_DOUBLE, .offset = offsetof(st, field), \
      .dmin = (lo), .dmax = (hi), .def = (dflt), .meaning = (text) }
#define HAY_PARAM_B(st, field, key, dflt, text) \
    { .name = (key), .type = HAY_PARAM_BOOL, .offset = offsetof(st, field), \
      .def = (dflt), .meaning = (text) }
#define HAY_PARAM_E(st, field, key, wordlist, dflt, text) \
    { .name = (key), .type = HAY_PARAM_ENUM, .offset = offsetof(st, field), \
      .words = (wordlist), .def = (dflt), .meaning = (text) }
#define HAY_PARAM_S(st, field, key, maxlen, dflt, text) \
    { .name = (key), .type = HAY_PARAM_STRING, .offset = offsetof(st, field), \
      .max = (maxlen), .def = (dflt), .meaning = (text) }

/* A message buffer: NULL or at least 1 byte; messages are truncated to fit
 * and always NUL-terminated. */
typedef struct hay_param_msg {
    char *buf;
    size_t cap;
} hay_param_msg;

/*
 * Parses `text` against n tables (n >= 1).  values[i] is table i's struct,
 * filled with the table's defaults and then with the keys given; it may be
 * NULL: the table's keys are then accepted and checked but stored nowhere
 * (another part reads them).  A key may lie in several tables: each checks
 * and stores it.  A key in no table is an error, unless `others_ok` (the
 * caller parses its own keys out of a string that someone else has already
 * checked against all of them).  On error the values are partly written
 * and *msg (may be NULL) says why.
 */
hay_status hay_params_parse(const char *text,
                            const hay_param_table *const *tables, size_t n,
                            void *const *values, bool others_ok,
                            hay_param_msg *msg);

/* Fills a table's struct with its defaults (`given` 0). */
void hay_params_defaults(const hay_param_table *t, void *values);

/* Whether `key` was given in the text that filled `values` (false for a
 * key that is not in the table). */
bool hay_params_given(const hay_param_table *t, const void *values,
                      const char *key);

/* A SIZE value v[0, n) as the grammar reads it (digits, an optional K, M
 * or G): for environment variables that take the values of keys.  False
 * on anything else or on overflow. */
bool hay_params_size(const char *v, size_t n, uint64_t *out);

/* The key of a table by name, or NULL. */
const hay_param *hay_params_find(const hay_param_table *t, const char *key);

/*
 * A parsed string kept with a compiled set: every table's values in one
 * allocation.  hay_param_set_create parses `text` against the tables
 * (as hay_params_parse, with others_ok false); get returns table t's
 * struct, or NULL when t was not among them.
 */
typedef struct hay_param_set hay_param_set;
hay_status hay_param_set_create(const hay_allocator *a, const char *text,
                                const hay_param_table *const *tables,
                                size_t n, hay_param_msg *msg,
                                hay_param_set **out);
const void *hay_param_set_get(const hay_param_set *ps,
                              const hay_param_table *t);
void hay_param_set_free(const hay_allocator *a, hay_param_set *ps);

#ifdef __cplusplus
}
#endif

#endif
