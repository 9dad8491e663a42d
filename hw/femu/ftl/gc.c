/*
 * FEMU BlackBox FTL: garbage collection and victim policies.
 *
 * As FEMU's BlackBox FTL (docs/ftl.md lists each detail checked):
 * background GC (after a request): once the lines in use reach
 * gc_thres_pcent of all lines, collect the policy's victim, but only when
 * at least ppl / 8 (integer division) of its pages are invalid (collecting
 * a nearly full line costs more than it frees).  Forced GC (inside a
 * write, before each page): while the lines in use reach
 * gc_thres_pcent_high, collect the policy's victim however few invalid
 * pages it has.  Victims are closed lines with at least one invalid page
 * (line.c), so every collection frees something; when there is none,
 * nothing is reclaimable and the write fails (FTL_TIME_ERROR) rather than
 * loop or abort.  A victim's valid pages are copied block by block, LUN
 * by LUN (channel outer, LUN inner, then plane, then page), into the
 * stream ftl_stream_for_gc names (by default the shared write pointer);
 * each block is erased once its pages are copied, and the line goes to
 * the back of the free queue.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ftl-int.h"

/* pages of look-ahead when relocating a victim */
#define GC_PREFETCH 16

static uint32_t pick_random(struct ftl *ftl)
{
    struct ftl_lines *ln = &ftl->ln;

    /* multiply-shift maps 32 random bits onto [0, nclosed) */
    uint64_t r = ftl_rng_next(&ftl->rng) >> 32;
    return ln->closed[(uint32_t)((r * ln->nclosed) >> 32)];
}

static uint32_t pick_dchoice(struct ftl *ftl)
{
    struct ftl_lines *ln = &ftl->ln;
    uint32_t best = FTL_NONE;

    /* best of d = 4 uniformly sampled candidates (with replacement) */
    for (int i = 0; i < 4; i++) {
        uint32_t id = pick_random(ftl);
        if (best == FTL_NONE || ln->line[id].vpc < ln->line[best].vpc) {
            best = id;
        }
    }
    return best;
}

/*
 * Cost-benefit (Rosenblum & Ousterhout; Kawaguchi et al.): maximise
 * age * (1 - u) / 2u, u = valid fraction, age = pages programmed since
 * the line was closed.  A line with no valid page frees a line at no cost
 * and wins outright.  Needs every candidate's score, so it walks the
 * closed array; ties go to the earlier array slot.
 */
static uint32_t pick_cost_benefit(struct ftl *ftl)
{
    struct ftl_lines *ln = &ftl->ln;
    uint32_t best = FTL_NONE;
    double best_score = -1.0;

    for (uint32_t i = 0; i < ln->nclosed; i++) {
        uint32_t id = ln->closed[i];
        const struct ftl_line *l = &ln->line[id];
        double u, score;

        if (l->vpc == 0) {
            return id;
        }
        u = (double)l->vpc / ln->ppl;
        score = (double)(ftl->clock - l->close_clock + 1) * (1.0 - u) /
                (2.0 * u);
        if (score > best_score) {
            best_score = score;
            best = id;
        }
    }
    return best;
}

uint32_t ftl_gc_pick_victim(struct ftl *ftl)
{
    struct ftl_lines *ln = &ftl->ln;

    if (ln->nclosed == 0) {
        return FTL_NONE;
    }
    switch (ftl->cfg.gc_policy) {
    case FTL_GC_FIFO:
        return ln->fifo_head;
    case FTL_GC_RANDOM:
        return pick_random(ftl);
    case FTL_GC_DCHOICE:
        return pick_dchoice(ftl);
    case FTL_GC_COST_BENEFIT:
        return pick_cost_benefit(ftl);
    case FTL_GC_GREEDY:
    default:
        return ftl_line_min_valid(ln);
    }
}

