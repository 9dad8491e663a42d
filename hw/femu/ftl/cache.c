/*
 * FEMU BlackBox FTL: the controller's DRAM read cache (read_cache_mb).
 *
 * The cache holds whole logical pages that the host read: a read of a
 * cached page is served from DRAM (it takes no LUN or channel time) and a
 * read of a mapped page that is not cached goes to NAND and then enters
 * the cache, evicting a page when it is full.  A write or a deallocation
 * of a page drops it (the cached copy would be stale).  Only timing and
 * counters are modelled: the data itself lives in the device's store.
 *
 * Eviction (cache_evict), FEMU's four choices:
 *  - clock: second chance; a page is inserted and hit with its reference
 *    bit set, the hand clears bits until it finds a clear one;
 *  - random: a uniform slot from a seeded generator;
 *  - lru: least recently read;
 *  - arc: FEMU's scan-resistant variant of the name (two lists, as 2Q):
 *    a page enters on probation and moves to the protected list on its
 *    first hit; the least recent probationary page goes first, the least
 *    recent protected one only when no page is on probation.
 * Each is O(1) per access: slots sit on intrusive index lists and the
 * page -> slot index is a table over the logical pages.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "ftl-int.h"

/* Lists: 0 probation (and the only list of lru), 1 protected (arc). */
static void list_unlink(struct ftl_cache *rc, uint32_t s)
{
    struct ftl_cache_slot *e = &rc->slot[s];
    uint32_t *head = &rc->head[e->list], *tail = &rc->tail[e->list];

    if (e->prev != FTL_NONE) {
        rc->slot[e->prev].next = e->next;
    } else {
        *head = e->next;
    }
    if (e->next != FTL_NONE) {
        rc->slot[e->next].prev = e->prev;
    } else {
        *tail = e->prev;
    }
    rc->len[e->list]--;
}

/* Most recent at the head. */
static void list_push(struct ftl_cache *rc, uint32_t s, uint8_t list)
{
    struct ftl_cache_slot *e = &rc->slot[s];

    e->list = list;
    e->prev = FTL_NONE;
    e->next = rc->head[list];
    if (e->next != FTL_NONE) {
        rc->slot[e->next].prev = s;
    } else {
        rc->tail[list] = s;
    }
    rc->head[list] = s;
    rc->len[list]++;
}

static bool listed(const struct ftl_cache *rc)
{
    return rc->policy == FTL_EVICT_LRU || rc->policy == FTL_EVICT_ARC;
}

int ftl_cache_init(struct ftl *ftl)
{
    struct ftl_cache *rc = &ftl->rc;
    uint64_t cap = (uint64_t)ftl->cfg.read_cache_mb * 1024 * 1024 /
                   ftl->page_bytes;

    rc->cap = 0;
    rc->policy = ftl->cfg.cache_evict;
    if (cap == 0) {
        return 0;
    }
    /* the validator keeps the cache within the namespace */
    if (cap > ftl->lpages) {
        cap = ftl->lpages;
    }
    rc->cap = (uint32_t)cap;
    rc->slot = malloc(cap * sizeof(*rc->slot));
    rc->slot_of = malloc((uint64_t)ftl->lpages * sizeof(*rc->slot_of));
    if (!rc->slot || !rc->slot_of) {
        ftl_cache_free(ftl);
        return -1;
    }
    for (uint32_t l = 0; l < ftl->lpages; l++) {
        rc->slot_of[l] = FTL_NONE;
    }
    ftl_cache_clear(ftl);
    return 0;
}

void ftl_cache_clear(struct ftl *ftl)
{
    struct ftl_cache *rc = &ftl->rc;

    if (!rc->cap) {
        return;
    }
    for (uint32_t s = 0; s < rc->cap; s++) {
        if (rc->slot[s].lpn != FTL_NONE && rc->used > s) {
            rc->slot_of[rc->slot[s].lpn] = FTL_NONE;
        }
        rc->slot[s].lpn = FTL_NONE;
    }
    rc->used = 0;
    rc->nfree = 0;
    rc->free_head = FTL_NONE;
    rc->hand = 0;
    rc->head[0] = rc->head[1] = rc->tail[0] = rc->tail[1] = FTL_NONE;
    rc->len[0] = rc->len[1] = 0;
    rc->rng = ftl->cfg.seed * UINT64_C(0xD1B54A32D192ED03) + 1;
    if (rc->rng == 0) {
        rc->rng = 1;
    }
}

