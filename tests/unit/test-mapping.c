/*
 * Mapping table, reverse map and valid counts: invariants
 * after long random runs, reads of unmapped pages, trims, sub-page writes.
 */
#include <stdlib.h>

#include "test.h"

/* Random writes of 1..4 pages and occasional trims, all checked. */
static void random_run(enum ftl_gc_policy pol, bool hot_cold, uint32_t nruh,
                       uint64_t seed)
{
    struct ftl_config c;
    struct ftl *f;
    uint64_t s = seed, now = 0;
    uint32_t errors = 0, max_used = 0;

    small_cfg(&c);
    c.gc_policy = pol;
    c.hot_cold_sep = hot_cold;
    c.fdp_nruh = nruh;
    c.seed = seed;
    /* near the largest namespace the reserve rule accepts */
    c.devsz_mb = nruh ? 4 : 7;
    f = must_new(&c);
    for (int i = 0; i < 60000; i++) {
        uint32_t lp = ftl_logical_pages(f);
        uint64_t r = trand(&s);
        uint32_t lpn = (uint32_t)((r >> 32) % lp);
        uint32_t n = 1 + (uint32_t)(r & 3);
        if (lpn + n > lp) {
            n = lp - lpn;
        }
        if ((r >> 8) % 16 == 0) {
            ftl_trim(f, (uint64_t)lpn * 8, n * 8);
        } else {
            uint32_t pid = nruh ? (uint32_t)((r >> 16) % (nruh + 1))
                                : FTL_PID_NONE;
            uint64_t t = ftl_write(f, (uint64_t)lpn * 8, n * 8, pid, now);
            if (t == FTL_TIME_ERROR) {
                errors++;
            } else {
                now = t;
            }
        }
        ftl_background_gc(f, now);
        if (ftl_total_lines(f) - ftl_free_lines(f) > max_used) {
            max_used = ftl_total_lines(f) - ftl_free_lines(f);
        }
        if (i % 5000 == 0) {
            CHECK_INVARIANTS(f);
        }
    }
    CHECK_INVARIANTS(f);
    CHECK_EQ(errors, 0);
    /* GC moves pages but never changes how many are mapped */
    {
        uint64_t mapped = 0;
        for (uint32_t lpn = 0; lpn < ftl_logical_pages(f); lpn++) {
            mapped += ftl_map_get(f, lpn) != FTL_NONE;
        }
        CHECK_EQ(ftl_mapped_pages(f), mapped);
    }
    /* GC really ran, and never let the lines run out */
    CHECK(f->ctr.gc_lines_collected > 0);
    CHECK(max_used < ftl_total_lines(f));
    CHECK(max_used <= f->thres_high_lines + 1);
    ftl_free(f);
}

static void test_random_runs(void)
{
    for (int p = 0; p <= FTL_GC_DCHOICE; p++) {
        random_run((enum ftl_gc_policy)p, false, 0, 11 + p);
    }
    random_run(FTL_GC_GREEDY, true, 0, 3);
    random_run(FTL_GC_COST_BENEFIT, true, 0, 4);
    random_run(FTL_GC_GREEDY, false, 3, 5);
}

