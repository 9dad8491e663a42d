/*
 * FEMU BlackBox FTL: wear, bad blocks and static wear leveling.
 *
 * GC erases a victim line block by block, every block of the line at
 * once, so the erase count of a line is the erase count of each of its
 * blocks: one count per line is the per-block count.  A line is the unit
 * of placement (a superblock: block `id` of every plane), so a line that
 * holds a bad block is retired whole, the other blocks with it; this FTL
 * does not rebuild superblocks from spare blocks.
 *
 * - Factory bad blocks (nand_bad_blocks): that many distinct blocks of
 *   the NAND, drawn from seed with a generator of their own (the GC
 *   policies' RNG is not touched); their lines never enter the free queue.
 * - Grown bad blocks: a line erased pe_cycles times has reached its rated
 *   endurance; it is retired at its next erase (GC has relocated its valid
 *   pages by then), and its blocks count as grown bad blocks.
 * - Retired lines stay "in use": the spare is the number of lines that
 *   can be retired while the GC reserve rule still holds
 *   (ftl_cfg_spare_lines, docs/ftl-reserve.md).  A factory set beyond it
 *   is refused at start-up; once grown bad blocks take more than it, GC
 *   can no longer guarantee a free line and the FTL turns read-only.  A
 *   line retired inside forced GC does not give back the line its
 *   relocation opened, so a host write may find no free line a little
 *   earlier: with lines retired, that also ends the spare (read-only).
 * - Static wear leveling (wear_leveling=on): after background GC, when a
 *   line was erased since the last look and the most erased free line has
 *   more than wl_threshold erases over the least erased line holding data
 *   (closed), the two swap: the data moves page for page into the worn
 *   line, which then rests holding cold data, and the little-worn line is
 *   erased and goes back to the free queue, where the host's writes reach
 *   it.  The copies count as GC copies (WAF).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftl-int.h"

static uint64_t total_blocks(const struct ftl_config *c)
{
    return (uint64_t)c->nchs * c->luns_per_ch * c->pls_per_lun *
           c->blks_per_pl;
}

/*
 * Draw cfg's factory bad blocks: block b is block b % lines of plane
 * b / lines, so its line is b % lines.  line_bad (lines entries, may be
 * NULL) gets FTL_BAD_FACTORY for each line hit.  Returns the lines hit,
 * or -1 out of memory.
 */
static int64_t draw_factory(const struct ftl_config *c, uint8_t *line_bad)
{
    uint64_t nblk = total_blocks(c);
    uint32_t nlines = c->blks_per_pl;
    uint64_t *bits;
    uint8_t *hit;
    uint64_t s = c->seed * UINT64_C(0xD1B54A32D192ED03) ^
                 UINT64_C(0x6261646221626c6b);   /* "badb!blk" */
    int64_t nhit = 0;

    if (c->nand_bad_blocks == 0) {
        return 0;
    }
    bits = calloc((nblk + 63) / 64, sizeof(*bits));
    hit = calloc(nlines, 1);
    if (!bits || !hit) {
        free(bits);
        free(hit);
        return -1;
    }
    if (s == 0) {
        s = 1;
    }
    for (uint32_t k = 0; k < c->nand_bad_blocks; k++) {
        uint64_t b;

        /* distinct blocks: draw again on a repeat (nand_bad_blocks is at
         * most the spare's blocks, a small share of the NAND) */
        do {
            b = ftl_rng_next(&s) % nblk;
        } while ((bits[b >> 6] >> (b & 63)) & 1);
        bits[b >> 6] |= UINT64_C(1) << (b & 63);
        if (!hit[b % nlines]) {
            hit[b % nlines] = 1;
            nhit++;
            if (line_bad) {
                line_bad[b % nlines] = FTL_BAD_FACTORY;
            }
        }
    }
    free(bits);
    free(hit);
    return nhit;
}

int ftl_wear_check(const struct ftl_config *c, char *err, size_t errlen)
{
    uint32_t spare, bpl = c->nchs * c->luns_per_ch * c->pls_per_lun;
    int64_t hit;

    if (c->pe_cycles == 0) {
        snprintf(err, errlen, "pe_cycles=0: must be at least 1");
        return -1;
    }
    if (c->wl_threshold == 0) {
        snprintf(err, errlen, "wl_threshold=0: must be at least 1");
        return -1;
    }
    if (c->wear_leveling && c->mapping == FTL_MAP_DFTL) {
        snprintf(err, errlen, "wear_leveling=on: not with mapping=dftl "
                 "(translation pages are not moved by wear leveling)");
        return -1;
    }
    if (c->nand_bad_blocks == 0) {
        return 0;
    }
    spare = ftl_cfg_spare_lines(c);
    if ((uint64_t)c->nand_bad_blocks > (uint64_t)spare * bpl) {
        snprintf(err, errlen, "nand_bad_blocks=%u exceeds the spare: %u "
                 "lines of %u blocks may be retired before GC runs out of "
                 "room (use more op_pcent or fewer bad blocks)",
                 c->nand_bad_blocks, spare, bpl);
        return -1;
    }
    hit = draw_factory(c, NULL);
    if (hit < 0) {
        snprintf(err, errlen, "nand_bad_blocks=%u: out of memory placing "
                 "them", c->nand_bad_blocks);
        return -1;
    }
    if (hit > spare) {
        snprintf(err, errlen, "nand_bad_blocks=%u exceeds the spare: they "
                 "fall in %lld lines (each retired whole) but only %u lines "
                 "may be retired before GC runs out of room (use more "
                 "op_pcent or fewer bad blocks)", c->nand_bad_blocks,
                 (long long)hit, spare);
        return -1;
    }
    return 0;
}

