/* globs.c - --include, --exclude, --exclude-dir (see globs.h). */
#include "globs.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

typedef struct rule {
    find_glob_kind kind;
    const char *glob;
} rule;

struct find_globs {
    rule *rules;
    size_t n, cap;
};

int find_globs_add(find_globs **g, find_glob_kind kind, const char *glob)
{
    if (!*g && !(*g = calloc(1, sizeof **g)))
        return -1;
    find_globs *s = *g;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        rule *r = realloc(s->rules, cap * sizeof *r);
        if (!r)
            return -1;
        s->rules = r;
        s->cap = cap;
    }
    s->rules[s->n++] = (rule){ kind, glob };
    return 0;
}

/* The walk: the base name.  The command line: the whole name, or what
 * follows any '/' (not one followed by another '/'). */
static bool glob_matches(const char *glob, const char *path, bool command_line)
{
    if (!command_line) {
        const char *base = strrchr(path, '/');
        return fnmatch(glob, base ? base + 1 : path, 0) == 0;
    }
    if (fnmatch(glob, path, 0) == 0)
        return true;
    for (const char *p = path; *p; p++)
        if (*p == '/' && p[1] != '/' && fnmatch(glob, p + 1, 0) == 0)
            return true;
    return false;
}

bool find_globs_skip(const find_globs *g, const char *path, bool is_dir,
                     bool command_line)
{
    if (!g)
        return false;
    const rule *first = NULL, *last = NULL;
    for (size_t i = 0; i < g->n; i++) {
        const rule *r = &g->rules[i];
        if ((r->kind == FIND_GLOB_EXCLUDE_DIR) != is_dir)
            continue;
        if (!first)
            first = r;
        if (glob_matches(r->glob, path, command_line))
            last = r;
    }
    if (last)
        return last->kind != FIND_GLOB_INCLUDE;
    return first && first->kind == FIND_GLOB_INCLUDE;
}

void find_globs_free(find_globs *g)
{
    if (g)
        free(g->rules);
    free(g);
}
