/*
 * walk.h - from operands to open files: "-" is standard input, a directory
 * is walked with -r (symbolic links, devices, FIFOs and sockets inside it
 * skipped, as grep -r skips them; -R follows the links, and skips one
 * back to a directory being walked with grep's warning), anything else is
 * opened.  Entries come in name order, or with --sort none in the
 * directory's own order (grep's order).  The walk opens every file relative to its directory's open
 * descriptor (openat), so depth is bounded neither by PATH_MAX nor by the
 * descriptor limit: past FIND_WALK_FDS levels a directory's descriptor is
 * closed while its subdirectory is walked, and opened again through "..".
 * The walk decides which files are searched and what they are called; it
 * does not read them.
 */
#ifndef HAY_FIND_WALK_H
#define HAY_FIND_WALK_H

#include <stdbool.h>

#define FIND_WALK_FDS 64

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
    bool error;          /* set when a path could not be read (message printed) */
    bool stopped;        /* visit asked to end the walk */
    const struct walk_dir_link *dirs;   /* private: the directories being
                                           walked, for -R's loop test */
} find_walk;

/* Searches one operand: a file, "-", or (with -r) a directory tree. */
void find_walk_operand(find_walk *w, const char *path);

#endif