int ftl_wear_init(struct ftl *ftl)
{
    struct ftl_wear *w = &ftl->wear;
    struct ftl_lines *ln = &ftl->ln;
    uint32_t n = ln->nlines, k = 0;

    memset(w, 0, sizeof(*w));
    w->erases = calloc(n, sizeof(*w->erases));
    w->bad = calloc(n, sizeof(*w->bad));
    if (!w->erases || !w->bad || draw_factory(&ftl->cfg, w->bad) < 0) {
        return -1;
    }
    w->spare_lines = ftl_cfg_spare_lines(&ftl->cfg);
    w->factory_blocks = ftl->cfg.nand_bad_blocks;
    /* the free queue keeps the good lines in their order */
    for (uint32_t i = 0; i < n; i++) {
        if (w->bad[i]) {
            ln->line[i].state = FTL_LINE_BAD;
            w->retired++;
        } else {
            ln->freeq[k++] = i;
        }
    }
    ln->free_head = 0;
    ln->nfree = k;
    return 0;
}

void ftl_wear_free(struct ftl *ftl)
{
    free(ftl->wear.erases);
    free(ftl->wear.bad);
    ftl->wear.erases = NULL;
    ftl->wear.bad = NULL;
}

void ftl_wear_erased(struct ftl *ftl, uint32_t id)
{
    struct ftl_wear *w = &ftl->wear;
    struct ftl_line *l = &ftl->ln.line[id];

    w->erase_events++;
    if (w->erases[id] < ftl->cfg.pe_cycles) {
        w->erases[id]++;
        ftl_line_put_free(&ftl->ln, id);
        return;
    }
    /* worn out: the erase fails, the line leaves placement */
    l->state = FTL_LINE_BAD;
    l->vpc = 0;
    l->is_gc = 0;
    l->owner = 0;
    w->bad[id] = FTL_BAD_GROWN;
    w->grown_blocks += ftl->blks_per_line;
    w->retired++;
    if (w->retired > w->spare_lines) {
        w->ro = true;
    }
}

/*
 * Swap: the valid pages of closed line cold go to the same places of
 * free line worn, which closes holding them (and rests); cold is erased
 * and freed.  The copies count as GC copies (they are in the WAF).
 */
static void wl_swap(struct ftl *ftl, uint32_t cold, uint32_t worn,
                    uint64_t now)
{
    struct ftl_lines *ln = &ftl->ln;
    struct ftl_line *lc = &ln->line[cold], *lw = &ln->line[worn];
    uint32_t cbase = cold * ftl->ppl, wbase = worn * ftl->ppl;
    bool timed = ftl->tm.gc_delay;
    uint32_t moved = 0;

    ftl_line_unclose(ln, cold);
    (void)ftl_line_take_free_id(ln, worn);
    lw->owner = lc->owner;
    lw->is_gc = 1;
    for (uint32_t seq = 0; seq < ftl->ppl && lc->vpc > 0; seq++) {
        uint32_t lpn;

        if (!ftl_page_valid(ftl, cbase + seq)) {
            continue;
        }
        lpn = ftl->rmap[cbase + seq];
        if (timed) {
            uint32_t lun = ftl_mod32(&ftl->div_nluns, seq);
            uint64_t t = ftl_nand_read(&ftl->tm, lun, ftl_seq_pg(ftl, seq),
                                       now);
            (void)ftl_nand_prog(&ftl->tm, lun, ftl_seq_pg(ftl, seq), t);
        }
        ftl_page_set_invalid(ftl, cbase + seq);
        lc->vpc--;
        ftl_map_put(ftl, lpn, wbase + seq);
        ftl->rmap[wbase + seq] = lpn;
        ftl_page_set_valid(ftl, wbase + seq);
        lw->vpc++;
        moved++;
        ftl_nsctr(ftl, lpn, true, 1);
    }
    ftl->clock += moved;
    ftl->ctr.gc_pages_moved += moved;
    ftl->ctr.fdp_mbmw += (uint64_t)moved * ftl->page_bytes;
    ftl_line_close(ln, worn, lc->close_clock);
    if (timed) {
        for (uint32_t g = 0; g < ftl->nluns; g++) {
            ftl_nand_erase(&ftl->tm, g, now);
        }
    }
    ftl->ctr.blocks_erased += ftl->blks_per_line;
    ftl->ctr.fdp_mbe += (uint64_t)ftl->ppl * ftl->page_bytes;
    ftl_wear_erased(ftl, cold);
}

