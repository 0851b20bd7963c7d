/*
 * walk.h - from operands to open files: "-" is standard input, a directory
 * is walked with -r (in name order, symbolic links inside it not followed,
 * as grep -r), anything else is opened.  The walk decides which files are
 * searched and what they are called; it does not read them.
 */
#ifndef HAY_FIND_WALK_H
#define HAY_FIND_WALK_H

#include <stdbool.h>

/* Called for every file to search: `fd` is open for reading (closed by the
 * walk afterwards), `name` is what to print, `walked` says whether the file
 * was found inside a directory rather than named as an operand. */
typedef void (*find_visit_fn)(void *ctx, int fd, const char *name, bool walked);

struct find_globs;

typedef struct find_walk {
    bool recursive;      /* -r: walk directories, else report them */
    bool follow;         /* -R: follow symbolic links inside the walk too */
    bool no_messages;    /* -s: say nothing about unreadable paths */
    const char *stdin_name;            /* "-" is printed as this */
    const struct find_globs *globs;    /* --include/--exclude(-dir) */
    bool implicit_dot;   /* -r with no operand: names relative to "." */
    find_visit_fn visit;
    void *ctx;
    bool error;          /* set when a path could not be read (message printed) */
    const struct walk_dir_link *dirs;   /* private: the directories being
                                           walked, for -R's loop test */
} find_walk;

/* Searches one operand: a file, "-", or (with -r) a directory tree. */
void find_walk_operand(find_walk *w, const char *path);

#endif
