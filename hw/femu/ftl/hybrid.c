/*
 * FEMU BlackBox FTL: log-block mapping (mapping=hybrid and mapping=fast).
 *
 * The NAND is seen as physical blocks of pgs_per_blk pages (block pb lies
 * on global LUN pb % nluns, so consecutive blocks spread over the LUNs);
 * the logical pages as logical blocks (lbn = lpn / pgs_per_blk, offset
 * off = lpn % pgs_per_blk).  Each logical block has one data block in
 * which page off holds offset off.  NAND pages of a block are programmed
 * in order: a write of off lands in place when off is at or above the
 * data block's write pointer (the pages skipped stay erased) and no log
 * block written in order goes on with off, otherwise in a log block.
 *
 *   hybrid (BAST, Kim et al., "A space-efficient flash translation layer
 *   for CompactFlash systems", 2002): log_blocks log blocks, each
 *   associated with one data block and written in arrival order.  A full
 *   log block is merged at once; a write that needs a log block when all
 *   are taken merges the oldest one first.
 *
 *   fast (FAST, Lee et al., "A log buffer-based flash translation layer
 *   using fully-associative sector translation", TECS 2007): one
 *   sequential log block (SW) takes a run that starts at offset 0 of a
 *   data block and goes on in order; every other overwrite is appended to
 *   a random-write log of log_blocks blocks shared by all data blocks.
 *   When the random log is full its oldest block is reclaimed: a full
 *   merge of each data block that still has a valid page in it, then the
 *   block is erased.
 *
 * Merges, counted by kind:
 *   switch:  the log block holds every offset in order (all of them: the
 *            namespace's last logical block may have fewer) and the data block
 *            nothing valid: the log block becomes the data block; the old
 *            data block is erased (1 erase, 0 copies);
 *   partial: the log block holds offsets 0..k-1 in order: the valid pages
 *            of offsets k.. are copied into it at their offsets, the old
 *            data block is erased (1 erase, its valid pages copied);
 *   full:    a new block takes every valid page of the logical block from
 *            wherever it is; the old data block and the log block (BAST,
 *            or FAST's SW when it serves this block) are erased.
 * Copies count as GC pages moved (WAF), erases as blocks erased; with
 * gc_delay on (the default of the device) each copy is a read and a
 * program and each erase an erase on the LUNs, before the write that
 * caused the merge.
 *
 * The flat tables of mapping.c hold where each logical page is
 * (maptbl), the reverse map and the valid bits, so reads, NUSE and the
 * invariants work as with page mapping; the lines are not used.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "ftl-int.h"

bool ftl_hyb_on(const struct ftl_config *c)
{
    return c->mapping == FTL_MAP_HYBRID || c->mapping == FTL_MAP_FAST;
}

uint64_t ftl_hyb_blocks(const struct ftl_config *c)
{
    return (uint64_t)c->nchs * c->luns_per_ch * c->pls_per_lun *
           c->blks_per_pl;
}

uint64_t ftl_hyb_spare_needed(const struct ftl_config *c)
{
    /* BAST: its log blocks + the new block of a full merge; FAST: the
     * random log, the SW block and the new block of a full merge */
    return (uint64_t)c->log_blocks + (c->mapping == FTL_MAP_FAST ? 2 : 1);
}

