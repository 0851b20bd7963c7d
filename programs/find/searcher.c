/*
 * searcher.c - what every thread's search shares, set up once per process
 * from the options (see search.h), and the workers' totals summed at the
 * end.
 */
#include "search.h"

#include "cli.h"

#include <string.h>
#include <unistd.h>

void find_searcher_init(find_searcher *r, const find_config *cf, find_matcher *m)
{
    memset(r, 0, sizeof *r);
    r->cf = cf;
    r->matcher = m;
    /* As grep: names with several operands; with -r and at most one, names
     * only for the files found inside directories. */
    r->print_names = cf->with_filename == 1 || (cf->with_filename == -1 && cf->nfiles > 1);
    r->names_in_walk = cf->with_filename == -1 && cf->recursive;
    r->flush_lines = cf->line_buffered || isatty(STDOUT_FILENO);
    /* Pieces of whole lines would cut an occurrence holding a newline, a
     * -z record, or the context before a line (search.c's top). */
    r->read_whole = cf->eol != '\n' || (cf->context && cf->before > 0);
    /* Not on a GPU backend: many short scans (backend auto sends none of
     * them to a GPU, search.c's scan_skipping and linecount.c). */
    r->skip_lines = cf->backend == HAY_BACKEND_CPU || cf->backend == HAY_BACKEND_AUTO;
    /* On the GPU a scan call costs a launch and a round trip: lines come
     * from the bitmap of the bytes where matches end (linecount.h). */
    r->marks_lines = cf->backend == HAY_BACKEND_CUDA || cf->backend == HAY_BACKEND_OPENCL;
    for (size_t i = 0; i < cf->pats.n; i++) {
        if (memchr(cf->pats.items[i].data, '\n', cf->pats.items[i].len))
            r->read_whole = true;
        /* Every match selecting a line lies inside it: the scan may resume
         * at the next line (search.c's scan_skipping). */
        if (memchr(cf->pats.items[i].data, cf->eol, cf->pats.items[i].len))
            r->skip_lines = r->marks_lines = false;
    }
    r->threads = cf->threads ? cf->threads : cli_cpu_count();
}

void find_totals_merge(find_totals *into, const find_totals *from)
{
    into->map_s += from->map_s;
    into->scan_s += from->scan_s;
    into->bytes += from->bytes;
    into->any_match |= from->any_match;
    into->error |= from->error;
    into->dev_scans += from->dev_scans;
    into->searches += from->searches;
    into->searches_with_match += from->searches_with_match;
    into->matched_lines += from->matched_lines;
    into->matches += from->matches;
    if (from->lib_ran)
        find_totals_add_scan(into, &from->lib);
}