int ftl_gc_collect(struct ftl *ftl, uint32_t victim, uint64_t now)
{
    const struct ftl_config *c = &ftl->cfg;
    struct ftl_lines *ln = &ftl->ln;
    struct ftl_line *l = &ln->line[victim];
    uint32_t base = victim * ftl->ppl;
    uint32_t dst = ftl_stream_for_gc(ftl, l->owner);
    bool timed = ftl->tm.gc_delay;
    /* seq of the next page of the same block: one page further down */
    uint32_t pg_stride = ftl->nluns * c->pls_per_lun;
    uint64_t done;

    ftl_line_unclose(ln, victim);
    if (ftl->dftl.ntp) {
        ftl_dftl_gc_begin(ftl);
    }
    for (uint32_t ch = 0; ch < c->nchs; ch++) {
        for (uint32_t lun = 0; lun < c->luns_per_ch; lun++) {
            /* global LUN of this block, as the write pointer numbers it */
            uint32_t g = lun * c->nchs + ch;

            for (uint32_t pl = 0; pl < c->pls_per_lun && l->vpc > 0; pl++) {
                uint32_t seq = pl * ftl->nluns + g;

                for (uint32_t pg = 0; pg < c->pgs_per_blk && l->vpc > 0;
                     pg++, seq += pg_stride) {
                    uint32_t ahead = seq + GC_PREFETCH * pg_stride;
                    uint32_t lpn, ppa;
                    uint64_t t = now;

                    /* the mapping entries a victim's pages belong to are
                     * scattered: fetch them a few pages ahead */
                    if (pg + GC_PREFETCH < c->pgs_per_blk &&
                        ftl_page_valid(ftl, base + ahead) &&
                        ftl->rmap[base + ahead] < ftl->lpages) {
                        ftl_prefetch_w(&ftl->maptbl[ftl->rmap[base + ahead]]);
                    }
                    if (!ftl_page_valid(ftl, base + seq)) {
                        continue;
                    }
                    lpn = ftl->rmap[base + seq];
                    if (timed) {
                        t = ftl_nand_read(&ftl->tm, g, pg, now);
                    }
                    ppa = ftl_stream_program(ftl, dst, timed, t, &done);
                    if (ppa == FTL_NONE) {
                        /* out of free lines: keep the rest where it is */
                        ftl_line_close(ln, victim, l->close_clock);
                        return -1;
                    }
                    /* the old copy is this victim page: no lookup needed */
                    ftl_page_set_invalid(ftl, base + seq);
                    l->vpc--;
                    if (lpn >= ftl->lpages) {
                        /* a translation page (mapping=dftl) */
                        ftl_dftl_gc_relocated(ftl, lpn - ftl->lpages, ppa);
                    } else {
                        ftl_map_put(ftl, lpn, ppa);
                        if (ftl->dftl.ntp) {
                            ftl_dftl_gc_moved(ftl, lpn);
                        }
                    }
                    ftl->rmap[ppa] = lpn;
                    ftl_page_set_valid(ftl, ppa);
                    ftl->ctr.gc_pages_moved++;
                    if (lpn < ftl->lpages) {
                        ftl_nsctr(ftl, lpn, true, 1);
                    }
                    ftl->ctr.fdp_mbmw += ftl->page_bytes;
                }
            }
            if (timed) {
                /* planes of one LUN erase together (multi-plane erase) */
                ftl_nand_erase(&ftl->tm, g, now);
            }
        }
    }
    ftl->ctr.blocks_erased += ftl->blks_per_line;
    ftl->ctr.fdp_mbe += (uint64_t)ftl->ppl * ftl->page_bytes;
    ftl->ctr.gc_lines_collected++;
    /* counts the erase; a worn-out line is retired instead of freed */
    ftl_wear_erased(ftl, victim);
    /* mapping=dftl: the moved pages' translation pages that were not
     * cached are updated on NAND now that the victim is free */
    if (ftl->dftl.ntp && ftl_dftl_gc_end(ftl, timed, now) < 0) {
        return -1;
    }
    return 0;
}

int ftl_gc_forced(struct ftl *ftl, uint64_t now)
{
    while (ftl_used_lines(ftl) >= ftl->thres_high_lines) {
        /* candidates all hold an invalid page: each collection frees
         * something (none left: nothing is reclaimable) */
        uint32_t v;

        if (ftl->wear.ro) {
            /* read-only media (wear.c): worn-out lines took the spare */
            return -1;
        }
        v = ftl_gc_pick_victim(ftl);
        if (v == FTL_NONE || ftl_gc_collect(ftl, v, now) < 0) {
            return -1;
        }
        ftl->ctr.forced_gc_lines++;
    }
    return 0;
}