int ftl_hyb_init(struct ftl *ftl)
{
    struct ftl_hyb *h = &ftl->hyb;
    uint32_t nlog;

    if (!ftl_hyb_on(&ftl->cfg)) {
        return 0;
    }
    h->on = true;
    h->fast = ftl->cfg.mapping == FTL_MAP_FAST;
    h->ppb = ftl->cfg.pgs_per_blk;
    h->nblk = (uint32_t)ftl_hyb_blocks(&ftl->cfg);
    h->nlbn = (ftl->lpages + h->ppb - 1) / h->ppb;
    h->nlog = nlog = ftl->cfg.log_blocks;
    h->data = malloc((uint64_t)h->nlbn * sizeof(*h->data));
    h->log_of = malloc((uint64_t)h->nlbn * sizeof(*h->log_of));
    h->wp = calloc(h->nblk, sizeof(*h->wp));
    h->vpc = calloc(h->nblk, sizeof(*h->vpc));
    h->freeq = malloc((uint64_t)h->nblk * sizeof(*h->freeq));
    h->log = calloc(nlog, sizeof(*h->log));
    h->rw = malloc((uint64_t)nlog * sizeof(*h->rw));
    if (!h->data || !h->log_of || !h->wp || !h->vpc ||
        !h->freeq || !h->log || !h->rw) {
        ftl_hyb_free(ftl);
        return -1;
    }
    for (uint32_t i = 0; i < h->nlbn; i++) {
        h->data[i] = FTL_NONE;
        h->log_of[i] = FTL_NONE;
    }
    for (uint32_t i = 0; i < h->nblk; i++) {
        h->freeq[i] = i;
    }
    h->free_head = 0;
    h->nfree = h->nblk;
    for (uint32_t i = 0; i < nlog; i++) {
        h->log[i].pb = FTL_NONE;
        h->log[i].lbn = FTL_NONE;
        h->log[i].next = i + 1 < nlog ? i + 1 : FTL_NONE;
    }
    h->free_slot = 0;
    h->old = h->young = FTL_NONE;
    h->rw_head = h->rw_n = 0;
    h->sw_pb = h->sw_lbn = FTL_NONE;
    return 0;
}

void ftl_hyb_free(struct ftl *ftl)
{
    struct ftl_hyb *h = &ftl->hyb;

    free(h->data);
    free(h->log_of);
    free(h->wp);
    free(h->vpc);
    free(h->freeq);
    free(h->log);
    free(h->rw);
    memset(h, 0, sizeof(*h));
}

uint64_t ftl_hyb_meta_bytes(const struct ftl *ftl)
{
    const struct ftl_hyb *h = &ftl->hyb;

    if (!h->on) {
        return 0;
    }
    return (uint64_t)h->nlbn * 2 * sizeof(uint32_t) +
           (uint64_t)h->nblk * 3 * sizeof(uint32_t) +
           (uint64_t)h->nlog * (sizeof(struct ftl_hyb_log) + sizeof(uint32_t));
}

uint32_t ftl_hyb_lun(const struct ftl *ftl, uint32_t ppa)
{
    return (ppa / ftl->hyb.ppb) % ftl->nluns;
}

uint32_t ftl_hyb_pg(const struct ftl *ftl, uint32_t ppa)
{
    return ftl->tm.typed ? ppa % ftl->hyb.ppb : 0;
}

/* Logical pages of lbn: pgs_per_blk, fewer in the namespace's last
 * logical block when it ends inside one. */
static uint32_t lbn_pages(const struct ftl *ftl, uint32_t lbn)
{
    uint64_t left = ftl->lpages - (uint64_t)lbn * ftl->hyb.ppb;

    return left < ftl->hyb.ppb ? (uint32_t)left : ftl->hyb.ppb;
}

/* ---- blocks ---- */

static uint32_t blk_take(struct ftl *ftl)
{
    struct ftl_hyb *h = &ftl->hyb;
    uint32_t pb;

    if (h->nfree == 0) {
        return FTL_NONE;
    }
    pb = h->freeq[h->free_head];
    h->free_head = (h->free_head + 1) % h->nblk;
    h->nfree--;
    return pb;
}

/* Erase pb (no valid page left) and put it at the back of the free
 * queue.  Returns when the erase is done. */
