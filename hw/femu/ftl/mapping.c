/*
 * FEMU BlackBox FTL: page mapping table and reverse map.
 *
 * maptbl[lpn] is the NAND page holding logical page lpn, stored inverted
 * (~ppa) so that a zero entry means FTL_NONE: the table starts as untouched
 * zero memory and costs host memory only where the host wrote; rmap[ppa] is the
 * logical page a NAND page was programmed for, and one bit per NAND page
 * says whether that copy is still the current one.  Invalidating a copy
 * clears its bit instead of writing rmap: the bitmap is 32 times smaller
 * than rmap and stays in cache, so an overwrite costs one cache miss (the
 * maptbl entry), not two.  4 + 4 bytes + 1 bit per page: at most
 * 8.125 bytes of mapping per NAND page.
 * ppa = line * pages_per_line + write-pointer sequence within the line.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "ftl-int.h"

int ftl_map_init(struct ftl *ftl)
{
    /*
     * Zeroed and never written at start: a large calloc is fresh
     * anonymous memory, so only the parts of the tables that the host's
     * writes reach cost host memory.  maptbl holds ~ppa (0 = FTL_NONE),
     * rmap is only read for valid pages.
     */
    ftl->maptbl = calloc(ftl->lpages, sizeof(uint32_t));
    ftl->rmap = calloc(ftl->nand_pages, sizeof(uint32_t));
    ftl->vbits = calloc((size_t)(ftl->nand_pages + 63) / 64, sizeof(uint64_t));
    if (!ftl->maptbl || !ftl->rmap || !ftl->vbits) {
        ftl_map_free(ftl);
        return -1;
    }
    return 0;
}

void ftl_map_free(struct ftl *ftl)
{
    free(ftl->maptbl);
    free(ftl->rmap);
    free(ftl->vbits);
    ftl->maptbl = ftl->rmap = NULL;
    ftl->vbits = NULL;
}

void ftl_map_unmap(struct ftl *ftl, uint32_t lpn)
{
    uint32_t old = ftl_map_get(ftl, lpn);

    if (old != FTL_NONE) {
        ftl_page_set_invalid(ftl, old);
        ftl_line_invalidate(&ftl->ln, ftl_ppa_line(ftl, old));
        ftl_map_put(ftl, lpn, FTL_NONE);
    }
}

void ftl_map_set(struct ftl *ftl, uint32_t lpn, uint32_t ppa)
{
    uint32_t old = ftl_map_get(ftl, lpn);

    if (old != FTL_NONE) {
        ftl_page_set_invalid(ftl, old);
        ftl_line_invalidate(&ftl->ln, ftl_ppa_line(ftl, old));
    }
    ftl_map_put(ftl, lpn, ppa);
    ftl->rmap[ppa] = lpn;
    ftl_page_set_valid(ftl, ppa);
}
