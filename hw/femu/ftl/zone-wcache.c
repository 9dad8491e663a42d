/*
 * FEMU zoned namespace model: the controller's DRAM write cache
 * (write_cache_mb) for a zoned namespace.
 *
 * A write to a zone without a ZRWA is programmed as without the cache
 * (its pages take their LUNs from its arrival on), but the host's command
 * completes once the data is in the cache: at the transfer, or, when the
 * cache has no room for its pages, when enough older writes are on NAND.
 * The cache destages in arrival order: a write is on NAND when its
 * programs and every older write's are done.  So what a power cut loses
 * is, in each zone, everything from the oldest write not on NAND yet:
 * the zone's durable write pointer is where that write starts.
 *
 * A Flush waits for the newest write; a write with FUA for its zone's
 * newest write (its own); Finish for the zone's.  A Reset drops the
 * zone's cached writes (their data will never reach the zone: a reset
 * zone gets no stale destage); so does a zone going Offline.  A ZRWA
 * already is a buffer of the controller: its writes do not go through
 * the cache.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "ftl-int.h"
#include "hw/femu/zns.h"

static struct zns_wc_ent *ent(const struct zns *z, uint32_t i)
{
    return &z->wc.ent[(z->wc.head + i) % z->wc.size];
}

/* The writes on NAND by now leave the cache. */
static void retire(struct zns *z, uint64_t now)
{
    while (z->wc.count && ent(z, 0)->done <= now) {
        z->wc.pages -= ent(z, 0)->pages;
        z->wc.head = (z->wc.head + 1) % z->wc.size;
        z->wc.count--;
    }
}

static bool grow(struct zns *z)
{
    uint32_t nsize = z->wc.size ? 2 * z->wc.size : 64;
    struct zns_wc_ent *n = malloc(sizeof(*n) * nsize);

    if (!n) {
        return false;
    }
    for (uint32_t i = 0; i < z->wc.count; i++) {
        n[i] = *ent(z, i);
    }
    free(z->wc.ent);
    z->wc.ent = n;
    z->wc.size = nsize;
    z->wc.head = 0;
    return true;
}

uint64_t zns_wc_write(struct zns *z, uint32_t id, uint64_t start,
                      uint64_t end, uint64_t pages, uint64_t now,
                      uint64_t nand_done)
{
    uint64_t t = now, held;
    struct zns_wc_ent *e;

    retire(z, now);
    /* no room: the oldest writes must be on NAND first */
    held = z->wc.pages;
    for (uint32_t i = 0; i < z->wc.count && held + pages > z->wc.cap_pages;
         i++) {
        held -= ent(z, i)->pages;
        t = ftl_max64(t, ent(z, i)->done);
    }
    if (t > now) {
        z->wc.ctr.full_waits++;
    }
    /* in arrival order: on NAND after every older write */
    nand_done = ftl_max64(nand_done, z->wc.last_done);
    z->wc.last_done = nand_done;
    z->wc.ctr.pages_cached += pages;
    if (z->wc.count == z->wc.size && !grow(z)) {
        /* no memory to keep it: the write waits for NAND */
        return ftl_max64(t, nand_done);
    }
    e = ent(z, z->wc.count++);
    e->zone = id;
    e->start = start;
    e->end = end;
    e->pages = pages;
    e->done = nand_done;
    z->wc.pages += pages;
    return t;
}

void zns_wc_drop_zone(struct zns *z, uint32_t id)
{
    uint32_t k = 0;

    for (uint32_t i = 0; i < z->wc.count; i++) {
        struct zns_wc_ent e = *ent(z, i);

        if (e.zone == id) {
            z->wc.pages -= e.pages;
            z->wc.ctr.pages_dropped += e.pages;
            continue;
        }
        *ent(z, k++) = e;
    }
    z->wc.count = k;
}

uint64_t zns_wc_zone_done(const struct zns *z, uint32_t id, uint64_t now)
{
    uint64_t t = now;

    for (uint32_t i = 0; i < z->wc.count; i++) {
        if (ent(z, i)->zone == id) {
            t = ftl_max64(t, ent(z, i)->done);
        }
    }
    return t;
}

void zns_wc_free(struct zns *z)
{
    free(z->wc.ent);
    z->wc.ent = NULL;
    z->wc.size = z->wc.count = z->wc.head = 0;
    z->wc.pages = 0;
}

uint64_t zns_wcache_pages(const struct zns *z)
{
    return z->wc.cap_pages;
}

bool zns_wcache_on(const struct zns *z)
{
    return z->wc.on;
}

uint64_t zns_wcache_flush(struct zns *z, uint64_t now)
{
    retire(z, now);
    z->wc.ctr.flushes++;
    return z->wc.count ? ftl_max64(now, z->wc.last_done) : now;
}

uint64_t zns_wcache_zone_flush(struct zns *z, uint32_t zone, uint64_t now)
{
    retire(z, now);
    return zns_wc_zone_done(z, zone, now);
}

uint64_t zns_wcache_set(struct zns *z, bool on, uint64_t now)
{
    if (!z->wc.cap_pages) {
        return now;
    }
    z->wc.on = on;
    /* turned off: what it holds goes to NAND, as a Flush */
    return on ? now : zns_wcache_flush(z, now);
}

uint64_t zns_wcache_dirty(struct zns *z, uint64_t now)
{
    retire(z, now);
    return z->wc.pages;
}

uint64_t zns_wcache_power_cut(struct zns *z, uint64_t now,
                              void (*lost)(void *opaque, uint32_t zone,
                                           uint64_t from, uint64_t to),
                              void *opaque)
{
    uint64_t pages;

    retire(z, now);
    pages = z->wc.pages;
    /* each zone keeps what is durable: up to its oldest write left */
    for (uint32_t i = 0; i < z->wc.count; i++) {
        struct zns_wc_ent *e = ent(z, i);
        struct zns_zone *zn = &z->zone[e->zone];
        uint64_t zs = (uint64_t)e->zone * z->zone_blocks;
        uint64_t old = zn->dend;

        if (e->start >= zn->dend) {
            continue;       /* an older write of the zone rolled it back */
        }
        if (lost) {
            lost(opaque, e->zone, e->start, old);
        }
        zn->wp = zn->dend = e->start;
        if (zn->state == ZNS_READ_ONLY || zn->state == ZNS_OFFLINE) {
            continue;
        }
        /* the controller restarts: the zone is Closed at the durable
         * write pointer (Empty when nothing in it is) */
        zns_set_state(z, e->zone, e->start == zs && !zn->zdev ?
                      ZNS_EMPTY : ZNS_CLOSED);
    }
    z->wc.ctr.pages_lost += pages;
    z->wc.count = z->wc.head = 0;
    z->wc.pages = 0;
    z->wc.last_done = now;
    return pages;
}

void zns_wcache_counters(const struct zns *z, struct zns_wc_counters *c)
{
    *c = z->wc.ctr;
}