void ftl_wear_write_failed(struct ftl *ftl)
{
    /*
     * A line retired inside forced GC gives back no free line for the one
     * its relocation opened, so GC may run out of free lines before the
     * retired lines pass the spare: that is the end of the spare too.
     */
    if (ftl->wear.retired > 0) {
        ftl->wear.ro = true;
    }
}

void ftl_wear_level(struct ftl *ftl, uint64_t now)
{
    struct ftl_wear *w = &ftl->wear;
    struct ftl_lines *ln = &ftl->ln;
    uint32_t cold = FTL_NONE, worn = FTL_NONE;

    if (w->erase_events == w->wl_seen || w->ro) {
        return;
    }
    w->wl_seen = w->erase_events;
    /* the least erased line holding data, the most erased free line */
    for (uint32_t i = 0; i < ln->nlines; i++) {
        uint32_t e = w->erases[i];

        if (ln->line[i].state == FTL_LINE_CLOSED &&
            (cold == FTL_NONE || e < w->erases[cold])) {
            cold = i;
        }
        if (ln->line[i].state == FTL_LINE_FREE &&
            (worn == FTL_NONE || e > w->erases[worn])) {
            worn = i;
        }
    }
    if (cold == FTL_NONE || worn == FTL_NONE ||
        w->erases[worn] <= w->erases[cold] ||
        w->erases[worn] - w->erases[cold] <= ftl->cfg.wl_threshold) {
        return;
    }
    wl_swap(ftl, cold, worn, now);
    w->wl_moves++;
}

bool ftl_read_only(const struct ftl *ftl)
{
    return ftl->wear.ro;
}

uint32_t ftl_retired_lines(const struct ftl *ftl)
{
    return ftl->wear.retired;
}

uint32_t ftl_line_erases(const struct ftl *ftl, uint32_t id)
{
    return id < ftl->ln.nlines ? ftl->wear.erases[id] : 0;
}

/* Square root of v >= 0 by Newton's method (no libm: the fuzz and
 * replay builds link the library without it). */
static double sqrt_newton(double v)
{
    double x = v > 1 ? v : 1;

    if (v <= 0) {
        return 0;
    }
    for (int i = 0; i < 200; i++) {
        double nx = (x + v / x) / 2;
        if (nx >= x) {
            break;
        }
        x = nx;
    }
    return x;
}

void ftl_get_wear(const struct ftl *ftl, struct ftl_wear_info *out)
{
    const struct ftl_wear *w = &ftl->wear;
    uint32_t n = 0;
    uint64_t isum = 0;
    double sum = 0, sq = 0;

    memset(out, 0, sizeof(*out));
    out->erase_min = UINT32_MAX;
    /* the lines placement used or uses: not the factory bad ones */
    for (uint32_t i = 0; i < ftl->ln.nlines; i++) {
        uint32_t e = w->erases[i];

        if (w->bad[i] == FTL_BAD_FACTORY) {
            continue;
        }
        n++;
        isum += e;
        sum += e;
        sq += (double)e * e;
        out->erase_min = e < out->erase_min ? e : out->erase_min;
        out->erase_max = e > out->erase_max ? e : out->erase_max;
    }
    if (n == 0) {
        out->erase_min = 0;
    } else {
        double var;

        out->erase_mean = sum / n;
        var = sq / n - out->erase_mean * out->erase_mean;
        out->erase_stddev = sqrt_newton(var);
    }
    /* SMART Percentage Used: may exceed 100, 255 stands for more */
    if (n) {
        uint64_t pct = isum * 100 / ((uint64_t)n * ftl->cfg.pe_cycles);
        out->pct_used = pct > 255 ? 255 : (uint32_t)pct;
    }
    out->factory_bad_blocks = w->factory_blocks;
    out->grown_bad_blocks = w->grown_blocks;
    out->retired_lines = w->retired;
    out->spare_lines = w->spare_lines;
    if (w->ro) {
        out->spare_pcent = 0;
    } else if (w->spare_lines == 0) {
        out->spare_pcent = w->retired ? 0 : 100;
    } else if (w->retired >= w->spare_lines) {
        out->spare_pcent = 0;
    } else {
        out->spare_pcent = (uint32_t)((uint64_t)(w->spare_lines - w->retired)
                                      * 100 / w->spare_lines);
    }
    out->read_only = w->ro;
    out->wl_lines_moved = w->wl_moves;
}