static uint64_t blk_erase(struct ftl *ftl, uint32_t pb, bool timed,
                          uint64_t now)
{
    struct ftl_hyb *h = &ftl->hyb;
    uint64_t t = now;

    if (timed && ftl->tm.enabled) {
        t = ftl_nand_erase(&ftl->tm, pb % ftl->nluns, now);
    }
    h->wp[pb] = 0;
    h->freeq[(h->free_head + h->nfree) % h->nblk] = pb;
    h->nfree++;
    ftl->ctr.blocks_erased++;
    ftl->ctr.fdp_mbe += (uint64_t)h->ppb * ftl->page_bytes;
    return t;
}

static void page_invalidate(struct ftl *ftl, uint32_t ppa)
{
    ftl_page_set_invalid(ftl, ppa);
    ftl->hyb.vpc[ppa / ftl->hyb.ppb]--;
}

/* Program lpn's data into page pg of block pb (pg at or above its write
 * pointer); its old copy becomes invalid.  Returns the program's end. */
static uint64_t page_prog(struct ftl *ftl, uint32_t lpn, uint32_t pb,
                          uint32_t pg, bool timed, uint64_t start)
{
    struct ftl_hyb *h = &ftl->hyb;
    uint32_t ppa = pb * h->ppb + pg;
    uint32_t old = ftl_map_get(ftl, lpn);
    uint64_t t = start;

    if (old != FTL_NONE) {
        page_invalidate(ftl, old);
    }
    if (timed) {
        t = ftl_nand_prog(&ftl->tm, pb % ftl->nluns,
                          ftl->tm.typed ? pg : 0, start);
    }
    h->wp[pb] = pg + 1;
    h->vpc[pb]++;
    ftl_map_put(ftl, lpn, ppa);
    ftl->rmap[ppa] = lpn;
    ftl_page_set_valid(ftl, ppa);
    return t;
}

/* A merge's copy of lpn's current page to page pg of pb. */
static uint64_t page_copy(struct ftl *ftl, uint32_t lpn, uint32_t pb,
                          uint32_t pg, bool timed, uint64_t now)
{
    uint32_t src = ftl_map_get(ftl, lpn);
    uint64_t t = now;

    if (timed) {
        t = ftl_nand_read(&ftl->tm, ftl_hyb_lun(ftl, src),
                          ftl_hyb_pg(ftl, src), now);
    }
    ftl->ctr.gc_pages_moved++;
    ftl_nsctr(ftl, lpn, true, 1);
    ftl->ctr.fdp_mbmw += ftl->page_bytes;
    return page_prog(ftl, lpn, pb, pg, timed, t);
}

/* Copy every valid page of lbn at offsets from..ppb-1 that is not in dst
 * already to dst at its offset.  Returns when the last copy is done. */
static uint64_t copy_rest(struct ftl *ftl, uint32_t lbn, uint32_t dst,
                          uint32_t from, bool timed, uint64_t now)
{
    struct ftl_hyb *h = &ftl->hyb;
    uint64_t done = now;

    for (uint32_t off = from; off < h->ppb; off++) {
        uint64_t lpn = (uint64_t)lbn * h->ppb + off;
        uint32_t ppa;

        if (lpn >= ftl->lpages) {
            break;
        }
        ppa = ftl_map_get(ftl, (uint32_t)lpn);
        if (ppa == FTL_NONE || ppa / h->ppb == dst) {
            continue;
        }
        done = ftl_max64(done, page_copy(ftl, (uint32_t)lpn, dst, off,
                                         timed, now));
    }
    return done;
}

/* ---- merges ---- */

/*
 * Merge log block lb (written in order from offset 0 when seq) into lbn's
 * data block: switch, partial or full.  lb becomes free or lbn's data
 * block.  Returns when the merge is done, FTL_TIME_ERROR when a full
 * merge found no free block (the spare rule keeps one).
 */
