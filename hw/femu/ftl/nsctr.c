/*
 * Per-namespace counters of a shared FTL.  Several BlackBox namespaces
 * share one FTL, each over its own range of logical blocks (the device's
 * ftl_base).  The FTL's counters are the whole device's; this file
 * splits two of them by the range the logical page belongs to: host
 * pages written (counted where the host page reaches NAND, so a write
 * cache's destage counts for the namespace whose page it is) and pages
 * GC relocated (a burst on one namespace makes GC move another's pages).
 *
 * Off (no ranges) by default: nothing is counted and nothing else
 * changes.  Setting ranges again (a namespace created or deleted) keeps
 * the counters of each range that starts where one started before; a
 * new range starts at 0.  State files keep them (format 7, state.c): a
 * load restores the ranges and their counters, and the device's ranges
 * set after it keep the counters of the ranges that match.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "ftl-int.h"

int ftl_set_ns_ranges(struct ftl *ftl, uint32_t n, const uint64_t *first_lba,
                      char *err, size_t errlen)
{
    struct ftl_ns_split *s = &ftl->nss, old;

    if (n > FTL_MAX_NS_RANGES) {
        snprintf(err, errlen, "%u namespace ranges: at most %d", n,
                 FTL_MAX_NS_RANGES);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (first_lba[i] % ftl->blocks_per_page ||
            first_lba[i] >= ftl->ns_blocks ||
            (i > 0 && first_lba[i] <= first_lba[i - 1])) {
            snprintf(err, errlen, "namespace range %u starts at block %llu: "
                     "ranges must start on a NAND page, in increasing "
                     "order, inside the FTL's %llu blocks", i,
                     (unsigned long long)first_lba[i],
                     (unsigned long long)ftl->ns_blocks);
            return -1;
        }
    }
    old = *s;
    memset(s, 0, sizeof(*s));
    for (uint32_t i = 0; i < n; i++) {
        s->first_lpn[i] = first_lba[i] / ftl->blocks_per_page;
        for (uint32_t j = 0; j < old.n; j++) {
            if (old.first_lpn[j] == s->first_lpn[i]) {
                s->ctr[i] = old.ctr[j];
            }
        }
    }
    s->n = n;
    return 0;
}

/* the range lpn is in: the last one starting at or below it (-1: none) */
static int nsctr_range(const struct ftl_ns_split *s, uint64_t lpn)
{
    int i = (int)s->n - 1;

    while (i >= 0 && s->first_lpn[i] > lpn) {
        i--;
    }
    return i;
}

void ftl_nsctr_count(struct ftl *ftl, uint64_t lpn, bool gc, uint64_t n)
{
    int i = nsctr_range(&ftl->nss, lpn);

    if (i < 0) {
        return;
    }
    if (gc) {
        ftl->nss.ctr[i].gc_pages_moved += n;
    } else {
        ftl->nss.ctr[i].host_pages_written += n;
    }
}

int ftl_get_ns_counters(const struct ftl *ftl, uint32_t i,
                        struct ftl_ns_counters *c)
{
    if (i >= ftl->nss.n) {
        return -1;
    }
    *c = ftl->nss.ctr[i];
    return 0;
}
