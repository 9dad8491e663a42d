/*
 * The DRAM write cache (write_cache_mb, wcache.c): a write with room is
 * done when its data is in the cache (plus the link transfer), a full
 * cache makes writes wait for NAND, Flush and FUA wait for the destages,
 * re-writes and reads hit the cache, and what is destaged goes through
 * the FTL (mapping, GC, counters) as a direct write would.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "test.h"

#define RD 40000u
#define WR 200000u

/* small_cfg: 4 LUNs, 4 KiB pages, 1024 logical pages; a 1 MiB cache
 * holds 256 of them. */
static struct ftl *mk(uint32_t wc_mb, uint32_t pcie_mbps)
{
    struct ftl_config c;

    small_cfg(&c);
    c.write_cache_mb = wc_mb;
    c.pcie_bandwidth_mbps = pcie_mbps;
    return must_new(&c);
}

static uint64_t wp(struct ftl *f, uint32_t lpn, uint32_t n, uint64_t now)
{
    return ftl_write(f, (uint64_t)lpn * 8, n * 8, FTL_PID_NONE, now);
}

static struct ftl_counters ctr(struct ftl *f)
{
    struct ftl_counters c;

    ftl_get_counters(f, &c);
    return c;
}

/* none by default: nothing changes */
static void test_default_none(void)
{
    struct ftl_config c;
    struct ftl *f;

    ftl_config_default(&c);
    CHECK_EQ(c.write_cache_mb, 0);
    f = mk(0, 0);
    CHECK_EQ(ftl_wcache_pages(f), 0);
    CHECK(!ftl_wcache_on(f));
    CHECK_EQ(wp(f, 0, 1, 1000), 1000 + WR);
    CHECK_EQ(ftl_flush(f, 5000), 5000);
    CHECK_EQ(ftl_write_fua(f, 8, 8, FTL_PID_NONE, 2000000), 2000000 + WR);
    CHECK_EQ(ftl_wcache_set(f, false, 7), 7);
    CHECK_EQ(ctr(f).wc_host_pages, 0);
    CHECK_EQ(ctr(f).wc_flushes, 0);
    ftl_free(f);
}

/* with room: the write is done at its arrival, plus the transfer over the
 * link; without the cache it waits for the program */
static void test_latency_with_room(void)
{
    struct ftl *f = mk(1, 2000);    /* 4096 B at 2000 MB/s: 2048 ns */
    struct ftl *g = mk(0, 2000);

    CHECK_EQ(ftl_wcache_pages(f), 256);
    CHECK(ftl_wcache_on(f));
    CHECK_EQ(ftl_host_costs(f, true, 4096, wp(f, 0, 1, 1000)), 1000 + 2048);
    CHECK_EQ(ftl_host_costs(g, true, 4096, wp(g, 0, 1, 1000)),
             1000 + WR + 2048);
    /* a burst smaller than the cache at QD1: every write in transfer time */
    for (uint32_t i = 1; i < 200; i++) {
        uint64_t t = 1000000 + (uint64_t)i * 100000;

        CHECK_EQ(ftl_host_costs(f, true, 4096, wp(f, i, 1, t)), t + 2048);
    }
    CHECK_EQ(ctr(f).wc_full_waits, 0);
    CHECK_EQ(ctr(f).wc_host_pages, 200);
    /* destaged in the background as time went on: 4 LUNs, 200 us a page,
     * so at 100 us a write the destager keeps up */
    CHECK(ctr(f).wc_destaged >= 196);
    CHECK_EQ(ctr(f).host_pages_written, ctr(f).wc_destaged);
    CHECK_INVARIANTS(f);
    ftl_free(f);
    ftl_free(g);
}

/* full: each write waits until the oldest cached page is on NAND, so
 * writes go at the NAND's pace (4 LUNs: 4 pages per program time) */
