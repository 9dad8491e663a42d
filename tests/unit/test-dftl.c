/*
 * mapping=dftl: translation pages on NAND and their cache.  A miss reads
 * the translation page before the data, a dirty eviction programs one,
 * GC relocates translation pages and updates the uncached ones of the
 * data it moves; the invariants hold through random writes, trims and
 * reads; translation programs count in the WAF; the reserve rule counts
 * the translation pages.
 */
#include <stdlib.h>

#include "test.h"

/* 2 x 2 LUNs x 128 lines x 1024 pages: 2 GiB NAND, 1.6 GiB namespace
 * (op_pcent 25), 410 translation pages of 1024 entries; a 1 MiB cache
 * holds 256 of them */
static void dftl_cfg(struct ftl_config *c)
{
    geo_cfg(c, 2, 2, 128);
    c->pgs_per_blk = 1024;
    c->op_pcent = 25;
    c->gc_thres_pcent = 90;
    c->mapping = FTL_MAP_DFTL;
    c->mapping_cache_mb = 1;
}

static void test_geometry(void)
{
    struct ftl_config c;
    struct ftl *f;

    dftl_cfg(&c);
    f = must_new(&c);
    CHECK_EQ(f->dftl.ntp, (f->lpages + 1023) / 1024);
    CHECK_EQ(f->dftl.ntp, 410);
    CHECK_EQ(f->dftl.cap, 256);
    CHECK_EQ(ftl_mapped_pages(f), 0);
    ftl_free(f);
    /* page mapping has none */
    c.mapping = FTL_MAP_PAGE;
    f = must_new(&c);
    CHECK_EQ(f->dftl.ntp, 0);
    ftl_free(f);
}

