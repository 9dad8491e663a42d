/*
 * NAND timing model: LUN contention, channel transfers, GC
 * delay on/off, delay emulation off and built-in, and page counts that do
 * not depend on timing.
 */
#include <stdlib.h>

#include "test.h"

#define RD 40000u
#define WR 200000u
#define ER 2000000u

static struct ftl *mk(uint32_t nchs, uint32_t luns, uint64_t xfer)
{
    struct ftl_config c;

    small_cfg(&c);
    c.nchs = nchs;
    c.luns_per_ch = luns;
    c.ch_xfer_lat = xfer;
    if (nchs * luns < 4) {
        c.blks_per_pl = 64;
        c.pgs_per_blk = 32;
    }
    return must_new(&c);
}

static void test_basic(void)
{
    struct ftl *f = mk(2, 2, 0);

    /* one page: program latency after arrival */
    CHECK_EQ(wpage(f, 0, 1000), 1000 + WR);
    /* 4 pages stripe over 4 LUNs: they overlap */
    CHECK_EQ(ftl_write(f, 8, 32, FTL_PID_NONE, 1000000), 1000000 + WR);
    /* 5 pages: the fifth waits for its LUN */
    CHECK_EQ(ftl_write(f, 64, 40, FTL_PID_NONE, 2000000), 2000000 + 2 * WR);
    /* read: LUN busy for pg_rd_lat; unmapped pages cost nothing */
    CHECK_EQ(ftl_read(f, 0, 8, 5000000), 5000000 + RD);
    CHECK_EQ(ftl_read(f, 4000, 8, 5000000), 5000000);
    /* a read arriving while its LUN programs waits for it */
    CHECK_EQ(wpage(f, 200, 6000000), 6000000 + WR);
    CHECK_EQ(ftl_read(f, 200 * 8, 8, 6000000 + 1000), 6000000 + WR + RD);
    /* two reads of pages on different LUNs overlap */
    CHECK_EQ(ftl_read(f, 8, 16, 9000000), 9000000 + RD);
    /* two reads of the same LUN queue */
    CHECK_EQ(ftl_read(f, 0, 8, 10000000), 10000000 + RD);
    CHECK_EQ(ftl_read(f, 0, 8, 10000000), 10000000 + 2 * RD);
    ftl_free(f);
}

static void test_channel(void)
{
    /* 1 channel, 2 LUNs, 10 us transfer */
    struct ftl *f = mk(1, 2, 10000);

    /* program: channel transfer, then the LUN */
    CHECK_EQ(wpage(f, 0, 0), 10000 + WR);
    /* two pages, two LUNs, one channel: transfers serialise */
    CHECK_EQ(ftl_write(f, 8, 16, FTL_PID_NONE, 1000000),
             1000000 + 2 * 10000 + WR);
    /* read: LUNs in parallel, then the transfers one after the other */
    CHECK_EQ(ftl_read(f, 8, 16, 2000000), 2000000 + RD + 2 * 10000);
    ftl_free(f);
}

/* Collect one line at time T with GC delay on or off, then read a page
 * on LUN 0 right after T. */
static uint64_t read_after_gc(bool gc_delay)
{
    struct ftl *f = mk(2, 2, 0);

    uint64_t t;
    ftl_set_gc_delay(f, gc_delay);
    for (uint32_t lpn = 0; lpn < 2 * f->ppl; lpn++) {
        wpage(f, lpn, 0);
    }
    for (uint32_t i = 1; i < f->ppl; i++) {
        tpage(f, i); /* line 0 keeps lpn 0 only */
    }
    CHECK_EQ(ftl_gc_collect(f, 0, 100000000), 0);
    CHECK_EQ(f->ctr.gc_pages_moved, 1);
    t = ftl_read(f, f->ppl * 8, 8, 100000000 + 1); /* lpn on LUN 0 */
    ftl_free(f);
    return t;
}

static void test_gc_delay(void)
{
    /* on: the read waits for GC's read, program and erase on LUN 0 */
    CHECK_EQ(read_after_gc(true), 100000000 + RD + WR + ER + RD);
    /* off: GC takes no NAND time */
    CHECK_EQ(read_after_gc(false), 100000000 + 1 + RD);
}

static void test_delay_modes(void)
{
    struct ftl_config c;
    struct ftl *f;

    small_cfg(&c);
    c.pg_wr_lat = 50000;
    c.pg_rd_lat = 5000;
    c.ch_xfer_lat = 3000;
    f = must_new(&c);
    CHECK_EQ(wpage(f, 0, 0), 3000 + 50000);
    /* 0xEF code 4: every NAND time 0, completion = arrival */
    ftl_set_delay_mode(f, FTL_DELAY_OFF);
    CHECK_EQ(wpage(f, 1, 10), 10);
    CHECK_EQ(ftl_read(f, 0, 8, 20), 20);
    /* 0xEF code 3: built-in 40/200/2000 us, no transfer time */
    ftl_set_delay_mode(f, FTL_DELAY_BUILTIN);
    CHECK_EQ(wpage(f, 2, 1000000), 1000000 + WR);
    CHECK_EQ(ftl_read(f, 2 * 8, 8, 2000000), 2000000 + RD);
    /* back to the configured times */
    ftl_set_delay_mode(f, FTL_DELAY_CONFIGURED);
    CHECK_EQ(wpage(f, 3, 5000000), 5000000 + 3000 + 50000);
    ftl_free(f);
}

/* The same workload under every timing setting: same page counts. */
static void run_counts(int mode, struct ftl_counters *out)
{
    struct ftl_config c;
    struct ftl *f;
    uint64_t s = 5, now = 0;

    small_cfg(&c);
    c.devsz_mb = 6;
    f = must_new(&c);
    if (mode == 1) {
        ftl_set_gc_delay(f, false);
    } else if (mode == 2) {
        ftl_set_delay_mode(f, FTL_DELAY_OFF);
    } else if (mode == 3) {
        ftl_set_delay_mode(f, FTL_DELAY_BUILTIN);
    }
    for (int i = 0; i < 20000; i++) {
        uint32_t lpn = (uint32_t)(trand(&s) % ftl_logical_pages(f));
        uint64_t t = wpage(f, lpn, now);
        now = t > now ? t : now;
        ftl_background_gc(f, now);
    }
    ftl_get_counters(f, out);
    ftl_free(f);
}

static void test_counts_independent(void)
{
    struct ftl_counters a, b;

    run_counts(0, &a);
    CHECK(a.gc_pages_moved > 0);
    for (int m = 1; m < 4; m++) {
        run_counts(m, &b);
        CHECK(memcmp(&a, &b, sizeof(a)) == 0);
    }
}

int main(void)
{
    RUN(test_basic);
    RUN(test_channel);
    RUN(test_gc_delay);
    RUN(test_delay_modes);
    RUN(test_counts_independent);
    return test_done("test-timing");
}