static void test_unmapped_and_trim(void)
{
    struct ftl_config c;
    struct ftl *f;

    small_cfg(&c);
    f = must_new(&c);
    /* never written: no NAND time, no page read */
    CHECK_EQ(ftl_read(f, 0, 64, 5000), 5000);
    CHECK_EQ(f->ctr.host_pages_read, 0);
    CHECK_EQ(ftl_mapped_pages(f), 0);
    wpage(f, 3, 0);
    CHECK_EQ(ftl_mapped_pages(f), 1);
    CHECK_EQ(ftl_read(f, 3 * 8, 8, 1000000), 1000000 + c.pg_rd_lat);
    CHECK_EQ(f->ctr.host_pages_read, 1);
    /* a trim that covers only part of the page keeps it mapped */
    ftl_trim(f, 3 * 8 + 1, 7);
    CHECK(ftl_map_get(f, 3) != FTL_NONE);
    ftl_trim(f, 3 * 8, 4);
    CHECK(ftl_map_get(f, 3) != FTL_NONE);
    CHECK_EQ(ftl_mapped_pages(f), 1);
    /* the whole page: unmapped, reads are free again */
    ftl_trim(f, 2 * 8 + 4, 12);
    CHECK(ftl_map_get(f, 3) == FTL_NONE);
    CHECK_EQ(ftl_mapped_pages(f), 0);
    CHECK_EQ(ftl_read(f, 3 * 8, 8, 2000000), 2000000);
    CHECK_INVARIANTS(f);
    /* trimming past the end is clipped, not a crash */
    ftl_trim(f, ftl_ns_blocks(f) - 8, 8);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

static void test_overwrite_and_subpage(void)
{
    struct ftl_config c;
    struct ftl *f;
    uint32_t first;

    small_cfg(&c);
    f = must_new(&c);
    /* a 512-byte write still programs one whole page */
    ftl_write(f, 5, 1, FTL_PID_NONE, 0);
    CHECK_EQ(f->ctr.host_pages_written, 1);
    CHECK_EQ(f->ctr.host_pages_programmed, 1);
    /* two blocks in two pages: two pages */
    ftl_write(f, 7, 2, FTL_PID_NONE, 0);
    CHECK_EQ(f->ctr.host_pages_written, 3);
    first = ftl_map_get(f, 0);
    ftl_write(f, 0, 8, FTL_PID_NONE, 0);
    /* a write goes to a fresh page, the old copy becomes invalid */
    CHECK(ftl_map_get(f, 0) != first);
    CHECK(!ftl_page_valid(f, first));
    CHECK(ftl_page_valid(f, ftl_map_get(f, 0)));
    CHECK_EQ(f->rmap[ftl_map_get(f, 0)], 0);
    CHECK_EQ(f->ln.line[0].vpc, 2); /* lpn 0 (new copy) and lpn 1 */
    /* lpns 0 and 1 (a 512 B write maps its page), the overwrite not twice */
    CHECK_EQ(ftl_mapped_pages(f), 2);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

static void test_write_pointer(void)
{
    struct ftl_config c;
    struct ftl *f;

    /* 2 channels x 2 LUNs x 2 planes: channel first, then LUN, plane,
     * then the page within the block */
    small_cfg(&c);
    c.pls_per_lun = 2;
    f = must_new(&c);
    for (uint32_t lpn = 0; lpn < 9; lpn++) {
        wpage(f, lpn, 0);
    }
    for (uint32_t lpn = 0; lpn < 9; lpn++) {
        uint32_t seq = ftl_map_get(f, lpn) % f->ppl;
        CHECK_EQ(ftl_map_get(f, lpn) / f->ppl, 0);
        CHECK_EQ(seq % 2, lpn % 2);             /* channel */
        CHECK_EQ((seq / 2) % 2, (lpn / 2) % 2); /* LUN */
        CHECK_EQ((seq / 4) % 2, (lpn / 4) % 2); /* plane */
        CHECK_EQ(seq / 8, lpn / 8);             /* page */
    }
    /* a full line is closed and the next free line opened */
    for (uint32_t lpn = 9; lpn < f->ppl + 1; lpn++) {
        wpage(f, lpn, 0);
    }
    CHECK_EQ(f->ln.line[0].state, FTL_LINE_CLOSED);
    CHECK_EQ(ftl_map_get(f, f->ppl) / f->ppl, 1);
    CHECK_EQ(ftl_free_lines(f), ftl_total_lines(f) - 2);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

int main(void)
{
    RUN(test_unmapped_and_trim);
    RUN(test_overwrite_and_subpage);
    RUN(test_write_pointer);
    RUN(test_random_runs);
    return test_done("test-mapping");
}
