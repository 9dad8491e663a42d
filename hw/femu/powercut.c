/*
 * FEMU: power loss with the write cache (write_cache_mb): 0xEF code 12
 * and power_cut_after=N cut the power.
 *
 * The data store receives a write's data at submission; the FTL's write
 * cache (hw/femu/ftl/wcache.c) knows which pages are not on NAND yet.  So
 * that a cut can give those pages back their durable content, the first
 * write that puts a page into the cache (while none of the page's data is
 * waiting there) keeps a copy of the page as the store holds it, which is
 * what is on NAND (or zeroes: never written or deallocated).  At the cut
 * the FTL names the pages whose destage had not started; each gets its
 * copy back, the FTL's mapping of them never changed.  Then the
 * controller stops: nothing more is fetched or completed, CSTS.CFS is set,
 * until a Controller Level Reset (CC.EN 0, a PCI reset, the guest
 * rebooting), which is the power coming back.
 *
 * The copies live under ftl_lock, keyed by the FTL's logical page.  A
 * Flush leaves nothing waiting, so it drops them all; without Flush, once
 * there are twice as many copies as the cache has pages, those of pages
 * that are not waiting any more are dropped.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "femu.h"
#include "trace.h"

typedef struct FemuShadow {
    FemuNamespace *ns;
    uint64_t off;       /* bytes into the namespace's store */
    uint64_t len;
    uint8_t data[];
} FemuShadow;

void femu_powercut_init(FemuCtrl *n)
{
    if (n->cfg.write_cache_mb && !n->wc_shadow) {
        n->wc_shadow = g_hash_table_new_full(g_direct_hash, g_direct_equal,
                                             NULL, g_free);
    }
}

void femu_powercut_fini(FemuCtrl *n)
{
    if (n->wc_shadow) {
        g_hash_table_destroy(n->wc_shadow);
        n->wc_shadow = NULL;
    }
}

/* ftl_lock held: nothing is waiting in the cache any more. */
void femu_powercut_flushed(FemuCtrl *n)
{
    if (n->wc_shadow) {
        g_hash_table_remove_all(n->wc_shadow);
    }
}

typedef struct FemuPrune {
    FemuCtrl *n;
    int64_t now;
} FemuPrune;

static gboolean femu_powercut_stale(gpointer key, gpointer value,
                                    gpointer opaque)
{
    FemuPrune *p = opaque;

    return !ftl_wcache_pending(p->n->ftl, GPOINTER_TO_UINT(key), p->now);
}

/*
 * ftl_lock held, before a write's data reaches the store: keep the durable
 * content of each page of [slba, slba + nlb) of ns that has none of its
 * data waiting in the cache.
 */
void femu_powercut_before_write(FemuCtrl *n, FemuNamespace *ns,
                                uint64_t slba, uint32_t nlb, int64_t now)
{
    uint64_t bpp = ((uint64_t)n->cfg.secs_per_pg * 512) >> n->lba_shift;
    uint64_t first, last;

    if (!n->wc_shadow || !ftl_wcache_on(n->ftl) || !nlb) {
        return;
    }
    first = (ns->ftl_base + slba) / bpp;
    last = (ns->ftl_base + slba + nlb - 1) / bpp;
    for (uint64_t lpn = first; lpn <= last; lpn++) {
        uint64_t start = MAX(lpn * bpp, ns->ftl_base) - ns->ftl_base;
        uint64_t end = MIN((lpn + 1) * bpp - ns->ftl_base, ns->blocks);
        FemuShadow *s;

        if (ftl_wcache_pending(n->ftl, (uint32_t)lpn, now)) {
            continue;   /* its durable content is kept already */
        }
        s = g_malloc(sizeof(*s) + ((end - start) << n->lba_shift));
        s->ns = ns;
        s->off = start << n->lba_shift;
        s->len = (end - start) << n->lba_shift;
        memcpy(s->data, ns->store.base + s->off, s->len);
        g_hash_table_replace(n->wc_shadow, GUINT_TO_POINTER(lpn), s);
    }
    if (g_hash_table_size(n->wc_shadow) > 2 * ftl_wcache_pages(n->ftl) + 64) {
        FemuPrune p = { .n = n, .now = now };

        g_hash_table_foreach_remove(n->wc_shadow, femu_powercut_stale, &p);
    }
}

/* A page the cut lost gets its durable content back. */
static void femu_powercut_lost(void *opaque, uint32_t lpn)
{
    FemuCtrl *n = opaque;
    FemuShadow *s = n->wc_shadow ?
        g_hash_table_lookup(n->wc_shadow, GUINT_TO_POINTER(lpn)) : NULL;

    if (s) {
        memcpy(s->ns->store.base + s->off, s->data, s->len);
    }
}

/* Blocks [from, to) of a zone the cut lost: they read zeroes again. */
static void femu_powercut_zone_lost(void *opaque, uint32_t zone,
                                    uint64_t from, uint64_t to)
{
    FemuCtrl *n = opaque;
    FemuNamespace *ns = femu_zns_ns(n);

    femu_store_discard(&ns->store, from << n->lba_shift,
                       (to - from) << n->lba_shift);
    trace_femu_power_cut_zone(zone, from, to);
}

/*
 * Cut the power (main loop or a poller; ftl_lock not held).  Returns
 * false if it was cut already.
 */
bool femu_power_cut(FemuCtrl *n, const char *why, bool main_loop)
{
    uint64_t lost = 0;

    if (qatomic_xchg(&n->powered_off, true)) {
        return false;
    }
    if (main_loop) {
        /*
         * A poller's write copies its data into the store between its
         * shadow copy and its FTL write, outside ftl_lock: wait for the
         * commands being executed (under each poller's lock), so no copy
         * lands in a page while the cut puts back its durable content;
         * the pollers fetch nothing more once powered_off is set.
         */
        femu_pollers_lock_all(n);
        femu_ftl_lock_main(n);
    } else {
        femu_ftl_lock(n);
    }
    if (n->ftl) {
        lost = ftl_wcache_power_cut(n->ftl, get_clock(), femu_powercut_lost,
                                    n);
        femu_powercut_flushed(n);
    }
    if (femu_zns_ns(n) && femu_zns_ns(n)->zns) {
        /* a zoned namespace's cache: each zone back to its durable
         * write pointer, the data above it gone */
        lost += zns_wcache_power_cut(femu_zns_ns(n)->zns, get_clock(),
                                     femu_powercut_zone_lost, n);
    }
    qemu_mutex_unlock(&n->ftl_lock);
    if (main_loop) {
        femu_pollers_unlock_all(n);
    }
    femu_ctrl_fatal(n);
    trace_femu_power_cut(why, lost);
    return true;
}

/* Power is back: a Controller Level Reset. */
void femu_power_restore(FemuCtrl *n)
{
    qatomic_set(&n->powered_off, false);
}
