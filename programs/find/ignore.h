/*
 * ignore.h - the rules of `.gitignore` and `.ignore` files, read by the walk
 * only under --ignore (hay is a grep replacement: by default every file is
 * searched, as grep -r does).
 *
 * Each directory's files hold one rule a line, matched with fnmatch(3):
 *   - blank lines and lines starting with '#' are skipped; "\#" and "\!"
 *     start a pattern with '#' or '!';
 *   - "!pattern" takes a file back that an earlier rule left out;
 *   - "pattern/" applies to directories only;
 *   - a pattern holding '/' (other than at its end) is anchored to the
 *     directory of the file that holds it and matched against the path from
 *     there ('*' does not cross '/', "**" does); without one it is matched
 *     against the entry's name at any depth below.
 * The deepest directory's rules are looked at first, and in a file the last
 * matching rule decides (git's order).  Not done: the global excludes file,
 * .git/info/exclude, and git's escaping of trailing spaces.
 */
#ifndef HAY_FIND_IGNORE_H
#define HAY_FIND_IGNORE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct find_ignore find_ignore;

/* Reads the rules of `.gitignore` and `.ignore` in the open directory `dfd`,
 * whose printed path has `prefix_len` bytes before its entries' names
 * (the walk's names are prefix + name), into *out.  `parent` is the
 * enclosing directory's rules (kept, not copied; it must outlive *out; NULL
 * for none).  *out is `parent` itself when the directory has no rules.
 * Returns 0, or -1 when out of memory. */
int find_ignore_enter(find_ignore *parent, int dfd, size_t prefix_len, find_ignore **out);

/* Frees what find_ignore_enter allocated for this directory (nothing when
 * it returned `parent`). */
void find_ignore_leave(find_ignore *dir, find_ignore *parent);

/* Whether the entry with printed path `path` is left out. */
bool find_ignore_skips(const find_ignore *rules, const char *path, bool is_dir);

#endif