static void test_full_waits(void)
{
    struct ftl *f = mk(1, 0);
    uint64_t want[8] = { WR, WR, WR, WR, 2 * WR, 2 * WR, 2 * WR, 2 * WR };

    CHECK_EQ(wp(f, 0, 256, 0), 0);          /* fills it, no wait */
    CHECK_EQ(ftl_wcache_dirty(f, 0), 256);
    for (uint32_t i = 0; i < 8; i++) {
        CHECK_EQ(wp(f, 300 + i, 1, 0), want[i]);
    }
    CHECK_EQ(ctr(f).wc_full_waits, 8);
    /* a multi-page write that waits counts once */
    CHECK_EQ(wp(f, 400, 4, 0), 3 * WR);
    CHECK_EQ(ctr(f).wc_full_waits, 9);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/* Flush: done when the last destage is; nothing dirty after it */
static void test_flush_waits(void)
{
    struct ftl *f = mk(1, 0);

    CHECK_EQ(wp(f, 0, 8, 0), 0);
    CHECK_EQ(ftl_wcache_dirty(f, 0), 8);
    /* 8 pages on 4 LUNs: two programs each */
    CHECK_EQ(ftl_flush(f, 0), 2 * WR);
    CHECK_EQ(ftl_wcache_dirty(f, WR), 4);
    CHECK_EQ(ftl_wcache_dirty(f, 2 * WR), 0);
    CHECK_EQ(ctr(f).wc_destaged, 8);
    CHECK_EQ(ctr(f).host_pages_written, 8);
    CHECK_EQ(ctr(f).host_pages_programmed, 8);
    CHECK_EQ(ctr(f).wc_flushes, 1);
    /* nothing cached: a flush is done at once */
    CHECK_EQ(ftl_flush(f, 3 * WR), 3 * WR);
    /* a flush arriving while destages are in flight waits for them */
    CHECK_EQ(wp(f, 100, 1, 4 * WR), 4 * WR);
    CHECK_EQ(ftl_flush(f, 4 * WR + 10), 5 * WR);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/* FUA: the write waits for its own pages on NAND (and, destaging in
 * arrival order, for the pages cached before it) */
static void test_fua(void)
{
    struct ftl *f = mk(1, 0);

    CHECK_EQ(ftl_write_fua(f, 0, 4 * 8, FTL_PID_NONE, 0), WR);
    CHECK_EQ(ftl_wcache_dirty(f, WR), 0);
    CHECK_EQ(wp(f, 10, 4, 10 * WR), 10 * WR);
    CHECK_EQ(ftl_write_fua(f, 20 * 8, 8, FTL_PID_NONE, 10 * WR), 12 * WR);
    CHECK_EQ(ftl_wcache_dirty(f, 12 * WR), 0);
    ftl_free(f);
}

/* a re-write of a page still in the cache replaces it: one program for
 * two host writes; reads of cached pages come from DRAM */
static void test_hits(void)
{
    struct ftl *f = mk(1, 0);
    struct ftl_counters c;

    /* 8 pages: the idle destager takes 4 at once (one per LUN), the
     * other 4 wait in the cache */
    CHECK_EQ(wp(f, 0, 8, 0), 0);
    CHECK_EQ(wp(f, 5, 1, 0), 0);
    CHECK_EQ(ftl_read(f, 5 * 8, 8, 0), 0);    /* DRAM: no NAND read */
    c = ctr(f);
    CHECK_EQ(c.wc_host_pages, 9);
    CHECK_EQ(c.wc_write_hits, 1);
    CHECK_EQ(c.wc_read_hits, 1);
    CHECK_EQ(c.host_pages_read, 0);
    CHECK_EQ(ftl_flush(f, 0), 2 * WR);
    c = ctr(f);
    CHECK_EQ(c.wc_destaged, 8);
    CHECK_EQ(c.host_pages_programmed, 8);
    /* on NAND and out of the cache: a NAND read */
    CHECK_EQ(ftl_read(f, 5 * 8, 8, 10 * WR), 10 * WR + RD);
    CHECK_EQ(ctr(f).host_pages_read, 1);
    /* a page being destaged is not re-written in place: a new entry */
    CHECK_EQ(wp(f, 6, 1, 20 * WR), 20 * WR);
    CHECK_EQ(ftl_flush(f, 20 * WR), 21 * WR);
    CHECK_EQ(wp(f, 6, 1, 20 * WR + 1), 20 * WR + 1);
    CHECK_EQ(ctr(f).wc_write_hits, 1);
    /* the next LUN of the write pointer is idle */
    CHECK_EQ(ftl_flush(f, 20 * WR + 1), 21 * WR + 1);
    CHECK_EQ(ctr(f).wc_destaged, 10);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/* background destage: a later call finds earlier pages on NAND, mapped */
static void test_background(void)
{
    struct ftl *f = mk(1, 0);

    CHECK_EQ(wp(f, 0, 1, 0), 0);
    CHECK_EQ(ftl_map_get(f, 0), FTL_NONE);     /* only in DRAM */
    CHECK_EQ(wp(f, 1, 1, 10 * WR), 10 * WR);
    CHECK(ftl_map_get(f, 0) != FTL_NONE);
    CHECK_EQ(ctr(f).wc_destaged, 1);
    CHECK_EQ(ftl_wcache_dirty(f, 10 * WR), 1);
    ftl_free(f);
}

/* deallocating a page still in the cache: it is never programmed */
static void test_trim_pending(void)
{
    struct ftl *f = mk(1, 0);

    CHECK_EQ(wp(f, 3, 1, 0), 0);
    ftl_trim(f, 3 * 8, 8);
    CHECK_EQ(ftl_read(f, 3 * 8, 8, 0), 0);
    CHECK_EQ(ctr(f).wc_read_hits, 0);
    CHECK_EQ(ftl_flush(f, 0), 0);
    CHECK_EQ(ctr(f).wc_destaged, 0);
    CHECK_EQ(ftl_map_get(f, 3), FTL_NONE);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/* turning the cache off flushes it; then writes wait for NAND */
static void test_off_on(void)
{
    struct ftl *f = mk(1, 0);

    CHECK_EQ(wp(f, 0, 2, 0), 0);
    CHECK_EQ(ftl_wcache_set(f, false, 0), WR);
    CHECK(!ftl_wcache_on(f));
    CHECK_EQ(ftl_wcache_dirty(f, WR), 0);
    CHECK_EQ(wp(f, 10, 1, 10 * WR), 11 * WR);
    CHECK_EQ(ftl_wcache_set(f, true, 20 * WR), 20 * WR);
    CHECK_EQ(wp(f, 11, 1, 20 * WR), 20 * WR);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/*
 * What reaches NAND goes through the FTL: random overwrites of twice the
 * namespace with a cache and a flush give GC and invariants that hold, and
 * a sequential fill gives the same counters as without a cache.
 */
static void test_through_ftl(void)
{
    struct ftl *f = mk(1, 0), *g = mk(0, 0);
    struct ftl_counters a, b;
    uint64_t t = 0, seed = 7;

    for (uint32_t i = 0; i < 1024; i += 4) {
        wp(f, i, 4, t);
        wp(g, i, 4, t);
        t += 100000;
    }
    ftl_flush(f, t);
    a = ctr(f);
    b = ctr(g);
    CHECK_EQ(a.host_pages_written, b.host_pages_written);
    CHECK_EQ(a.host_pages_programmed, b.host_pages_programmed);
    CHECK_EQ(ftl_waf_x1000(f), 1000);
    CHECK_EQ(ftl_mapped_pages(f), 1024);
    for (uint32_t i = 0; i < 2048; i++) {
        uint32_t lpn = (uint32_t)(ftl_rng_next(&seed) % 1024);

        CHECK(wp(f, lpn, 1, t) != FTL_TIME_ERROR);
        t += 1000;
    }
    CHECK(ftl_flush(f, t) != FTL_TIME_ERROR);
    a = ctr(f);
    CHECK(a.gc_pages_moved > 0);
    CHECK(ftl_waf_x1000(f) > 1000);
    CHECK_EQ(a.wc_host_pages, 1024 + 2048);
    CHECK_EQ(a.wc_destaged + a.wc_write_hits, a.wc_host_pages);
    CHECK_EQ(ftl_mapped_pages(f), 1024);
    CHECK_INVARIANTS(f);
    ftl_free(f);
    ftl_free(g);
}

static void test_validate(void)
{
    struct ftl_config c;
    char err[256];

    small_cfg(&c);
    c.write_cache_mb = 5;   /* the namespace is 4 MiB */
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "write_cache_mb=5 exceeds the namespace");
}

static void note_lost(void *opaque, uint32_t lpn)
{
    uint64_t *mask = opaque;

    if (lpn < 64) {
        *mask |= UINT64_C(1) << lpn;
    }
}

/* a power cut loses the pages not destaged yet: their mapping is the
 * previous one (or none), those whose program started keep the new one */
static void test_power_cut(void)
{
    struct ftl *f = mk(1, 0);
    uint64_t mask = 0;
    uint32_t old5;

    CHECK_EQ(wp(f, 5, 1, 0), 0);
    CHECK_EQ(ftl_flush(f, 0), WR);          /* lpn 5 durable */
    old5 = ftl_map_get(f, 5);
    CHECK(old5 != FTL_NONE);
    /* lpns 0-7 at 10 WR: 0-3 start at once (one per LUN), 4-7 wait */
    CHECK_EQ(wp(f, 0, 8, 10 * WR), 10 * WR);
    CHECK(!ftl_wcache_pending(f, 0, 10 * WR));
    CHECK(ftl_wcache_pending(f, 5, 10 * WR));
    CHECK_EQ(ftl_map_get(f, 5), old5);
    CHECK_EQ(ftl_wcache_power_cut(f, 10 * WR, note_lost, &mask), 4);
    CHECK_EQ(mask, 0xf0);
    CHECK_EQ(ctr(f).wc_power_cuts, 1);
    CHECK_EQ(ctr(f).wc_lost_pages, 4);
    for (uint32_t l = 0; l < 4; l++) {
        CHECK(ftl_map_get(f, l) != FTL_NONE);
    }
    /* lost: the previous copy (lpn 5) or none */
    CHECK_EQ(ftl_map_get(f, 4), FTL_NONE);
    CHECK_EQ(ftl_map_get(f, 5), old5);
    CHECK_EQ(ftl_map_get(f, 6), FTL_NONE);
    CHECK_EQ(ftl_map_get(f, 7), FTL_NONE);
    CHECK_EQ(ftl_wcache_dirty(f, 10 * WR), 0);
    CHECK_EQ(ftl_flush(f, 20 * WR), 20 * WR);    /* nothing left */
    CHECK(ftl_wcache_on(f));
    CHECK_EQ(wp(f, 9, 1, 30 * WR), 30 * WR);     /* caching again */
    CHECK_INVARIANTS(f);
    ftl_free(f);
    /* without a cache: counted, nothing lost */
    f = mk(0, 0);
    CHECK_EQ(wp(f, 0, 8, 0), WR * 2);
    CHECK_EQ(ftl_wcache_power_cut(f, 0, note_lost, &mask), 0);
    CHECK_EQ(ctr(f).wc_power_cuts, 1);
    CHECK_EQ(ctr(f).wc_lost_pages, 0);
    CHECK_EQ(ftl_mapped_pages(f), 8);
    ftl_free(f);
}

int main(void)
{
    RUN(test_default_none);
    RUN(test_latency_with_room);
    RUN(test_full_waits);
    RUN(test_flush_waits);
    RUN(test_fua);
    RUN(test_hits);
    RUN(test_background);
    RUN(test_trim_pending);
    RUN(test_off_on);
    RUN(test_through_ftl);
    RUN(test_validate);
    RUN(test_power_cut);
    return test_done("wcache");
}
