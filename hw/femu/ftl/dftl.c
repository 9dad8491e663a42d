/*
 * FEMU BlackBox FTL: demand-based page mapping (mapping=dftl; Gupta et al.,
 * "DFTL: a flash translation layer employing demand-based selective
 * caching of page-level address mappings", ASPLOS 2009).
 *
 * The mapping table lives on NAND in translation pages of page_bytes / 4
 * entries each; the controller caches mapping_cache_mb of them (the cached
 * mapping table, whole translation pages, LRU).  A host access whose
 * translation page is not cached reads it from NAND first (when it was
 * ever written) and evicts the least recently used one, which is
 * programmed to a new NAND page first if an update made it dirty.  GC
 * relocates translation pages like data pages, and a relocated data page
 * whose translation page is not cached updates that page on NAND (read +
 * program) once per collected line.  Translation pages take the write
 * pointer GC uses, count in the reserve rule and in the WAF.
 *
 * The flat table (maptbl) still holds every entry: it is what the
 * translation pages contain, so the simulation keeps exact contents while
 * this file charges what reading and writing them costs.  rmap of a
 * translation page holds lpages + its number.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "ftl-int.h"

uint32_t ftl_dftl_tpages(const struct ftl_config *c, uint64_t lpages)
{
    uint64_t epp = (uint64_t)c->secs_per_pg * 512 / 4;

    if (c->mapping != FTL_MAP_DFTL) {
        return 0;
    }
    return (uint32_t)((lpages + epp - 1) / epp);
}

int ftl_dftl_init(struct ftl *ftl)
{
    struct ftl_dftl *d = &ftl->dftl;
    uint64_t cap;

    d->ntp = ftl_dftl_tpages(&ftl->cfg, ftl->lpages);
    if (!d->ntp) {
        return 0;
    }
    d->epp = (uint32_t)(ftl->page_bytes / 4);
    cap = (uint64_t)ftl->cfg.mapping_cache_mb * 1024 * 1024 / ftl->page_bytes;
    d->cap = cap > d->ntp ? d->ntp : (uint32_t)(cap ? cap : 1);
    d->gtd = malloc((uint64_t)d->ntp * sizeof(*d->gtd));
    d->slot_of = malloc((uint64_t)d->ntp * sizeof(*d->slot_of));
    d->mark = calloc(d->ntp, sizeof(*d->mark));
    d->pend = malloc((uint64_t)ftl->ppl * sizeof(*d->pend));
    d->slot = malloc((uint64_t)d->cap * sizeof(*d->slot));
    if (!d->gtd || !d->slot_of || !d->mark || !d->pend || !d->slot) {
        ftl_dftl_free(ftl);
        return -1;
    }
    for (uint32_t t = 0; t < d->ntp; t++) {
        d->gtd[t] = FTL_NONE;
        d->slot_of[t] = FTL_NONE;
    }
    d->used = 0;
    d->head = d->tail = FTL_NONE;
    d->stamp = 0;
    return 0;
}

void ftl_dftl_free(struct ftl *ftl)
{
    struct ftl_dftl *d = &ftl->dftl;

    free(d->gtd);
    free(d->slot_of);
    free(d->mark);
    free(d->pend);
    free(d->slot);
    d->gtd = d->slot_of = d->mark = d->pend = NULL;
    d->slot = NULL;
    d->ntp = 0;
}

static void lru_unlink(struct ftl_dftl *d, uint32_t s)
{
    struct ftl_dftl_slot *e = &d->slot[s];

    if (e->prev != FTL_NONE) {
        d->slot[e->prev].next = e->next;
    } else {
        d->head = e->next;
    }
    if (e->next != FTL_NONE) {
        d->slot[e->next].prev = e->prev;
    } else {
        d->tail = e->prev;
    }
}

static void lru_push(struct ftl_dftl *d, uint32_t s)
{
    struct ftl_dftl_slot *e = &d->slot[s];

    e->prev = FTL_NONE;
    e->next = d->head;
    if (d->head != FTL_NONE) {
        d->slot[d->head].prev = s;
    } else {
        d->tail = s;
    }
    d->head = s;
}

/* The LUN and page-in-block of a NAND page. */
static uint32_t ppa_lun(const struct ftl *ftl, uint32_t ppa)
{
    return ftl_mod32(&ftl->div_nluns, ftl_mod32(&ftl->div_ppl, ppa));
}

static uint32_t ppa_pg(const struct ftl *ftl, uint32_t ppa)
{
    return ftl_seq_pg(ftl, ftl_mod32(&ftl->div_ppl, ppa));
}

/* Read translation page tp from NAND, if it was ever written. */
static uint64_t tp_read(struct ftl *ftl, uint32_t tp, bool timed,
                        uint64_t now)
{
    uint32_t ppa = ftl->dftl.gtd[tp];

    if (ppa == FTL_NONE) {
        return now;   /* never written: every entry unmapped */
    }
    ftl->ctr.trans_pages_read++;
    if (!timed) {
        return now;
    }
    return ftl_nand_read(&ftl->tm, ppa_lun(ftl, ppa), ppa_pg(ftl, ppa), now);
}

