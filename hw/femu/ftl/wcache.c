/*
 * FEMU BlackBox FTL: the controller's DRAM write cache (write_cache_mb).
 *
 * A host write puts its NAND pages into the cache and completes once they
 * are there; the cache destages them to NAND through the FTL (mapping,
 * GC, counters) in the order they arrived.  The model, in emulated time:
 *
 *  - an entry per cached page, in a ring in arrival order; a re-write of a
 *    page whose entry is not destaged yet replaces it in place (a write
 *    hit: no NAND program for the older data);
 *  - the destager keeps one program per LUN in flight: page k of the
 *    destage order starts when it arrived and when page k - nluns (the
 *    one before it on the same LUN of the write pointer) is done, and
 *    takes the NAND model's program time from there (it queues behind
 *    host reads and GC on its LUN as any program does);
 *  - a page holds its slot until its program is done; slots free in
 *    arrival order.  A write that finds the cache full waits until the
 *    oldest page is on NAND, so with the cache full writes go at NAND
 *    speed;
 *  - reads of a page that is in the cache (destaged or not, until its
 *    slot is freed) are served from DRAM: no NAND time;
 *  - Flush (and turning the cache off) destages everything now and is
 *    done when the last program is; a FUA write is done when its own
 *    pages are on NAND;
 *  - a power cut loses the pages whose destage has not started; a program
 *    that has started finishes (hold-up energy), so the mapping never
 *    needs to go back: a page's mapping changes only when its destage
 *    starts.
 *
 * Nothing runs between calls: each call first destages what was due by
 * its arrival time (ftl_wcache_advance), so the answers depend only on
 * the calls and their times.  Counters: wc_* in struct ftl_counters;
 * host_pages_written counts the pages destaged (what reached the FTL), so
 * the WAF is the NAND's over what the cache passed on.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "ftl-int.h"

int ftl_wcache_init(struct ftl *ftl)
{
    struct ftl_wcache *wc = &ftl->wc;
    uint64_t cap = (uint64_t)ftl->cfg.write_cache_mb * 1024 * 1024 /
                   ftl->page_bytes;

    if (cap > ftl->lpages) {
        cap = ftl->lpages;
    }
    wc->cap = (uint32_t)cap;
    wc->on = cap > 0;
    if (!cap) {
        return 0;
    }
    wc->ent = calloc(cap, sizeof(*wc->ent));
    wc->slot_of = malloc((size_t)ftl->lpages * sizeof(*wc->slot_of));
    wc->lun_done = calloc(ftl->nluns, sizeof(*wc->lun_done));
    if (!wc->ent || !wc->slot_of || !wc->lun_done) {
        return -1;
    }
    for (uint32_t i = 0; i < ftl->lpages; i++) {
        wc->slot_of[i] = FTL_NONE;
    }
    return 0;
}

void ftl_wcache_free(struct ftl *ftl)
{
    free(ftl->wc.ent);
    free(ftl->wc.slot_of);
    free(ftl->wc.lun_done);
}

uint64_t ftl_wcache_meta_bytes(const struct ftl *ftl)
{
    if (!ftl->wc.cap) {
        return 0;
    }
    return (uint64_t)ftl->wc.cap * sizeof(struct ftl_wc_ent) +
           (uint64_t)ftl->lpages * sizeof(uint32_t) +
           (uint64_t)ftl->nluns * sizeof(uint64_t);
}

static uint32_t wc_pos(const struct ftl_wcache *wc, uint32_t i)
{
    uint64_t p = (uint64_t)wc->head + i;

    return (uint32_t)(p >= wc->cap ? p - wc->cap : p);
}

/* When the next entry to destage would start. */
static uint64_t wc_issue_time(const struct ftl *ftl,
                              const struct ftl_wc_ent *e)
{
    if (e->state == FTL_WC_DROPPED) {
        return e->arrival;
    }
    return ftl_max64(e->arrival, ftl->wc.lun_done[ftl->wc.lun_next]);
}

/* Destage the next entry at its start time; -1 when no line was free (it
 * stays pending). */
