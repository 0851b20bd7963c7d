/*
 * globs.h - which files and directories --include, --exclude and
 * --exclude-dir leave out, with grep's rules: shell globs (fnmatch, no
 * flags: '*' matches '/' and a leading '.'), matched against the base name
 * of what the -r walk finds, and against the whole operand or any part of
 * it after a '/' for what the command line names.  Among --include and
 * --exclude the last one that matches decides; when none matches, a file
 * is left out only if the first of them was an --include.
 */
#ifndef HAY_FIND_GLOBS_H
#define HAY_FIND_GLOBS_H

#include <stdbool.h>

typedef enum { FIND_GLOB_INCLUDE, FIND_GLOB_EXCLUDE, FIND_GLOB_EXCLUDE_DIR } find_glob_kind;

typedef struct find_globs find_globs;

/* Appends one rule (in command line order); *g may be NULL at first.
 * `glob` must outlive the set.  Returns 0, or -1 when out of memory. */
int find_globs_add(find_globs **g, find_glob_kind kind, const char *glob);

/* True when `path` is left out: a directory (is_dir) by --exclude-dir, a
 * file by --include/--exclude.  `command_line`: named as an operand (else
 * found by the walk, where `path` may be a whole path; its base name is
 * matched).  A NULL set leaves nothing out. */
bool find_globs_skip(const find_globs *g, const char *path, bool is_dir,
                     bool command_line);

void find_globs_free(find_globs *g);

#endif
