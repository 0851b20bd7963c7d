/*
 * list_dev.h - hay_scan_list into arrays the device can reach (list_dev.c):
 * device memory of the set's device, or page-locked host memory.
 *
 * The pipeline's sorted keys of a piece are already on the device.  For
 * such arrays they do not come back.  The sort stops after grouping the
 * keys by region (sort.h `later`); a list that goes whole (nothing to
 * skip, room for all) has its regions sorted straight into the arrays
 * (or the staging), its last end found from its last region.  Otherwise
 * the regions are sorted in place and a one-warp kernel finds where the
 * call's list is cut (the keys ending at or before `from`, the cap met at
 * an end boundary: the same cut as list.c's fill_deliver), its five words
 * come back, and a kernel writes ids, starts and ends at the piece's final
 * index: straight into device arrays, or into the slot's device staging
 * (20 bytes a match at most) and from there into the pinned arrays by DMA
 * on the slot's output stream, overlapping the next pieces.  Nothing per
 * match runs on the host.  Short lists (sorted on the host), an overflow's
 * host runs and the leftmost modes take the host path (fill.c, list.c);
 * device arrays get those through fill.c's bounce.
 */
#ifndef HAY_CUDA_LIST_DEV_H
#define HAY_CUDA_LIST_DEV_H

#include "../core/fill.h"
#include "driver.h"
#include "list.h"

typedef struct hay_dlist hay_dlist;

/* For f's arrays on set cs over pipeline pp: *out a dlist, or NULL when
 * the host path serves them (pageable arrays; pinned arrays whose staging
 * cannot be had).  HAY_ERR_INVALID (said in the log) for device arrays of
 * another device. */
hay_status hay_dlist_start(cuda_set *cs, const hay_patterns *set, cuda_pipe *pp, hay_fill *f,
                           const hay_scan_opts *o, hay_dlist **out);

/* The slot's list (sl->d_sorted: out_n keys local to out_lo, sorted on
 * sl->ost, or grouped by region: sl->later) into the arrays, as far as
 * they have room; *stop when the list is full (the scan stops).  Waits
 * for the cut only (a list taken whole: for its last end's words). */
hay_status hay_dlist_deliver(hay_dlist *d, cuda_slot *sl, hay_list_sink *k, bool *stop);

/* Waits for every conversion and copy (the arrays are complete), logs the
 * call's line and frees d (NULL: HAY_OK). */
hay_status hay_dlist_stop(hay_dlist *d, const hay_scan_opts *o);

#endif
