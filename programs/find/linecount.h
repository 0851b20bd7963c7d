/*
 * linecount.h - -c: the lines of a piece that hold a match, counted as
 * ripgrep counts them: a match that selects its line stops the scan, which
 * resumes at the next line (hay_scan's call costs less than the line's
 * other matches), so a line dense with matches costs one match, one memchr
 * and one scan call.  No line start is looked for and no line is
 * numbered.  On several threads the piece is cut at line ends into parts
 * that the threads take in turn, each scanned on its own (and its own
 * scratch), serially.
 */
#ifndef HAY_FIND_LINECOUNT_H
#define HAY_FIND_LINECOUNT_H

#include <stdint.h>

#include "haystack.h"
#include "lines.h"
#include "matcher.h"

/* Counts into *lines the lines of rules->buf[0, rules->len) holding a
 * match of m->set that passes rules' -w / -x test.  No pattern may hold
 * rules->eol (a match then never spans lines).  `so` gives the threads
 * (parts run serially on them; no progress; so->stats, if set, tells
 * where the calling thread's last scan ran);
 * `scratch` is the calling thread's.  Returns HAY_OK or an error. */
hay_status find_count_lines(const find_matcher *m, hay_scratch *scratch,
                            const find_lines *rules, const hay_scan_opts *so,
                            uint64_t *lines);

#endif