void ftl_cache_free(struct ftl *ftl)
{
    free(ftl->rc.slot);
    free(ftl->rc.slot_of);
    ftl->rc.slot = NULL;
    ftl->rc.slot_of = NULL;
    ftl->rc.cap = 0;
}

/* The slot to reuse for a new page: a dropped one, an unused one, or the
 * policy's victim (removed from the index and lists). */
static uint32_t take_slot(struct ftl *ftl)
{
    struct ftl_cache *rc = &ftl->rc;
    uint32_t s;

    if (rc->free_head != FTL_NONE) {
        s = rc->free_head;
        rc->free_head = rc->slot[s].next;
        rc->nfree--;
        return s;
    }
    if (rc->used < rc->cap) {
        return rc->used++;
    }
    switch (rc->policy) {
    case FTL_EVICT_RANDOM:
        s = (uint32_t)(((ftl_rng_next(&rc->rng) >> 32) * rc->cap) >> 32);
        break;
    case FTL_EVICT_LRU:
        s = rc->tail[0];
        list_unlink(rc, s);
        break;
    case FTL_EVICT_ARC:
        s = rc->tail[0] != FTL_NONE ? rc->tail[0] : rc->tail[1];
        list_unlink(rc, s);
        break;
    case FTL_EVICT_CLOCK:
    default:
        for (;;) {
            s = rc->hand;
            rc->hand = rc->hand + 1 == rc->cap ? 0 : rc->hand + 1;
            if (!rc->slot[s].ref) {
                break;
            }
            rc->slot[s].ref = 0;
        }
        break;
    }
    rc->slot_of[rc->slot[s].lpn] = FTL_NONE;
    return s;
}

bool ftl_cache_read(struct ftl *ftl, uint32_t lpn)
{
    struct ftl_cache *rc = &ftl->rc;
    uint32_t s = rc->slot_of[lpn];

    if (s != FTL_NONE) {
        rc->slot[s].ref = 1;
        if (rc->policy == FTL_EVICT_LRU) {
            list_unlink(rc, s);
            list_push(rc, s, 0);
        } else if (rc->policy == FTL_EVICT_ARC) {
            list_unlink(rc, s);
            list_push(rc, s, 1);
        }
        ftl->ctr.cache_hits++;
        return true;
    }
    ftl->ctr.cache_misses++;
    s = take_slot(ftl);
    rc->slot[s].lpn = lpn;
    rc->slot[s].ref = 1;
    rc->slot_of[lpn] = s;
    if (listed(rc)) {
        list_push(rc, s, 0);
    }
    return false;
}

void ftl_cache_drop(struct ftl *ftl, uint32_t lpn)
{
    struct ftl_cache *rc = &ftl->rc;
    uint32_t s = rc->slot_of[lpn];

    if (s == FTL_NONE) {
        return;
    }
    if (listed(rc)) {
        list_unlink(rc, s);
    }
    rc->slot_of[lpn] = FTL_NONE;
    rc->slot[s].lpn = FTL_NONE;
    rc->slot[s].ref = 0;
    /* the free stack reuses next; a clock hand passing a dropped slot
     * finds it clear and takes it only through the stack */
    rc->slot[s].next = rc->free_head;
    rc->free_head = s;
    rc->nfree++;
}

uint64_t ftl_cache_pages(const struct ftl *ftl)
{
    return ftl->rc.cap;
}

uint64_t ftl_cache_meta_bytes(const struct ftl *ftl)
{
    if (!ftl->rc.cap) {
        return 0;
    }
    return (uint64_t)ftl->rc.cap * sizeof(struct ftl_cache_slot) +
           (uint64_t)ftl->lpages * sizeof(uint32_t);
}