static int wc_issue_next(struct ftl *ftl)
{
    struct ftl_wcache *wc = &ftl->wc;
    struct ftl_wc_ent *e = &wc->ent[wc_pos(wc, wc->nissued)];
    uint64_t t = wc_issue_time(ftl, e), d;

    if (e->state == FTL_WC_DROPPED) {
        e->done = t;
        wc->nissued++;
        return 0;
    }
    d = ftl_write_pages(ftl, e->lpn, e->lpn,
                        (uint64_t)e->lpn * ftl->blocks_per_page,
                        ftl->blocks_per_page, e->pid, t);
    if (d == FTL_TIME_ERROR) {
        return -1;
    }
    e->done = d;
    e->state = FTL_WC_ISSUED;
    wc->lun_done[wc->lun_next] = d;
    wc->lun_next = wc->lun_next + 1 == ftl->nluns ? 0 : wc->lun_next + 1;
    wc->nissued++;
    ftl->ctr.wc_destaged++;
    return 0;
}

/* Free the oldest slot (its entry is issued). */
static void wc_pop(struct ftl *ftl)
{
    struct ftl_wcache *wc = &ftl->wc;
    struct ftl_wc_ent *e = &wc->ent[wc->head];

    if (wc->slot_of[e->lpn] == wc->head) {
        wc->slot_of[e->lpn] = FTL_NONE;
    }
    wc->head = wc->head + 1 == wc->cap ? 0 : wc->head + 1;
    wc->count--;
    wc->nissued--;
}

/* Free the oldest slots whose pages are on NAND by now. */
static void wc_retire(struct ftl *ftl, uint64_t now)
{
    struct ftl_wcache *wc = &ftl->wc;

    while (wc->nissued && wc->ent[wc->head].done <= now) {
        wc_pop(ftl);
    }
}

void ftl_wcache_advance(struct ftl *ftl, uint64_t now)
{
    struct ftl_wcache *wc = &ftl->wc;

    for (;;) {
        wc_retire(ftl, now);
        if (wc->nissued == wc->count ||
            wc_issue_time(ftl, &wc->ent[wc_pos(wc, wc->nissued)]) > now ||
            wc_issue_next(ftl) < 0) {
            break;
        }
    }
}

/* Destage every pending entry now (each at its start time). */
static int wc_issue_all(struct ftl *ftl)
{
    while (ftl->wc.nissued < ftl->wc.count) {
        if (wc_issue_next(ftl) < 0) {
            return -1;
        }
    }
    return 0;
}

uint64_t ftl_wcache_write(struct ftl *ftl, uint32_t first, uint32_t last,
                          uint32_t pid, uint64_t now)
{
    struct ftl_wcache *wc = &ftl->wc;
    uint64_t t = now;
    bool waited = false;

    for (uint32_t lpn = first; lpn <= last; lpn++) {
        uint32_t p = wc->slot_of[lpn];
        struct ftl_wc_ent *e;

        ftl->ctr.wc_host_pages++;
        if (p != FTL_NONE && wc->ent[p].state == FTL_WC_PENDING) {
            /* the older data never reaches NAND */
            wc->ent[p].pid = pid;
            ftl->ctr.wc_write_hits++;
            continue;
        }
        if (wc->count == wc->cap) {
            /* full: this page takes the oldest page's slot once that is
             * on NAND (other slots that free by then stay taken until a
             * later call's time: writes at the same time queue for them) */
            if (!wc->nissued && wc_issue_next(ftl) < 0) {
                return FTL_TIME_ERROR;
            }
            t = ftl_max64(t, wc->ent[wc->head].done);
            wc_pop(ftl);
            if (!waited) {
                ftl->ctr.wc_full_waits++;
                waited = true;
            }
        }
        p = wc_pos(wc, wc->count);
        e = &wc->ent[p];
        e->lpn = lpn;
        e->pid = pid;
        e->arrival = t;
        e->done = 0;
        e->state = FTL_WC_PENDING;
        wc->count++;
        wc->slot_of[lpn] = p;
    }
    return t;
}

bool ftl_wcache_holds(const struct ftl *ftl, uint32_t lpn)
{
    return ftl->wc.slot_of[lpn] != FTL_NONE;
}

void ftl_wcache_drop(struct ftl *ftl, uint32_t lpn)
{
    struct ftl_wcache *wc = &ftl->wc;
    uint32_t p = wc->slot_of[lpn];

    if (p == FTL_NONE) {
        return;
    }
    if (wc->ent[p].state == FTL_WC_PENDING) {
        wc->ent[p].state = FTL_WC_DROPPED;
    }
    wc->slot_of[lpn] = FTL_NONE;
}

