/*
 * walk.h - from operands to open files: "-" is standard input, a directory
 * is walked with -r (symbolic links, devices, FIFOs and sockets inside it
 * skipped, as grep -r skips them; -R follows the links, and skips one
 * back to a directory being walked with grep's warning), anything else is
 * opened.  Entries come in name order, or with --sort none in the
 * directory's own order (grep's order).  The walk opens every file relative to its directory's open
 * descriptor (openat), so depth is bounded neither by PATH_MAX nor by the
 * descriptor limit: past FIND_WALK_FDS levels (fd_levels) a directory's
 * descriptor is closed while its subdirectory is walked, and opened again
 * through "..".
 * The walk decides which files are searched and what they are called; it
 * does not read them.
 */
#ifndef HAY_FIND_WALK_H
#define HAY_FIND_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define FIND_WALK_FDS 64

typedef struct find_ignore find_ignore;

/* A directory being walked, linked to the one holding it: -R follows
 * links, and one back to a directory on the way makes a loop, which grep
 * skips with a warning (not an error). */
typedef struct find_walk_link {
    dev_t dev;
    ino_t ino;
    const struct find_walk_link *up;
} find_walk_link;

/* Called for every file to search: `fd` is open for reading and `name` (a
 * malloc'd string: what to print) both pass to the callee, which closes and
 * frees them.  `walked` says whether the file was found inside a directory
 * rather than named as an operand.  Returns false to end the walk. */
typedef bool (*find_visit_fn)(void *ctx, int fd, char *name, bool walked);

typedef struct find_walk {
    bool recursive;      /* -r: walk directories, else report them */
    bool follow;         /* -R: follow symbolic links inside the walk too */
    bool no_messages;    /* -s: say nothing about unreadable paths */
    const char *stdin_name;            /* "-" is printed as this */
    bool implicit_dot;   /* -r with no operand: names relative to "." */
    bool sorted;         /* entries in name order */
    bool ignore_files;   /* --ignore: honour .gitignore and .ignore (ignore.h) */
    bool skip_hidden;    /* --no-hidden: skip entries whose name starts with '.' */
    find_visit_fn visit;
    void *ctx;
    /* NULL, or the filter of --include/--exclude style options (globs):
     * whether to search the file, or enter the directory, `name` (the
     * entry's own name inside a walk, the path as given for an operand).
     * Called before anything is opened. */
    bool (*keep)(void *keep_ctx, const char *name, bool is_dir, bool operand);
    void *keep_ctx;
    /* NULL, or where an operand directory goes instead of being walked
     * here (the pool walks it on many threads, pool.h): `fd` is the open
     * directory and `path` (malloc'd) its name; both pass to the callee.
     * Returns false to end the walk. */
    bool (*visit_dir)(void *ctx, int fd, char *path);
    bool error;          /* set when a path could not be read (message printed) */
    bool stopped;        /* visit asked to end the walk */
    bool atime_kept;     /* O_NOATIME was refused: files opened without it */
    unsigned fd_levels;  /* directories held open down a tree (0: FIND_WALK_FDS) */
    const find_walk_link *dirs;   /* the directories being walked, innermost
                                     first, for -R's loop test */
} find_walk;

/* Searches one operand: a file, "-", or (with -r) a directory tree. */
void find_walk_operand(find_walk *w, const char *path);

/* The parts of the walk that the pool runs on many threads, one directory
 * at a time.  An entry of a directory, kept by the walk's filters. */
typedef struct find_walk_entry {
    char *name;          /* the path printed (malloc'd) */
    size_t base;         /* where the entry's own name starts in it */
    bool is_dir;
} find_walk_entry;

/* Sets `link` to the open directory `dfd` (zeros if fstat fails), linked to
 * w->dirs. */
void find_walk_link_to(const find_walk *w, int dfd, find_walk_link *link);

/* The entries of the open directory `dfd` (printed as `path`) to search or
 * enter, in the walk's order, filtered as the walk filters them (type,
 * --no-hidden, keep, ignore rules, -R's loops).  w->dirs must already start
 * with this directory.  `rules` are the enclosing directories' rules;
 * *mine gets this directory's (find_ignore_leave(*mine, rules) when the
 * entries are done with).  Returns the count (*out malloc'd, free with
 * find_walk_entries_free), 0 after a message on error. */
size_t find_walk_list(find_walk *w, int dfd, const char *path, find_ignore *rules,
                      find_ignore **mine, find_walk_entry **out);
void find_walk_entries_free(find_walk_entry *v, size_t n);

/* Opens a listed entry of the directory `dfd`: a descriptor, or -1 (a
 * message printed, unless the entry became a link since it was listed). */
int find_walk_open(find_walk *w, int dfd, const find_walk_entry *e);

/* Walks the open directory `dfd` (printed as `path`) here, on this thread,
 * its files to w->visit; closes dfd.  w->dirs is the chain above it and
 * `rules` the enclosing directories' ignore rules. */
void find_walk_tree(find_walk *w, int dfd, const char *path, find_ignore *rules);

#endif