/* Timing: a miss on a written translation page reads it first. */
static void test_miss_costs(void)
{
    struct ftl_config c;
    struct ftl *f;
    uint64_t t = 0;
    struct ftl_counters k;

    dftl_cfg(&c);
    f = must_new(&c);
    /* lpn 0: its translation page was never written: no read; the data
     * program alone */
    CHECK_EQ(wpage(f, 0, 0), 200000);
    /* a hit costs nothing: the data read alone */
    t = 10000000;
    CHECK_EQ(ftl_read(f, 0, 8, t) - t, 40000);
    /* fill the cache with 256 other translation pages (dirty: written),
     * evicting page 0's: it is programmed */
    for (uint32_t tp = 1; tp <= 256; tp++) {
        t += 10000000;
        wpage(f, tp * 1024, t);
    }
    ftl_get_counters(f, &k);
    CHECK_EQ(k.trans_pages_programmed, 1);
    CHECK_EQ(k.map_cache_misses, 257);
    CHECK_EQ(f->dftl.on_nand, 1);
    /* now lpn 0 misses: the eviction it makes writes a dirty page back
     * (200 us), then the translation page is read (40 us), then the data
     * (40 us) */
    t += 10000000;
    CHECK_EQ(ftl_read(f, 0, 8, t) - t, 280000);
    ftl_get_counters(f, &k);
    CHECK_EQ(k.trans_pages_read, 1);
    CHECK_EQ(k.trans_pages_programmed, 2);
    CHECK_EQ(ftl_mapped_pages(f), 257);
    /* WAF: (257 host + 2 translation programs) / 257 */
    CHECK_EQ(ftl_waf_x1000(f), 259 * 1000 / 257);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/* Random writes, trims and reads over 3x the namespace with GC: the
 * invariants hold (translation pages relocated by GC are found at their
 * new place), translation pages are read and programmed, and the counts
 * add up. */
static void test_random_run(void)
{
    struct ftl_config c;
    struct ftl *f;
    uint64_t s = 7, t = 0;
    struct ftl_counters k;

    dftl_cfg(&c);
    f = must_new_untimed(&c);
    for (uint32_t lpn = 0; lpn < f->lpages; lpn++) {
        wpage(f, lpn, 0);
    }
    for (uint64_t i = 0; i < 3 * (uint64_t)f->lpages; i++) {
        uint32_t lpn = (uint32_t)(trand(&s) % f->lpages);
        uint64_t r = trand(&s) % 100;

        if (r < 2) {
            tpage(f, lpn);
        } else if (r < 20) {
            ftl_read(f, (uint64_t)lpn * 8, 8, t);
        } else {
            CHECK(wpage(f, lpn, t) != FTL_TIME_ERROR);
        }
        ftl_background_gc(f, t);
        if (i % 400000 == 0) {
            CHECK_INVARIANTS(f);
        }
    }
    CHECK_INVARIANTS(f);
    ftl_get_counters(f, &k);
    CHECK(k.gc_lines_collected > 0);
    CHECK(k.trans_pages_read > 0);
    CHECK(k.trans_pages_programmed > k.map_cache_misses / 2);
    CHECK_EQ(f->dftl.on_nand, f->dftl.ntp);
    printf("# dftl random run: %" PRIu64 " hits, %" PRIu64 " misses, %"
           PRIu64 " translation reads, %" PRIu64 " programs, %" PRIu64
           " GC moves, WAF x1000 %u\n", k.map_cache_hits, k.map_cache_misses,
           k.trans_pages_read, k.trans_pages_programmed, k.gc_pages_moved,
           ftl_waf_x1000(f));
    ftl_free(f);
}

/*
 * GC relocates a valid translation page like a data page and the
 * translation directory follows it.  The sequential fill evicts (writes)
 * the translation pages of the namespace's start while it writes its last
 * pages, so those pages share lines with the last 100000 data pages;
 * hot writes to these empty the lines and GC must move the (cold)
 * translation pages out.  (Under uniform writes over the whole namespace
 * every translation page is rewritten long before its line is
 * collected.)
 */
static void test_gc_relocates(void)
{
    struct ftl_config c;
    struct ftl *f;
    uint64_t s = 3;
    uint32_t found = 0;

    dftl_cfg(&c);
    f = must_new_untimed(&c);
    for (uint32_t lpn = 0; lpn < f->lpages; lpn++) {
        wpage(f, lpn, 0);
    }
    for (uint32_t i = 0; i < 600000 && found < 4; i++) {
        uint32_t v, tps[64], old[64], n = 0;

        CHECK(wpage(f, f->lpages - 1 - (uint32_t)(trand(&s) % 100000), 0) !=
              FTL_TIME_ERROR);
        if (i % 500) {
            continue;
        }
        v = ftl_gc_pick_victim(f);
        if (v == FTL_NONE) {
            continue;
        }
        for (uint32_t q = 0; q < f->ppl && n < 64; q++) {
            uint32_t ppa = v * f->ppl + q;

            if (ftl_page_valid(f, ppa) && f->rmap[ppa] >= f->lpages) {
                tps[n] = f->rmap[ppa] - f->lpages;
                old[n++] = ppa;
            }
        }
        if (n == 0) {
            continue;
        }
        CHECK_EQ(ftl_gc_collect(f, v, 0), 0);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t now = f->dftl.gtd[tps[k]];

            CHECK(now != old[k]);
            CHECK(ftl_page_valid(f, now));
            CHECK_EQ(f->rmap[now], f->lpages + tps[k]);
        }
        CHECK_INVARIANTS(f);
        found++;
    }
    CHECK(found > 0);
    printf("# %u victims held translation pages\n", found);
    ftl_free(f);
}

/* The reserve rule counts the translation pages; bad settings refused. */
static void test_refused(void)
{
    struct ftl_config c;
    char err[512];

    dftl_cfg(&c);
    c.mapping_cache_mb = 0;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "mapping_cache_mb=0");
    dftl_cfg(&c);
    c.mapping_cache_mb = 2000;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "mapping_cache_mb=2000 exceeds the namespace");
    dftl_cfg(&c);
    c.fdp_nruh = 2;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "mapping=dftl: not with FDP");
    dftl_cfg(&c);
    c.mapping = 5;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "mapping=5: unknown");
    /* the largest namespace page mapping accepts leaves no room for the
     * translation pages */
    dftl_cfg(&c);
    c.op_pcent = -1;
    c.mapping = FTL_MAP_PAGE;
    c.devsz_mb = 1;
    for (uint64_t mb = 1; mb < 2048; mb++) {
        c.devsz_mb = mb;
        if (ftl_config_validate(&c, err, sizeof(err)) < 0) {
            c.devsz_mb = mb - 1;
            break;
        }
    }
    CHECK(ftl_config_validate(&c, err, sizeof(err)) == 0);
    c.mapping = FTL_MAP_DFTL;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "devsz_mb=");
}

int main(void)
{
    RUN(test_geometry);
    RUN(test_miss_costs);
    RUN(test_random_run);
    RUN(test_gc_relocates);
    RUN(test_refused);
    return test_done("test-dftl");
}