static uint64_t merge_log(struct ftl *ftl, uint32_t lbn, uint32_t lb,
                          bool seq, uint64_t now)
{
    struct ftl_hyb *h = &ftl->hyb;
    bool timed = ftl->tm.gc_delay;
    uint32_t d = h->data[lbn];
    bool whole = h->wp[lb] >= lbn_pages(ftl, lbn);
    uint64_t done = now, copied;

    if (seq && whole && (d == FTL_NONE || h->vpc[d] == 0)) {
        ftl->ctr.merges_switch++;
    } else if (seq && !whole) {
        ftl->ctr.merges_partial++;
        done = copy_rest(ftl, lbn, lb, h->wp[lb], timed, now);
    } else {
        uint32_t nb = blk_take(ftl);

        if (nb == FTL_NONE) {
            return FTL_TIME_ERROR;
        }
        ftl->ctr.merges_full++;
        copied = copy_rest(ftl, lbn, nb, 0, timed, now);
        done = ftl_max64(copied, blk_erase(ftl, lb, timed, copied));
        lb = nb;
        if (d != FTL_NONE) {
            done = ftl_max64(done, blk_erase(ftl, d, timed, copied));
        }
        h->data[lbn] = lb;
        return done;
    }
    if (d != FTL_NONE) {
        done = ftl_max64(done, blk_erase(ftl, d, timed, done));
    }
    h->data[lbn] = lb;
    return done;
}

/* FAST: full merge of lbn (its pages may be in the data block, the SW
 * block and any random-log blocks). */
static uint64_t fast_full_merge(struct ftl *ftl, uint32_t lbn, uint64_t now)
{
    struct ftl_hyb *h = &ftl->hyb;
    bool timed = ftl->tm.gc_delay;
    uint32_t d = h->data[lbn], nb = blk_take(ftl);
    uint64_t done, copied;

    if (nb == FTL_NONE) {
        return FTL_TIME_ERROR;
    }
    ftl->ctr.merges_full++;
    copied = done = copy_rest(ftl, lbn, nb, 0, timed, now);
    if (d != FTL_NONE) {
        done = ftl_max64(done, blk_erase(ftl, d, timed, copied));
    }
    if (h->sw_lbn == lbn) {
        done = ftl_max64(done, blk_erase(ftl, h->sw_pb, timed, copied));
        h->sw_pb = h->sw_lbn = FTL_NONE;
    }
    h->data[lbn] = nb;
    return done;
}

/* FAST: merge the SW block into its data block. */
static uint64_t fast_sw_merge(struct ftl *ftl, uint64_t now)
{
    struct ftl_hyb *h = &ftl->hyb;
    uint32_t lbn = h->sw_lbn, sw = h->sw_pb;
    uint64_t t;

    /* its pages are offsets 0..wp-1 in order, but a later overwrite in
     * the random log may hold the current copy of some: the SW block can
     * become the data block only when it holds all of them */
    if (h->vpc[sw] != h->wp[sw]) {
        return fast_full_merge(ftl, lbn, now);
    }
    h->sw_pb = h->sw_lbn = FTL_NONE;
    t = merge_log(ftl, lbn, sw, true, now);
    return t;
}

/* FAST: reclaim the oldest random-log block. */
static uint64_t fast_rw_reclaim(struct ftl *ftl, uint64_t now)
{
    struct ftl_hyb *h = &ftl->hyb;
    uint32_t v = h->rw[h->rw_head];
    uint64_t done = now;

    for (uint32_t pg = 0; pg < h->wp[v] && h->vpc[v] > 0; pg++) {
        uint32_t ppa = v * h->ppb + pg;
        uint64_t t;

        if (!ftl_page_valid(ftl, ppa)) {
            continue;
        }
        t = fast_full_merge(ftl, ftl->rmap[ppa] / h->ppb, now);
        if (t == FTL_TIME_ERROR) {
            return t;
        }
        done = ftl_max64(done, t);
    }
    done = ftl_max64(done, blk_erase(ftl, v, ftl->tm.gc_delay, done));
    h->rw_head = (h->rw_head + 1) % h->nlog;
    h->rw_n--;
    return done;
}