/* Program translation page tp to a new NAND page through GC's write
 * pointer; its old copy becomes invalid.  FTL_TIME_ERROR when no free
 * line was left. */
static uint64_t tp_write(struct ftl *ftl, uint32_t tp, bool timed,
                         uint64_t now)
{
    struct ftl_dftl *d = &ftl->dftl;
    uint32_t si = ftl_stream_for_gc(ftl, 0);
    uint64_t done = now;
    uint32_t ppa = ftl_stream_program(ftl, si, timed, now, &done);

    if (ppa == FTL_NONE) {
        return FTL_TIME_ERROR;
    }
    if (d->gtd[tp] != FTL_NONE) {
        ftl_page_set_invalid(ftl, d->gtd[tp]);
        ftl_line_invalidate(&ftl->ln, ftl_ppa_line(ftl, d->gtd[tp]));
    } else {
        d->on_nand++;
    }
    d->gtd[tp] = ppa;
    ftl->rmap[ppa] = ftl->lpages + tp;
    ftl_page_set_valid(ftl, ppa);
    ftl->ctr.trans_pages_programmed++;
    return timed ? done : now;
}

uint64_t ftl_dftl_access(struct ftl *ftl, uint32_t lpn, bool update,
                         bool timed, uint64_t now)
{
    struct ftl_dftl *d = &ftl->dftl;
    uint32_t tp = lpn / d->epp;
    uint32_t s = d->slot_of[tp];
    uint64_t t = now;

    if (s != FTL_NONE) {
        ftl->ctr.map_cache_hits++;
        if (d->head != s) {
            lru_unlink(d, s);
            lru_push(d, s);
        }
        d->slot[s].dirty |= update;
        return now;
    }
    ftl->ctr.map_cache_misses++;
    if (d->used < d->cap) {
        s = d->used++;
    } else {
        s = d->tail;
        if (d->slot[s].dirty) {
            /* the evicted page is written back before its slot is reused;
             * without a free line it stays cached and dirty */
            t = tp_write(ftl, d->slot[s].tp, timed, now);
            if (t == FTL_TIME_ERROR) {
                return t;
            }
        }
        lru_unlink(d, s);
        d->slot_of[d->slot[s].tp] = FTL_NONE;
    }
    /* the page is read into the slot once the write-back is done (as
     * FEMU's cached mapping table serializes them) */
    t = tp_read(ftl, tp, timed, t);
    d->slot[s].tp = tp;
    d->slot[s].dirty = update;
    d->slot_of[tp] = s;
    lru_push(d, s);
    return t;
}

void ftl_dftl_gc_moved(struct ftl *ftl, uint32_t lpn)
{
    struct ftl_dftl *d = &ftl->dftl;
    uint32_t tp = lpn / d->epp;
    uint32_t s = d->slot_of[tp];

    if (s != FTL_NONE) {
        d->slot[s].dirty = 1;   /* updated in DRAM, written on eviction */
        return;
    }
    if (d->mark[tp] != d->stamp) {
        d->mark[tp] = d->stamp;
        d->pend[d->npend++] = tp;
    }
}

void ftl_dftl_gc_begin(struct ftl *ftl)
{
    struct ftl_dftl *d = &ftl->dftl;

    d->npend = 0;
    if (++d->stamp == 0) {
        for (uint32_t t = 0; t < d->ntp; t++) {
            d->mark[t] = 0;
        }
        d->stamp = 1;
    }
}

int ftl_dftl_gc_end(struct ftl *ftl, bool timed, uint64_t now)
{
    struct ftl_dftl *d = &ftl->dftl;

    /* one read-modify-write per translation page the line's valid data
     * pages belonged to (batched, as DFTL's GC does) */
    for (uint32_t i = 0; i < d->npend; i++) {
        uint64_t t = tp_read(ftl, d->pend[i], timed, now);

        if (tp_write(ftl, d->pend[i], timed, t) == FTL_TIME_ERROR) {
            return -1;
        }
    }
    d->npend = 0;
    return 0;
}

void ftl_dftl_gc_relocated(struct ftl *ftl, uint32_t tp, uint32_t ppa)
{
    ftl->dftl.gtd[tp] = ppa;
}

int ftl_dftl_check(const struct ftl *ftl, uint32_t ppa, uint32_t tp)
{
    const struct ftl_dftl *d = &ftl->dftl;

    return tp < d->ntp && d->gtd[tp] == ppa ? 0 : -1;
}

uint64_t ftl_dftl_meta_bytes(const struct ftl *ftl)
{
    const struct ftl_dftl *d = &ftl->dftl;

    if (!d->ntp) {
        return 0;
    }
    return (uint64_t)d->ntp * 3 * sizeof(uint32_t) +
           (uint64_t)ftl->ppl * sizeof(uint32_t) +
           (uint64_t)d->cap * sizeof(struct ftl_dftl_slot);
}
