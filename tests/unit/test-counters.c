/*
 * Counters (log page C0h, FDP statistics) and determinism.
 */
#include <stdlib.h>

#include "test.h"

static void test_fill_waf(void)
{
    struct ftl_config c;
    struct ftl *f;
    uint64_t nwrites;

    tut02_cfg(&c);
    f = must_new(&c);
    CHECK_EQ(ftl_waf_x1000(f), 1000); /* nothing written yet */
    /* fio bs=128k over the whole namespace: 13107 whole writes */
    nwrites = ftl_ns_blocks(f) / 256;
    CHECK_EQ(nwrites, 13107);
    for (uint64_t i = 0; i < nwrites; i++) {
        CHECK(ftl_write(f, i * 256, 256, FTL_PID_NONE, 0) != FTL_TIME_ERROR);
        ftl_background_gc(f, 0);
    }
    CHECK_EQ(ftl_waf_x1000(f), 1000);
    CHECK_EQ(f->ctr.host_pages_written, 419424);
    CHECK_EQ(f->ctr.gc_pages_moved, 0);
    CHECK_EQ(f->ctr.host_pages_programmed, 419424);
    CHECK_EQ(f->ctr.fdp_hbmw, 419424ull * 4096);
    /* a read back of everything reads every page once */
    for (uint64_t i = 0; i < nwrites; i++) {
        ftl_read(f, i * 256, 256, 0);
    }
    CHECK_EQ(f->ctr.host_pages_read, 419424);
    ftl_reset_counters(f);
    {
        struct ftl_counters z, got;
        memset(&z, 0, sizeof(z));
        ftl_get_counters(f, &got);
        CHECK(memcmp(&z, &got, sizeof(z)) == 0);
    }
    CHECK_EQ(ftl_waf_x1000(f), 1000);
    ftl_free(f);
}

/* Random overwrites: WAF = (programmed + moved) x 1000 / written, and the
 * erase counters agree with the lines collected. */
static void run(uint64_t seed, enum ftl_gc_policy pol, struct ftl_counters *o,
                uint32_t *waf)
{
    struct ftl_config c;
    struct ftl *f;
    uint64_t s = seed, now = 0;

    small_cfg(&c);
    c.devsz_mb = 6;
    c.gc_policy = pol;
    c.seed = seed;
    f = must_new(&c);
    for (int i = 0; i < 30000; i++) {
        uint32_t lpn = (uint32_t)(trand(&s) % ftl_logical_pages(f));
        now = wpage(f, lpn, now);
        ftl_background_gc(f, now);
    }
    ftl_get_counters(f, o);
    *waf = ftl_waf_x1000(f);
    CHECK_EQ(o->host_pages_written, 30000);
    CHECK_EQ(o->host_pages_programmed, 30000);
    CHECK_EQ(*waf, (o->host_pages_programmed + o->gc_pages_moved) * 1000 /
                       o->host_pages_written);
    CHECK(*waf > 1000);
    CHECK_EQ(o->blocks_erased, o->gc_lines_collected * f->blks_per_line);
    CHECK_EQ(o->fdp_mbe, o->gc_lines_collected * ftl_line_bytes(f));
    CHECK_EQ(o->fdp_mbmw, (o->host_pages_programmed + o->gc_pages_moved) *
                              4096);
    ftl_free(f);
}

static void test_waf_and_determinism(void)
{
    struct ftl_counters a, b;
    uint32_t wa, wb;

    for (int p = 0; p <= FTL_GC_DCHOICE; p++) {
        run(3, (enum ftl_gc_policy)p, &a, &wa);
        run(3, (enum ftl_gc_policy)p, &b, &wb);
        /* the same seed gives the same run */
        CHECK(memcmp(&a, &b, sizeof(a)) == 0);
        CHECK_EQ(wa, wb);
    }
    /* the random policy follows its seed */
    {
        struct ftl_config c;
        struct ftl *f1, *f2;
        int differ = 0;
        small_cfg(&c);
        c.gc_policy = FTL_GC_RANDOM;
        for (int k = 0; k < 2; k++) {
            c.seed = 10;
            f1 = must_new(&c);
            c.seed = k ? 10 : 11;
            f2 = must_new(&c);
            for (uint32_t lpn = 0; lpn < 8 * f1->ppl; lpn++) {
                wpage(f1, lpn, 0);
                wpage(f2, lpn, 0);
            }
            /* one invalid page per line: all 8 are victim candidates */
            for (uint32_t l = 0; l < 8; l++) {
                tpage(f1, l * f1->ppl);
                tpage(f2, l * f2->ppl);
            }
            differ = 0;
            for (int i = 0; i < 50; i++) {
                differ += ftl_gc_pick_victim(f1) != ftl_gc_pick_victim(f2);
            }
            CHECK(k ? differ == 0 : differ > 0);
            ftl_free(f1);
            ftl_free(f2);
        }
    }
}

int main(void)
{
    RUN(test_fill_waf);
    RUN(test_waf_and_determinism);
    return test_done("test-counters");
}