/* BAST: slot s's log block is gone (merged): the slot is free again. */
static void bast_log_release(struct ftl_hyb *h, uint32_t s)
{
    struct ftl_hyb_log *l = &h->log[s];

    if (l->prev != FTL_NONE) {
        h->log[l->prev].next = l->next;
    } else {
        h->old = l->next;
    }
    if (l->next != FTL_NONE) {
        h->log[l->next].prev = l->prev;
    } else {
        h->young = l->prev;
    }
    h->log_of[l->lbn] = FTL_NONE;
    l->lbn = l->pb = FTL_NONE;
    l->next = h->free_slot;
    h->free_slot = s;
}

/* BAST: a log block for lbn, merging the oldest one when all are taken. */
static uint32_t bast_log_for(struct ftl *ftl, uint32_t lbn, uint64_t *now)
{
    struct ftl_hyb *h = &ftl->hyb;
    uint32_t s, pb;

    if (h->free_slot == FTL_NONE) {
        struct ftl_hyb_log *l = &h->log[h->old];
        uint64_t t = merge_log(ftl, l->lbn, l->pb, l->seq, *now);

        if (t == FTL_TIME_ERROR) {
            return FTL_NONE;
        }
        bast_log_release(h, h->old);
        *now = t;
    }
    pb = blk_take(ftl);
    if (pb == FTL_NONE) {
        return FTL_NONE;
    }
    s = h->free_slot;
    h->free_slot = h->log[s].next;
    h->log[s].pb = pb;
    h->log[s].lbn = lbn;
    h->log[s].seq = 1;
    h->log[s].prev = h->young;
    h->log[s].next = FTL_NONE;
    if (h->young != FTL_NONE) {
        h->log[h->young].next = s;
    } else {
        h->old = s;
    }
    h->young = s;
    h->log_of[lbn] = s;
    return s;
}

/* ---- host I/O ---- */

static uint64_t bast_write(struct ftl *ftl, uint32_t lpn, uint32_t lbn,
                           uint32_t off, uint64_t now)
{
    struct ftl_hyb *h = &ftl->hyb;
    uint32_t s = h->log_of[lbn];
    struct ftl_hyb_log *l;
    uint64_t start = now, done;
    uint32_t pg;

    if (s == FTL_NONE) {
        s = bast_log_for(ftl, lbn, &start);
        if (s == FTL_NONE) {
            return FTL_TIME_ERROR;
        }
    }
    l = &h->log[s];
    pg = h->wp[l->pb];
    l->seq &= pg == off;
    done = page_prog(ftl, lpn, l->pb, pg, true, start);
    if (pg + 1 == h->ppb || (l->seq && pg + 1 == lbn_pages(ftl, lbn))) {
        /* full, or every offset of the block in order: merged at once */
        uint64_t t = merge_log(ftl, lbn, l->pb, l->seq, done);

        if (t == FTL_TIME_ERROR) {
            return t;
        }
        bast_log_release(h, s);
        done = t;
    }
    return done;
}

