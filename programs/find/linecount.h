/*
 * linecount.h - -c: the lines of a piece that hold a match, counted as
 * ripgrep counts them: a match that selects its line stops the scan, which
 * resumes at the next line (hay_scan's call costs less than the line's
 * other matches), so a line dense with matches costs one match, one memchr
 * and one scan call.  No line start is looked for and no line is
 * numbered.  On several threads the piece is cut at line ends into parts
 * that the threads take in turn, each scanned on its own (and its own
 * scratch), serially.  The lines printed whole (-n, -v, context) are
 * found the same way on several threads, and replayed in order.
 *
 * On a GPU backend neither stop nor resume pays (each scan call costs a
 * launch and a round trip): there the lines come from the bitmap of the
 * bytes where matches end (hay_scan_marks) or from the first match
 * (hay_scan_first), find_select_by_marks.
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

/* The lines of rules->buf[0, rules->len) that hold a match passing the
 * -w / -x test, found as find_count_lines finds them (parts on so->threads
 * threads, each line's scan stopped at its first match) and handed to
 * fn(ctx) on the calling thread in order: one match per line, the one that
 * selected it (offsets in buf).  A non-zero return of fn ends the search
 * (HAY_STOPPED).  Returns HAY_OK, HAY_STOPPED or an error. */
hay_status find_select_in_parts(const find_matcher *m, const find_lines *rules,
                                const hay_scan_opts *so, hay_match_fn fn, void *ctx);

/* The lines of rules->buf[0, rules->len) that hold a match of m->set, for
 * a caller with no -w / -x test and no prefixes to verify (m->covered
 * NULL) whose patterns never hold rules->eol: fn(ctx) gets, in order, one
 * match per such line, [i, i + 1) for its first byte i where a match ends
 * (its id 0).  The marks are taken in slices of at most 256 MiB (32 MiB
 * of bitmap; env HAY_MARKS_SLICE: another size, for tests), each
 * overlapping the one before by m->max_len - 1 bytes so that no match
 * across a slice edge is lost.  With `one`, only the first
 * line, from hay_scan_first (its real match), slice by slice until one
 * has a match.  With `lines` (and not `one`), the lines are only counted
 * into *lines, on so->threads threads in parts of each slice cut at line
 * starts, and fn is not called.  `so` as for hay_scan (its on_part and
 * progress are not used).  A non-zero return of fn ends the search
 * (HAY_STOPPED).  Returns HAY_OK, HAY_STOPPED or an error. */
hay_status find_select_by_marks(const find_matcher *m, hay_scratch *scratch,
                                const find_lines *rules, const hay_scan_opts *so, bool one,
                                uint64_t *lines, hay_match_fn fn, void *ctx);

#endif