/* Destage everything; the time the last program is done. */
static uint64_t wc_flush(struct ftl *ftl, uint64_t now)
{
    struct ftl_wcache *wc = &ftl->wc;
    uint64_t done = now;

    ftl_wcache_advance(ftl, now);
    if (wc_issue_all(ftl) < 0) {
        return FTL_TIME_ERROR;
    }
    for (uint32_t i = 0; i < wc->count; i++) {
        done = ftl_max64(done, wc->ent[wc_pos(wc, i)].done);
    }
    ftl->ctr.wc_flushes++;
    return done;
}

uint64_t ftl_flush(struct ftl *ftl, uint64_t now_ns)
{
    if (!ftl->wc.cap) {
        return now_ns;
    }
    return wc_flush(ftl, now_ns);
}

uint64_t ftl_write_fua(struct ftl *ftl, uint64_t slba, uint32_t nlb,
                       uint32_t pid, uint64_t now_ns)
{
    struct ftl_wcache *wc = &ftl->wc;
    uint64_t t = ftl_write(ftl, slba, nlb, pid, now_ns), done;
    uint32_t first, last;

    if (!wc->cap || !wc->on || t == FTL_TIME_ERROR || nlb == 0) {
        return t;
    }
    /* destage in arrival order up to and including this write's pages */
    if (wc_issue_all(ftl) < 0) {
        return FTL_TIME_ERROR;
    }
    ftl->ctr.wc_flushes++;
    first = (uint32_t)(slba / ftl->blocks_per_page);
    last = (uint32_t)((slba + nlb - 1) / ftl->blocks_per_page);
    done = t;
    for (uint32_t lpn = first; lpn <= last && lpn < ftl->lpages; lpn++) {
        uint32_t p = wc->slot_of[lpn];

        if (p != FTL_NONE) {
            done = ftl_max64(done, wc->ent[p].done);
        }
    }
    return done;
}

uint64_t ftl_wcache_set(struct ftl *ftl, bool on, uint64_t now_ns)
{
    uint64_t done = now_ns;

    if (!ftl->wc.cap) {
        return now_ns;
    }
    if (!on && ftl->wc.on) {
        done = wc_flush(ftl, now_ns);
        if (done == FTL_TIME_ERROR) {
            return done;    /* stays on: its data is still cached */
        }
    }
    ftl->wc.on = on;
    return done;
}

uint64_t ftl_wcache_pages(const struct ftl *ftl)
{
    return ftl->wc.cap;
}

bool ftl_wcache_on(const struct ftl *ftl)
{
    return ftl->wc.cap && ftl->wc.on;
}

uint64_t ftl_wcache_dirty(const struct ftl *ftl, uint64_t now_ns)
{
    const struct ftl_wcache *wc = &ftl->wc;
    uint64_t n = 0;

    for (uint32_t i = 0; i < wc->count; i++) {
        const struct ftl_wc_ent *e = &wc->ent[wc_pos(wc, i)];

        if (e->state == FTL_WC_PENDING ||
            (e->state == FTL_WC_ISSUED && e->done > now_ns)) {
            n++;
        }
    }
    return n;
}

bool ftl_wcache_pending(struct ftl *ftl, uint32_t lpn, uint64_t now_ns)
{
    uint32_t p;

    if (!ftl->wc.cap || lpn >= ftl->lpages) {
        return false;
    }
    ftl_wcache_advance(ftl, now_ns);
    p = ftl->wc.slot_of[lpn];
    return p != FTL_NONE && ftl->wc.ent[p].state == FTL_WC_PENDING;
}

uint64_t ftl_wcache_power_cut(struct ftl *ftl, uint64_t now_ns,
                              void (*lost)(void *opaque, uint32_t lpn),
                              void *opaque)
{
    struct ftl_wcache *wc = &ftl->wc;
    uint64_t n = 0;

    ftl->ctr.wc_power_cuts++;
    if (!wc->cap) {
        return 0;   /* nothing is cached: nothing acknowledged is lost */
    }
    ftl_wcache_advance(ftl, now_ns);
    for (uint32_t i = 0; i < wc->count; i++) {
        struct ftl_wc_ent *e = &wc->ent[wc_pos(wc, i)];

        if (e->state == FTL_WC_PENDING) {
            n++;
            if (lost) {
                lost(opaque, e->lpn);
            }
        }
        wc->slot_of[e->lpn] = FTL_NONE;
    }
    wc->head = wc->count = wc->nissued = 0;
    ftl->ctr.wc_lost_pages += n;
    return n;
}