static uint64_t fast_write(struct ftl *ftl, uint32_t lpn, uint32_t lbn,
                           uint32_t off, uint64_t now)
{
    struct ftl_hyb *h = &ftl->hyb;
    uint64_t start = now, done;
    uint32_t pb;

    if (off == 0) {
        /* a new sequential run: the SW block takes it */
        if (h->sw_pb != FTL_NONE) {
            start = fast_sw_merge(ftl, now);
            if (start == FTL_TIME_ERROR) {
                return start;
            }
        }
        h->sw_pb = blk_take(ftl);
        if (h->sw_pb == FTL_NONE) {
            return FTL_TIME_ERROR;
        }
        h->sw_lbn = lbn;
        done = page_prog(ftl, lpn, h->sw_pb, 0, true, start);
        if (lbn_pages(ftl, lbn) == 1) {
            done = fast_sw_merge(ftl, done);
        }
        return done;
    }
    if (h->sw_lbn == lbn && h->wp[h->sw_pb] == off) {
        done = page_prog(ftl, lpn, h->sw_pb, off, true, now);
        if (off + 1 == lbn_pages(ftl, lbn)) {
            done = fast_sw_merge(ftl, done);
        }
        return done;
    }
    /* the random log: the newest block, or a fresh one */
    pb = h->rw_n ? h->rw[(h->rw_head + h->rw_n - 1) % h->nlog] : FTL_NONE;
    if (pb == FTL_NONE || h->wp[pb] == h->ppb) {
        if (h->rw_n == h->nlog) {
            start = fast_rw_reclaim(ftl, now);
            if (start == FTL_TIME_ERROR) {
                return start;
            }
        }
        pb = blk_take(ftl);
        if (pb == FTL_NONE) {
            return FTL_TIME_ERROR;
        }
        h->rw[(h->rw_head + h->rw_n) % h->nlog] = pb;
        h->rw_n++;
    }
    return page_prog(ftl, lpn, pb, h->wp[pb], true, start);
}

/* Whether lbn has a log block written in order whose next page is off. */
static bool seq_log_next(const struct ftl_hyb *h, uint32_t lbn, uint32_t off)
{
    if (h->fast) {
        return h->sw_lbn == lbn && h->wp[h->sw_pb] == off;
    }
    return h->log_of[lbn] != FTL_NONE && h->log[h->log_of[lbn]].seq &&
           h->wp[h->log[h->log_of[lbn]].pb] == off;
}

uint64_t ftl_hyb_write(struct ftl *ftl, uint32_t lpn, uint64_t now)
{
    struct ftl_hyb *h = &ftl->hyb;
    uint32_t lbn = lpn / h->ppb, off = lpn % h->ppb;
    uint32_t d = h->data[lbn];
    uint64_t done;

    if (d == FTL_NONE) {
        d = blk_take(ftl);
        if (d == FTL_NONE) {
            return FTL_TIME_ERROR;
        }
        h->data[lbn] = d;
    }
    if (off >= h->wp[d] && !seq_log_next(h, lbn, off)) {
        /* in place: the page is still erased and the block's program
         * order holds (unless a log block written in order goes on with
         * this offset: it stays whole for a switch merge) */
        done = page_prog(ftl, lpn, d, off, true, now);
    } else if (h->fast) {
        done = fast_write(ftl, lpn, lbn, off, now);
    } else {
        done = bast_write(ftl, lpn, lbn, off, now);
    }
    if (done == FTL_TIME_ERROR) {
        return done;
    }
    ftl->ctr.host_pages_written++;
    ftl_nsctr(ftl, lpn, false, 1);
    ftl->ctr.host_pages_programmed++;
    ftl->ctr.fdp_mbmw += ftl->page_bytes;
    return done;
}

void ftl_hyb_unmap(struct ftl *ftl, uint32_t lpn)
{
    uint32_t old = ftl_map_get(ftl, lpn);

    if (old != FTL_NONE) {
        page_invalidate(ftl, old);
        ftl_map_put(ftl, lpn, FTL_NONE);
    }
}

uint64_t ftl_hyb_mapped(const struct ftl *ftl)
{
    const struct ftl_hyb *h = &ftl->hyb;
    uint64_t n = 0;

    for (uint32_t pb = 0; pb < h->nblk; pb++) {
        n += h->vpc[pb];
    }
    return n;
}

#define BAD(...)                            \
    do {                                    \
        snprintf(err, errlen, __VA_ARGS__); \
        return -1;                          \
    } while (0)

