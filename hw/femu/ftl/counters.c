/*
 * FEMU BlackBox FTL: counters (log page C0h and FDP statistics 22h).
 *
 * host_pages_written counts every NAND page a host write touched (a write
 * smaller than a page still programs one whole page); WAF = (pages
 * programmed for the host + pages GC moved) / pages the host wrote, so a
 * sequential fill gives exactly 1000.  The counters are reset by
 * ftl_reset_counters (0xEF code 5); the logical clock the cost-benefit
 * policy ages lines by is not a counter and is never reset.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "ftl-int.h"

void ftl_reset_counters(struct ftl *ftl)
{
    memset(&ftl->ctr, 0, sizeof(ftl->ctr));
    /* and their split by namespace (nsctr.c), which adds up to them */
    memset(ftl->nss.ctr, 0, sizeof(ftl->nss.ctr));
}

void ftl_get_counters(const struct ftl *ftl, struct ftl_counters *c)
{
    *c = ftl->ctr;
}

uint32_t ftl_waf_x1000(const struct ftl *ftl)
{
    const struct ftl_counters *c = &ftl->ctr;
    uint64_t w;

    if (c->host_pages_written == 0) {
        return 1000;
    }
    w = (c->host_pages_programmed + c->gc_pages_moved +
         c->trans_pages_programmed) * 1000 /
        c->host_pages_written;
    return w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
}