int ftl_hyb_check(const struct ftl *ftl, char *err, size_t errlen)
{
    const struct ftl_hyb *h = &ftl->hyb;
    uint64_t mapped = 0, valid = 0;
    uint32_t nlogs = 0;

    for (uint32_t lpn = 0; lpn < ftl->lpages; lpn++) {
        uint32_t ppa = ftl_map_get(ftl, lpn), pb, lbn = lpn / h->ppb;

        if (ppa == FTL_NONE) {
            continue;
        }
        mapped++;
        pb = ppa / h->ppb;
        if (ppa >= ftl->nand_pages || !ftl_page_valid(ftl, ppa) ||
            ftl->rmap[ppa] != lpn) {
            BAD("lpn %u -> ppa %u: not valid or rmap %u", lpn, ppa,
                ftl->rmap[ppa]);
        }
        if (ppa % h->ppb >= h->wp[pb]) {
            BAD("lpn %u at page %u of block %u, above its write pointer %u",
                lpn, ppa % h->ppb, pb, h->wp[pb]);
        }
        /* in its data block it sits at its offset */
        if (pb == h->data[lbn] && ppa % h->ppb != lpn % h->ppb) {
            BAD("lpn %u at page %u of its data block %u", lpn, ppa % h->ppb,
                pb);
        }
        if (!h->fast && pb != h->data[lbn] &&
            (h->log_of[lbn] == FTL_NONE || h->log[h->log_of[lbn]].pb != pb)) {
            BAD("lpn %u in block %u: neither its data nor its log block",
                lpn, pb);
        }
    }
    for (uint32_t pb = 0; pb < h->nblk; pb++) {
        uint32_t v = 0;

        for (uint32_t pg = 0; pg < h->ppb; pg++) {
            v += ftl_page_valid(ftl, pb * h->ppb + pg);
        }
        if (v != h->vpc[pb]) {
            BAD("block %u: valid count %u but %u pages valid", pb, h->vpc[pb],
                v);
        }
        valid += v;
    }
    if (valid != mapped) {
        BAD("%llu valid pages but %llu mapped logical pages",
            (unsigned long long)valid, (unsigned long long)mapped);
    }
    for (uint32_t i = 0; i < h->nlog && !h->fast; i++) {
        if (h->log[i].lbn != FTL_NONE) {
            nlogs++;
            if (h->log_of[h->log[i].lbn] != i) {
                BAD("log block %u of lbn %u is not its log", i,
                    h->log[i].lbn);
            }
        }
    }
    if (!h->fast) {
        /* the slots in use in allocation order, the others stacked */
        uint32_t n = 0, nf = 0;

        for (uint32_t i = h->old; i != FTL_NONE; i = h->log[i].next) {
            if (h->log[i].lbn == FTL_NONE || ++n > h->nlog) {
                BAD("log slot list: slot %u unused or a loop", i);
            }
        }
        for (uint32_t i = h->free_slot; i != FTL_NONE; i = h->log[i].next) {
            if (h->log[i].lbn != FTL_NONE || ++nf > h->nlog) {
                BAD("free slot stack: slot %u in use or a loop", i);
            }
        }
        if (n != nlogs || n + nf != h->nlog) {
            BAD("%u log slots in use, %u listed, %u free of %u", nlogs, n,
                nf, h->nlog);
        }
    }
    for (uint32_t i = 0; i < h->nfree; i++) {
        uint32_t pb = h->freeq[(h->free_head + i) % h->nblk];

        if (h->wp[pb] != 0 || h->vpc[pb] != 0) {
            BAD("free block %u is not erased", pb);
        }
    }
    {
        /* every block is free, a data block, a log block or SW */
        uint64_t used = 0;

        for (uint32_t lbn = 0; lbn < h->nlbn; lbn++) {
            used += h->data[lbn] != FTL_NONE;
        }
        used += h->fast ? h->rw_n + (h->sw_pb != FTL_NONE) : nlogs;
        if (used + h->nfree != h->nblk) {
            BAD("%llu blocks in use and %u free of %u",
                (unsigned long long)used, h->nfree, h->nblk);
        }
    }
    return 0;
}
